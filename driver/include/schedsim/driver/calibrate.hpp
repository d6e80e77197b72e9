#pragma once
/// `schedsim calibrate`: fits a few cost-model parameters so that replays of real traces match
/// what the real kernel did in them (docs/calibrate.md). Callable without argv (tests use it).
///
/// Method: every trace is imported once; one evaluation replays all of them with a candidate
/// cost model (deterministic, --seed, 1 by default) and scores the mismatch; stats::coordinate_search moves the
/// parameters, each inside its documented plausible range (calibration_ranges()), on a log scale,
/// within a bounded number of evaluations.
///
/// Objective: the mean over traces of the weighted mean over the trace's fitted metrics of
/// robust_loss(ln(simulated / observed)^2) (values floored at 100 ns for times and 1 for counts),
/// plus a prior penalty. Fitted metrics: makespan, wakeup count, wakeup latency p50/p90/p99, and the run-queue
/// wait of preempted tasks (p50) when the trace has at least 30 such samples.
///
/// Generalisation (docs/calibrate.md "Priors, identifiability and excluded metrics"):
/// * a parameter measured directly (the training traces' own idle wakes, or --prior) gets a
///   prior: a penalty weight * ln(x / measured)^2, and, when measured from samples, a search range
///   narrowed to the samples' interquartile range;
/// * a parameter whose doubling and halving moves the objective by less than
///   kCalibrateMinEffect is not fitted (not identifiable from these traces);
/// * the wake metrics of a trace whose start replay banks many of its wakes as tokens (a missing
///   mechanism, not a cost) are down-weighted or excluded, with the reason in the report.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedsim/driver/run.hpp"
#include "schedsim/engine/cost_model.hpp"
#include "schedsim/traces/import.hpp"

namespace schedsim::driver {

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

/// A parameter below this effect (the largest change of the data objective when the parameter is
/// doubled or halved inside its search range, the others at their start) is not fitted.
inline constexpr double kCalibrateMinEffect = 1e-4;
/// Measured priors need this many samples (as `trace info --idle-wake-costs`).
inline constexpr size_t kCalibrateMinPriorSamples = 20;
/// Token banking: a trace whose start replay banks at least kBankedDownweight of its observed
/// wakeups gets its wake metrics weighted by the fraction replayed as wakes; at least
/// kBankedExclude, they are excluded.
inline constexpr double kBankedDownweight = kBankedWarnShare;  // run's warning (run_request.hpp)
inline constexpr double kBankedExclude = 0.50;

/// What is known about a parameter before the fit.
struct Prior {
  double value = 0;           ///< the measurement (ns, or permille)
  double lo = 0, hi = 0;      ///< hard search range from the samples' spread; 0, 0 = none
  uint64_t samples = 0;       ///< 0 for a value given with --prior
  std::string source;         ///< where the value comes from, for the report
  /// A measured idle exit: what the samples measure is the whole wake, ipi_same_package plus the
  /// exit. wake_value is their p50, wake_lo .. wake_hi the hard range (0 = not measured). When the
  /// IPI is fitted too, the fit keeps IPI + exit inside that range and the penalty is on the sum.
  double wake_lo = 0, wake_value = 0, wake_hi = 0;
};

/// The prior of an idle-exit parameter measured from waking-to-switch-in samples (ns) of remote
/// wakes to an idle CPU: value p50 - ipi_ns; hard range the samples' p25 .. p75 (widened to at
/// least p50 -/+ 1 us, the recordings' timestamp resolution) minus ipi_ns, intersected with
/// [lo, hi]. nullopt with fewer than kCalibrateMinPriorSamples samples or when the range is empty.
std::optional<Prior> measured_prior(std::vector<int64_t> samples, double ipi_ns, double lo, double hi,
                                    const std::string& what);
/// A trace metric's term in the objective, from its squared log-ratio l2: ln(1 + l2) (the Cauchy
/// loss of robust regression). Near l2 = 0 it is l2; a metric off by more than a factor e pulls
/// on the costs with 2l / (1 + l^2) instead of 2l, so a metric the model cannot reach (a missing
/// mechanism, e.g. a 30x tail) does not decide the costs. The report lists those metrics.
double robust_loss(double l2);
/// The penalty a prior adds to the objective: weight * ln(x / value)^2.
double prior_penalty(double x, double value, double weight);
/// The weight of a trace's wake metrics given the wakes its start replay banked as tokens out of
/// the wakes it replayed (woke a blocked task or banked; run's warning takes the same share):
/// 1 under kBankedDownweight, 0 from kBankedExclude, else 1 - banked share.
double banked_weight(uint64_t banked, uint64_t replayed);

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
  /// Traces recorded on the -t machine, which has SMT: their on-CPU time during which a sibling
  /// was busy is normalised at -t's starting co-run rate (as run --smt-normalize), so the replays
  /// apply the co-run slowdown once.
  bool smt_normalize = false;
  uint32_t max_evals = 200;
  /// The engine settings every replay runs under, as `run` takes them: jitter, preempt,
  /// update_curr and slices (sim_config_of(), apply_slices()); the other fields are not read. A
  /// fit is then made under the model the costs will be used with (--preempt none, say).
  RunRequest model;
  /// Seed of every replay (SimConfig::seed, as run --seed): the 6.18 profile's NI_RANDOM newidle
  /// balance draws from it, so a fit on such a profile depends on it; refitting with other seeds
  /// shows by how much.
  uint64_t seed = 1;
  /// Priors: name=value or cost files (every parameter the file sets that is fitted); they take
  /// precedence over the priors measured from the traces' idle wakes. "start": every fitted
  /// parameter left without a prior gets its starting value as one (for a start that is itself a
  /// measurement, such as a machine profile read off its traces).
  std::vector<std::string> priors;
  double prior_weight = 1.0;          ///< >= 0; 0 keeps only the measured hard ranges
  /// Called after every evaluation: (evaluations so far, budget, best objective so far).
  std::function<void(uint32_t, uint32_t, double)> progress;
};

