// perf sched latency / timehist / map views (sched_views.hpp). The column layouts follow what
// perf 6.1 prints (checked against `perf sched record` on this project's build machine); the
// definitions are written out in docs/sched-views.md. Written from those definitions, not from
// perf's source.
#include "schedsim/traces/sched_views.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/topology/cpu_mask.hpp"

namespace schedsim::traces {

namespace {

// The ANSI sequences perf's coloured output uses: red text, red background, back to normal.
constexpr std::string_view kRed = "\033[31m";
constexpr std::string_view kOnRed = "\033[41m";
constexpr std::string_view kBlue = "\033[34m";
constexpr std::string_view kReset = "\033[m";

std::string usec_time(int64_t ns) {  // "18514.484974" (perf prints microseconds)
  if (ns < 0) ns = 0;
  return fmt::format("{}.{:06}", ns / 1000000000, (ns % 1000000000) / 1000);
}

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// timehist's msec columns: truncated to the microsecond, as perf prints them ("%9lu.%03lu").
std::string ms_trunc(int64_t ns) {
  if (ns < 0) ns = 0;
  return fmt::format("{:>5}.{:03}", ns / 1000000, (ns % 1000000) / 1000);
}

// The same without the padding (timehist's summary pads its own columns).
std::string msec(int64_t ns) {
  if (ns < 0) ns = 0;
  return fmt::format("{}.{:03}", ns / 1000000, (ns % 1000000) / 1000);
}

// One line of the latency view: a task's figures, or with merged > 1 those of every task of a comm.
struct Row : TaskLatency {
  int64_t pid = 0;
  std::string comm;
  int merged = 1;
};

// <0: a before b. Numbers and pids sort largest first (as perf 6.1 prints), comms alphabetically.
int compare_key(const std::string& k, const Row& a, const Row& b) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  if (k == "pid") return cmp(b.pid, a.pid);  // perf 6.1 prints pids in descending order
  if (k == "comm") return a.comm.compare(b.comm) < 0 ? -1 : (a.comm == b.comm ? 0 : 1);
  if (k == "runtime") return cmp(b.runtime, a.runtime);
  if (k == "switch") return cmp(b.switches, a.switches);
  if (k == "avg") return cmp(b.avg(), a.avg());
  return cmp(b.max_delay, a.max_delay);  // max
}

// timehist's row records in the temporary file.
enum RowKind : int64_t { kSwitchRow, kIdleRow, kWakeRow, kMigrateRow };

// One value of a JSON or CSV row: typed, so JSON keeps numbers numbers and absent values null.
struct Cell {
  enum Kind : uint8_t { kNull, kInt, kNum, kStr, kBool } kind = kNull;
  int64_t i = 0;
  double d = 0;
  std::string s;
};
Cell cnull() { return {}; }
Cell cint(int64_t v) { return {Cell::kInt, v, 0, {}}; }
Cell cnum(double v) { return {Cell::kNum, 0, v, {}}; }
Cell cstr(std::string v) { return {Cell::kStr, 0, 0, std::move(v)}; }
Cell cbool(bool v) { return {Cell::kBool, v ? 1 : 0, 0, {}}; }

// A view as JSON (schema "schedsim-sched" version 1: one object per row, one row a line, members
// in the CSV's column order) or CSV (a header line, RFC 4180 quoting). Comms pass through
// printable() first, so a trace's stray bytes cannot break either syntax.
class RowWriter {
 public:
  RowWriter(std::ostream& out, SchedFormat format, std::string_view view, std::vector<std::string> columns)
      : out_(out), json_(format == SchedFormat::kJson), columns_(std::move(columns)) {
    if (json_) {
      out_ << R"({"schema":"schedsim-sched","version":1,"view":")" << view << R"(","rows":[)";
      return;
    }
    for (size_t k = 0; k < columns_.size(); ++k) out_ << (k ? "," : "") << columns_[k];
    out_ << "\n";
  }
  RowWriter(const RowWriter&) = delete;
  RowWriter& operator=(const RowWriter&) = delete;
  ~RowWriter() {
    if (json_) out_ << "\n]}\n";
  }
  void row(const std::vector<Cell>& cells) {
    std::string line = json_ ? (rows_++ ? ",\n{" : "\n{") : "";
    for (size_t k = 0; k < columns_.size(); ++k) {
      if (k) line += ',';
      if (json_) line += "\"" + columns_[k] + "\":";
      line += k < cells.size() ? value(cells[k]) : (json_ ? "null" : "");
    }
    out_ << line << (json_ ? "}" : "\n");
  }

