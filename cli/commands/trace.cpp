// schedsim trace info TRACE: what a trace holds and what import would make of it.
#include <iostream>

#include "../command.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/traces/import.hpp"
#include "trace_options.hpp"

namespace schedsim::cli {

namespace {
po::options_description trace_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("action", po::value<std::string>(), "info (positional)")
      ("trace", po::value<std::string>(), "input trace (positional)")
      ("idle-wake-costs", po::value<std::string>(), "also write a cost file (run --cost FILE) from the trace's own measurements: idle_wake=table with idle_exit_table (and timer_wake_table, given 20 local timer wakes) from its idle wakes by idle-time class, each class at least 20 wakes; without 20 idle wakes, timer_wake_local from 20 local timer wakes (their p50); resched_ipi from its remote preempting wakes after a recorded IPI, given 20 (docs/traces.md)");
  d.add(trace_selection_options());
  return d;
}
}  // namespace

std::string help_trace() {
  return format_help(
      "schedsim trace info TRACE [--comm REGEX] [--pid PID]... [--descendants-of PID] "
      "[--exclude-kthreads] [--background-comm REGEX] [--background-pid PID]... [--strict] [--channels MODE] "
      "[--idle-wake-costs FILE]",
      "Inspects a kernel scheduler trace: the format detected, kernel version hints, CPUs,\n"
      "events by type, tasks, lost-event windows, repairs made, the extracted workload and the\n"
      "observed statistics of the real run (wakeup latency, run-queue wait, migrations, span).",
      trace_options());
}

int run_trace(const std::vector<std::string>& args) {
  po::options_description d = trace_options();
  po::positional_options_description pos;
  pos.add("action", 1).add("trace", 1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_trace)) return kExitOk;
  if (!vm.count("action")) throw po::error("missing action (info)");
  const std::string action = vm["action"].as<std::string>();
  if (action != "info") throw po::error(unknown_choice_message("trace action", action, {"info"}));
  if (!vm.count("trace")) throw po::error("missing TRACE");
  refuse_empty_values(vm, {"idle-wake-costs"}, "trace");
  if (vm.count("idle-wake-costs"))
    refuse_output_over_inputs(vm["idle-wake-costs"].as<std::string>(), {vm["trace"].as<std::string>()}, "--idle-wake-costs");
  traces::ExtractOptions opt = trace_selection(vm);
  traces::ImportReport rep;
  Workload w = import_trace_arg(vm["trace"].as<std::string>(), opt, &rep);
  std::cout << rep.describe() << traces::describe_workload(w);
  if (vm.count("idle-wake-costs")) {
    if (rep.idle_wake.cpu_idle_events + rep.idle_wake.ipi_events == 0) std::cout << traces::describe_idle_wake(rep.idle_wake);
    std::cout.flush();
    std::string note;
    const std::string json = traces::idle_wake_costs_json(rep.idle_wake, vm["trace"].as<std::string>(), &note);
    AtomicFile f(vm["idle-wake-costs"].as<std::string>(), "idle-wake cost file");
    f.write(json);
    f.commit();
    std::cout << "idle-wake costs written to " << vm["idle-wake-costs"].as<std::string>() << ": " << note << "\n";
  }
  return kExitOk;
}

}  // namespace schedsim::cli
