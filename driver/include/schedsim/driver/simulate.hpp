#pragma once
/// One simulation with the metrics collector attached: the one path every run of the driver takes
/// (`run` and each of its repetitions, so each `sweep` point and each `validate` row, and each
/// replay of a `calibrate` fit). Callers add observers of their own (the --trace-out writer)
/// before run().
#include <functional>
#include <string>

#include "schedsim/engine/engine.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/metrics/progress.hpp"
#include "schedsim/metrics/results.hpp"

namespace schedsim::driver {

class MeteredRun {
 public:
  /// `progress`: "auto", "always" or "never" (the progress bar on stderr); `poll` is called every
  /// Simulation::kPollEvery engine events with the simulated time: it throws to end the run
  /// (a signal, the memory budget).
  MeteredRun(const Workload& w, const Topology& t, PolicyStack p, const CostModel& c, const SimConfig& s,
             const std::string& progress, std::function<void(Instant)> poll);
  MeteredRun(const MeteredRun&) = delete;
  MeteredRun& operator=(const MeteredRun&) = delete;

  void add_observer(Observer* o) { sim_.add_observer(o); }
  SimSummary run() { return sim_.run(); }
  /// The run's results, once run() has returned `summary`.
  RunResults results(const RunConfig& config, const SimSummary& summary) { return metrics_.results(config, &summary); }

 private:
  Simulation sim_;
  MetricsCollector metrics_;
  ProgressReporter progress_;
  std::function<void(Instant)> poll_;
};

}  // namespace schedsim::driver
