#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include "command.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"

namespace schedsim::cli {

const char* const kExitCodesHelp =
    "exit codes:\n"
    "  0    success; also a run ended by --stop-at, or an incomplete one with --allow-incomplete\n"
    "  1    input error: a file, option value, workload or trace is wrong (the message names it)\n"
    "  2    usage error: unknown command or option, missing argument\n"
    "  3    internal error: out of memory or a schedsim bug\n"
    "  4    simulation incomplete: tasks blocked forever, wake tokens never consumed, no task\n"
    "       selected, or work not conserved; the results are still written, with \"complete\": false\n"
    "  5    run: the --max-memory budget was exceeded\n"
    "  130  interrupted by SIGINT: temporaries removed, tracefs restored, no output written\n"
    "  143  terminated by SIGTERM: as for 130\n";

bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                const po::positional_options_description& pos, po::variables_map& vm,
                std::string (*help)()) {
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == "--help" || a == "-h") {
      std::cout << help();
      return false;
    }
  }
  po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
  po::notify(vm);
  return true;
}

std::string format_help(const std::string& usage, const std::string& description,
                        const po::options_description& desc) {
  std::ostringstream os;
  os << "usage: " << usage << "\n\n" << description << "\n";
  if (!desc.options().empty()) os << "\n" << desc;
  return os.str();
}

double parse_fraction(const std::string& text, const char* flag) {
  std::string t = text;
  bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
    throw InputError(SourceLoc{flag}, "expected a fraction like 5% or 0.05, got '" + text + "'");
  return pct ? v / 100.0 : v;
}

void write_output(const std::string& path, const std::string& content) {
  write_file_atomic(path, content, "output");
}

}  // namespace schedsim::cli