 private:
  std::string value(const Cell& c) const {
    switch (c.kind) {
      case Cell::kNull: return json_ ? "null" : "";
      case Cell::kInt: return fmt::format("{}", c.i);
      case Cell::kNum: return fmt::format("{:.2f}", c.d);  // as the table prints it, the same on every machine
      case Cell::kBool: return c.i ? "true" : "false";
      case Cell::kStr: break;
    }
    std::string s = printable(c.s);
    std::string o;
    if (json_) {
      o = "\"";
      for (char ch : s) {
        if (ch == '"' || ch == '\\') o += '\\';
        o += ch;
      }
      return o + "\"";
    }
    if (s.find_first_of(",\"") == std::string::npos) return s;
    o = "\"";
    for (char ch : s) {
      if (ch == '"') o += '"';
      o += ch;
    }
    return o + "\"";
  }
  std::ostream& out_;
  bool json_;
  std::vector<std::string> columns_;
  size_t rows_ = 0;
};

// Reads back the records put_i64() and put_str() wrote.
struct Reader {
  std::FILE* f;
  bool ok = true;
  int64_t i64() {
    int64_t v = 0;
    ok = ok && std::fread(&v, sizeof v, 1, f) == 1;
    return v;
  }
  std::string str() {
    const int64_t n = i64();
    std::string s;
    if (!ok || n < 0) {
      ok = false;
      return s;
    }
    s.resize(static_cast<size_t>(n));
    ok = n == 0 || std::fread(s.data(), 1, s.size(), f) == s.size();
    return s;
  }
  bool more() {
    const int c = std::fgetc(f);
    if (c == EOF) return false;
    std::ungetc(c, f);
    return true;
  }
};

// timehist -V's header: a digit per CPU, counting 0-9a-f and again.
std::string visual_digits(size_t n) {
  std::string s(n, ' ');
  for (size_t c = 0; c < n; ++c) s[c] = "0123456789abcdef"[c % 16];
  return s;
}

}  // namespace

void TaskLatency::merge(const TaskLatency& o) {
  runtime += o.runtime;
  switches += o.switches;
  total_delay += o.total_delay;
  if (o.max_delay > max_delay || (o.max_delay == max_delay && o.max_start < max_start && o.max_delay > 0)) {
    max_delay = o.max_delay;
    max_start = o.max_start;
    max_end = o.max_end;
  }
}

void RunStats::add(int64_t v) {
  if (n == 0 || v < min) min = v;
  if (n == 0 || v > max) max = v;
  ++n;
  total += v;
  const double x = static_cast<double>(v);
  const double delta = x - mean;
  mean += delta / static_cast<double>(n);
  m2 += delta * (x - mean);
}

double RunStats::rel_stddev_pct() const {
  if (n < 2 || mean <= 0) return 0;
  const double sd = std::sqrt(m2 / static_cast<double>(n - 1));
  return 100.0 * sd / std::sqrt(static_cast<double>(n)) / mean;
}

bool color_wanted(bool stdout_is_terminal, const char* no_color_env, SchedFormat format) {
  const bool no_color = no_color_env != nullptr && *no_color_env != '\0';
  return stdout_is_terminal && !no_color && format == SchedFormat::kTable;
}

const std::vector<std::string>& latency_sort_keys() {
  static const std::vector<std::string> k = {"runtime", "switch", "avg", "max", "pid", "comm"};
  return k;
}

std::vector<std::string> parse_sort_keys(const std::string& text) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= text.size()) {
    size_t e = text.find(',', b);
    if (e == std::string::npos) e = text.size();
    std::string k = text.substr(b, e - b);
    k.erase(0, k.find_first_not_of(' '));
    k.erase(k.find_last_not_of(' ') + 1);
    if (!k.empty()) out.push_back(k);
    b = e + 1;
  }
  return out;
}

std::vector<uint32_t> parse_view_cpus(const std::string& text, const char* option) {
  std::string err;
  const auto mask = CpuMask::parse_cpulist(text, &err);
  if (!mask) throw InputError(SourceLoc{option}, fmt::format("expected a CPU list like 0,2-3: {}", err));
  if (mask->empty()) throw InputError(SourceLoc{option}, "expected a CPU list like 0,2-3, got nothing");
  std::vector<uint32_t> cpus;
  for (uint32_t c : *mask) cpus.push_back(c);
  return cpus;
}

SchedViews::SchedViews(SchedViewOptions opt) : opt_(std::move(opt)) {
  for (const auto& k : opt_.sort)
    if (std::find(latency_sort_keys().begin(), latency_sort_keys().end(), k) == latency_sort_keys().end())
      throw InputError(unknown_choice_message("sort key", k, latency_sort_keys()));
  if (opt_.summary == SchedSummary::kWithRows && opt_.format != SchedFormat::kTable)
    throw InputError("-S/--with-summary prints two tables, and JSON or CSV holds one: -s gives the summary alone");
  std::sort(opt_.cpus.begin(), opt_.cpus.end());
  opt_.cpus.erase(std::unique(opt_.cpus.begin(), opt_.cpus.end()), opt_.cpus.end());
  for (uint32_t c : opt_.cpus) {
    if (c >= shown_cpu_.size()) shown_cpu_.resize(c + 1, false);
    shown_cpu_[c] = true;
  }
  if (opt_.view != SchedView::kLatency) {
    spill_.reset(std::tmpfile());
    if (!spill_)
      throw InputError(fmt::format("cannot create a temporary file for the {} view: {}",
                                   opt_.view == SchedView::kMap ? "map" : "timehist", std::strerror(errno)));
  }
}