struct FittedParam {
  std::string name;
  double lo = 0, hi = 0, start = 0, fitted = 0;  ///< lo, hi: the plausible range
  double search_lo = 0, search_hi = 0;           ///< the range searched (narrowed by a measured prior)
  std::string unit, source;
  std::optional<Prior> prior;
  double effect = 0;        ///< identifiability probe: largest change of the data objective
  bool identifiable = true; ///< false: kept at start, not searched
  /// > 0: the search moved it there, but back at its start the objective was within
  /// kCalibrateMinEffect (revert_cost higher), so it was kept at start.
  double reverted_from = 0, revert_cost = 0;
};

struct MetricFit {
  std::string metric;
  double observed = 0, start = 0, fitted = 0;
  bool in_objective = false;
  double weight = 0;  ///< in the trace's weighted mean (0 when not in the objective)
  std::string note;  ///< e.g. the observed value is a lower bound
  double floor = 1;  ///< the objective's floor: 100 ns for a time, 1 for a count
};

struct TraceFit {
  std::string path;
  uint64_t observed_wakeups = 0;
  double span_ms = 0;
  std::vector<MetricFit> metrics;
  double start_score = 0, fitted_score = 0;  ///< this trace's share of the objective
  uint64_t banked_at_start = 0;  ///< wakes the start replay banked as tokens
  uint64_t replayed_at_start = 0;  ///< wakes the start replay posted (replayed_wakes())
  double wake_weight = 1;        ///< banked_weight(): weight of makespan, wakeups, wake latency
  std::string weight_reason;     ///< why wake_weight < 1 ("" when 1)
  std::vector<std::string> damped;  ///< metrics in the objective off by more than a factor e at the start
};

