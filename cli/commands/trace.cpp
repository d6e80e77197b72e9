// schedsim trace info TRACE: what a trace holds and what import would make of it.
#include <iostream>

#include "../command.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/traces/import.hpp"

namespace schedsim::cli {


int run_trace(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "trace", vm)) return kExitOk;
  if (!vm.count("action")) throw po::error("missing action (info)");
  const std::string action = vm["action"].as<std::string>();
  if (action != "info") throw po::error(unknown_choice_message("trace action", action, {"info"}));
  if (!vm.count("trace")) throw po::error("missing TRACE");
  const std::string format = vm["format"].as<std::string>();
  if (format == "json" && vm.count("idle-wake-costs"))
    throw po::error("--idle-wake-costs prints what it wrote as text: use it without --format json");
  if (vm.count("idle-wake-costs"))
    refuse_output_over_inputs(vm["idle-wake-costs"].as<std::string>(), {vm["trace"].as<std::string>()}, "--idle-wake-costs");
  traces::ExtractOptions opt = trace_selection(vm);
  traces::ImportReport rep;
  Workload w = import_trace_arg(vm["trace"].as<std::string>(), opt, &rep);
  if (format == "json") {
    std::cout << driver::trace_info_json(rep, w);
    return kExitOk;
  }
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
