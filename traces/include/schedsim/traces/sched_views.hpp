#pragma once
/// The three `perf sched` views a scheduler developer reads, computed from the neutral trace
/// events (any trace import reads, including schedsim's own `run --trace-out`, so a simulated
/// and a recorded schedule print in the same form): `latency` (per-task runtime, switches and
/// scheduling delay, perf sched latency's table and sort keys), `timehist` (one row per
/// switch-out: wait time, scheduling delay, run time) and `map` (one column per CPU, a
/// two-character name per task, one row per context switch). Definitions: docs/sched-views.md.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "schedsim/traces/trace_event.hpp"

namespace schedsim::traces {

enum class SchedView : uint8_t { kLatency, kTimehist, kMap };

/// perf sched latency's sort keys, in perf's spelling.
const std::vector<std::string>& latency_sort_keys();
/// Sort keys as a user writes them, "avg, max": split at commas, spaces around a key and empty
/// keys dropped (SchedViews checks the names). `sched -s` and the Python module's sched(sort=).
std::vector<std::string> parse_sort_keys(const std::string& text);
/// A CPU list as `sched map --cpus` (and `--color-cpus`) takes it ("0,2-3"). Throws InputError naming `option` for a
/// malformed or empty list (a CPU beyond the trace is SchedViews::render()'s error).
std::vector<uint32_t> parse_view_cpus(const std::string& text, const char* option = "--cpus");

/// How a view is written: perf's table (the default), or the same rows for programs: JSON
/// (schema "schedsim-sched" version 1, one array of row objects) or CSV (a header line, then the
/// rows). Members and columns: docs/sched-views.md.
enum class SchedFormat : uint8_t { kTable, kJson, kCsv };

/// timehist's runtime summary (perf sched timehist -s / -S).
enum class SchedSummary : uint8_t { kNone, kOnly, kWithRows };

struct SchedViewOptions {
  SchedView view = SchedView::kLatency;
  /// latency: sort keys, first decides (perf's default "avg,max,switch,runtime").
  std::vector<std::string> sort = {"avg", "max", "switch", "runtime"};
  bool per_pid = false;  ///< latency: one row per pid instead of per comm (perf -p)
  bool wakeups = false;     ///< timehist: a row per wake event, "awakened: comm[pid]" (perf -w)
  bool migrations = false;  ///< timehist: a row per sched_migrate_task, "migrated: ..." (perf -M)
  SchedFormat format = SchedFormat::kTable;
  SchedSummary summary = SchedSummary::kNone;  ///< timehist: -s (summary only) or -S (rows, then it)
  bool cpu_visual = false;  ///< timehist -V: a column per CPU marking the row's ('s', 'i' idle, 'm')
  bool compact = false;     ///< map --compact: a column per CPU that switched, as it first does
  /// map --cpus: only these CPUs' columns and rows (ascending, no repeats); empty: every CPU.
  /// A CPU the trace does not have is an InputError at render().
  std::vector<uint32_t> cpus = {};
  /// table: ANSI colours (timehist: rows whose sch delay exceeds highlight_delay, in red; map: the
  /// switching CPU's cell on red, perf's highlight of a CPU). The caller decides, see color_wanted().
  bool color = false;
  int64_t highlight_delay = 1000000;  ///< ns
  /// map --color-pids: these tasks' names in blue wherever they show (perf's COLOR_PIDS).
  std::vector<int64_t> color_pids = {};
  /// map --color-cpus: only these CPUs' switches are highlighted (perf's COLOR_CPUS, a red
  /// background on the "*" cell); empty: every CPU's, as before.
  std::vector<uint32_t> color_cpus = {};
};

/// Whether a table goes out coloured: only to a terminal, and not when NO_COLOR holds a value
/// (https://no-color.org), and never in JSON or CSV. Separate so that tests can decide it.
bool color_wanted(bool stdout_is_terminal, const char* no_color_env, SchedFormat format);

/// Consumes events in time order (ExtractOptions::on_event) and renders the view.
/// A task's `perf sched latency` figures: CPU time, switch-ins after a wake or preemption and
/// the delays before them.
struct TaskLatency {
  uint64_t switches = 0;
  int64_t runtime = 0, total_delay = 0, max_delay = 0, max_start = 0, max_end = 0;
  int64_t avg() const { return switches ? total_delay / static_cast<int64_t>(switches) : 0; }
  /// Adds another task's figures (perf's per-comm merge); the maximum delay keeps its interval,
  /// the earlier one on a tie.
  void merge(const TaskLatency& o);
};

/// Run times, as timehist's summary shows them: count, total, extremes, and the running mean and
/// sum of squared deviations (Welford) behind perf's relative standard deviation.
struct RunStats {
  uint64_t n = 0;
  int64_t total = 0, min = 0, max = 0;
  double mean = 0, m2 = 0;
  void add(int64_t v);
  /// The standard error of the mean in percent of the mean (perf's "stddev %"); 0 for one run.
  double rel_stddev_pct() const;
};

class SchedViews {
 public:
  /// Throws InputError on an unknown sort key (with did-you-mean), or an option that does not
  /// fit the view (-S in JSON or CSV, which hold one table).
  explicit SchedViews(SchedViewOptions opt);
  void on_event(const TraceEvent& ev);
  /// timehist -s: `tid`'s parent as perf's thread table has it (ExtractOptions::on_fork_record),
  /// which the summary prints over sched_process_fork's.
  void on_fork_record(int64_t tid, int64_t ppid);
  /// The CPU count the map shows columns for (the trace header's), when more than seen; also the
  /// width of timehist's -V column and the CPUs of its idle statistics.
  void set_nr_cpus(size_t n);
  /// Writes the view (timehist and map rows go to a temporary file as events arrive, so memory
  /// does not grow with the trace; latency is built here). Throws InputError naming --cpus when
  /// it holds a CPU beyond the trace's, before writing anything.
  void render(std::ostream& out) const;
  /// The same as a string (tests, small views).
  std::string render() const;

