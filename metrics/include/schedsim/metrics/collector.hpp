#pragma once
/// MetricsCollector: an engine Observer that turns the simulated schedule into RunResults.
///
/// Definitions (docs/results-schema.md, perf sched latency for the per-task figures):
///   wakeup latency   on_wake(kind = wakeup).at  ->  the wakee's next switch-in. Includes the
///                    placement search, IPI, idle exit and queueing.
///   fork latency     on_wake(kind = fork).at    ->  the child's first switch-in.
///   preempt delay    switch-out with SwitchReason::kPreempt -> the task's next switch-in.
///   run-queue wait   the task became queued (on_enqueue, or a preemption / migration switch-out
///                    that leaves it runnable) -> its next switch-in; every cause.
///   per-task delay   wakeup latency or preempt delay, whichever started the wait (perf's
///                    "sch delay"); its maximum is kept with its start and end time.
///   migration        a task starts running on another CPU than the one it last ran on (before
///                    its first run: the CPU it sat on before its first move), the definition a
///                    trace's observed count uses (traces/ extractor); by the topology distance
///                    between the two CPUs. Moves that end where the task last ran are not one.
///   busy             a task is current on the CPU (from on_switch); idle = makespan - busy.
///   wasted           the CPU is idle, its own queue is empty, and some queued-but-not-running
///                    task whose affinity allows this CPU waits on another CPU's queue (the
///                    work-conservation violation of "The Linux Scheduler: a Decade of Wasted
///                    Cores"). Tasks between on_wake and on_enqueue (IPI, idle exit in flight)
///                    are not "waiting in a queue" and do not count.
///   hint staleness   a placement that consulted has_idle_cores: "stale yes" when it said yes
///                    while the LLC of the chosen CPU had no idle core (SchedState's exact
///                    count at on_wake time), "stale no" when it said no while one existed.
///   utilization tl   per-CPU busy time in at most kTimelineBuckets buckets: the bucket width
///                    starts at 1 us and doubles (merging bucket pairs) whenever the run outgrows
///                    the range, so memory is constant and 100-200 buckets cover the makespan.
///
/// Background tasks (TaskSpec::background) are load, not measured: their wakes, forks, switches,
/// preemptions, migrations, exits and runs add to no latency, count or per-task row, and the
/// makespan spans the measured tasks' events only. A CPU running one is busy all the same (the
/// per-CPU busy, idle, wasted time and the timeline describe the machine, within the makespan).
///
/// Per-phase throughput is not collected: the workload model has no phase concept yet.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedsim/base/histogram.hpp"
#include "schedsim/engine/observer.hpp"
#include "schedsim/engine/summary.hpp"
#include "schedsim/metrics/results.hpp"
#include "schedsim/topology/cpu_mask.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim {

class MetricsCollector : public Observer {
 public:
  static constexpr uint32_t kTimelineBuckets = 200;

  /// `w` supplies task names, pids and the observed stats; it must outlive the collector.
  explicit MetricsCollector(const Workload& w);

  /// Keeps `s` (the live state) for affinities and the exact idle-core counts during the run.
  void on_start(const SchedState& s) override;
  void on_task_start(Instant at, TaskId t, TaskId parent) override;
  void on_wake(const WakeFact& f) override;
  void on_enqueue(Instant at, TaskId t, CpuId cpu) override;
  void on_switch(Instant at, CpuId cpu, TaskId prev, SwitchReason why, TaskId next) override;
  void on_migrate(Instant at, TaskId t, CpuId from, CpuId to, CpuDistance d) override;
  void on_exit(Instant at, TaskId t, CpuId cpu) override;
  void on_token(Instant at, TaskId t, bool consumed_immediately) override;
  void on_tokens_consumed(Instant last, TaskId t, uint64_t n) override;
  void on_run(Instant at, TaskId t, CpuId cpu, Duration wall, Duration work) override;
  void on_end(const SchedState& s, Instant end) override;

  /// Builds the results. `summary` (optional) adds the engine's own totals (events, completion).
  /// Valid after on_end (open intervals are closed there); it does not touch the SchedState, so
  /// it may be called after the Simulation is gone.
  RunResults results(const RunConfig& config, const SimSummary* summary = nullptr) const;

  /// Raw histograms, for tests and for merging across runs.
  const Histogram& wakeup_latency() const { return wakeup_latency_; }
  /// The measured tasks' run() work simulated so far (ns; the progress line's share done).
  int64_t work_done_ns() const { return work_done_; }
  const Histogram& preempt_delay() const { return preempt_delay_; }
  const Histogram& runqueue_wait() const { return runqueue_wait_; }

 private:
  static constexpr size_t kNrDistances = static_cast<size_t>(CpuDistance::kNuma) + 1;
  static constexpr size_t kNrOutcomes = static_cast<size_t>(PlaceOutcome::kCount);

