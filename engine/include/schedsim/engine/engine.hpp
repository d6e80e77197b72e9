#pragma once
/// The discrete-event simulation: replays a Workload on a Topology with a PolicyStack.
///
/// Single-threaded and deterministic: the event queue is keyed by (time, ticks last, insertion
/// sequence), and all randomness comes from one seeded generator, so the same inputs give the
/// same run.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "schedsim/engine/cost_model.hpp"
#include "schedsim/engine/observer.hpp"
#include "schedsim/engine/policy.hpp"
#include "schedsim/engine/state.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim {

struct SimConfig {
  uint64_t seed = 1;
  int64_t jitter_permille = 0;       ///< run(d) durations scaled by U[1-j, 1+j]
  bool check_invariants_full = false;  ///< O(CPUs) checks after every event (debug flag)
  Instant stop_at = Instant::max();  ///< end the simulation early (incomplete run)
  uint64_t max_events = UINT64_MAX;  ///< safety valve for runaway workloads
  /// No event is processed after this simulated time: an action, start time or wakeup that would
  /// need one is an InputError naming the task and action (before any tick is simulated for it).
  /// Bounds every simulated-time value far from int64 overflow (a tick every few ms for 2^62 ns
  /// would never finish). Must not exceed kMaxTimeLimit.
  Instant max_time = kDefaultMaxTime;
  static constexpr Instant kDefaultMaxTime = Instant::from_ns(86400LL * 1000000000LL);  ///< 24 h
  static constexpr Instant kMaxTimeLimit = Instant::from_ns(366LL * 86400LL * 1000000000LL);  ///< 366 days
};

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

/// Totals the engine itself keeps (metrics modules keep the rest through observers).
struct SimSummary {
  Instant end;                  ///< time the last task exited or the last event happened
  uint64_t events = 0;
  uint64_t wakeups = 0;         ///< wake actions that made a blocked/sleeping task runnable
  uint64_t tokens_banked = 0;   ///< wakes to a task not yet blocked (token kept)
  /// Banked tokens no block() consumed by the end. Non-zero means some wake had nothing left to
  /// wake: harmless for synthetic fan-in, but in a trace replay it is the "spare token" that
  /// lets a task run ahead of reality (DESIGN.md pitfalls).
  uint64_t tokens_left = 0;
  /// Channel operations (write/read actions, engine/src/channel.hpp): completed writes and
  /// reads, wakes they caused (readers + writers; also counted in `wakeups`), and how often a
  /// write found its channel full or a read found it empty and slept.
  uint64_t channel_writes = 0, channel_reads = 0, channel_wakes = 0, channel_sleeps = 0;
  uint64_t forks = 0;
  uint64_t migrations = 0;
  uint64_t context_switches = 0;
  Duration work_done;           ///< reference work completed
  Duration work_expected;       ///< workload total (expanded)
  /// The run reached its natural end: not stopped early, the workload has tasks, every task
  /// exited, and no wake token was left unconsumed. When false, `incomplete` says why.
  bool complete = true;
  StopReason stop = StopReason::kNone;
  uint32_t tasks_stuck = 0;     ///< tasks left blocked forever at the end
  std::vector<UnfinishedTask> unfinished;  ///< (not filled for an early stop)
  /// One human line per reason the run is not complete (task id, name, where in its program),
  /// at most kMaxIncompleteLines task lines plus a count of the rest.
  std::vector<std::string> incomplete;
  static constexpr size_t kMaxIncompleteLines = 20;
};

class Simulation {
 public:
  Simulation(const Workload& w, const Topology& t, PolicyStack policies, CostModel cost, SimConfig cfg);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Observers are not owned; they must outlive run().
  void add_observer(Observer* o);
  /// Runs to completion (or stop_at / max_events). Checks invariants at the end.
  SimSummary run();
  const SchedState& state() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace schedsim
