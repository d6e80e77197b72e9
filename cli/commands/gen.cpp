// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_gen() { return "usage: schedsim gen\n"; }
int run_gen(const std::vector<std::string>&) { throw InputError("'gen' is not implemented yet"); }
}  // namespace schedsim::cli
