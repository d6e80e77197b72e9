#pragma once
/// The three `perf sched` views a scheduler developer reads, computed from the neutral trace
/// events (any trace import reads, including schedsim's own `run --trace-out`, so a simulated
/// and a recorded schedule print in the same form): `latency` (per-task runtime, switches and
/// scheduling delay, perf sched latency's table and sort keys), `timehist` (one row per
/// switch-out: wait time, scheduling delay, run time) and `map` (one column per CPU, a
/// two-character name per task, one row per context switch). Definitions: docs/sched-views.md.
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

struct SchedViewOptions {
  SchedView view = SchedView::kLatency;
  /// latency: sort keys, first decides (perf's default "avg,max,switch,runtime").
  std::vector<std::string> sort = {"avg", "max", "switch", "runtime"};
  bool per_pid = false;  ///< latency: one row per pid instead of per comm (perf -p)
  bool wakeups = false;     ///< timehist: a row per wake event, "awakened: comm[pid]" (perf -w)
  bool migrations = false;  ///< timehist: a row per sched_migrate_task, "migrated: ..." (perf -M)
};

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

class SchedViews {
 public:
  /// Throws InputError on an unknown sort key (with did-you-mean).
  explicit SchedViews(SchedViewOptions opt);
  void on_event(const TraceEvent& ev);
  /// The CPU count the map shows columns for (the trace header's), when more than seen.
  void set_nr_cpus(size_t n);
  /// Writes the view (timehist and map rows go to a temporary file as events arrive, so memory
  /// does not grow with the trace; latency is built here).
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
  };
  void on_switch(const TraceEvent& ev);
  void on_wake(const TraceEvent& ev);
  void on_migrate(const TraceEvent& ev);
  /// timehist: the task a wake or migration row names as current on the CPU ("<idle>" for pid 0).
  void spill_event_row(const TraceEvent& ev, const std::string& what);
  /// timehist: the row of a switch-out, the task named `name` (ns figures, printed in ms).
  void spill_switch_row(const TraceEvent& ev, const std::string& name, int64_t wait, int64_t delay, int64_t run);
  Task& task(int64_t pid, const std::string& comm);
  std::string render_latency() const;

  SchedViewOptions opt_;
  std::unordered_map<int64_t, Task> tasks_;
  std::vector<int64_t> cpu_last_switch_;  // per CPU: time of its last sched_switch, -1 unknown
  std::vector<int64_t> cpu_curr_;         // map: pid on each CPU, -1 unknown
  std::vector<int64_t> idle_last_out_;    // timehist: per CPU, its idle task's last switch-out
  uint64_t unknown_switch_ins_ = 0;       // latency: first switch-in of a task with no wake seen
  // timehist: its text; map: per row the CPU columns known when it was made (u32), then the
  // cells ("*A0  B0 ...") and the tail ("  <time> secs [X0 => comm:pid]\n"), each as a u32
  // length and the bytes. A map row holds a column per CPU: on a 4096-CPU trace the rows of a
  // 3.2 MB trace were 1.5 GB in memory. An anonymous temporary file (tmpfile(3)).
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> spill_;
  void spill(std::string_view bytes);
  size_t nr_cpus_ = 0;
  char next_short_[2] = {'A', '0'};
  bool idle_introduced_ = false;  // map: the idle task's ".  => swapper:0" was printed
};

}  // namespace schedsim::traces
