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
