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
  add_run_options(d, {driver::OptionGroup::kTraceReading});
}

/// Which tasks of a trace become workload tasks, then the reading options (the run option
/// table's two trace groups). `title` names the group in --help.
inline po::options_description trace_selection_options(const char* title = "trace options") {
  po::options_description d = option_group(title);
  add_run_options(d, {driver::OptionGroup::kTraceSelection, driver::OptionGroup::kTraceReading});
  return d;
}

/// The options of add_trace_reading_options() into `o`.
inline void apply_trace_reading(const po::variables_map& vm, traces::ExtractOptions& o) {
  driver::RunRequest r;
  r.extract = o;
  apply_run_options(vm, r, {driver::OptionGroup::kTraceReading}, "sched");
  o = r.extract;
}

/// The options of trace_selection_options().
inline traces::ExtractOptions trace_selection(const po::variables_map& vm) {
  driver::RunRequest r;
  apply_run_options(vm, r, {driver::OptionGroup::kTraceSelection, driver::OptionGroup::kTraceReading}, "run");
  return r.extract;
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
