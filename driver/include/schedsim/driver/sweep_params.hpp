#pragma once
/// What a sweep parameter means: KEY=VALUE pairs onto a RunRequest (every `run` option that
/// describes the simulation, generator options `gen.KEY`, cost parameters `cost.NAME`, flags
/// `feature.NAME`), and the sweep's record line. docs/sweep.md lists the keys.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "schedsim/driver/run.hpp"
#include "schedsim/sweep/jsonl.hpp"
#include "schedsim/sweep/spec.hpp"
#include "schedsim/sweep/summary.hpp"

namespace schedsim::driver {

/// The keys that name `run` options (without the prefixed families gen./cost./feature.).
const std::vector<std::string>& sweep_param_keys();
/// `run` options a sweep does not take as parameters, each with the reason.
const std::vector<std::pair<std::string, std::string>>& sweep_excluded_keys();

/// Throws InputError (naming where the key came from) for an unknown or excluded key, with a
/// did-you-mean.
void check_sweep_keys(const sweep::Spec& spec);

/// The RunRequest of one point and repetition: its parameters, the repetition seed, the label.
/// Throws InputError for a bad value that can be seen without running (gen.* without a
/// workload-gen, a feature value other than on/off).
RunRequest point_request(const sweep::Point& point, uint64_t seed);

/// Checks every point's modules, topology, costs and generator arguments before anything runs,
/// so a typo in the last point does not cost the whole sweep. Throws InputError naming the point.
/// Returns notes ("note: ...") for the workload-gen specs that draw random numbers
/// (generator_is_random) when `repeat` > 1: a sweep runs one generated workload per spec, so
/// its repetitions do not sample the generator's choices.
std::vector<std::string> validate_points(const std::vector<sweep::Point>& points, uint32_t repeat);

/// The record line (with '\n') of one repetition of one point. THE one place that decides what a
/// record holds (docs/results-schema.md "Records: JSON Lines"); the summary's columns below read it. `record` is the
/// run's flat record (RunOutcome::records), embedded as member "record" for `schedsim compare`.
std::string write_record(const sweep::Point& point, uint32_t rep, uint64_t seed, const RunResults& results,
                         const Record& record);
/// Runs repetition `rep` of `repeat` of `point` (seed derive_seed(point.seed, rep)) and returns
/// its record line. With repeat > 1 the repetition gets `run --repeat`'s noise model (machine-speed
/// factor and jitter, parameter `noise`), so it equals repetition `rep` of
/// `run --seed POINT_SEED --repeat REPEAT`. Safe to call from several threads. Errors name the
/// point and repetition.
std::string run_unit(const sweep::Point& point, uint32_t rep, uint32_t repeat);
/// How execute_sweep() runs a sweep's (point, repetition) units on this machine.
struct SweepRunOptions {
  std::string output;   ///< the JSON Lines file the records stream to ("" keeps them in memory)
  bool resume = false;  ///< continue `output`: skip its records, refuse a changed spec
  sweep::Shard shard;   ///< run only this slice of the units
  unsigned jobs = 1;
  std::function<void(const std::string&)> on_note;  ///< a note for stderr ("note: ...")
  /// (runs done, runs in all, points done, points in all), as records are delivered in order.
  std::function<void(size_t, size_t, size_t, size_t)> on_progress;
  /// Each record line (without the newline) as it is delivered, in order (the Python
  /// module's sweep() yields them); records skipped by `resume` are not delivered.
  std::function<void(const std::string&)> on_record;
};

struct SweepRunResult {
  std::vector<std::string> records;  ///< every record of the sweep (read back from the output file)
  /// SIGINT or SIGTERM ended the sweep (0: it ran to the end): the records before the first unit
  /// that did not finish are in the output, whole and in order; `interrupted` is the signal's text.
  int signal = 0;
  std::string interrupted;
  size_t runs_written = 0, runs = 0;  ///< runs in the output file, and in the sweep (or shard)
};

/// Runs the units of `points` (all, or `o.shard`'s) on `o.jobs` threads through run_unit(),
/// writing each record in (point, repetition) order as soon as those before it are written, so
/// the output is the same bytes for any number of jobs and a killed sweep resumes where it
/// stopped. Throws InputError; a signal is reported in the result, not thrown.
SweepRunResult execute_sweep(const sweep::Spec& spec, const std::vector<sweep::Point>& points,
                             const SweepRunOptions& o);

/// Refuses a records output (sweep -o, merge -o) that is standard output or gzip-compressed:
/// records are appended as they finish, and sweep --resume and merge read them back.
void check_records_output(const std::string& output, const char* command);

/// The summary's metric columns and completeness flag, as pointers into write_record's records.
sweep::SummaryOptions summary_options(const std::string& format);

/// A sweep's spec as `schedsim sweep` assembles it: the spec file, then each --set (one value
/// fixes a parameter, several sweep it) and --zip group, then the WORKLOAD argument, --repeat and
/// --seed, each replacing what the file said; the keys are checked (check_sweep_keys).
struct SweepSpecParts {
  std::string spec_file;  ///< "" for none
  std::vector<std::string> sets, zips;
  std::optional<std::string> input;
  std::optional<uint32_t> repeat;
  std::optional<uint64_t> seed;
};
sweep::Spec build_sweep_spec(const SweepSpecParts& parts);

/// `sweep --dry-run`: the run count and the spec hash, then one line per point (index, seed,
/// label or parameters).
std::string render_points(const sweep::Spec& spec, const std::vector<sweep::Point>& points);

/// `sweep --slurm`: an array job of shards and a merge job (sweep/slurm.hpp), submitted or not.
struct SlurmRequest {
  std::string output;          ///< the merged records file (-o), required
  std::string dir;             ///< "" for OUTPUT.slurm
  std::optional<uint32_t> array_size;  ///< default min(runs, 100)
  unsigned cpus_per_task = 1;  ///< sweep --jobs
  std::string partition;
  bool submit = false, wait = false;
  std::function<void(const std::string&)> say;  ///< a line for standard output, as it happens
};
/// Writes (and submits) the jobs; with `wait`, waits for the merge job and returns the merged
/// file. Throws InputError for a bad request, an existing output, or a merge job that did not
/// write the output (naming its state, from scontrol while Slurm remembers it).
std::optional<sweep::ResultsFile> sweep_on_slurm(const sweep::Spec& spec, size_t nr_points, const SlurmRequest& r);

}  // namespace schedsim::driver
