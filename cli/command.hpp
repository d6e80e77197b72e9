#pragma once
/// The CLI's command table (ninja kTools style): one row per command, each implemented in its own
/// cli/commands/<name>.cpp. Commands are thin: options -> config structs -> library calls ->
/// reporter.
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/program_options.hpp>

#include "schedsim/driver/commands.hpp"
#include "schedsim/driver/inputs.hpp"
#include "schedsim/driver/run_options.hpp"

namespace schedsim::cli {

namespace po = boost::program_options;
/// The commands are the driver library's front end: its requests, runs and checks are theirs.
using namespace driver;  // NOLINT(google-build-using-namespace)


struct Command {
  const char* name;     ///< from the command's table entry (driver/commands.hpp)
  const char* summary;  ///< likewise
  /// Runs with the arguments after the command name. Throws InputError / po::error.
  int (*run)(const std::vector<std::string>& args);
  /// The command's full help text (usage line, description, options): command_help() of its
  /// table entry, unless the command renders its own (gen lists its generators).
  std::string (*own_help)();
  std::string help() const;
};

/// The table, sorted by name: one row per entry of driver::command_specs().
const std::vector<Command>& command_table();
const Command* find_command(const std::string& name);

/// Parses `args` against `desc` with `pos` positionals; prints help and returns false on --help.
/// Throws po::error (usage, exit 2) on bad flags.
bool parse_args(const std::vector<std::string>& args, const po::options_description& desc,
                const po::positional_options_description& pos, po::variables_map& vm,
                const std::function<std::string()>& help);

/// The Boost options of a command's table rows (driver/commands.hpp), in its help sections.
po::options_description command_options(const driver::CommandSpec& spec);
/// A command's --help: its usage, description and options from the table.
std::string command_help(const driver::CommandSpec& spec);
/// parse_args for the command named `command` from its table: its options and positionals;
/// then the rows' checks (an empty value refused, a value outside the choices an InputError).
/// `help` replaces command_help() for --help (run adds the exit codes).
bool parse_command(const std::vector<std::string>& args, const char* command, po::variables_map& vm,
                   const std::function<std::string()>& help = {});

/// Width of --help output. Boost wraps an option's description in the columns left of its name
/// and splits a word when the line's last space lies in its first half: at the default 80
/// columns the descriptions got 40 and split paths (docs/kernel-versio|ns.md). At 100 with at
/// least 56 for the description, only a word over 28 characters can be split.
inline constexpr unsigned kHelpWidth = 100;
/// An option group as every command declares it (the caption heads it in --help).
inline po::options_description option_group(const std::string& caption) {
  return po::options_description(caption, kHelpWidth, kHelpWidth - 44);
}

/// What every command takes besides its own options (--explain); parse_args adds them and
/// format_help lists them last.
po::options_description common_options();

/// Renders "usage + description + options" consistently for every command.
std::string format_help(const std::string& usage, const std::string& description,
                        const po::options_description& desc);

/// Puts every option of `groups` that `vm` holds (given, or defaulted) into `r` through the
/// table's setters: a given empty value of an option that refuses one is an InputError naming
/// it (`command` for the hint), a value a setter refuses a usage error (po::error) naming the
/// option and the value.
void apply_run_options(const po::variables_map& vm, driver::RunRequest& r,
                       std::initializer_list<driver::OptionGroup> groups, const char* command);
/// The same for the rows named in `names` (calibrate replays under some of run's options).
void apply_run_options(const po::variables_map& vm, driver::RunRequest& r, std::initializer_list<std::string_view> names,
                       const char* command);

/// The options given in `vm` (not defaulted; a switch only when on), without dashes.
std::vector<std::string> given_options(const po::variables_map& vm);

/// The error for an empty value of option `name` (without dashes), parsed by hand (gen).
[[noreturn]] void refuse_empty_value(const char* name, const char* command);

/// The trace selection and reading options (the run option table's trace groups) in `vm`, as
/// ExtractOptions (import, trace info, calibrate).
traces::ExtractOptions trace_selection(const po::variables_map& vm);
/// The trace reading options alone into `o` (sched).
void apply_trace_reading(const po::variables_map& vm, traces::ExtractOptions& o);

/// Writes `content` to `path` atomically (temporary file in the same directory, then rename);
/// "-" or "" writes to stdout. A path ending in ".gz" is written gzip-compressed. Never leaves a
/// partial file behind. Throws InputError.
void write_output(const std::string& path, const std::string& content);

}  // namespace schedsim::cli