  struct TaskAcc {
    Instant wake_at;             // pending wakeup/fork (valid while wake_pending)
    Instant preempt_at;          // pending preemption wait
    Instant queued_since;        // run-queue wait start (valid while queued)
    Instant running_since;
    Instant delay_start;         // start of the pending per-task delay
    int32_t queue_cpu = -1;      // CPU whose queue holds it while queued (not running)
    int32_t last_cpu = -1;       // where it last ran (or sat before its first move); -1 = not yet
    bool wake_pending = false, fork_pending = false, preempt_pending = false, delay_pending = false;
    bool queued = false, running = false, restricted = false, exited = false, forked = false;
    uint64_t switches = 0, delays = 0, migrations = 0;
    int64_t runtime = 0, delay_total = 0, max_delay = 0;
    Instant max_start, max_end;
  };
  struct CpuAcc {
    bool busy = false;
    Instant busy_since;
    int64_t busy_ns = 0;
    uint32_t queued = 0;         // queued-not-running tasks on this CPU's queue
    bool wasted = false;
    Instant wasted_since;
    int64_t wasted_ns = 0;
  };

  void set_waiting(TaskId t, uint32_t cpu, Instant at);
  void refresh_cpu(uint32_t cpu);
  void clear_waiting(TaskId t);
  void account_busy(uint32_t cpu, Instant from, Instant to);
  // A closed busy or wasted interval of a CPU: counted at once when it ends by the latest
  // measured event (last_), else held in tail_ (commit_tail()).
  void close_interval(uint32_t cpu, bool wasted, Instant from, Instant to);
  void add_interval(uint32_t cpu, bool wasted, Instant from, Instant to);
  void commit_tail(Instant limit);
  void grow_timeline(Instant to);
  void update_wasted(Instant at);
  void see(Instant at);

  // On every observer call: a byte per task, not TaskSpec::background (a cache line apart each).
  bool measured(TaskId t) const { return background_[t.value()] == 0; }

  // The parts of results(), in the order it fills them.
  void fill_totals(RunResults& r, const SimSummary* summary, Instant end) const;
  void fill_placement(RunResults& r) const;
  void fill_cpus(RunResults& r) const;
  void fill_timeline(RunResults& r, Instant end) const;
  int64_t fill_tasks(RunResults& r) const;  // returns the measured tasks' total runtime
  void fill_observed(RunResults& r, int64_t total_runtime) const;

  std::vector<uint8_t> background_;  // TaskSpec::background by task
  const Workload& workload_;
  const SchedState* state_ = nullptr;
  // The benchmark's own timer (workload meta "benchmark_timer" = the timing task's index): from
  // that task's first wake of another task (the start barrier's release), or with meta
  // "benchmark_timer_from" = "start" from that task's start, to its exit. "benchmark_ops": the
  // operations the program divides its time by (perf bench sched pipe's usecs/op).
  int64_t bench_task_ = -1;
  int64_t bench_ops_ = -1;
  bool bench_from_start_ = false;
  bool bench_started_ = false, bench_stopped_ = false;
  Instant bench_start_, bench_stop_;
  uint32_t nr_cpus_ = 0;
  std::vector<TaskAcc> tasks_;
  std::vector<CpuAcc> cpus_;
  std::vector<uint32_t> llc_of_cpu_;
  std::vector<uint32_t> node_of_cpu_;
  Histogram wakeup_latency_, preempt_delay_, runqueue_wait_, fork_latency_;
  Histogram probes_, search_ns_, wake_delay_;
  std::vector<uint64_t> outcomes_;
  std::vector<uint64_t> migrations_;
  uint64_t wakeups_ = 0, forks_ = 0, execs_ = 0, to_idle_ = 0, cross_llc_waker_ = 0,
           cross_llc_prev_ = 0, hint_consulted_ = 0, hint_stale_yes_ = 0, hint_stale_no_ = 0;
  uint64_t context_switches_ = 0, tokens_banked_ = 0, exited_ = 0;
  int64_t work_done_ = 0;
  bool started_ = false, ended_ = false;
  Instant first_, last_, end_;
  // Wasted-time bookkeeping: tasks waiting in a queue, split into those allowed everywhere
  // (a counter: any idle-and-empty CPU is wasted) and those with a restricted affinity (a list).
  uint32_t waiting_unrestricted_ = 0;
  std::vector<TaskId> waiting_restricted_;
  // Bitmaps over this machine's CPUs only (not CpuMask's full capacity: this runs every event).
  std::vector<uint64_t> idle_empty_;   // CPUs idle with an empty queue
  std::vector<uint64_t> wasted_mask_;  // CPUs currently accumulating wasted time
  uint32_t wasted_count_ = 0;
  // Utilization timeline: [cpu][bucket] busy ns, bucket width doubling.
  Instant tl_start_;
  int64_t tl_width_ = 1000;
  std::vector<std::vector<int64_t>> tl_busy_;
  // Busy and wasted intervals that ended after the latest measured event: only background tasks
  // were active since, and the makespan may end before them (a measured task stuck while a
  // background one runs on, or CPU time before the first measured event). Counted, clipped to
  // [first_, limit], when the next measured event or on_end() fixes the limit; so per-CPU busy,
  // wasted time and the timeline stay within the makespan.
  struct TailInterval {
    uint32_t cpu;
    bool wasted;
    Instant from, to;
  };
  std::vector<TailInterval> tail_;
};

}  // namespace schedsim
