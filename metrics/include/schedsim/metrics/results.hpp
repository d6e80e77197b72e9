#pragma once
/// RunResults: everything one simulation run reports (docs/results-schema.md), as a plain value that
/// the collector fills, the reporters render (table, JSON, CSV, HTML) and load_results_json reads
/// back (for `schedsim report` and `compare`). The JSON schema is docs/results-schema.md.
///
/// Units: every time is an integer count of nanoseconds (`*_ns`); ratios are fractions in [0, 1].
/// Every renderer is deterministic: fixed float formatting, maps in key order, rows sorted by id.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "schedsim/base/histogram.hpp"

namespace schedsim {

/// The results JSON's identity: {"schema": kResultsSchema, "version": kResultsVersion, ...}.
inline constexpr const char* kResultsSchema = "schedsim-results";
inline constexpr int kResultsVersion = 1;

/// How a results file was produced (docs/results-schema.md "provenance"): every input that is
/// not already a RunConfig field, and hashes that tell whether two runs simulated the same
/// workload on the same machine. Empty strings = not recorded (older files, or not applicable).
struct Provenance {
  std::string version;         ///< schedsim version that ran it (the CMake project version)
  std::string command;         ///< the command line, shell-quoted ("" when not run from the CLI)
  std::string kernel;          ///< --kernel profile as resolved ("" = none)
  std::string noise;           ///< engine noise: "none" or "jitter=5%" (run --jitter / --noise)
  std::string stop_at;         ///< --stop-at as given ("" = none)
  std::string cost_files;      ///< cost JSON files given with --cost, comma-separated
  std::string cost_files_hash; ///< their contents' hashes, same order, comma-separated
  std::string cost_profile;    ///< the machine cost profile applied under --cost: a preset's name or "reference" ("" = none; docs/calibrate.md)
  std::string cost_profile_note; ///< why a preset ran on the reference costs ("epyc-milan-2s has no measured costs"; "" = it did not)
  std::string workload_hash;   ///< 16 hex digits: the simulated tasks and programs
  std::string topology_hash;   ///< 16 hex digits: the machine (CPUs, cores, LLCs, nodes, distances)
  bool empty() const { return version.empty() && workload_hash.empty() && topology_hash.empty(); }
  /// (name, value) of every field, in the documented order; every writer (table, JSON, CSV,
  /// JSONL params, HTML) renders this list, so they cannot drift apart.
  std::vector<std::pair<std::string, std::string>> fields() const;
  /// Sets the field `name` (as fields() names it); false when there is no such field. A
  /// `cost_profile` written before cost_profile_note existed ("reference (NAME has no measured
  /// costs)") is split into the two fields.
  bool set(const std::string& name, const std::string& value);
  /// cost_profile for a reader, with cost_profile_note in parentheses when there is one: what the
  /// table and the HTML report show in one row.
  std::string cost_profile_text() const;
  /// fields() as the text table and the HTML report list them: cost_profile_note folded into
  /// cost_profile (cost_profile_text()), every other field as is.
  std::vector<std::pair<std::string, std::string>> display_fields() const;
};

/// 64-bit FNV-1a over `bytes`, continuing from `h` (the provenance hashes), as 16 hex digits
/// through hash_hex.
inline constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ull;
uint64_t fnv1a64(std::string_view bytes, uint64_t h = kFnvOffset);
std::string hash_hex(uint64_t h);

/// What was simulated: enough to label a run in a report and to re-run it.
struct RunConfig {
  std::string label;              ///< short name for reports; run fills it from what was chosen (docs/results-schema.md); empty = "<workload>@<topology>"
  std::string workload;           ///< workload name
  std::string workload_source;    ///< file or generator command it came from
  std::string topology;           ///< topology name (preset or file)
  uint32_t nr_cpus = 0;
  std::map<std::string, std::string> modules;        ///< slot -> module name
  std::map<std::string, bool> features;              ///< sched_feat flag -> on/off
  std::map<std::string, std::string> cost_overrides; ///< parameter -> value as given
  uint64_t seed = 0;
  /// Why a trace's observed figures come from another machine than the one simulated ("" = the
  /// recording machine, as far as the trace says): the observed column is then labelled so.
  std::string observed_elsewhere;
  Provenance provenance;
  /// label, or "<workload>@<topology>" when label is empty (files written without one).
  std::string display_label() const;
};

/// One non-empty histogram bucket: values in [lo, hi) seen `count` times.
struct HistBucket {
  int64_t lo = 0, hi = 0;
  uint64_t count = 0;
  friend bool operator==(const HistBucket&, const HistBucket&) = default;
};

/// A distribution summary (count, mean, std, min, p50, p90, p99, p99.9, max) plus the
/// histogram's non-empty buckets, so reports can draw a CDF without the raw samples.
struct Distribution {
  uint64_t count = 0;
  double mean = 0, stddev = 0;   ///< exact (from running sums), rounded to 0.001
  int64_t min = 0, p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  bool exact = true;             ///< percentiles are exact (<= Histogram::kExactLimit samples)
  std::vector<HistBucket> buckets;
  static Distribution from(const Histogram& h);
};

/// Per task, like `perf sched latency`: a delay is switch-in minus the wake time (sleeping task)
/// or minus the preemption switch-out time (preempted task).
struct TaskRow {
  uint32_t id = 0;               ///< dense task index in the workload
  std::string name;              ///< comm
  int64_t pid = -1;              ///< from the source, -1 if synthetic
  uint64_t switches = 0;         ///< switch-ins (times it got a CPU)
  int64_t runtime_ns = 0;        ///< on-CPU wall time (switch-in to switch-out)
  uint64_t delays = 0;           ///< number of delays measured
  int64_t delay_total_ns = 0;
  int64_t max_delay_ns = 0;
  int64_t max_delay_start_ns = 0;  ///< when the longest delay began (wake or preemption)
  int64_t max_delay_end_ns = 0;    ///< when it ended (switch-in)
  uint64_t migrations = 0;
  double avg_delay_ns() const;
};

/// Tasks merged by name with trailing digits and ":N" suffixes stripped (perf's `comm:(N)`).
struct TaskGroupRow {
  std::string name;              ///< the stripped name
  uint32_t tasks = 0;
  uint64_t switches = 0;
  int64_t runtime_ns = 0;
  uint64_t delays = 0;
  int64_t delay_total_ns = 0;
  int64_t max_delay_ns = 0;
  int64_t max_delay_start_ns = 0;
  int64_t max_delay_end_ns = 0;
  double avg_delay_ns() const;
};

struct CpuRow {
  uint32_t cpu = 0;
  uint32_t llc = 0;              ///< dense LLC index
  uint32_t node = 0;             ///< NUMA node (0 in files written before it was recorded)
  int64_t busy_ns = 0;           ///< a task was current
  int64_t idle_ns = 0;           ///< makespan - busy
  int64_t wasted_ns = 0;         ///< idle with an empty queue while an allowed task waited elsewhere
  double utilization = 0;        ///< busy / makespan
};

struct LlcRow {
  uint32_t llc = 0;
  std::string cpus;              ///< cpulist, e.g. "0-3,8-11"
  int64_t busy_ns = 0;
  int64_t wasted_ns = 0;
  double utilization = 0;        ///< busy / (makespan * CPUs)
};

/// Per-CPU busy fraction over time: bucket b of cpu c covers
/// [start_ns + b * bucket_ns, start_ns + (b + 1) * bucket_ns).
struct UtilTimeline {
  int64_t start_ns = 0;
  int64_t bucket_ns = 0;
  uint32_t buckets = 0;
  std::vector<std::vector<double>> busy;  ///< [cpu][bucket], fractions rounded to 0.0001
};

/// Where wakeups landed and what finding the CPU cost.
struct PlacementStats {
  uint64_t wakeups = 0;
  uint64_t forks = 0;            ///< fork-path placements (forks, and tasks started without a parent)
  uint64_t execs = 0;
  std::map<std::string, uint64_t> outcomes;  ///< to_string(PlaceOutcome) -> count, every outcome
  Distribution probes;           ///< CPUs examined per wakeup (plain + core-wise probes)
  Distribution search_ns;        ///< simulated search time per wakeup
  Distribution wake_delay_ns;    ///< scan + IPI + idle exit before the enqueue, per wakeup
  uint64_t to_idle_cpu = 0;      ///< the chosen CPU was idle when chosen
  uint64_t cross_llc_waker = 0;  ///< wakee placed outside the waker CPU's LLC
  uint64_t cross_llc_prev = 0;   ///< wakee placed outside its previous CPU's LLC
  uint64_t hint_consulted = 0;   ///< placements that read has_idle_cores
  uint64_t hint_stale_yes = 0;   ///< hint said yes, no idle core existed in the LLC
  uint64_t hint_stale_no = 0;    ///< hint said no, an idle core existed
};

/// One simulated-versus-observed figure (the kernel's, from the trace the workload came from).
struct Comparison {
  std::string metric;
  double simulated = 0, observed = 0;
  double rel_error = 0;          ///< (simulated - observed) / observed; 0 when observed == 0
  std::string note;              ///< why the observed figure may be off ("" = none), e.g. a lower bound
};

/// The metric that counts the samples behind a statistic of a distribution: "wakeup.count" for
/// "wakeup.p99", "runqueue_wait.count", "preempt.count", "fork.count" likewise,
/// "wakeup_latency.count" for "wakeup_latency.p99_ns"; "wakeups" for the per-wakeup placement
/// figures "probes.mean", "search.mean" and "wake_delay.mean" (one sample per wakeup placement);
/// "" for a name without a distribution prefix and for a count itself. A statistic whose count
/// is 0 is undefined.
std::string sample_count_metric(const std::string& statistic);

/// Whether one run's `statistic` in its metrics map rests on samples: kNone when its companion
/// count (sample_count_metric) is 0, so the 0 stored for it is no measurement; kUnknown when the
/// map has no companion count but stores 0 for the statistic (a record from a schedsim before
/// runqueue_wait.count and fork.count existed: either a measured 0 or none); kSampled otherwise,
/// also for counts and scalars.
enum class SampleState { kSampled, kNone, kUnknown };
SampleState sample_state(const std::map<std::string, double>& metrics, const std::string& statistic);

/// For a statistic row of a distribution in `rows` ("wakeup_latency.p99_ns"), whether the
/// simulated and the observed side had no samples (their ".count" row is 0): such a mean or
/// percentile is undefined, not 0, and is shown as "-". Both false for counts and scalars.
struct ComparisonEmpty {
  bool simulated = false, observed = false;
};
ComparisonEmpty comparison_empty(const std::vector<Comparison>& rows, const Comparison& x);
/// The cells of row `x` of `rows` as the text table and the HTML report show it: the metric's
/// catalog label with its unit (display_of_results_name), simulated and observed in that unit
/// (">=" on a lower bound, "*" on another note, "-" for no samples), the relative error.
std::vector<std::string> observed_cells(const std::vector<Comparison>& rows, const Comparison& x);

struct RunResults {
  RunConfig config;
  // Totals.
  int64_t start_ns = 0;          ///< first task start
  int64_t end_ns = 0;            ///< makespan end (last exit or last event)
  int64_t makespan_ns = 0;       ///< end - start
  /// The time the benchmark program itself reports (hackbench / perf bench messaging "Time:",
  /// measured from the start barrier's release to the last join; perf bench sched pipe "Total
  /// time"), for generators that declare it (workload meta "benchmark_timer"); -1 when the
  /// workload has none. Never 0 for "none": readers test >= 0.
  int64_t benchmark_time_ns = -1;
  /// The operations the program divides that time by (perf bench sched pipe's loops, printed as
  /// usecs/op); -1 when it prints no per-operation figure.
  int64_t benchmark_ops = -1;
  uint64_t events = 0;           ///< engine events (0 when unknown)
  uint64_t context_switches = 0; ///< switch-ins of a task (switches to idle not counted)
  uint64_t tokens_banked = 0;    ///< wakes to a not-yet-blocked task (no wakeup happened)
  uint64_t tokens_left = 0;      ///< banked tokens no block() consumed by the end of the run
  /// Channel operations (write/read actions, SimSummary): completed writes and reads, the wakes
  /// they caused, and the operations that slept (write on a full, read on an empty channel).
  uint64_t channel_writes = 0, channel_reads = 0, channel_wakes = 0, channel_sleeps = 0;
  /// run --preempt none|voluntary|lazy (SimSummary): preemptions held back while curr was in a
  /// syscall, and of those the ones curr left the CPU before (it slept: the wakee waited).
  uint64_t preempt_deferred = 0, preempt_deferred_slept = 0;
  /// --cost resched_ipi > 0 (SimSummary): remote wakeup preemptions sent as a reschedule IPI,
  /// and of those the ones a switch on the target made moot before the IPI landed.
  uint64_t resched_ipi = 0, resched_ipi_superseded = 0;
  uint64_t tasks = 0;
  uint64_t tasks_exited = 0;
  bool complete = true;          ///< every task exited or blocked with nothing pending
  int64_t work_done_ns = 0;      ///< reference work completed (the engine's figure when given)
  /// The workload's total run() work (for a trace: the extracted on-CPU time); work_done_ns
  /// equals it for a complete run without --jitter. -1 when unknown (older results files).
  int64_t work_expected_ns = -1;
  /// Why the run is not complete, one line each (empty when complete).
  std::vector<std::string> incomplete;
  /// The caveats `run` prints on stderr with these figures ("warning: ..." / "note: ...", in that
  /// order): why a number may not mean what it seems. Kept with the results so a JSON or CSV
  /// consumer and every sweep record carry them too.
  std::vector<std::string> notes;
  // Latencies.
  Distribution wakeup_latency;   ///< sched_waking to the wakee's next switch-in
  Distribution preempt_delay;    ///< preemption switch-out to the next switch-in
  Distribution runqueue_wait;    ///< any enqueue / preemption to the next switch-in
  Distribution fork_latency;     ///< fork placement to the child's first switch-in
  PlacementStats placement;
  std::map<std::string, uint64_t> migrations;  ///< to_string(CpuDistance) -> count, every level
  uint64_t migrations_total = 0;
  std::vector<CpuRow> cpus;
  std::vector<LlcRow> llcs;
  int64_t busy_ns = 0, wasted_ns = 0;  ///< totals over CPUs
  UtilTimeline timeline;
  std::vector<TaskRow> tasks_detail;       ///< sorted by task id
  std::vector<TaskGroupRow> task_groups;   ///< sorted by name
  bool has_observed = false;
  std::vector<Comparison> observed;        ///< fixed metric order
};

/// The first "warning: ..." line of a run's notes (RunResults::notes, Record::notes), or nullptr:
/// what compare and report quote for a run that came with a warning.
inline const std::string* first_warning(const std::vector<std::string>& notes) {
  for (const auto& n : notes)
    if (n.rfind("warning:", 0) == 0) return &n;
  return nullptr;
}

/// Aligned terminal tables (the default `--format table`). `max_tasks` limits the per-task
/// section to the tasks with the largest maximum delay (0 = all).
/// `max_cpus` > 0 caps the per-CPU rows: a machine with more CPUs shows its `max_cpus` busiest
/// (in CPU order; the per-LLC table still covers every CPU).
std::string render_table(const RunResults& r, size_t max_tasks = 20, size_t max_cpus = 0);
/// The versioned JSON document (docs/results-schema.md), 2-space indented, keys in schema order.
std::string render_json(const RunResults& r);
/// Tidy long CSV: header `run,section,key,stat,value`, one row per figure (docs/results-schema.md).
std::string render_csv(const RunResults& r);
/// Reads a results file written by render_json. Throws InputError: missing file, malformed JSON
/// (path:line:col), wrong schema or version, missing or mistyped fields (with a JSON pointer).
RunResults load_results_json(const std::string& path);
/// Parses results JSON text; `source` names it in errors.
RunResults parse_results_json(const std::string& text, const std::string& source);

/// perf-like task-name grouping: strips the trailing run of digits, then the trailing run of
/// separators ':', '_', '-', '/' before it ("hackbench-12" -> "hackbench", "kworker/3:1" ->
/// "kworker/3", "Binder:549_4" -> "Binder:549"). A name that would become empty is kept.
std::string task_group_name(const std::string& comm);

}  // namespace schedsim
