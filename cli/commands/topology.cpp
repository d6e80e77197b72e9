// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_topology() { return "usage: schedsim topology\n"; }
int run_topology(const std::vector<std::string>&) { throw InputError("'topology' is not implemented yet"); }
}  // namespace schedsim::cli
