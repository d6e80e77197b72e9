#pragma once
/// The validation corpus (validation/README.md, docs/validation.md): published before/after
/// tables of merged scheduler changes, each with the run options that model the two kernels and
/// the benchmark that produced it; and the judgement of a simulated change against the published
/// one (verdict, size of the change, curve shape). The simulations themselves are run by the
/// caller (`schedsim validate`), which hands this module the samples.
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace schedsim::driver {

inline constexpr int kValidationVersion = 1;
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// A published change whose source gives no spread counts as beyond its noise when it is at
/// least this large (relative): a run-to-run spread of a few percent is what hackbench-style
/// tables usually show, so a smaller unreported change cannot be told from noise.
inline constexpr double kNoSpreadThreshold = 0.05;
/// A simulated change smaller than this is "within noise" even when its interval excludes 0
/// (the default --min-effect of `compare`).
inline constexpr double kMinEffect = 0.01;
/// The size of a simulated change is right when it is within 30% of the published one, or
/// within 2 percentage points of it (issue 27's goal).
inline constexpr double kSizeRelTolerance = 0.30;
inline constexpr double kSizeAbsTolerance = 0.02;

/// The run options of one side of a change: a kernel profile, then module choices and flags, as
/// `run --kernel K --placement P --feature X` applies them.
struct SideSpec {
  std::string kernel;
  std::map<std::string, std::string> modules;  ///< run option (placement, queue, balance, util, idle-cores) -> module
  std::vector<std::string> features;           ///< X or NO_X
  std::string label;
};

/// What a benchmark reports and how schedsim measures it.
enum class Metric { kBenchmarkTime, kThroughput, kThroughputPerClient, kUsecsPerOp, kWakeupP50, kWakeupP90, kWakeupP99, kWakeupP999 };
const char* metric_name(Metric m);
/// All metric names, for messages.
std::vector<std::string> metric_names();

struct BenchmarkSpec {
  std::string id;
  std::string gen;                  ///< --workload-gen spec with {param} placeholders
  std::vector<std::string> placeholders;          ///< the names in gen's braces, in order
  std::string published_command;
  std::map<std::string, std::string> params;      ///< defaults for the placeholders
  std::map<std::string, std::string> sim_params;  ///< overrides for the simulation only (e.g. fewer loops)
  Metric metric = Metric::kBenchmarkTime;
  std::string unit;
  bool higher_better = false;
  /// The rows are normalised (to the baseline, or to another common base): only after/before
  /// means anything, so no curve is drawn from them.
  bool normalised = false;
};

/// The spread a source publishes for a row: kind std-pct (standard deviation in % of the mean),
/// std (in the row's unit), ci95 (half width, in the row's unit) or none.
struct Spread {
  std::string kind = "none";
  double before = kNaN, after = kNaN;
};

struct RowSpec {
  size_t index = 0;  ///< position in the file's rows
  std::string benchmark;
  std::map<std::string, std::string> params;
  double before = 0, after = 0;
  Spread spread;
  std::string note;
};

struct Entry {
  std::string path;  ///< the file as given
  std::string name;  ///< file stem
  std::string title, commit, merged, published_by;
  std::vector<std::string> sources;
  std::vector<std::string> notes;  ///< how the table was read (sign conventions, assumed parameters)
  std::string topology;        ///< as `run -t` takes it: a preset name or a path
  std::string topology_given;  ///< as written in the file
  std::string family, machine_published;
  SideSpec before, after;
  std::map<std::string, BenchmarkSpec> benchmarks;
  std::vector<RowSpec> rows;
  /// The frozen split: a commit starting with an even hex digit is development, odd validation.
  bool development() const;
};

/// Machine families an entry may name (validation/README.md).
const std::vector<std::string>& machine_families();

/// Reads one corpus file. InputError naming the file and the JSON path (file:line:col for
/// malformed JSON) for anything that is not the documented format.
Entry read_entry(const std::string& path);
/// The same for text already read (`path` names it in errors and anchors a machine file's path).
Entry parse_entry(const std::string& text, const std::string& path);
/// Reads files and directories (a directory: its *.json files, not recursive, sorted by name).
/// InputError for a missing path, a directory without entries, or the same commit and machine
/// twice... (two files that are the same source).
std::vector<Entry> read_corpus(const std::vector<std::string>& inputs);

/// The --workload-gen spec of a row: `{name}` replaced by the simulation override, else the row's
/// value, else the benchmark's default. InputError naming the file and row for a placeholder
/// without a value or an unclosed brace.
std::string row_workload_spec(const Entry& e, const RowSpec& r);
/// The value of parameter `name` for a row, as row_workload_spec() substitutes it. InputError
/// naming the file and row when no value is given.
std::string row_param(const Entry& e, const RowSpec& r, const std::string& name);
/// "groups=4" style label of a row's own parameters, in key order.
std::string row_params_text(const RowSpec& r);

enum class Verdict { kImproved, kRegressed, kWithinNoise };
const char* verdict_name(Verdict v);

/// The published side of a row: the relative change after/before - 1, the noise it is judged
/// against and the verdict.
struct PublishedJudgement {
  double change = kNaN;
  double noise = kNaN;        ///< relative; kNoSpreadThreshold when the source gives none
  bool noise_published = false;
  bool beyond_noise = false;  ///< |change| > noise: the row counts toward the goals
  Verdict verdict = Verdict::kWithinNoise;
};
PublishedJudgement judge_published(const RowSpec& r, bool higher_better);

/// The simulated side of a row from its repetitions.
struct SimulatedJudgement {
  double before_mean = kNaN, after_mean = kNaN;
  double before_std = kNaN, after_std = kNaN;
  double change = kNaN;
  double ci_lo = kNaN, ci_hi = kNaN;  ///< 95% bootstrap interval of the change
  double p = kNaN;                    ///< Welch's t-test
  Verdict verdict = Verdict::kWithinNoise;
};
SimulatedJudgement judge_simulated(const std::vector<double>& before, const std::vector<double>& after,
                                   bool higher_better, uint64_t seed);

/// One row, judged.
struct RowResult {
  const Entry* entry = nullptr;
  const RowSpec* row = nullptr;
  std::vector<double> before, after;  ///< simulated samples, one per repetition
  PublishedJudgement published;
  SimulatedJudgement simulated;
  bool failed = false;                ///< a simulation did not complete: no judgement
  std::string failure;
  std::vector<std::string> caveats;   ///< distinct warnings of the row's runs
  bool agrees() const;                ///< verdicts equal
  bool size_ok() const;               ///< the size within kSizeRelTolerance / kSizeAbsTolerance
};
RowResult judge_row(const Entry& e, const RowSpec& r, std::vector<double> before, std::vector<double> after,
                    uint64_t seed);

/// A benchmark curve of one entry and side: the rows of one benchmark that differ in one numeric
/// parameter, in its order, with absolute published values (not normalised to 1.0). The
/// simulated curve is scaled to the published one at its first point (one calibration point);
/// the errors are then those of every point and of every ratio between consecutive points.
struct Curve {
  const Entry* entry = nullptr;
  std::string benchmark, param, side;
  std::vector<double> x, published, simulated;
  double max_point_error = kNaN;  ///< max over points of |sim * scale / pub - 1|
  double max_ratio_error = kNaN;  ///< max over consecutive pairs of |(s_i/s_i-1) / (p_i/p_i-1) - 1|
};
std::vector<Curve> curves(const std::vector<RowResult>& rows);

struct RenderOptions {
  uint32_t repeat = 0;
  uint64_t seed = 1;
  std::string version;
  std::string half;  ///< dev, val or all
  std::vector<std::string> costs;  ///< --cost given for every run
  std::vector<std::string> gen_options;  ///< --gen-option GEN:OPTIONS given for the whole corpus
};
std::string render_markdown(const std::vector<RowResult>& rows, const RenderOptions& o);
std::string render_json(const std::vector<RowResult>& rows, const RenderOptions& o);
std::string render_html(const std::vector<RowResult>& rows, const RenderOptions& o);
/// `validate --list`: every entry with its half, machine, benchmarks and row count, and the
/// corpus totals (changes, rows, families, benchmarks per half).
std::string render_list(const std::vector<Entry>& entries);

}  // namespace schedsim::driver
