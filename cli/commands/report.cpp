// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_report() { return "usage: schedsim report\n"; }
int run_report(const std::vector<std::string>&) { throw InputError("'report' is not implemented yet"); }
}  // namespace schedsim::cli
