// Placeholder until the command lands (being written now).
#include "../command.hpp"
#include "schedsim/base/error.hpp"
namespace schedsim::cli {
std::string help_record() { return "usage: schedsim record\n"; }
int run_record(const std::vector<std::string>&) { throw InputError("'record' is not implemented yet"); }
}  // namespace schedsim::cli