struct CalibrateResult {
  bool generated = false;  ///< fitted on a generator's benchmark time, the parameters by one factor
  CostModel cost;                    ///< the fitted model (base costs + fitted parameters)
  std::vector<FittedParam> params;
  std::vector<TraceFit> traces;
  double start_objective = 0, fitted_objective = 0;
  double start_penalty = 0, fitted_penalty = 0;  ///< the priors' share of the objectives
  double prior_weight = 1;
  uint32_t infeasible = 0;  ///< candidates outside a measured wake's range (not replayed)
  uint32_t probes = 0;  ///< identifiability and threshold replays of the whole set (outside the budget)
  std::vector<std::string> notes;  ///< e.g. a --prior for a parameter not fitted
  uint32_t evals = 0, budget = 0, rejected = 0;  ///< rejected: candidates whose replay did not complete
  uint64_t seed = 1;  ///< the replays' seed (CalibrateRequest::seed)
  bool converged = false;
  std::string topology, kernel;
  std::vector<std::string> cost_json_keys;  ///< what the cost file holds (base settings + fitted)
};

/// Why a finished fit must not be written ("" = it may): a fitted parameter ended at a bound of
/// the range it was searched in while a metric the objective weighs in full is still off by more
/// than kFitMissGenerated (the benchmark time) or kFitMissTraces (a trace's metric, observed
/// not a lower bound). The search wanted to go further than any plausible value: no cost in the
/// range explains the data, so the file would calibrate nothing (docs/calibrate.md).
std::string fit_refusal(const CalibrateResult& r);
/// One common factor reaches any benchmark time inside its range to the search's last step
/// (min_step 1/1024 of the log range: under 1% on these ranges), so 5% is a miss.
constexpr double kFitMissGenerated = 1.05;
/// A trace's metrics are many and the model has known gaps (docs/fidelity.md: p99s off by 2-30x
/// on messaging replays); an order of magnitude at a bound is a fit that failed.
constexpr double kFitMissTraces = 10.0;

/// The default parameters to fit on traces for this topology and idle-wake model:
/// ipi_same_package (+ ipi_cross_package with several packages), the idle exit (idle_exit for
/// `constant`; idle_exit_polled, idle_exit_halted, timer_wake_local for `vm-halt-poll`; none for
/// `table`, whose costs are measured by idle class, not fitted) and
/// smt_corun_permille when the machine has SMT; context_switch too when replay_overheads is
/// `charged` (otherwise a replay does not charge it: the trace already contains it).
std::vector<std::string> default_fit_params(bool multi_package, bool smt, IdleWakeMode mode,
                                            bool switch_charged = false);

/// One check calibrate makes before fitting that a trace fails.
struct TraceRefusal {
  /// Stable name of the check: not-a-trace, lost-events, not-conserved, too-short, too-few-wakeups,
  /// replay-incomplete (docs/calibrate.md "Which traces calibrate uses").
  std::string check;
  std::string brief;    ///< the figure against the threshold, e.g. "83 wakeups, under 100"
  std::string message;  ///< calibrate's error for it (what it means, what to do)
  long line = 0;        ///< the trace line it concerns (the first lost-events window), 0 = none
};

/// `calibrate --check-only` on one trace: whether calibrate would use it, and if not every reason.
struct TraceCheck {
  std::string path;
  std::vector<TraceRefusal> refusals;  ///< empty: used
  /// Used, but the start replay banked this share of its wakes as tokens: its wake metrics are
  /// weighted by banked_weight() (0: excluded); weight_reason says so ("" at full weight).
  double wake_weight = 1;
  bool counts = true;         ///< used with at least one metric left in the objective
  std::string weight_reason;
};

/// `calibrate --check-only`: the checks calibrate makes before fitting, on every trace given
/// (calibrate stops at the first refusal), and the set's own refusal if any.
struct CalibrateCheck {
  std::vector<TraceCheck> traces;
  size_t used = 0;
  /// Non-empty: calibrate would refuse the set even without the refused traces (no trace usable,
  /// or every usable trace's fitted metrics excluded); the message calibrate gives.
  std::string set_refusal;
  /// The fit's notes and warnings on these inputs (e.g. an SMT -t without --smt-normalize, a trace
  /// --smt-normalize finds from another machine); `calibrate --check-only` prints them on stderr.
  std::vector<std::string> notes;
  bool all_usable() const { return used == traces.size() && set_refusal.empty(); }
};

