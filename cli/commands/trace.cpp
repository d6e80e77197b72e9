// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_trace() { return "usage: schedsim trace\n"; }
int run_trace(const std::vector<std::string>&) { throw InputError("'trace' is not implemented yet"); }
}  // namespace schedsim::cli
