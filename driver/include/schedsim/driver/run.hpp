#pragma once
/// The `run` pipeline as a library call, so tests and future commands (sweep, compare) use it
/// without argv: load the workload (native file, kernel trace or generator), the topology and the
/// policy stack, simulate with the metrics collector attached, render.
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "schedsim/base/atomic_file.hpp"
#include "schedsim/driver/run_request.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/metrics/records.hpp"
#include "schedsim/metrics/results.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::driver {

using driver::RunRequest;

/// The version recorded in results' provenance (the CMake project version).
extern const char* const kSchedsimVersion;
/// `argv` as one shell-quoted line (words with characters outside [A-Za-z0-9_@%+=:,./-] in
/// single quotes), for the provenance's command line.
std::string quoted_command_line(const std::vector<std::string>& argv);

/// A trace replay that banks at least this share of the wakes it replays as tokens (the wakee not
/// yet asleep where the trace puts it to sleep) prints a warning with its wake figures; calibrate
/// weights such a trace's wake metrics down from the same share of the same count
/// (kBankedDownweight, replayed_wakes()).
inline constexpr double kBankedWarnShare = 0.10;
/// The wakes a replay posted to measured tasks: the wakeups it placed plus those it banked (the
/// count kBankedWarnShare is a share of, in run's warning and calibrate's weights).
inline uint64_t replayed_wakes(const RunResults& r) { return r.placement.wakeups + r.tokens_banked; }

struct RunOutcome {
  RunResults results;
  SimSummary summary;
  std::string rendered;    ///< in the requested format
  std::string trace_text;  ///< when trace_out is "-" (stdout): the trace, printed after the results
  /// Lines for stderr ("note: ..." / "warning: ..."): caveats about the inputs (another machine,
  /// SMT double counting, ...) and findings that do not make the run incomplete (--stop-at,
  /// --jitter, an import that did not conserve, wakes banked as tokens); also in results.notes.
  std::vector<std::string> notes;
  /// When trace_out names a file: the complete trace, written and closed under its temporary
  /// name, not yet renamed; the caller commits it together with the results (commit_together).
  std::unique_ptr<AtomicFile> trace_file;
  std::vector<Record> records;  ///< one per repetition (one for a single run)
};

/// What a finished run says to its caller (the CLI prints it, Python warns or raises).
struct RunStatus {
  /// Lines to show, each "note: ..." or "warning: ...": the run's notes (`quiet` drops the
  /// notes, never a warning), and for a run stopped by --stop-at as asked, a note saying so and
  /// a warning for every other reason the results may be wrong.
  std::vector<std::string> lines;
  /// Why the run is incomplete when it did not end as asked (empty otherwise): the caller fails
  /// (CLI exit 4, Python IncompleteRunError) unless --allow-incomplete accepts it.
  std::vector<std::string> incomplete;
};
RunStatus run_status(const RunOutcome& out, bool quiet);

/// The memory budget in bytes for `--max-memory TEXT`: "0" or "none" = 0 (unlimited); a size
/// with an optional binary suffix (K, M, G, T; "KiB"/"KB" alike, e.g. 512M, 2G, 1.5GiB); or a
/// percentage of MemAvailable ("50%"). "" = the default, kDefaultMemoryPercent of MemAvailable
/// at start (unlimited when /proc/meminfo is unreadable). Throws InputError naming --max-memory.
inline constexpr int kDefaultMemoryPercent = 80;
uint64_t parse_max_memory(const std::string& text);
/// The memory budget of a process before any --max-memory: SCHEDSIM_MAX_MEMORY when set (an
/// InputError naming the variable when it is wrong), else parse_max_memory("") with
/// `default_source` as its source. Sets it (set_memory_budget) and returns the bytes.
uint64_t set_default_memory_budget(const std::string& default_source, std::string* source = nullptr);