void SchedViews::spill(std::string_view bytes) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), spill_.get()) != bytes.size())
    throw InputError(fmt::format("cannot write the view's temporary file (disk full?): {}", std::strerror(errno)));
}

void SchedViews::put_i64(int64_t v) { spill(std::string_view(reinterpret_cast<const char*>(&v), sizeof v)); }

void SchedViews::put_str(std::string_view s) {
  put_i64(static_cast<int64_t>(s.size()));
  spill(s);
}

SchedViews::Task& SchedViews::task(int64_t pid, const std::string& comm) {
  Task& t = tasks_[pid];
  if (!comm.empty()) t.comm = comm;
  return t;
}

int64_t SchedViews::tgid_of(int64_t tid) const {
  auto g = tgids_.find(tid);
  return g == tgids_.end() ? -1 : g->second;
}

// perf's timehist_get_commstr(): comm[tid], or comm[tid/tgid] for a thread that is not its
// group's leader.
std::string SchedViews::task_name(const std::string& comm, int64_t tid, int64_t tgid) const {
  if (tgid > 0 && tgid != tid) return fmt::format("{}[{}/{}]", comm, tid, tgid);
  return fmt::format("{}[{}]", comm, tid);
}

void SchedViews::on_fork_record(int64_t tid, int64_t ppid) {
  if (opt_.view == SchedView::kTimehist) fork_parents_[tid] = ppid;
}

int64_t SchedViews::parent_of(int64_t pid, const Task& t) const {
  auto p = fork_parents_.find(pid);
  return p != fork_parents_.end() ? p->second : t.parent;
}

void SchedViews::on_event(const TraceEvent& ev) {
  const bool timehist = opt_.view == SchedView::kTimehist;
  const bool rows = timehist && opt_.summary != SchedSummary::kOnly;
  if (timehist) {
    if (ev.line_pid > 0 && ev.line_tgid > 0) tgids_[ev.line_pid] = ev.line_tgid;
    if (ev.other_pid > 0 && ev.other_tgid > 0) tgids_[ev.other_pid] = ev.other_tgid;
  }
  switch (ev.type) {
    case EventType::kSwitch: on_switch(ev); break;
    case EventType::kWaking:
    case EventType::kWakeup:
    case EventType::kWakeupNew:
      if (rows && opt_.wakeups && ev.other_pid > 0) spill_event_row(ev, kWakeRow);
      on_wake(ev);
      break;
    case EventType::kMigrate:
      if (timehist && ev.other_pid > 0) {
        ++task(ev.other_pid, ev.other_comm).migrated;
        if (rows && opt_.migrations) spill_event_row(ev, kMigrateRow);
      }
      break;
    case EventType::kFork:  // the summary's parent column
      if (timehist && ev.other_pid > 0) {
        Task& child = task(ev.other_pid, ev.other_comm);
        child.parent = ev.pid;
        child.dead = false;  // a pid used again
      }
      break;
    case EventType::kExit:
      if (timehist && ev.pid > 0) task(ev.pid, "").dead = true;
      break;
    case EventType::kExec:
      if (ev.pid > 0) task(ev.pid, ev.line_comm == "<...>" ? "" : ev.line_comm);
      break;
    default: break;
  }
}

// A timehist row for a switch-out: time, CPU, the task, wait time, sch delay, run time.
void SchedViews::spill_switch_row(const TraceEvent& ev, const std::string& comm, int64_t tid, int64_t wait,
                                  int64_t delay, int64_t run) {
  row_cpus_ = std::max(row_cpus_, static_cast<size_t>(std::max(ev.cpu + 1, 0)));
  for (int64_t v : {int64_t{tid == 0 ? kIdleRow : kSwitchRow}, ev.ts, int64_t{ev.cpu}, tid, wait, delay, run,
                    int64_t{-1}, int64_t{-1}, int64_t{-1}, tgid_of(tid), int64_t{-1}})
    put_i64(v);
  put_str(comm);
  put_str("");
}

// timehist -w / -M: the event's time and CPU, the task current there (the trace line's), then
// what happened to whom.
void SchedViews::spill_event_row(const TraceEvent& ev, int64_t kind) {
  row_cpus_ = std::max(row_cpus_, static_cast<size_t>(std::max(ev.cpu + 1, 0)));
  // The idle task by its line comm alone, as perf does ("swapper"; ftrace text says "<idle>").
  const std::string who = ev.line_pid == 0 && ev.line_comm.empty() ? std::string("swapper") : ev.line_comm;
  for (int64_t v : {kind, ev.ts, int64_t{ev.cpu}, ev.line_pid, int64_t{0}, int64_t{0}, int64_t{0}, ev.other_pid,
                    int64_t{ev.orig_cpu}, int64_t{ev.target_cpu}, tgid_of(ev.line_pid), tgid_of(ev.other_pid)})
    put_i64(v);
  put_str(who);
  put_str(ev.other_comm);
}

