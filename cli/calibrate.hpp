#pragma once
/// `schedsim calibrate`: fits a few cost-model parameters so that replays of real traces match
/// what the real kernel did in them (docs/calibrate.md). Callable without argv (tests use it).
///
/// Method: every trace is imported once; one evaluation replays all of them with a candidate
/// cost model (deterministic, seed 1) and scores the mismatch; stats::coordinate_search moves the
/// parameters, each inside its documented plausible range (calibration_ranges()), on a log scale,
/// within a bounded number of evaluations.
///
/// Objective: the mean over traces of the mean over the trace's fitted metrics of
/// ln(simulated / observed)^2 (values floored at 100 ns for times and 1 for counts). Fitted
/// metrics: makespan, wakeup count, wakeup latency p50/p90/p99, and the run-queue wait of
/// preempted tasks (p50) when the trace has at least 30 such samples.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "schedsim/engine/cost_model.hpp"
#include "schedsim/traces/import.hpp"

namespace schedsim::cli {

/// A parameter calibrate may fit: its plausible range and where the range comes from.
struct CalibrationRange {
  const char* name;
  double lo, hi;       ///< ns, or permille for smt_corun_permille
  const char* source;
};
/// Every parameter `--fit` accepts, in a fixed order.
const std::vector<CalibrationRange>& calibration_ranges();

/// Refusal thresholds: a trace shorter than this, or with fewer observed wakeups, cannot be fitted
/// (its percentiles are too coarse: a p99 of fewer than 100 samples is its maximum).
inline constexpr int64_t kCalibrateMinSpanNs = 10'000'000;
inline constexpr uint64_t kCalibrateMinWakeups = 100;
/// Run-queue wait enters the objective only with this many observed samples.
inline constexpr uint64_t kCalibrateMinRqSamples = 30;

struct CalibrateRequest {
  std::vector<std::string> traces;
  /// Instead of traces: a generator spec (as run --workload-gen) and the benchmark time the real
  /// program reported on the machine (hackbench's "Time:", perf bench's "Total time"). The fit
  /// then moves the generator's per-operation costs (default: those the generator uses) by one
  /// common factor, since one figure determines one degree of freedom.
  std::string workload_gen;
  int64_t benchmark_time_ns = -1;
  std::string topology;
  std::string kernel;                 ///< profile version ("" = default modules)
  std::vector<std::string> costs;     ///< starting point: name=value or cost files, as --cost
  std::vector<std::string> fit;       ///< parameter names; empty = the default set (default_fit_params)
  traces::ExtractOptions extract;
  uint32_t max_evals = 200;
  /// Called after every evaluation: (evaluations so far, budget, best objective so far).
  std::function<void(uint32_t, uint32_t, double)> progress;
};

struct FittedParam {
  std::string name;
  double lo = 0, hi = 0, start = 0, fitted = 0;
  std::string unit, source;
};

struct MetricFit {
  std::string metric;
  double observed = 0, start = 0, fitted = 0;
  bool in_objective = false;
  std::string note;  ///< e.g. the observed value is a lower bound
};

struct TraceFit {
  std::string path;
  uint64_t observed_wakeups = 0;
  double span_ms = 0;
  std::vector<MetricFit> metrics;
  double start_score = 0, fitted_score = 0;  ///< this trace's share of the objective
};

struct CalibrateResult {
  bool generated = false;  ///< fitted on a generator's benchmark time, the parameters by one factor
  CostModel cost;                    ///< the fitted model (base costs + fitted parameters)
  std::vector<FittedParam> params;
  std::vector<TraceFit> traces;
  double start_objective = 0, fitted_objective = 0;
  uint32_t evals = 0, budget = 0, rejected = 0;  ///< rejected: candidates whose replay did not complete
  bool converged = false;
  std::string topology, kernel;
  std::vector<std::string> cost_json_keys;  ///< what the cost file holds (base settings + fitted)
};

/// The default parameters to fit on traces for this topology and idle-wake model:
/// ipi_same_package (+ ipi_cross_package with several packages), the idle exit (idle_exit for
/// `constant`; idle_exit_polled, idle_exit_halted, timer_wake_local for `vm-halt-poll`) and
/// smt_corun_permille when the machine has SMT; context_switch too when replay_overheads is
/// `charged` (otherwise a replay does not charge it: the trace already contains it).
std::vector<std::string> default_fit_params(bool multi_package, bool smt, IdleWakeMode mode,
                                            bool switch_charged = false);

/// Throws InputError for a trace that cannot be fitted (not a trace, lost events, too short, too
/// few wakeups, import not conserved, replay incomplete at the start point), an unknown --fit
/// name, or max_evals 0.
CalibrateResult calibrate(const CalibrateRequest& req);

/// The cost file (a JSON object `run --cost FILE` reads): base settings and fitted values.
std::string render_cost_file(const CalibrateResult& r);
/// The fit report: parameters (range, start, fitted), then per trace and metric the observed,
/// simulated at the start and fitted, and the relative error.
std::string render_calibration_report(const CalibrateResult& r);

}  // namespace schedsim::cli
