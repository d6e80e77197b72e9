// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_run() { return "usage: schedsim run\n"; }
int run_run(const std::vector<std::string>&) { throw InputError("'run' is not implemented yet"); }
}  // namespace schedsim::cli