// The first wake event of a sleeping task makes it runnable: sched_waking when the trace has it
// (it comes first), else sched_wakeup; a later sched_wakeup of the same wakeup finds it waiting.
void SchedViews::on_wake(const TraceEvent& ev) {
  if (ev.other_pid <= 0 || ev.success == 0) return;
  Task& t = task(ev.other_pid, ev.other_comm);
  if (t.st == Task::St::kSleeping || t.st == Task::St::kUnknown) {
    t.st = Task::St::kWaitCpu;
    t.ready = ev.ts;
    t.woken = ev.ts;
  }
}

void SchedViews::on_switch(const TraceEvent& ev) {
  const auto cpu = static_cast<size_t>(ev.cpu);
  if (cpu >= cpu_last_switch_.size()) {
    cpu_last_switch_.resize(cpu + 1, -1);
    cpu_curr_.resize(cpu + 1, -1);
  }
  const int64_t last = cpu_last_switch_[cpu];
  if (opt_.view == SchedView::kTimehist) on_switch_timehist(ev, last);
  // prev: its run on this CPU began at the CPU's previous switch (unknown for the first one).
  if (ev.pid > 0) {
    Task& p = task(ev.pid, ev.comm);
    p.runtime += last >= 0 ? ev.ts - last : 0;
    p.ready = -1;
    p.woken = -1;
    p.last_out = ev.ts;
    if (classify_state(ev.state) == StateClass::kRunnable) {
      p.st = Task::St::kWaitCpu;  // preempted: runnable from now
      p.ready = ev.ts;
    } else {
      p.st = Task::St::kSleeping;
    }
  }
  // next
  if (ev.other_pid > 0) {
    Task& n = task(ev.other_pid, ev.other_comm);
    if (n.st == Task::St::kWaitCpu || n.st == Task::St::kUnknown) {
      int64_t delay = 0;
      if (n.st == Task::St::kWaitCpu && n.ready >= 0 && n.ready <= ev.ts) delay = ev.ts - n.ready;
      if (n.st == Task::St::kUnknown) ++unknown_switch_ins_;
      ++n.switches;
      n.total_delay += delay;
      if (delay > n.max_delay || n.switches == 1) {
        if (delay > n.max_delay) n.max_delay = delay;
        if (delay > 0) {
          n.max_start = n.ready;
          n.max_end = ev.ts;
        }
      }
    }
    n.st = Task::St::kRunning;
  }
  cpu_last_switch_[cpu] = ev.ts;
  if (opt_.view == SchedView::kMap) on_switch_map(ev);
}

// timehist's row of the task switched out, with the figures its summary gathers. The idle task's
// runs are rows too ("<idle>", perf 6.1): each CPU has its own, switched in when the CPU goes
// idle, never woken.
void SchedViews::on_switch_timehist(const TraceEvent& ev, int64_t last) {
  const auto cpu = static_cast<size_t>(ev.cpu);
  if (first_switch_ < 0) first_switch_ = ev.ts;
  last_switch_ = ev.ts;
  const bool rows = opt_.summary != SchedSummary::kOnly;
  const int64_t run = last >= 0 ? ev.ts - last : 0;
  if (ev.pid == 0) {
    if (cpu >= idle_last_out_.size()) {
      idle_last_out_.resize(cpu + 1, -1);
      idle_runs_.resize(cpu + 1);
    }
    int64_t& out = idle_last_out_[cpu];
    const int64_t wait = (last >= 0 && out >= 0 && out <= last) ? last - out : 0;
    idle_runs_[cpu].add(run);
    if (rows) spill_switch_row(ev, "<idle>", 0, wait, 0, run);
    out = ev.ts;
    return;
  }
  if (ev.pid < 0) return;
  Task& p = task(ev.pid, ev.comm);
  const int64_t wait = (last >= 0 && p.last_out >= 0 && p.last_out <= last) ? last - p.last_out : 0;
  // sch delay counts from a wakeup only (perf timehist's definition): a preempted task's time
  // off the CPU is in its wait time.
  const int64_t delay = (last >= 0 && p.woken >= 0 && p.woken <= last) ? last - p.woken : 0;
  // The name perf prints is the sample's thread's (the line's comm: perf's own comm tracking,
  // "kworker/0:2-eve" where prev_comm says "kworker/0:2"), when the line is prev's.
  const bool line_is_prev = ev.line_pid == ev.pid && !ev.line_comm.empty() && ev.line_comm != "<...>";
  p.last_name = line_is_prev ? ev.line_comm : p.comm;
  p.runs.add(run);
  if (classify_state(ev.state) == StateClass::kDead) p.dead = true;
  if (rows) spill_switch_row(ev, p.last_name, ev.pid, wait, delay, run);
}

