#pragma once
/// Records: one run (or one repetition of a run) reduced to flat parameters and scalar metrics,
/// the unit `schedsim compare` matches and tests. Written by `run --format jsonl` (one line per
/// repetition), inside `run --repeat N --format json` (schema schedsim-repeat), and read back from
/// those and from plain results JSON (docs/results-schema.md "Records").
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedsim/metrics/results.hpp"

namespace schedsim {

inline constexpr const char* kRecordSchema = "schedsim-record";
inline constexpr const char* kRepeatSchema = "schedsim-repeat";
inline constexpr int kRecordVersion = 1;
/// The `noise` parameter of a record read from a plain results JSON, which does not store it.
inline constexpr const char* kNoiseUnrecorded = "unrecorded";

/// Which way is better for a metric; kNone: a change is reported but is neither good nor bad.
enum class Better { kLower, kHigher, kNone };

struct MetricDef {
  const char* name;      ///< e.g. "wakeup.p99"
  Better better;
  const char* unit;      ///< "ns" or "" (a count or a ratio)
  bool compare_default;  ///< in compare's default metric set
  const char* doc;
};
/// The one catalog metric a record carries only when its workload declares a benchmark timer
/// (RunResults::benchmark_time_ns >= 0): without one it is absent, never 0.
inline constexpr const char* kBenchmarkTimeMetric = "benchmark_time";
/// Every scalar metric a record carries, in a fixed order (benchmark_time only with a timer).
const std::vector<MetricDef>& metric_catalog();
/// The catalog entry, or nullptr.
const MetricDef* find_metric(const std::string& name);
/// The catalog name of a metric given as the results JSON and `run`'s table name it
/// (wakeup_latency.p99_ns -> wakeup.p99, preempt_delay.mean_ns -> preempt.mean, makespan_ns ->
/// makespan); any other name is returned as given. One metric, one name wherever a user types it.
std::string catalog_metric_name(const std::string& name);
/// How a results-JSON name (`wakeup_latency.p50_ns`, `total_runtime_ns`) shows in a table beside
/// the catalog's: its catalog label and the factor to its display unit when the catalog has it,
/// else the same rules (prefix `wakeup.`/`preempt.`, a time in us, a whole run's span in ms).
std::pair<std::string, double> display_of_results_name(const std::string& name);
/// How every table, summary and plot shows a catalog metric (compare's table, sweep's summary,
/// the study report; --fail-on takes the same name): by its catalog name, the span of a whole run
/// (makespan, benchmark_time) in milliseconds, any other time in microseconds (records and results
/// keep nanoseconds). One name and one unit per metric wherever it shows.
const char* display_unit(const MetricDef& d);    ///< "ms", "us", or "" for a count or ratio
double display_scale(const MetricDef& d);        ///< the factor from the record's value (1e-6, 1e-3, 1)
double display_value(const MetricDef& d, double v);  ///< `v` in the display unit (divided, exactly)
std::string metric_label(const MetricDef& d);    ///< "wakeup.p99 (us)", "makespan (ms)", "migrations"
/// For "wakeup.p99" etc.: the run's distribution it is a statistic of (nullptr for scalars).
const Distribution* metric_distribution(const RunResults& r, const std::string& metric);
/// The percentile (0-100) a metric reads from its distribution, or -1 (mean, count, scalars).
double metric_percentile(const std::string& metric);

struct Record {
  std::map<std::string, std::string> params;  ///< flat: workload, topology, module.<slot>, feature.<F>, ...
  uint32_t rep = 0;                           ///< repetition index
  uint64_t seed = 0;                          ///< the seed this repetition ran with
  std::map<std::string, double> metrics;      ///< every catalog metric
  /// False when the run did not finish (--stop-at, tasks blocked forever, --allow-incomplete):
  /// its metrics cover only the simulated part. Written as "complete": false with the reasons
  /// ("incomplete") only then, so complete records read as before.
  bool complete = true;
  std::vector<std::string> incomplete;        ///< why, as the run's results say (summary.incomplete)
  /// The run's caveats (warnings and notes printed with it; summary.notes of its results), so
  /// `compare` can say which of the figures it tests came with one.
  std::vector<std::string> notes;
  /// Read from a sweep's JSON Lines file: the point's index and its parameters as the sweep
  /// gave them (swept and fixed keys: gen.group, placement, ...; docs/sweep.md); -1 and empty for
  /// a record `run` wrote. Not written by render_jsonl (the sweep line holds them).
  int64_t point = -1;
  std::map<std::string, std::string> point_params;
};

/// The run's parameters, flattened: workload, workload_source, topology, nr_cpus, seed, label,
/// noise, module.<slot>, feature.<FLAG> (on/off), cost.<param>, workload_hash, topology_hash and
/// provenance.<field> (the other non-empty Provenance fields).
std::map<std::string, std::string> run_params(const RunConfig& c, const std::string& noise);
/// Every catalog metric of one run.
std::map<std::string, double> scalar_metrics(const RunResults& r);
Record make_record(const RunResults& r, const std::string& noise, uint32_t rep, uint64_t seed);

/// JSON Lines: one compact object per record, newline-terminated.
std::string render_jsonl(const std::vector<Record>& recs);
/// `run --repeat N` renderings: per-repetition values and statistics across repetitions (count,
/// mean, std, min, p99, max) of every metric.
std::string render_repeat_table(const std::vector<Record>& recs, const std::string& label);
std::string render_repeat_json(const std::vector<Record>& recs);
std::string render_repeat_csv(const std::vector<Record>& recs, const std::string& label);

/// Records read from a file, with where each came from (for error messages).
struct RecordFile {
  std::string path;
  std::string kind;                      ///< "results", "repeat" or "jsonl"
  int version = 0;
  std::vector<Record> records;
  std::vector<std::string> where;        ///< per record: "path:line" or "path /repetitions/3"
  std::optional<RunResults> results;     ///< the full results, for a plain results file
};
/// Reads a results JSON, a repeat JSON or a JSON Lines file of records. Throws InputError with
/// file, line or JSON path: missing or empty file, malformed or truncated JSON, unknown schema,
/// unsupported version, versions mixed within the file, missing or mistyped members.
RecordFile load_record_file(const std::string& path);
/// The records view of one run's results (kind "results", one record, the noise unrecorded):
/// what load_record_file makes of a plain results file, for results already read (the report's
/// comparisons and studies).
RecordFile record_file_of(RunResults r, const std::string& where);
RecordFile parse_record_text(const std::string& text, const std::string& path);

}  // namespace schedsim