/// Throws InputError for a trace that cannot be fitted (not a trace, lost events, too short, too
/// few wakeups, import not conserved, replay incomplete at the start point), an unknown --fit
/// name, or max_evals 0.
CalibrateResult calibrate(const CalibrateRequest& req);

/// `calibrate --check-only`: the request's checks as calibrate() (the same code: the options, the
/// topology, the kernel, the priors; then every trace's checks, the start replay of the usable
/// ones and their token banking), without the fit. A trace calibrate would refuse is listed with
/// every reason instead of throwing; bad options and unreadable files throw as in calibrate().
/// Throws InputError with --workload-gen (a generated workload has no trace checks).
CalibrateCheck check_calibrate(const CalibrateRequest& req);
/// The check as text (one line per trace, then a summary), tsv (a header, one row per trace:
/// trace, used, checks, reasons; then a `# set` row when the set is refused) or json.
std::string render_calibrate_check(const CalibrateCheck& c, const std::string& format);

/// One fold of the leave-one-out check (`calibrate --cross-validate`): the trace left out, the
/// values fitted on the others, and the left-out trace replayed with the starting costs ("start")
/// and with those values ("fitted"); its score is its share of the objective as in the fit.
struct HeldOutFit {
  std::string path;
  std::vector<std::pair<std::string, double>> fitted;  ///< the fold's fitted values (name, ns or permille)
  TraceFit fit;          ///< start_score, fitted_score and the per-metric rows of the left-out trace
  bool counted = true;   ///< false: not scored (a replay did not complete; see refused)
  std::string refused;   ///< non-empty: the fold could not be fitted (calibrate's reason)
};

/// The leave-one-out check: every trace is left out of one fit (the others, with the same options)
/// and replayed with what that fit found. A fit that generalises replays the left-out traces at
/// least as well as the starting costs; one that does worse follows its traces' noise or a
/// mechanism the model lacks, not the machine.
struct CrossValidation {
  std::vector<HeldOutFit> folds;
  double start_mean = 0, fitted_mean = 0;  ///< mean score over the counted folds
  size_t counted = 0;
  bool worse = false;  ///< fitted_mean > start_mean + kCalibrateMinEffect
};

/// Throws InputError with --workload-gen or fewer than two traces (check_cross_validate, callable
/// before a long fit); a fold calibrate refuses (e.g. every remaining trace excluded) is reported
/// in HeldOutFit::refused.
void check_cross_validate(const CalibrateRequest& req);
CrossValidation cross_validate(const CalibrateRequest& req);
/// The check's report section; the warning line when `worse`.
std::string render_cross_validation(const CrossValidation& cv);
std::string cross_validation_warning(const CrossValidation& cv);

/// The cost file (a JSON object `run --cost FILE` reads): base settings and fitted values.
std::string render_cost_file(const CalibrateResult& r);
/// The fit report: parameters (range, start, fitted), then per trace and metric the observed,
/// simulated at the start and fitted, and the relative error.
std::string render_calibration_report(const CalibrateResult& r);

/// The option texts of `calibrate` that are more than a string: --benchmark-time (a positive
/// duration with its unit: hackbench prints seconds, and a bare number would be read as ns),
/// --prior-weight (a finite number >= 0) and --fit (comma-separated names). Throw InputError
/// naming the option.
int64_t parse_benchmark_time(const std::string& text);
double parse_prior_weight(const std::string& text);
std::vector<std::string> parse_fit_list(const std::string& text);
/// Refuses, before an hour of fitting, a cost-file output that is not a file name, lies in a
/// missing directory, or would replace one of the fit's inputs (traces, spec and cost files,
/// prior files). Throws InputError.
void check_cost_file_output(const CalibrateRequest& req, const std::string& output);

}  // namespace schedsim::driver