 private:
  struct Task : TaskLatency {
    std::string comm;
    enum class St : uint8_t { kUnknown, kRunning, kSleeping, kWaitCpu } st = St::kUnknown;
    int64_t ready = -1;          // when it became runnable (wake, or preempted switch-out)
    int64_t woken = -1;          // when it was woken (timehist's sch delay)
    int64_t last_out = -1;       // its last switch-out
    std::string shortname;       // map
    std::string shown_comm;      // map: the comm printed with its shortname
    // timehist summary
    RunStats runs;
    uint64_t migrated = 0;
    int64_t parent = -1;         // from sched_process_fork, -1 unknown (as perf prints it)
    bool dead = false;           // switched out dead (Z/X) or sched_process_exit seen
    std::string last_name;       // the name its last timehist row printed
  };
  void on_switch(const TraceEvent& ev);
  void on_switch_timehist(const TraceEvent& ev, int64_t last);
  void on_switch_map(const TraceEvent& ev);
  void on_wake(const TraceEvent& ev);
  /// timehist -w / -M: a row naming the task current on the CPU ("swapper" for pid 0).
  void spill_event_row(const TraceEvent& ev, int64_t kind);
  /// timehist: the row of a switch-out, the task `comm`[`tid`] (ns figures, printed in ms).
  void spill_switch_row(const TraceEvent& ev, const std::string& comm, int64_t tid, int64_t wait, int64_t delay,
                        int64_t run);
  Task& task(int64_t pid, const std::string& comm);
  /// The columns the map shows, as CPU numbers (every CPU when neither --compact nor --cpus).
  std::vector<uint32_t> map_columns() const;
  size_t trace_cpus() const { return std::max(nr_cpus_, cpu_curr_.size()); }
  void render_latency(std::ostream& out) const;
  void render_timehist(std::ostream& out, std::FILE* f) const;
  void render_summary(std::ostream& out) const;
  void render_map(std::ostream& out, std::FILE* f) const;

  /// timehist: a thread's group as last seen (the line's TGID, the reader's other_tgid), -1
  /// unknown; perf names a thread of another group leader `comm[tid/tgid]`.
  int64_t tgid_of(int64_t tid) const;
  /// timehist -s: perf's parent of `pid` (a FORK record's) when known, else sched_process_fork's.
  int64_t parent_of(int64_t pid, const Task& t) const;
  std::string task_name(const std::string& comm, int64_t tid, int64_t tgid) const;

  SchedViewOptions opt_;
  std::unordered_map<int64_t, Task> tasks_;
  std::unordered_map<int64_t, int64_t> tgids_;  // timehist: tid -> thread group
  std::unordered_map<int64_t, int64_t> fork_parents_;  // timehist -s: tid -> perf's parent pid
  std::vector<int64_t> cpu_last_switch_;  // per CPU: time of its last sched_switch, -1 unknown
  std::vector<int64_t> cpu_curr_;         // map: pid on each CPU, -1 unknown
  std::vector<int64_t> idle_last_out_;    // timehist: per CPU, its idle task's last switch-out
  std::vector<RunStats> idle_runs_;       // timehist summary: per CPU, its idle task's runs
  int64_t first_switch_ = -1, last_switch_ = -1;  // timehist summary: the window perf reports
  uint64_t unknown_switch_ins_ = 0;       // latency: first switch-in of a task with no wake seen
  // timehist and map: their rows as records (written by put_*(), read back at render(), where
  // the CPU count, the visual's width and the map's columns are known), so memory does not grow
  // with the trace: a map row holds a column per CPU, and on a 4096-CPU trace the rows of a
  // 3.2 MB trace were 1.5 GB in memory. An anonymous temporary file (tmpfile(3)).
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> spill_;
  void spill(std::string_view bytes);
  void put_i64(int64_t v);
  void put_str(std::string_view s);
  size_t nr_cpus_ = 0;
  size_t row_cpus_ = 0;             // timehist: the highest CPU of a row, plus one
  std::vector<uint32_t> columns_;   // map --compact: CPUs in the order they first switched
  std::vector<bool> in_columns_;    // map --compact: by CPU, whether columns_ holds it
  std::vector<bool> shown_cpu_;     // map: which CPUs' rows are printed (--cpus), by CPU
  char next_short_[2] = {'A', '0'};
  bool idle_introduced_ = false;  // map: the idle task's ".  => swapper:0" was printed
};

}  // namespace schedsim::traces
