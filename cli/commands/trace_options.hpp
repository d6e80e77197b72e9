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



}  // namespace schedsim::cli
