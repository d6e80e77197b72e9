#pragma once
/// What one `run` asks for, as its options give it: the request that `run`, `sweep` (one per
/// point and repetition), `validate` and `calibrate` build and execute_run() carries out. Its
/// fields are set by the option table (run_options.hpp), which says for each option its type,
/// default, help and whether a sweep may vary it.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "schedsim/traces/import.hpp"

namespace schedsim::driver {

struct RunRequest {
  std::string input;          ///< workload or trace file ("" with workload_gen)
  std::string workload_gen;   ///< "KIND [options]"
  /// "" = not given: a trace is replayed on the machine it was recorded on (recording_machine()),
  /// anything else on kDefaultTopology.
  std::string topology;
  std::string kernel;         ///< profile version, "" = default modules
  std::map<std::string, std::string> modules;  ///< explicit slot choices
  std::vector<std::string> features;           ///< "X" or "NO_X"
  std::vector<std::string> costs;              ///< "name=value" or a JSON file path
  uint64_t seed = 1;
  /// `--seed` was given on the command line (not defaulted): it then also seeds a workload_gen
  /// spec that chooses no seed of its own (docs/generators.md "Seeds"). A sweep never sets it:
  /// its points share one generated workload unless `gen.seed` is swept.
  bool seed_given = false;
  std::string jitter;         ///< "5%" or "0.05"
  /// --preempt: full, none, voluntary, lazy (not given = full). Given, it must be one of them:
  /// an empty value is refused like any other unknown choice, not taken as the default.
  std::optional<std::string> preempt;
  /// --update-curr: actions, events (not given = actions; SimConfig::update_curr); as preempt.
  std::optional<std::string> update_curr;
  /// --slice REGEX=DURATION, in order: a custom slice (sched_attr.sched_runtime) for every task
  /// whose name matches REGEX (std::regex_search); a later one wins where several match.
  std::vector<std::string> slices;
  std::string format = "table";
  std::string output = "-";
  std::string label;
  std::string trace_out, trace_window;
  std::string stop_at;
  std::string max_sim_time;   ///< simulated-time limit ("" = SimConfig's default, 24 h)
  bool check_invariants = false;
  /// --view: after the results, print this perf sched view (latency, timehist, map) of the
  /// simulated schedule ("" = none).
  std::string view;
  bool quiet = false;             ///< -q: notes stay off stderr (the results keep them)
  bool allow_incomplete = false;  ///< exit 0 even when the run is incomplete
  std::string progress = "auto";
  std::string max_memory;     ///< "" = default (see parse_max_memory), "0"/"none" = unlimited
  size_t table_tasks = 20;
  size_t table_cpus = 0;      ///< per-CPU rows in the table (0 = all); `run` passes --cpus (64)
  traces::ExtractOptions extract;
  /// The trace was recorded on `recorded_on` (or `topology` when empty): its on-CPU time while an
  /// SMT sibling was busy becomes reference work at that machine's smt_corun_permille
  /// (ExtractOptions::smt_siblings), so the replay on `topology` applies its own co-run slowdown once.
  bool smt_normalize = false;
  std::string recorded_on;    ///< --recorded-on: preset, topology file or 'host'; needs smt_normalize
  uint32_t repeat = 1;        ///< repetitions with modelled noise (docs/compare.md "Noise model")
  std::string noise;          ///< "speed=S,jitter=J" or "none"; "" = the default for repeat > 1
  /// With repeat > 1: run only this repetition of the `repeat` (its seed derive_seed(seed, r),
  /// its machine-speed factor and jitter), exactly as `run --repeat` runs it. `schedsim sweep`
  /// runs each (point, repetition) this way, `seed` being the point's seed.
  std::optional<uint32_t> only_rep;
  std::string command_line;   ///< recorded in the results' provenance ("" = not from the CLI)
};

}  // namespace schedsim::driver
