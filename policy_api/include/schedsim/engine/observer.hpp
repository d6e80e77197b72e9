#pragma once
/// Observer hooks: every fact the engine establishes, so metrics, trace writers and invariant
/// checkers live outside the engine. All callbacks happen in simulated-time order, except those
/// of the segment advance's folded steps (on_run(), on_token()), which come late.
#include "schedsim/base/ids.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/engine/policy.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim {

/// A wakeup (or fork/exec placement) decision: sched_waking plus select_task_rq's answer.
struct WakeFact {
  Instant at;               ///< when the waker issued it (sched_waking time)
  TaskId wakee;
  TaskId waker;             ///< invalid for wakeups from outside (timer, interrupt)
  CpuId waker_cpu{0};
  CpuId prev_cpu{0};
  WakeKind kind = WakeKind::kWakeup;
  bool sync = false;
  PlacementResult placement;
  Duration delay;           ///< scan + IPI + idle exit before the wakee is enqueued
  bool target_was_idle = false;  ///< the chosen CPU was idle when chosen
};

/// Why a task left a CPU.
enum class SwitchReason : uint8_t { kBlock, kSleep, kPreempt, kExit, kMigrate };

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_start(const SchedState&) {}
  /// A task becomes runnable for the first time (start or fork), before placement.
  virtual void on_task_start(Instant, TaskId, TaskId /*parent, invalid if none*/) {}
  virtual void on_wake(const WakeFact&) {}
  /// The wakee was enqueued on cpu (after the wake delay) and is now runnable there.
  virtual void on_enqueue(Instant, TaskId, CpuId /*cpu*/) {}
  /// cpu switched from prev (invalid = idle) to next (invalid = idle).
  virtual void on_switch(Instant, CpuId /*cpu*/, TaskId /*prev*/, SwitchReason, TaskId /*next*/) {}
  /// A task moved between CPUs (wakeup placement or load balance).
  virtual void on_migrate(Instant, TaskId, CpuId /*from*/, CpuId /*to*/, CpuDistance) {}
  virtual void on_idle_enter(Instant, CpuId /*cpu*/) {}
  virtual void on_idle_exit(Instant, CpuId /*cpu*/) {}
  /// A wake banked as a token for a task that was not asleep in a block (false: a no-op wake),
  /// or a block the task passed with one (true). Under the segment advance both come late for
  /// a CPU's folded steps, with their own times, as on_run() does.
  virtual void on_token(Instant, TaskId, bool /*consumed_immediately*/) {}
  /// `n` blocks of a running task passed with banked tokens, the last at `last` (the segment
  /// advance, engine/src/segment.cpp, reports a folded row at once): n on_token(..., true).
  virtual void on_tokens_consumed(Instant last, TaskId t, uint64_t n) {
    for (uint64_t i = 0; i < n; ++i) on_token(last, t, true);
  }
  virtual void on_exit(Instant, TaskId, CpuId /*cpu*/) {}
  /// Simulated work accounting: task ran `wall` ns on cpu completing `work` ns of reference work.
  /// Under the segment advance one call may stand for a row of consecutive runs of the task, and
  /// the calls (and on_token()) of a CPU's folded completions come late, after other CPUs'
  /// events, each with its own time.
  virtual void on_run(Instant, TaskId, CpuId /*cpu*/, Duration /*wall*/, Duration /*work*/) {}
  virtual void on_end(const SchedState&, Instant /*makespan end*/) {}
};

}  // namespace schedsim