// map: the row of a switch, a column per CPU shown. A task is named at its first switch-in on a
// shown CPU, so every name in the view is introduced in it.
void SchedViews::on_switch_map(const TraceEvent& ev) {
  const auto cpu = static_cast<size_t>(ev.cpu);
  cpu_curr_[cpu] = ev.other_pid;
  if (!opt_.cpus.empty() && (cpu >= shown_cpu_.size() || !shown_cpu_[cpu])) return;
  std::string introduced;
  if (ev.other_pid == 0 && !idle_introduced_) {  // perf names the idle task once, on its first row
    idle_introduced_ = true;
    introduced = ".  => swapper:0";
  }
  if (ev.other_pid > 0) {
    Task& n = tasks_[ev.other_pid];
    if (!n.shortname.empty() && n.comm != n.shown_comm) {  // renamed (exec): say so again
      n.shown_comm = n.comm;
      introduced = fmt::format("{} => {}:{}", n.shortname, n.comm, ev.other_pid);
    }
    if (n.shortname.empty()) {
      n.shortname = {next_short_[0], next_short_[1]};
      n.shown_comm = n.comm;
      introduced = fmt::format("{} => {}:{}", n.shortname, n.comm, ev.other_pid);
      if (next_short_[0] < 'Z') {
        ++next_short_[0];
      } else {
        next_short_[0] = 'A';
        next_short_[1] = next_short_[1] < '9' ? static_cast<char>(next_short_[1] + 1) : '0';
      }
    }
  }
  int64_t new_column = -1;  // --compact: this CPU's column begins here
  if (opt_.compact) {
    if (cpu >= in_columns_.size()) in_columns_.resize(cpu + 1, false);
    if (!in_columns_[cpu]) {
      in_columns_[cpu] = true;
      columns_.push_back(static_cast<uint32_t>(cpu));
      new_column = static_cast<int64_t>(cpu);
    }
  }
  // Each cell two bytes: the task's name, ". " idle, "  " not known yet.
  auto cell = [this](size_t c) -> std::string {
    const int64_t pid = c < cpu_curr_.size() ? cpu_curr_[c] : -1;
    if (pid < 0) return "  ";
    if (pid == 0) return ". ";
    const std::string& s = tasks_[pid].shortname;
    return s.size() == 2 ? s : "  ";
  };
  std::string cells;
  if (opt_.compact) {
    for (uint32_t c : columns_) cells += cell(c);
  } else if (!opt_.cpus.empty()) {
    for (uint32_t c : opt_.cpus) cells += cell(c);
  } else {
    for (size_t c = 0; c < cpu_curr_.size(); ++c) cells += cell(c);
  }
  // --color-pids: one byte per cell, '1' where the cell's task is one to colour.
  std::string colored;
  if (!opt_.color_pids.empty()) {
    auto mark = [&](size_t col) {
      const int64_t pid = col < cpu_curr_.size() ? cpu_curr_[col] : -1;
      colored += std::find(opt_.color_pids.begin(), opt_.color_pids.end(), pid) != opt_.color_pids.end() ? '1' : '0';
    };
    if (opt_.compact) for (uint32_t col : columns_) mark(col);
    else if (!opt_.cpus.empty()) for (uint32_t col : opt_.cpus) mark(col);
    else for (size_t col = 0; col < cpu_curr_.size(); ++col) mark(col);
  }
  for (int64_t v : {ev.ts, int64_t{ev.cpu}, ev.other_pid, new_column}) put_i64(v);
  put_str(ev.other_comm);
  put_str(ev.other_pid == 0 ? std::string(".") : tasks_[ev.other_pid].shortname);
  put_str(introduced);
  put_str(cells);
  put_str(colored);
}

void SchedViews::set_nr_cpus(size_t n) { nr_cpus_ = n; }

std::vector<uint32_t> SchedViews::map_columns() const {
  if (opt_.compact) return columns_;
  if (!opt_.cpus.empty()) return opt_.cpus;
  std::vector<uint32_t> all(trace_cpus());
  for (size_t c = 0; c < all.size(); ++c) all[c] = static_cast<uint32_t>(c);
  return all;
}

std::string SchedViews::render() const {
  std::ostringstream o;
  render(o);
  return o.str();
}

void SchedViews::render(std::ostream& out) const {
  if (!opt_.cpus.empty() && opt_.cpus.back() >= trace_cpus())
    throw InputError(SourceLoc{"--cpus"},
                     trace_cpus() == 0 ? fmt::format("CPU {} is not in the trace, which has no sched_switch", opt_.cpus.back())
                                       : fmt::format("CPU {} is beyond the trace's CPUs (0-{})", opt_.cpus.back(),
                                                     trace_cpus() - 1));
  if (opt_.view == SchedView::kLatency) {
    render_latency(out);
    return;
  }
  std::FILE* f = spill_.get();
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0)
    throw InputError(fmt::format("cannot read the view's temporary file back: {}", std::strerror(errno)));
  if (opt_.view == SchedView::kTimehist) render_timehist(out, f);
  else render_map(out, f);
  std::fseek(f, 0, SEEK_END);  // more rows may follow (a view rendered while events still come)
}