/// Loads what `input` / `workload_gen` name. Throws InputError. When `input` is a kernel trace
/// and `report` is given, the import's report is stored there (its `path` is then non-empty).
/// A generated workload takes its per-operation costs from `gen_costs` (the machine's).
/// The provenance hash of a workload (16 hex digits of FNV-1a): its tasks, their attributes
/// (the background flag among them) and programs; not its name, source or meta.
std::string workload_hash(const Workload& w);
/// Whether a workload_gen spec draws random numbers: generated with `seed` and with `seed ^ 1`
/// (as generate_workload_from_spec seeds it) the workloads differ. False for a spec that gives
/// its own --seed (no run seed reaches it) and for generators without random choices.
bool generator_is_random(const std::string& spec, const GenCosts& costs = {}, uint64_t seed = 1);
/// The same, given the workload the spec already generated at `seed` (only its neighbour is
/// generated: a large generated workload is not built twice more to answer the question).
bool generator_is_random(const std::string& spec, const GenCosts& costs, uint64_t seed, const Workload& at_seed);
/// The trace options (selection, repair, decoding) set away from their defaults, by option name
/// ("--background-comm"): what a native or generated workload input refuses (load_workload_input).
std::vector<std::string> trace_options_given(const traces::ExtractOptions& e);
/// Throws the InputError `run` gives for replay_overheads=migration-delta on a workload file
/// imported from a trace (meta "trace_format"): it credits by the CPUs of each recorded
/// migration, which such a file does not keep. Nothing for other inputs or modes.
void refuse_migration_delta(const CostModel& cost, const Workload& w, bool from_trace);
/// Throws the InputError `run` gives for --recorded-on without --smt-normalize (the recording
/// machine is used only by the normalisation). Nothing otherwise.
void refuse_recorded_on_alone(const RunRequest& req);
/// SMT normalisation at import (run/calibrate --smt-normalize): the recording machine's sibling
/// lists and co-run rate into `extract`; `machine` names it in the extractor's errors.
void set_smt_siblings(const Topology& rec, int64_t corun_permille, const std::string& machine,
                      traces::ExtractOptions& extract);
/// The CPU count of the machine that recorded a trace: its header's (#P:N, cpus=N, `schedsim
/// record`'s cpus=N) when it has one (> 0), else the CPUs its events show (0: not known). A count
/// other than -t's means the trace comes from another machine (run's note, calibrate's warning).
inline int64_t traced_cpus(int64_t header_cpus, const Workload& w) {
  return header_cpus > 0 ? header_cpus : static_cast<int64_t>(w.observed.nr_cpus);
}
/// The machine a run without --topology simulates when its input is no trace.
inline constexpr const char* kDefaultTopology = "xeon-e5-2690v2";
/// A topology file saved beside the trace `input` (in its directory: topology.json, lscpu-p.txt,
/// or a saved sysfs/ tree), "" when there is none or the input is standard input.
std::string topology_beside(const std::string& input);
/// The machine a trace without --topology is replayed on: the topology file beside it, else
/// `smpN` for the CPU count its header gives (else its events show), else kDefaultTopology.
/// `note` says which, and what the replay cannot know.
std::string recording_machine(const std::string& input, const traces::ImportReport& rep, const Workload& w,
                              std::string& note);
/// After a --smt-normalize import (run or calibrate): throws when the trace's header names more
/// CPUs than the recording machine given; a note in `caveats` when it names fewer, or when nothing
/// was normalised (the trace probably comes from another machine).
void check_smt_normalisation(const traces::ImportReport& rep, const traces::ExtractOptions& extract,
                             const Workload& w, std::vector<std::string>& caveats);
/// `gen_seed` seeds a workload_gen spec that gives no seed of its own (generate_workload_from_spec).
Workload load_workload_input(const std::string& input, const std::string& workload_gen,
                             const traces::ExtractOptions& extract, traces::ImportReport* report = nullptr,
                             const GenCosts& gen_costs = {}, std::optional<uint64_t> gen_seed = std::nullopt);
