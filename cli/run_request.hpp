#pragma once
/// The `run` pipeline as a library call, so tests and future commands (sweep, compare) use it
/// without argv: load the workload (native file, kernel trace or generator), the topology and the
/// policy stack, simulate with the metrics collector attached, render.
#include <map>
#include <string>
#include <vector>

#include "schedsim/engine/engine.hpp"
#include "schedsim/metrics/records.hpp"
#include "schedsim/metrics/results.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::cli {

struct RunRequest {
  std::string input;          ///< workload or trace file ("" with workload_gen)
  std::string workload_gen;   ///< "KIND [options]"
  std::string topology = "xeon-e5-2690v2";
  std::string kernel;         ///< profile version, "" = default modules
  std::map<std::string, std::string> modules;  ///< explicit slot choices
  std::vector<std::string> features;           ///< "X" or "NO_X"
  std::vector<std::string> costs;              ///< "name=value" or a JSON file path
  uint64_t seed = 1;
  std::string jitter;         ///< "5%" or "0.05"
  std::string format = "table";
  std::string output = "-";
  std::string label;
  std::string trace_out, trace_window;
  std::string stop_at;
  bool check_invariants = false;
  std::string progress = "auto";
  size_t table_tasks = 20;
  traces::ExtractOptions extract;
  uint32_t repeat = 1;        ///< repetitions with modelled noise (docs/compare.md "Noise model")
  std::string noise;          ///< "speed=S,jitter=J" or "none"; "" = the default for repeat > 1
};

struct RunOutcome {
  RunResults results;
  SimSummary summary;
  std::string rendered;    ///< in the requested format
  std::string trace_text;  ///< when trace_out is set
  std::vector<Record> records;  ///< one per repetition (format jsonl, or repeat > 1)
};

/// Loads what `input` / `workload_gen` name. Throws InputError.
Workload load_workload_input(const std::string& input, const std::string& workload_gen,
                             const traces::ExtractOptions& extract);
/// The chosen modules: the kernel profile (or defaults), then explicit slot choices; features
/// from the profile, then explicit X / NO_X. Fills `config` with what was chosen.
PolicyStack build_policy_stack(const std::string& kernel, const std::map<std::string, std::string>& modules,
                               const std::vector<std::string>& features, RunConfig& config);
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
/// Runs everything a RunRequest says and renders it. Throws InputError on bad input.
RunOutcome execute_run(const RunRequest& req);

}  // namespace schedsim::cli