void SchedViews::render_timehist(std::ostream& out, std::FILE* f) const {
  if (opt_.summary == SchedSummary::kOnly) {
    render_summary(out);
    return;
  }
  const bool table = opt_.format == SchedFormat::kTable;
  const size_t width = std::max(trace_cpus(), row_cpus_);  // -V: a character per CPU
  const std::string vis = opt_.cpu_visual ? std::string(width, ' ') : std::string();
  std::optional<RowWriter> w;
  if (table) {
    const std::string gap = opt_.cpu_visual ? "  " : "";
    out << "           time    cpu  " << (opt_.cpu_visual ? visual_digits(width) : "") << gap
        << "task name                       wait time  sch delay   run time\n"
        << "                        " << vis << gap << "[tid/pid]                          (msec)     (msec)     (msec)\n"
        << "--------------- ------  " << std::string(vis.size(), '-') << gap
        << "------------------------------  ---------  ---------  ---------\n";
  } else {
    w.emplace(out, opt_.format, "timehist",
              std::vector<std::string>{"time_ns", "cpu", "event", "comm", "tid", "wait_ns", "sch_delay_ns", "run_ns",
                                       "other_comm", "other_tid", "from_cpu", "to_cpu"});
  }
  Reader r{f};
  while (r.more()) {
    int64_t v[12];
    for (int64_t& x : v) x = r.i64();
    const std::string comm = r.str(), other = r.str();
    if (!r.ok) break;
    const auto [kind, ts, cpu, tid, wait, delay, run, other_tid, from, to] =
        std::tuple{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]};
    const int64_t tgid = v[10], other_tgid = v[11];
    const bool is_switch = kind == kSwitchRow || kind == kIdleRow;
    if (!table) {
      static const char* const kinds[] = {"switch", "switch", "wakeup", "migrate"};
      w->row({cint(ts), cint(cpu), cstr(kinds[kind & 3]), cstr(comm), cint(tid), is_switch ? cint(wait) : cnull(),
              is_switch ? cint(delay) : cnull(), is_switch ? cint(run) : cnull(), is_switch ? cnull() : cstr(other),
              is_switch ? cnull() : cint(other_tid), kind == kMigrateRow ? cint(from) : cnull(),
              kind == kMigrateRow ? cint(to) : cnull()});
      continue;
    }
    std::string visual;
    if (opt_.cpu_visual) {
      visual = vis;
      if (kind != kWakeRow && cpu >= 0 && static_cast<size_t>(cpu) < visual.size())
        visual[static_cast<size_t>(cpu)] = kind == kSwitchRow ? 's' : kind == kIdleRow ? 'i' : 'm';
      visual += "  ";
    }
    std::string line;
    if (is_switch) {
      // With -w perf pads the row to the width of an "awakened:" row's columns.
      line = fmt::format("{:>15} [{:04}]  {}{:<30}  {}  {}  {} {}", usec_time(ts), cpu, visual,
                         kind == kIdleRow ? comm : task_name(comm, tid, tgid), ms_trunc(wait), ms_trunc(delay),
                         ms_trunc(run), opt_.wakeups ? std::string(32, ' ') : std::string());
      if (opt_.color && delay > opt_.highlight_delay) line = fmt::format("{}{}{}", kRed, line, kReset);
    } else {
      const std::string who = tid == 0 ? comm : task_name(comm, tid, tgid);
      const std::string whom = task_name(other, other_tid, other_tgid);
      const std::string what = kind == kWakeRow ? fmt::format("awakened: {}", whom)
                                                : fmt::format("migrated: {} cpu {} => {}", whom, from, to);
      line = fmt::format("{:>15} [{:04}]  {}{:<30}{:34} {}", usec_time(ts), cpu, visual, who, "", what);
    }
    out << line << '\n';
  }
  w.reset();
  if (opt_.summary == SchedSummary::kWithRows) render_summary(out);
}

