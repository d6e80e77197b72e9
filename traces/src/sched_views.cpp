// perf sched latency / timehist / map views (sched_views.hpp). The column layouts follow what
// perf 6.1 prints (checked against `perf sched record` on this project's build machine); the
// definitions are written out in docs/sched-views.md. Written from those definitions, not from
// perf's source.
#include "schedsim/traces/sched_views.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"

namespace schedsim::traces {

namespace {

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

const std::vector<std::string>& latency_sort_keys() {
  static const std::vector<std::string> k = {"runtime", "switch", "avg", "max", "pid", "comm"};
  return k;
}

SchedViews::SchedViews(SchedViewOptions opt) : opt_(std::move(opt)) {
  for (const auto& k : opt_.sort)
    if (std::find(latency_sort_keys().begin(), latency_sort_keys().end(), k) == latency_sort_keys().end())
      throw InputError(unknown_choice_message("sort key", k, latency_sort_keys()));
  if (opt_.view != SchedView::kLatency) {
    spill_.reset(std::tmpfile());
    if (!spill_)
      throw InputError(fmt::format("cannot create a temporary file for the {} view: {}",
                                   opt_.view == SchedView::kMap ? "map" : "timehist", std::strerror(errno)));
  }
  if (opt_.view == SchedView::kTimehist) {
    spill("           time    cpu  task name                       wait time  sch delay   run time\n"
          "                        [tid/pid]                          (msec)     (msec)     (msec)\n"
          "--------------- ------  ------------------------------  ---------  ---------  ---------\n");
  }
}

void SchedViews::spill(std::string_view bytes) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), spill_.get()) != bytes.size())
    throw InputError(fmt::format("cannot write the view's temporary file (disk full?): {}", std::strerror(errno)));
}

SchedViews::Task& SchedViews::task(int64_t pid, const std::string& comm) {
  Task& t = tasks_[pid];
  if (!comm.empty()) t.comm = comm;
  return t;
}

void SchedViews::on_event(const TraceEvent& ev) {
  switch (ev.type) {
    case EventType::kSwitch: on_switch(ev); break;
    case EventType::kWaking:
    case EventType::kWakeup:
    case EventType::kWakeupNew:
      if (opt_.view == SchedView::kTimehist && opt_.wakeups && ev.other_pid > 0)
        spill_event_row(ev, fmt::format("awakened: {}[{}]", ev.other_comm, ev.other_pid));
      on_wake(ev);
      break;
    case EventType::kMigrate:
      if (opt_.view == SchedView::kTimehist && opt_.migrations && ev.other_pid > 0)
        spill_event_row(ev, fmt::format("migrated: {}[{}] cpu {} => {}", ev.other_comm, ev.other_pid, ev.orig_cpu,
                                        ev.target_cpu));
      break;
    case EventType::kExec:
      if (ev.pid > 0) task(ev.pid, ev.line_comm == "<...>" ? "" : ev.line_comm);
      break;
    default: break;
  }
}

// A timehist row for a switch-out: time, CPU, the task, wait time, sch delay, run time. With -w
// perf pads the row to the width of an "awakened:" row's columns.
void SchedViews::spill_switch_row(const TraceEvent& ev, const std::string& name, int64_t wait, int64_t delay,
                                  int64_t run) {
  spill(fmt::format("{:>15} [{:04}]  {:<30}  {}  {}  {} {}\n", usec_time(ev.ts), ev.cpu, name, ms_trunc(wait),
                    ms_trunc(delay), ms_trunc(run), opt_.wakeups ? std::string(32, ' ') : std::string()));
}