/// The cost model of a run on `topo`: the built-in defaults, the topology's machine cost profile
/// (cost_profile.hpp), then `costs` (name=value or cost files, as --cost) in order. Fills
/// `config`'s cost overrides and provenance (cost files, their hashes, the profile) when given;
/// `given`, when given, maps every parameter `costs` set to the --cost that set it last.
CostModel build_cost_model(const std::vector<std::string>& costs, const Topology& topo, RunConfig* config,
                           std::map<std::string, std::string>* given = nullptr);
/// Notes for a workload whose generator per-operation costs (meta "gen_cost_params") are not the
/// machine's own: generated here with a profile that lacks them, or generated elsewhere (a
/// workload file) with other costs than this machine's profile has.
std::vector<std::string> gen_cost_notes(const Workload& w, const CostModel& cost, const std::string& topology,
                                        bool generated_here);
/// The chosen modules: the kernel profile (or defaults), then explicit slot choices; features
/// from the profile, then explicit X / NO_X. Fills `config` with what was chosen.
/// `kernel_note`, when given, receives the warning a version without a profile of its own logs
/// (the nearest profile at or below was used), "" otherwise.
PolicyStack build_policy_stack(const std::string& kernel, const std::map<std::string, std::string>& modules,
                               const std::vector<std::string>& features, RunConfig& config,
                               std::string* kernel_note = nullptr);
/// The noise model of `run --repeat`: each repetition scales every run() of the workload by a
/// machine-speed factor drawn once per repetition, U[1 - sqrt(3) s, 1 + sqrt(3) s] (std s), and
/// the engine scales each run() again by U[1 - j, 1 + j] (--jitter).
struct NoiseModel {
  double speed_std = 0;    ///< s, a fraction
  int64_t jitter_permille = 0;
  std::string text() const;  ///< "speed=1%,jitter=5%" or "none"
};
/// Defaults calibrated in docs/compare.md from repeated real hackbench runs.
inline constexpr double kDefaultSpeedStd = 0.01;
inline constexpr int64_t kDefaultJitterPermille = 50;
/// Parses "speed=1%,jitter=5%" (either part may be left out: 0), or "none". Throws InputError.
NoiseModel parse_noise(const std::string& spec);
/// Applies `run --slice` specs ("REGEX=DURATION", RunRequest::slices) to `w`: each sets
/// TaskSpec::slice of every task whose name matches REGEX. Throws InputError naming --slice for
/// a malformed spec, a bad regex, a duration outside kMinSlice..kMaxSlice or a REGEX that
/// matches no task.
void apply_slices(Workload& w, const std::vector<std::string>& specs);
/// The checks of apply_slices() that need no workload (syntax, range, regex): sweep runs them on
/// every point before the first run.
void check_slices(const std::vector<std::string>& specs);
/// The same, and that every REGEX matches a task of `w` (sweep, on points whose workload is
/// generated or a workload file).
void check_slices(const std::vector<std::string>& specs, const Workload& w);
/// The note `run` prints when tasks of `w` carry a custom slice (their own, or inherited down
/// the fork tree) under a queue that reads none (not EEVDF), or the warning under 6.6, which had
/// none; nullopt otherwise.
std::optional<std::string> custom_slice_note(const Workload& w, const RunConfig& config);
/// Runs everything a RunRequest says and renders it. Throws InputError on bad input. An
/// incomplete run (results.complete false: stuck tasks, unconsumed tokens, no tasks, work not
/// conserved, --stop-at) is not an exception: results.incomplete says why; the caller picks the
/// exit code (run_exit_code).
/// The engine's settings a request names (jitter, preemption model, accounting rule, stop,
/// time limit), each parsed and checked; the non-default ones recorded in `config`. Throws
/// InputError naming the option. execute_run and sweep's point checks both call it.
SimConfig sim_config_of(const RunRequest& req, RunConfig& config);
RunOutcome execute_run(const RunRequest& req);


}  // namespace schedsim::driver
