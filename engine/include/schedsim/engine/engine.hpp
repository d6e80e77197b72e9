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
#include "schedsim/engine/summary.hpp"
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
