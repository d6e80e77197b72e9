#include <iostream>

#include "../command.hpp"
#include "schedsim/base/error.hpp"

namespace schedsim::cli {

int run_help(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cout << "commands:\n";
    for (const auto& c : command_table())
      std::cout << "  " << c.name << std::string(12 - std::string(c.name).size(), ' ') << c.summary << "\n";
    std::cout << "\nschedsim help COMMAND shows a command's options.\n";
    return kExitOk;
  }
  if (args.size() > 1) throw po::error("help takes one command name");
  const Command* c = find_command(args[0]);
  if (!c) {
    std::vector<std::string> names;
    for (const auto& x : command_table()) names.emplace_back(x.name);
    throw po::error(unknown_choice_message("command", args[0], names));
  }
  std::cout << c->help();
  return kExitOk;
}

}  // namespace schedsim::cli
