#pragma once
/// `schedsim compare BASE NEW` as a library: match the records of two files point by point,
/// summarise each metric per side, test the difference and render the before/after table
/// (docs/compare.md explains every column and statistic).
#include <cstdint>
#include <string>
#include <vector>

#include "schedsim/metrics/records.hpp"
#include "schedsim/stats/stats.hpp"

namespace schedsim {

struct CompareOptions {
  std::vector<std::string> by;      ///< key parameters; empty = every parameter but the treatment ones
  std::vector<std::string> ignore;  ///< parameters dropped from matching and from the consistency checks
  bool allow_mismatch = false;      ///< pair points whose workload / machine / noise differ
  std::vector<std::string> metrics; ///< empty = the catalog's default set; {"all"} = every metric
  std::vector<std::string> gated;   ///< metrics a --fail-on judges: compared in any case
  double min_effect = 0.01;         ///< |change| below this is never a verdict
  double alpha = 0.05;              ///< family-wise (Holm) or false-discovery (BH) level
  std::string correction = "holm";  ///< "holm" or "bh"
  double confidence = 0.95;         ///< bootstrap interval level
  size_t resamples = 2000;
  uint64_t seed = 1;                ///< bootstrap seed (output is deterministic for a seed)
};

/// How a row was tested: across repetitions, within one run per side from the latency histograms,
/// or not at all (one value per side).
enum class RowKind { kRepetitions, kDistribution, kSingle };

struct CompareRow {
  std::string metric;
  const MetricDef* def = nullptr;
  RowKind kind = RowKind::kSingle;
  stats::Summary base, next;      ///< across repetitions (count 1 with one run)
  double change = 0;              ///< relative change of the mean (of the value for one run)
  stats::Interval ci{};           ///< bootstrap interval of `change`
  double p_welch = 0, p_mw = 0;   ///< raw two-sided p-values (NaN when not tested)
  double p_welch_adj = 0, p_mw_adj = 0;  ///< corrected
  double ks_d = 0, ks_p = 0;      ///< two-sample KS of the values (repetitions) or histograms (one run)
  bool significant = false;
  std::string verdict;            ///< improved, regressed, changed, no significant change, not tested
  size_t runs_without_samples = 0;  ///< runs (both sides) whose latency statistic is undefined (stored as 0)
  /// Runs (both sides) storing 0 for the statistic without its sample count (older records):
  /// possibly undefined.
  size_t runs_maybe_without_samples = 0;
};

struct ComparePoint {
  std::vector<std::pair<std::string, std::string>> key;  ///< the matching parameters
  std::string base_where, next_where;                    ///< first record of each side
  /// Records of this point whose run did not finish ("complete": false), each as
  /// "BASE path:line (reason)": their metrics cover only the simulated part.
  std::vector<std::string> incomplete;
  /// Per side that has some, "N of the M SIDE run(s) came with a warning, first path:line
  /// (warning: ...)": records whose notes hold a warning (docs/results-schema.md).
  std::vector<std::string> warned;
  std::vector<CompareRow> rows;
};

struct CompareResult {
  std::string base_path, next_path;
  CompareOptions options;
  std::vector<std::string> differs;  ///< "module.placement: a -> b", the treatment
  std::vector<std::string> notes;    ///< warnings printed with every rendering
  std::vector<ComparePoint> points;
  size_t tested = 0;                 ///< rows in the correction family
};

/// Matches and compares. Throws InputError (file and JSON path or line) on unmatched points,
/// mismatched workloads or machines without allow_mismatch, records mixing treatments at one
/// point, missing or unknown metrics, bad options.
CompareResult compare_records(const RecordFile& base, const RecordFile& next, const CompareOptions& opt);

std::string render_compare_table(const CompareResult& c);
std::string render_compare_markdown(const CompareResult& c);
std::string render_compare_json(const CompareResult& c);
std::string render_compare_csv(const CompareResult& c);
/// An HTML fragment (a table per point plus the notes) for `schedsim report`; `id` prefixes the
/// table ids. Text is escaped with `esc`.
std::string render_compare_html(const CompareResult& c, const std::string& id,
                                std::string (*esc)(const std::string&));

/// A --fail-on condition: METRIC>+5% or METRIC<-5%.
struct Gate {
  std::string text, metric;
  char op = '>';
  double threshold = 0;  ///< a fraction
};
/// Throws InputError naming the flag on bad syntax or an unknown metric.
Gate parse_gate(const std::string& text);
struct GateOutcome {
  std::vector<std::string> failures;   ///< significant changes crossing a threshold
  std::vector<std::string> untestable; ///< rows a gate names that have no test (one run per side, or
                                       ///< a run that did not finish)
};
GateOutcome evaluate_gates(const CompareResult& c, const std::vector<Gate>& gates);

}  // namespace schedsim