// timehist -s / -S: per task, its runs' count, total, extremes, average and the relative standard
// error of their mean; then each CPU's idle time and the totals, as perf 6.1 prints them.
void SchedViews::render_summary(std::ostream& out) const {
  std::vector<int64_t> pids;
  for (const auto& [pid, t] : tasks_)
    if (pid > 0 && t.runs.n > 0) pids.push_back(pid);
  // perf 6.1's order: its thread table's (the tid modulo 256, then the tid); the live tasks,
  // then the terminated ones.
  std::sort(pids.begin(), pids.end(), [this](int64_t a, int64_t b) {
    const bool da = tasks_.at(a).dead, db = tasks_.at(b).dead;
    if (da != db) return db;
    return std::pair(a & 255, a) < std::pair(b & 255, b);
  });
  const size_t width = std::max(trace_cpus(), row_cpus_);
  const int64_t window = last_switch_ >= first_switch_ ? last_switch_ - first_switch_ : 0;
  if (opt_.format != SchedFormat::kTable) {
    RowWriter w(out, opt_.format, "timehist-summary",
                {"comm", "tid", "parent", "sched_in", "run_ns", "min_run_ns", "avg_run_ns", "max_run_ns", "stddev_pct",
                 "migrations", "terminated", "cpu"});
    auto stats = [](const RunStats& s) {
      return std::vector<Cell>{cint(static_cast<int64_t>(s.n)), cint(s.total), cint(s.min),
                               cint(s.n ? s.total / static_cast<int64_t>(s.n) : 0), cint(s.max),
                               cnum(s.rel_stddev_pct())};
    };
    for (int64_t pid : pids) {
      const Task& t = tasks_.at(pid);
      const int64_t parent = parent_of(pid, t);
      std::vector<Cell> row{cstr(t.last_name), cint(pid), parent >= 0 ? cint(parent) : cnull()};
      for (Cell& c : stats(t.runs)) row.push_back(std::move(c));
      row.insert(row.end(), {cint(static_cast<int64_t>(t.migrated)), cbool(t.dead), cnull()});
      w.row(row);
    }
    for (size_t c = 0; c < idle_runs_.size(); ++c) {
      if (idle_runs_[c].n == 0) continue;
      std::vector<Cell> row{cstr("<idle>"), cint(0), cnull()};
      for (Cell& x : stats(idle_runs_[c])) row.push_back(std::move(x));
      row.insert(row.end(), {cint(0), cbool(false), cint(static_cast<int64_t>(c))});
      w.row(row);
    }
    return;
  }
  out << "\nRuntime summary\n"
      << fmt::format("{:>30}  {:>6} {:>10} {:>12} {:>10} {:>11} {:>11}  {:>6}  {:>10}\n", "comm", "parent", "sched-in",
                     "run-time", "min-run", "avg-run", "max-run", "stddev", "migrations")
      << fmt::format("{:>30}  {:>6} {:>10} {:>12} {:>10} {:>11} {:>11}  {:>6}\n", "", "", "(count)", "(msec)", "(msec)",
                     "(msec)", "(msec)", "%")
      << std::string(117, '-') << "\n";
  uint64_t switches = 0;
  int64_t run_total = 0;
  bool terminated_header = false;
  for (int64_t pid : pids) {
    const Task& t = tasks_.at(pid);
    if (t.dead && !terminated_header) {
      out << "\nTerminated tasks:\n";
      terminated_header = true;
    }
    const RunStats& s = t.runs;
    out << fmt::format("{:>30} {:>7} {:>10} {:>12} {:>10} {:>11} {:>11}   {:5.2f} {:>7}\n",
                       task_name(t.last_name, pid, tgid_of(pid)), parent_of(pid, t), s.n, msec(s.total), msec(s.min),
                       msec(s.total / static_cast<int64_t>(s.n)), msec(s.max), s.rel_stddev_pct(), t.migrated);
    switches += s.n;
    run_total += s.total;
  }
  if (!terminated_header) out << "\nTerminated tasks:\n";
  out << "\nIdle stats:\n";
  for (size_t c = 0; c < width; ++c) {
    const bool switched = c < cpu_last_switch_.size() && cpu_last_switch_[c] >= 0;
    const RunStats idle = c < idle_runs_.size() ? idle_runs_[c] : RunStats{};
    switches += idle.n;
    if (!switched) {  // no sched_switch at all: idle from before the trace to its end
      out << fmt::format("    CPU {:>2} idle entire time window\n", c);
      continue;
    }
    const double pct = window > 0 ? 100.0 * static_cast<double>(idle.total) / static_cast<double>(window) : 0.0;
    out << fmt::format("    CPU {:>2} idle for {:>10}  msec  ({:6.2f}%)\n", c, msec(idle.total), pct);
  }
  out << fmt::format("\n    Total number of unique tasks: {}\n", pids.size())
      << fmt::format("Total number of context switches: {}\n", switches)
      << fmt::format("           Total run time (msec): {} \n", msec(run_total))
      << fmt::format("    Total scheduling time (msec): {}  (x {})\n", msec(window), width);
}

