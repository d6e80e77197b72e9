// schedsim's single catch site: InputError -> exit 1, usage errors -> exit 2, never a stack trace.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "schedsim_commit.h"  // generated: SCHEDSIM_COMMIT (cmake/Commit.cmake)
#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/run_control.hpp"

#ifndef SCHEDSIM_VERSION
#define SCHEDSIM_VERSION "0.0.0"
#endif

namespace {
using namespace schedsim;
using namespace schedsim::cli;

std::string top_help() {
  std::string out = driver::global_usage();
  for (const auto& c : command_table()) out += "  " + std::string(c.name) + std::string(12 - std::string(c.name).size(), ' ') + c.summary + "\n";
  return out + driver::global_options_help() + driver::exit_codes_help();
}

/// Every command's standard output ends here: the C++ stream and the C stdio buffer beneath it
/// are flushed and checked, so output lost to a full disk, /dev/full or a closed descriptor is an
/// error (exit 1) rather than a short file behind exit 0. Writes that failed earlier leave the
/// stream's badbit or stdio's error flag set; the last buffer's failure shows at this flush.
int finish_stdout(int rc) {
  std::cout.flush();
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  const int err = errno;
  if (!flush_failed && std::cout.good() && !std::ferror(stdout)) return rc;
  // A command writing through AtomicFile("-") (`run`, `compare`, `report -o -`) has already said
  // so and returned its own error code.
  if (stdout_failure_reported() && rc != kExitOk) return rc;
  std::cerr << "-: error: cannot write standard output: "
            << (flush_failed && err != 0 ? std::strerror(err) : "a write failed (disk full?)")
            << "; what was printed is incomplete\n";
  return rc == kExitOk ? kExitInputError : rc;  // 4, 5, 6 say more about the run than this does
}

int usage_error(const char* what, const std::string& command) {
  std::cerr << "schedsim: error: " << what << "\n";
  if (!command.empty() && find_command(command)) std::cerr << "see 'schedsim help " << command << "'\n";
  return kExitUsage;
}

std::vector<std::string> command_names() {
  std::vector<std::string> n;
  for (const auto& c : command_table()) n.emplace_back(c.name);
  return n;
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  int verbosity = 0;
  std::string log_spec;
  size_t i = 0;
  install_signal_handlers();  // SIGINT/SIGTERM: temporaries removed, exit 130/143
  try {
    // Global options come before the command name.
    for (; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "-v") verbosity = std::max(verbosity, 1);
      else if (a == "-vv") verbosity = 2;
      else if (a == "--explain") log::set_explain(true);
      else if (a == "--log") {
        if (i + 1 >= args.size()) throw po::error("the option '--log' requires an argument");
        log_spec = args[++i];
      } else if (a.rfind("--log=", 0) == 0) log_spec = a.substr(6);
      else if (a == "--version") {
        std::cout << "schedsim " << SCHEDSIM_VERSION << " (commit " << SCHEDSIM_COMMIT << ")\n";
        return finish_stdout(kExitOk);
      } else if (a == "-h" || a == "--help") {
        std::cout << top_help();
        return finish_stdout(kExitOk);
      } else if (!a.empty() && a[0] == '-') {
        throw po::error("unknown global option '" + a + "' (command options go after the command name)");
      } else break;
    }
    log::init(verbosity, log_spec);
    // Every command's long loops check this budget (poll_resources); run --max-memory replaces it.
    set_default_memory_budget("80% of MemAvailable, the default");
    if (i >= args.size()) {
      std::cerr << top_help();
      return kExitUsage;
    }
    const Command* cmd = find_command(args[i]);
    if (!cmd) throw po::error(unknown_choice_message("command", args[i], command_names()));
    std::vector<std::string> rest(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
    return finish_stdout(cmd->run(rest));
  } catch (const InputError& e) {
    std::cerr << e.render() << "\n";
    return kExitInputError;
  } catch (const po::error& e) {
    return usage_error(e.what(), i < args.size() ? args[i] : "");
  } catch (const driver::UsageError& e) {
    return usage_error(e.what(), i < args.size() ? args[i] : "");
  } catch (const Interrupted& e) {
    std::cerr << "schedsim: " << e.what() << "; no output written\n";
    return 128 + e.signal();
  } catch (const ResourceError& e) {
    std::cerr << "schedsim: error: " << e.what() << "\n";
    return kExitResource;
  } catch (const std::bad_alloc&) {
    std::cerr << "schedsim: error: out of memory\n";
    return kExitInternal;
  } catch (const std::exception& e) {
    // Anything else (a library's domain_error, length_error) is a schedsim bug: a reader or an
    // option let through what the code behind it cannot take. Exit 3 with its text, not abort().
    std::cerr << "schedsim: internal error: " << e.what() << "\n"
              << "this is a schedsim bug: please report it with the command line\n";
    return kExitInternal;
  }
}
