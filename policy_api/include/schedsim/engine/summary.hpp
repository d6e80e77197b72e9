#pragma once
/// What a finished simulation reports about itself (Simulation::run() returns it). Part of the
/// policy contract target so that consumers of results (metrics) need not link the engine.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "schedsim/base/ids.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/engine/state.hpp"

namespace schedsim {

/// Why the event loop ended before running out of events.
enum class StopReason : uint8_t { kNone, kStopAt, kMaxEvents };

/// A task that did not finish cleanly (the simulation ran out of events with it not exited), or
/// exited with wake tokens nobody consumed.
struct UnfinishedTask {
  TaskId task;
  TaskState state = TaskState::kBlocked;  ///< kBlocked, kNotStarted (never forked), or kExited
  uint64_t pc = 0;             ///< index in its (compact) program of the action it waits in
  bool before_start = false;   ///< "start": "blocked" and never woken (waits before action 0)
  int64_t tokens = 0;          ///< wake tokens banked and never consumed
};

/// Totals the engine itself keeps (metrics modules keep the rest through observers). events,
/// wakeups, forks, migrations, context_switches and the channel, held-back-preemption and
/// reschedule-IPI counters count every task, background ones included (TaskSpec::background);
/// the token, work and unfinished-task figures count measured tasks only.
struct SimSummary {
  /// Time the last measured task exited or last left a CPU (an incomplete run); for a run
  /// stopped by SimConfig::stop_at, the stop time itself (the run covers [0, stop_at]).
  Instant end;
  uint64_t events = 0;
  uint64_t wakeups = 0;         ///< wake actions that made a blocked/sleeping task runnable
  uint64_t tokens_banked = 0;   ///< wakes to a task not yet blocked (token kept); measured tasks only
  /// Banked tokens no block() consumed by the end. Non-zero means some wake had nothing left to
  /// wake: harmless for synthetic fan-in, but in a trace replay it is the "spare token" that
  /// lets a task run ahead of reality (docs/traces.md "Extraction").
  uint64_t tokens_left = 0;
  /// Channel operations (write/read actions, engine/src/channel.hpp): completed writes and
  /// reads, wakes they caused (readers + writers; also counted in `wakeups`), and how often a
  /// write found its channel full or a read found it empty and slept.
  uint64_t channel_writes = 0, channel_reads = 0, channel_wakes = 0, channel_sleeps = 0;
  /// SimConfig::preempt: preemptions asked for while curr was inside a syscall (or, lazy, had
  /// no IPI coming), held until its return to user space or a tick; of those, the ones curr
  /// left the CPU before (blocked, slept, exited: the wakee merely waited).
  uint64_t preempt_deferred = 0, preempt_deferred_slept = 0;
  /// CostModel::resched_ipi > 0: wakeup preemptions of another CPU's task sent as a reschedule
  /// IPI (taking effect resched_ipi later); of those, the ones a switch on that CPU made moot
  /// before the IPI landed (curr blocked, slept or was preempted first: schedule() picked anew).
  uint64_t resched_ipi = 0, resched_ipi_superseded = 0;
  uint64_t forks = 0;
  uint64_t migrations = 0;
  uint64_t context_switches = 0;
  Duration work_done;           ///< reference work completed (by measured, not background, tasks)
  Duration work_expected;       ///< run() work started (measured tasks; all of it in a complete run)
  /// replay_overheads=migration-delta: recorded refill time of the migrations the recording made,
  /// not run again by the replay (counted in work_done; cost_model.hpp)
  Duration recorded_refill_credited;
  /// replay_wakes=modelled: recorded wake time taken off the wakers' recorded runs (counted in
  /// work_done), and the modelled wake time charged for the wakes the replay performed.
  Duration recorded_wake_credited;
  Duration wake_cost_charged;
  /// The run reached its natural end: not stopped early, the workload has tasks, every task
  /// exited, and no wake token was left unconsumed. When false, `incomplete` says why.
  bool complete = true;
  StopReason stop = StopReason::kNone;
  uint32_t tasks_stuck = 0;     ///< tasks left blocked forever at the end (measured tasks only)
  /// Background tasks (TaskSpec::background) not exited at the end: cut off when the last
  /// measured task exited, or left blocked; never a reason for `incomplete`.
  uint32_t background_cut = 0;
  std::vector<UnfinishedTask> unfinished;  ///< (not filled for an early stop)
  /// One human line per reason the run is not complete (task id, name, where in its program),
  /// at most kMaxIncompleteLines task lines plus a count of the rest.
  std::vector<std::string> incomplete;
  static constexpr size_t kMaxIncompleteLines = 20;
};

}  // namespace schedsim
