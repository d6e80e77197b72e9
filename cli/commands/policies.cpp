// schedsim policies: the policy modules of every slot, their sched_feat flags, and the kernel
// profiles, as driver/listings.hpp renders them from the registry.
#include <iostream>

#include "../command.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/driver/listings.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim::cli {

int run_policies(const std::vector<std::string>& args) {
  const std::string opt = args.empty() ? "" : args[0];
  if (opt.empty()) {
    std::cout << list_modules("");
  } else if (opt == "--help" || opt == "-h") {
    std::cout << find_command("policies")->help();
  } else if (opt == "--features") {
    if (args.size() > 2) throw po::error("'policies --features' takes at most one module name");
    std::cout << list_module_features(args.size() == 2 ? args[1] : "");
  } else if (opt == "--kernel") {
    if (args.size() != 2) throw po::error("'policies --kernel' needs 'list', 'table' or a version");
    if (args[1] == "table") {
      std::cout << kernel_profile_table();
    } else if (args[1] == "list") {
      std::cout << list_kernels();
    } else {
      std::string note;
      const KernelProfile& prof = resolve_kernel_profile(args[1], note);
      if (!note.empty()) log::get("cli")->warn("{}", note);
      std::cout << describe_kernel_profile(prof);
    }
  } else {
    throw po::error(unknown_choice_message("option", opt, {"--features", "--kernel", "--help"}));
  }
  return kExitOk;
}

}  // namespace schedsim::cli
