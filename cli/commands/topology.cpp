// `schedsim topology list | show TOPOLOGY | export TOPOLOGY --format json [-o FILE]`.
// Thin: the loading, validation and rendering live in schedsim::topology.
#include <iostream>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/driver/listings.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim::cli {

namespace {

const std::vector<std::string>& actions() {
  static const std::vector<std::string> a = {"export", "list", "show"};
  return a;
}

}  // namespace

int run_topology(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "topology", vm)) return kExitOk;

  if (!vm.count("action")) throw po::error("missing action: expected one of " + join(actions(), ", "));
  const std::string action = vm["action"].as<std::string>();
  if (vm.count("extra"))
    throw po::error(fmt::format("unexpected argument '{}'", vm["extra"].as<std::vector<std::string>>()[0]));

  if (action == "list") {
    if (vm.count("target")) throw po::error("'topology list' takes no argument");
    std::cout << list_topologies();
    return kExitOk;
  }
  if (action != "show" && action != "export")
    throw po::error(unknown_choice_message("topology action", action, actions()));
  if (!vm.count("target")) throw po::error(fmt::format("'topology {}' needs a TOPOLOGY argument", action));
  const std::string target = vm["target"].as<std::string>();

  if (action == "show") {
    if (!vm["output"].defaulted() || !vm["format"].defaulted())
      throw po::error("--format and --output apply to 'topology export' only");
    std::cout << describe_topology(load_topology(target));
    return kExitOk;
  }
  refuse_output_over_inputs(vm["output"].as<std::string>(), {target});
  Topology topo = load_topology(target);  // validates before anything is written
  write_output(vm["output"].as<std::string>(), topology_to_json(topo.spec()));
  return kExitOk;
}

}  // namespace schedsim::cli