// timehist -w / -M: the event's time and CPU, the task current there (the trace line's), the
// three time columns left blank, then what happened.
void SchedViews::spill_event_row(const TraceEvent& ev, const std::string& what) {
  // The idle task by its line comm alone, as perf does ("swapper"; ftrace text says "<idle>").
  const std::string who = ev.line_pid == 0 ? (ev.line_comm.empty() ? std::string("swapper") : ev.line_comm)
                                           : fmt::format("{}[{}]", ev.line_comm, ev.line_pid);
  spill(fmt::format("{:>15} [{:04}]  {:<30}{:34} {}\n", usec_time(ev.ts), ev.cpu, who, "", what));
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
  // timehist prints the idle task's runs too ("<idle>", perf 6.1): each CPU has its own, switched
  // in when the CPU goes idle, never woken.
  if (ev.pid == 0 && opt_.view == SchedView::kTimehist) {
    if (cpu >= idle_last_out_.size()) idle_last_out_.resize(cpu + 1, -1);
    int64_t& out = idle_last_out_[cpu];
    const int64_t run = last >= 0 ? ev.ts - last : 0;
    const int64_t wait = (last >= 0 && out >= 0 && out <= last) ? last - out : 0;
    spill_switch_row(ev, "<idle>", wait, 0, run);
    out = ev.ts;
  }
  // prev: its run on this CPU began at the CPU's previous switch (unknown for the first one).
  if (ev.pid > 0) {
    Task& p = task(ev.pid, ev.comm);
    const int64_t run = last >= 0 ? ev.ts - last : 0;
    p.runtime += run;
    if (opt_.view == SchedView::kTimehist) {
      const int64_t wait = (last >= 0 && p.last_out >= 0 && p.last_out <= last) ? last - p.last_out : 0;
      // sch delay counts from a wakeup only (perf timehist's definition): a preempted task's
      // time off the CPU is in its wait time.
      const int64_t delay = (last >= 0 && p.woken >= 0 && p.woken <= last) ? last - p.woken : 0;
      // The name perf prints is the sample's thread's (the line's comm: perf's own comm tracking,
      // "kworker/0:2-eve" where prev_comm says "kworker/0:2"), when the line is prev's.
      const bool line_is_prev = ev.line_pid == ev.pid && !ev.line_comm.empty() && ev.line_comm != "<...>";
      spill_switch_row(ev, fmt::format("{}[{}]", line_is_prev ? ev.line_comm : p.comm, ev.pid), wait, delay, run);
    }
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
  if (opt_.view == SchedView::kMap) {
    cpu_curr_[cpu] = ev.other_pid;
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
    std::string cells;
    cells.reserve(4 * cpu_curr_.size());
    for (size_t c = 0; c < cpu_curr_.size(); ++c) {
      cells += c == cpu ? '*' : ' ';
      const int64_t pid = cpu_curr_[c];
      if (pid < 0) cells += "   ";
      else if (pid == 0) cells += ".  ";
      else cells += tasks_[pid].shortname + " ";
    }
    const std::string tail = fmt::format("  {:>12} secs {}\n", usec_time(ev.ts), introduced);
    auto u32 = [this](size_t v) {
      const auto x = static_cast<uint32_t>(v);
      spill(std::string_view(reinterpret_cast<const char*>(&x), sizeof x));
    };
    u32(cpu_curr_.size());
    u32(cells.size());
    spill(cells);
    u32(tail.size());
    spill(tail);
  }
}

void SchedViews::set_nr_cpus(size_t n) { nr_cpus_ = n; }

std::string SchedViews::render() const {
  std::ostringstream o;
  render(o);
  return o.str();
}

void SchedViews::render(std::ostream& out) const {
  if (opt_.view == SchedView::kLatency) {
    out << render_latency();
    return;
  }
  std::FILE* f = spill_.get();
  if (std::fflush(f) != 0 || std::fseek(f, 0, SEEK_SET) != 0)
    throw InputError(fmt::format("cannot read the view's temporary file back: {}", std::strerror(errno)));
  std::string buf;
  auto read = [f, &buf](size_t n) {
    buf.resize(n);
    return n == 0 || std::fread(buf.data(), 1, n, f) == n;
  };
  if (opt_.view == SchedView::kTimehist) {
    std::string chunk(1 << 16, '\0');
    size_t n = 0;
    while ((n = std::fread(chunk.data(), 1, chunk.size(), f)) > 0) out.write(chunk.data(), static_cast<std::streamsize>(n));
  } else {
    // map: a column for every CPU from the first row on (the rows were made as CPUs appeared).
    const size_t width = std::max(nr_cpus_, cpu_curr_.size());
    uint32_t hdr[1];
    const std::string pad(4, ' ');
    while (std::fread(hdr, sizeof hdr, 1, f) == 1) {
      const uint32_t cpus = hdr[0];
      uint32_t len = 0;
      if (std::fread(&len, sizeof len, 1, f) != 1 || !read(len)) break;
      out << "  " << buf;
      for (size_t c = cpus; c < width; ++c) out << pad;
      if (std::fread(&len, sizeof len, 1, f) != 1 || !read(len)) break;
      out << buf;
    }
  }
  std::fseek(f, 0, SEEK_END);  // more rows may follow (a view rendered while events still come)
}

std::string SchedViews::render_latency() const {
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
  return o;
}

}  // namespace schedsim::traces