void SchedViews::render_map(std::ostream& out, std::FILE* f) const {
  const std::vector<uint32_t> cols = map_columns();
  // Rows were made as CPUs appeared: the default view pads each to a column for every CPU from
  // the first row on; --compact's columns begin where their CPU first switched.
  const size_t pad_to = opt_.compact ? 0 : cols.size();
  const bool table = opt_.format == SchedFormat::kTable;
  std::optional<RowWriter> w;
  if (!table) {
    std::vector<std::string> names = {"time_ns", "cpu", "pid", "comm", "name"};
    for (uint32_t c : cols) names.push_back(fmt::format("cpu{}", c));
    w.emplace(out, opt_.format, "map", std::move(names));
  }
  Reader r{f};
  std::string line;
  while (r.more()) {
    const int64_t ts = r.i64(), cpu = r.i64(), pid = r.i64(), new_column = r.i64();
    const std::string comm = r.str(), name = r.str(), introduced = r.str(), cells = r.str(), colored = r.str();
    if (!r.ok) break;
    const size_t ncols = std::min(cells.size() / 2, cols.size());
    if (!table) {
      std::vector<Cell> row{cint(ts), cint(cpu), cint(pid), cstr(comm), name.empty() ? cnull() : cstr(name)};
      for (size_t k = 0; k < cols.size(); ++k) {
        const std::string_view c = k < ncols ? std::string_view(cells).substr(2 * k, 2) : "  ";
        row.push_back(c == "  " ? cnull() : cstr(c == ". " ? "." : std::string(c)));
      }
      w->row(row);
      continue;
    }
    line = "  ";
    for (size_t k = 0; k < ncols; ++k) {
      const bool here = static_cast<int64_t>(cols[k]) == cpu;
      std::string cell(1, here ? '*' : ' ');
      const std::string_view c = std::string_view(cells).substr(2 * k, 2);
      cell += c == "  " ? std::string_view() : c == ". " ? std::string_view(".") : c;
      const std::string pad(4 - cell.size(), ' ');
      const bool cpu_lit = here && (opt_.color_cpus.empty() || std::find(opt_.color_cpus.begin(), opt_.color_cpus.end(),
                                                                          cols[k]) != opt_.color_cpus.end());
      const bool pid_lit = k < colored.size() && colored[k] == '1';
      if (!opt_.color || (!cpu_lit && !pid_lit)) line += cell + pad;
      else if (!pid_lit) line += fmt::format("{}{}{}{}", kOnRed, cell, kReset, pad);
      else if (cpu_lit) line += fmt::format("{}{}{}{}{}{}{}", kOnRed, cell.substr(0, 1), kReset, kBlue, cell.substr(1), kReset, pad);
      else line += fmt::format("{}{}{}{}{}", cell.substr(0, 1), kBlue, cell.substr(1), kReset, pad);
    }
    for (size_t k = ncols; k < pad_to; ++k) line += "    ";
    line += fmt::format("  {:>12} secs {}", usec_time(ts), introduced);
    if (new_column >= 0) line += fmt::format("{}(CPU {})", introduced.empty() ? "" : " ", new_column);
    out << line << '\n';
  }
}

void SchedViews::render_latency(std::ostream& out) const {
  std::vector<Row> rows;
  std::map<std::string, size_t> by_comm;
  for (const auto& [pid, t] : tasks_) {
    if (t.switches == 0) continue;  // never switched in after a wake: nothing to say (as perf)
    if (!opt_.per_pid) {
      auto [it, fresh] = by_comm.emplace(t.comm, rows.size());
      if (!fresh) {
        Row& m = rows[it->second];
        m.merge(t);
        m.pid = std::min(m.pid, pid);
        ++m.merged;
        continue;
      }
    }
    rows.push_back(Row{{t}, pid, t.comm});
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
    for (const auto& k : opt_.sort)
      if (int c = compare_key(k, a, b); c != 0) return c < 0;
    if (a.comm != b.comm) return a.comm < b.comm;  // a total order, so output never depends on hashing
    return a.pid < b.pid;
  });
  if (opt_.format != SchedFormat::kTable) {
    RowWriter w(out, opt_.format, "latency",
                {"comm", "pid", "tasks", "runtime_ns", "switches", "avg_delay_ns", "max_delay_ns", "max_delay_start_ns",
                 "max_delay_end_ns"});
    for (const auto& r : rows)
      w.row({cstr(r.comm), cint(r.pid), cint(r.merged), cint(r.runtime), cint(static_cast<int64_t>(r.switches)),
             cint(r.avg()), cint(r.max_delay), cint(r.max_start), cint(r.max_end)});
    return;
  }
  std::string o = "\n";
  o += " " + std::string(139, '-') + "\n";
  o += "  Task                  |   Runtime ms  | Switches | Avg delay ms    | Max delay ms    | Max delay start"
       "           | Max delay end          |\n";
  o += " " + std::string(139, '-') + "\n";
  int64_t total_runtime = 0;
  uint64_t total_switches = 0;
  for (const auto& r : rows) {
    std::string name = r.merged > 1 ? fmt::format("  {}:({})", r.comm, r.merged) : fmt::format("  {}:{}", r.comm, r.pid);
    if (name.size() < 24) name.resize(24, ' ');
    fmt::format_to(std::back_inserter(o),
                   "{}|{:11.3f} ms |{:9} | avg:{:8.3f} ms | max:{:8.3f} ms | max start: {:>12} s | max end: {:>12} s\n",
                   name, ms(r.runtime), r.switches, ms(r.avg()), ms(r.max_delay), usec_time(r.max_start),
                   usec_time(r.max_end));
    total_runtime += r.runtime;
    total_switches += r.switches;
  }
  o += " " + std::string(113, '-') + "\n";
  fmt::format_to(std::back_inserter(o), "  TOTAL:                |{:11.3f} ms |{:9} |\n", ms(total_runtime), total_switches);
  o += " " + std::string(51, '-') + "\n";
  if (unknown_switch_ins_ > 0)
    fmt::format_to(std::back_inserter(o),
                   "\n  note: {} switch-in{} of tasks the trace first shows runnable or running (no wakeup seen) "
                   "counted with 0 delay, as perf sched latency does\n",
                   unknown_switch_ins_, unknown_switch_ins_ == 1 ? "" : "s");
  o += "\n";
  out << o;
}

}  // namespace schedsim::traces
