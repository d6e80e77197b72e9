// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_import() { return "usage: schedsim import\n"; }
int run_import(const std::vector<std::string>&) { throw InputError("'import' is not implemented yet"); }
}  // namespace schedsim::cli
