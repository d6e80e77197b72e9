#pragma once
// The trace options, defined once: `import`, `trace info`, `run`, `calibrate` take the reading and
// selection options; `sched` the reading options alone. A new trace option goes here (its
// definition, its reading into ExtractOptions) and every command that reads traces has it.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/traces/import.hpp"

namespace schedsim::cli {

/// How to read a trace (no task selection): `schedsim sched` takes these alone.
inline void add_trace_reading_options(po::options_description& d) {
  d.add_options()
      ("strict", po::bool_switch(), "make every repair (lost events, inconsistencies) an error")
      ("clock-hz", po::value<int64_t>(), "ticks per second of an integer trace clock (counter, x86-tsc)")
      ("kernel-version", po::value<std::string>(), "kernel MAJOR.MINOR, to decode numeric prev_state (default: inferred from the values, docs/traces.md)")
      ("buffer", po::value<std::string>(), "trace-cmd multi-buffer report: the buffer to keep");
}

/// --channels (import, trace info, run, calibrate): docs/traces.md "Channels from syscalls".
inline constexpr const char* kChannelsHelp =
    "read/write syscalls recorded in the trace (record --extra-events syscalls): 'pipe' or 'socket' "
    "replays the fds that wakeups pair as channels of that kind (write/read actions: the simulated "
    "pipe decides who sleeps and who is woken) instead of wake/block tokens; 'off' ignores them "
    "(default: off)";

/// Which tasks of a trace become workload tasks, then the reading options. `title` names the
/// group in --help.
inline po::options_description trace_selection_options(const char* title = "trace options") {
  po::options_description d = option_group(title);
  d.add_options()
      ("comm", po::value<std::string>(), "keep tasks whose comm (any name they had) matches REGEX")
      ("pid", po::value<std::vector<int64_t>>()->composing(), "keep this pid (repeatable)")
      ("descendants-of", po::value<int64_t>(), "keep PID and every task it forks, transitively")
      ("exclude-kthreads", po::bool_switch(), "drop kernel threads")
      ("all-tasks", po::bool_switch(), "keep every task even in a trace made by schedsim record (which selects the recorded command's descendants by default)")
      ("background-comm", po::value<std::string>(), "also import the unselected tasks whose comm (any name they had) matches REGEX as background tasks: replayed as load, left out of every metric and the makespan (the selection wins)")
      ("background-pid", po::value<std::vector<int64_t>>()->composing(), "also import this unselected pid as a background task (repeatable)")
      ("channels", po::value<std::string>(), kChannelsHelp);
  add_trace_reading_options(d);
  return d;
}

/// The options of add_trace_reading_options() into `o`.
inline void apply_trace_reading(const po::variables_map& vm, traces::ExtractOptions& o) {
  o.strict = vm["strict"].as<bool>();
  if (vm.count("clock-hz")) {
    o.clock_hz = vm["clock-hz"].as<int64_t>();
    if (o.clock_hz <= 0) throw po::error("--clock-hz must be positive");
  }
  if (vm.count("kernel-version")) o.kernel_version = vm["kernel-version"].as<std::string>();
  if (vm.count("buffer")) o.buffer = vm["buffer"].as<std::string>();
}

/// The options of trace_selection_options().
inline traces::ExtractOptions trace_selection(const po::variables_map& vm) {
  traces::ExtractOptions o;
  if (vm.count("comm")) o.comm_regex = vm["comm"].as<std::string>();
  if (vm.count("pid")) o.pids = vm["pid"].as<std::vector<int64_t>>();
  if (vm.count("descendants-of")) o.descendants_of = vm["descendants-of"].as<int64_t>();
  o.exclude_kthreads = vm["exclude-kthreads"].as<bool>();
  o.all_tasks = vm["all-tasks"].as<bool>();
  if (vm.count("background-comm")) o.background_comm_regex = vm["background-comm"].as<std::string>();
  if (vm.count("background-pid")) o.background_pids = vm["background-pid"].as<std::vector<int64_t>>();
  if (vm.count("channels")) o.channels = traces::parse_trace_channels(vm["channels"].as<std::string>());
  apply_trace_reading(vm, o);
  return o;
}

/// Imports the trace at `path`; "-" reads standard input whole first, so a trace piped in can be
/// read twice like a file (--comm, an inferred prev_state layout).
inline Workload import_trace_arg(const std::string& path, const traces::ExtractOptions& o, traces::ImportReport* rep) {
  if (path != "-") return traces::import_trace(path, o, rep);
  const std::string data = read_standard_input();
  return traces::import_trace_buffer(data, "-", o, rep);
}

/// A trace whose selection (--comm, --pid, the recorded root) kept no task is an input error
/// (exit 1), not an incomplete run: nothing about the simulation failed, the options selected
/// nothing. `consequence` says what is not done ("no workload written", "nothing to simulate").
inline void refuse_empty_selection(const Workload& w, const std::string& path, const traces::ImportReport& rep,
                                   const char* consequence) {
  if (!w.tasks.empty()) return;
  throw InputError(SourceLoc{path}, fmt::format("no tasks selected: the selection ({}) kept none of the {} tasks seen "
                                                "in the trace; {} (`schedsim trace info` lists the tasks)",
                                                rep.selection, rep.tasks_seen, consequence));
}

}  // namespace schedsim::cli
