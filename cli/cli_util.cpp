#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include "command.hpp"
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

void write_output(const std::string& path, const std::string& content) {
  if (path.empty() || path == "-") {
    std::cout << content;
    std::cout.flush();
    return;
  }
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(SourceLoc{path}, "cannot write output: directory '" + dir.string() + "' does not exist");
  if (fs::is_directory(target, ec))
    throw InputError(SourceLoc{path}, "cannot write output: it is a directory");
  fs::path tmp = dir / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(SourceLoc{path}, "cannot write output: cannot create a file in '" + dir.string() + "'");
    out << content;
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      throw InputError(SourceLoc{path}, "cannot write output: write failed (disk full?)");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw InputError(SourceLoc{path}, "cannot write output: rename failed: " + ec.message());
  }
}

}  // namespace schedsim::cli
