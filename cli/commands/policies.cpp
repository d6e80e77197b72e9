// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_policies() { return "usage: schedsim policies\n"; }
int run_policies(const std::vector<std::string>&) { throw InputError("'policies' is not implemented yet"); }
}  // namespace schedsim::cli
