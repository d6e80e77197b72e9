#pragma once
/// The discrete-event simulation: replays a Workload on a Topology with a PolicyStack.
///
/// Single-threaded and deterministic: the event queue is keyed by (time, ticks last, insertion
/// sequence), and all randomness comes from one seeded generator, so the same inputs give the
/// same run.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/engine/cost_model.hpp"
#include "schedsim/engine/observer.hpp"
#include "schedsim/engine/policy.hpp"
#include "schedsim/engine/state.hpp"
#include "schedsim/engine/summary.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim {

/// The kernel's preemption model (CONFIG_PREEMPT_* / preempt= with PREEMPT_DYNAMIC): where a
/// preemption that the queue module's check_preempt_wakeup()/check_preempt_tick() asked for
/// takes effect. It matters only where the workload says a task is inside a system call (run
/// actions flagged kRunSyscall: trace imports with `--channels` or ExtractOptions::syscall_marks,
/// which `run --preempt` other than full sets); elsewhere every mode is kFull.
enum class PreemptModel : uint8_t {
  /// Immediate (preempt=full: resched_curr() sets TIF_NEED_RESCHED and the next
  /// preempt_enable() or interrupt return switches, in the kernel too). The default.
  kFull,
  /// preempt=none: a task inside a syscall is switched only at its return to user space (a
  /// run without kRunSyscall follows); if it blocks first the switch is a sleep. A task in
  /// user space is switched at once (the resched IPI or the tick returns to user mode).
  kNone,
  /// preempt=voluntary: replayed as kNone (the cond_resched() points inside the syscall are
  /// not modelled; the CLI warns).
  kVoluntary,
  /// preempt=lazy (7c70cb94d29c "sched: Add Lazy preemption model", v6.13): a fair-class
  /// preemption sets TIF_NEED_RESCHED_LAZY, acted on at the next return to user space, or
  /// made TIF_NEED_RESCHED by the next tick (sched_tick()). No IPI is sent for it, so a task
  /// in user space also keeps the CPU until its next syscall return or tick.
  kLazy,
};

/// When the running task's CPU time reaches the run-queue module (the queue's update_curr(),
/// TaskSched::sum_exec). The work itself is accounted exactly either way; only the scheduler's
/// view of it (vruntime, the average V, deadlines) moves at different instants.
enum class UpdateCurr : uint8_t {
  /// At every end of a replayed run action, unless the run ends at a syscall entry or exit
  /// (schedsim's historical rule). The default.
  kActions,
  /// Only at scheduler events, as the kernel calls update_curr(): the tick, an enqueue or dequeue
  /// on that CPU (block, sleep, exit, a wakee or migrated task arriving), the wakeup-preemption
  /// check, schedule(), a migration (its source CPU too) and, for a queue module that places a
  /// child at fork (QueuePolicy::task_fork_reads_queue()), a fork. In between the time is held
  /// back (the quiet mode of Simulation::Impl::update_progress()). What it changes: ttwu_runnable() ->
  /// requeue_delayed_entity() re-places a DELAY_DEQUEUE'd wakee against a V that does not yet
  /// hold the waker's run since its last scheduler event (docs/model.md "Local wakeup
  /// preemption").
  kEvents,
};

struct SimConfig {
  uint64_t seed = 1;
  int64_t jitter_permille = 0;       ///< run(d) durations scaled by U[1-j, 1+j]
  bool check_invariants_full = false;  ///< O(CPUs) checks after every event (debug flag)
  /// End the simulation early (an incomplete run): events at or before it run, and the run's
  /// span (SimSummary::end, the makespan) ends at it.
  Instant stop_at = Instant::max();
  uint64_t max_events = UINT64_MAX;  ///< safety valve for runaway workloads
  PreemptModel preempt = PreemptModel::kFull;  ///< where a requested preemption takes effect
  UpdateCurr update_curr = UpdateCurr::kActions;  ///< when curr's run time reaches the queue
  /// No event is processed after this simulated time: an action, start time or wakeup that would
  /// need one is an InputError naming the task and action (before any tick is simulated for it).
  /// Bounds every simulated-time value far from int64 overflow (a tick every few ms for 2^62 ns
  /// would never finish). Must not exceed kMaxTimeLimit.
  Instant max_time = kDefaultMaxTime;
  static constexpr Instant kDefaultMaxTime = Instant::from_ns(86400LL * 1000000000LL);  ///< 24 h
  static constexpr Instant kMaxTimeLimit = Instant::from_ns(366LL * 86400LL * 1000000000LL);  ///< 366 days
};

/// "full", "none", "voluntary", "lazy".
const char* to_string(PreemptModel m);
/// Parses one of to_string()'s names; false if unknown.
bool parse_preempt_model(std::string_view s, PreemptModel& out);
/// "actions", "events".
const char* to_string(UpdateCurr u);
/// Parses one of to_string()'s names; false if unknown.
bool parse_update_curr(std::string_view s, UpdateCurr& out);

class Simulation {
 public:
  Simulation(const Workload& w, const Topology& t, PolicyStack policies, CostModel cost, SimConfig cfg);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Observers are not owned; they must outlive run().
  void add_observer(Observer* o);
  /// Called from the event loop every kPollEvery events with the simulated time and the events
  /// so far, whatever the events are (a task running back-to-back run() actions calls no
  /// observer): the hook for SIGINT/SIGTERM, the memory budget and progress. It may throw to end
  /// the run. 65536 events take 2-20 ms.
  static constexpr uint64_t kPollEvery = 65536;
  void set_poll(std::function<void(Instant, uint64_t)> poll);
  /// Runs to completion (or stop_at / max_events). Checks invariants at the end.
  SimSummary run();
  const SchedState& state() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedsim
