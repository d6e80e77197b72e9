#pragma once
/// Every command's interface, declared once as data: name, summary, usage line, description,
/// option sections (rows of this table, or rows of the run option table by group or name) and
/// positional arguments. `schedsim --help`, each command's --help, its Boost options, the
/// empty-value refusals and the choice checks all expand from it (cli/cli_util.cpp), as `run`'s
/// options expand from driver/run_options.hpp; a command's code in cli/ reads the parsed values
/// and prints, nothing more.
#include <string_view>
#include <vector>

#include "schedsim/driver/run_options.hpp"

namespace schedsim::driver {

/// How a command option's value is written (the run option table's OptionType for `run`'s).
enum class ArgType {
  kText,     ///< one string
  kTexts,    ///< repeatable strings (each occurrence one value)
  kWords,    ///< strings, several after one occurrence (record --events switch waking)
  kFlag,     ///< a switch
  kCount32,  ///< a non-negative integer below 2^32
  kCount64,  ///< a non-negative integer
  kReal,     ///< a real number
  kInt,      ///< a signed integer
  kInts,     ///< repeatable signed integers
};

struct CommandOption {
  const char* name;          ///< the long name, without dashes
  char short_name;           ///< 0: none
  ArgType type;
  const char* default_text;  ///< the default, as written on the command line; nullptr: none
  const char* help;
  /// "a|b|c": a given value must be one of these (an InputError naming the option otherwise);
  /// nullptr: any value.
  const char* choices = nullptr;
  /// A given empty text is refused: the commands keep "" for "not given, use the default".
  bool refuse_empty = false;
  /// The option this one needs ("slurm": --partition only with --slurm); nullptr: none. Given
  /// without it, an InputError "only with --NEEDS".
  const char* needs = nullptr;
};

/// One section of a command's --help: its own rows, then the run option table's rows of
/// `run_groups` or named in `run_names`.
struct OptionSection {
  const char* title;
  std::vector<CommandOption> options;
  std::vector<OptionGroup> run_groups = {};
  std::vector<std::string_view> run_names = {};
};

/// A positional argument: `count` values (-1: all that remain). When no row of the sections
/// has its name it is a hidden option of type kText (count 1) or kTexts.
struct Positional {
  const char* name;
  int count;
};

struct CommandSpec {
  const char* name;
  const char* summary;      ///< one line, for `schedsim --help`
  const char* usage;        ///< after "usage: "; lines after the first start with 7 spaces
  const char* description;  ///< the paragraphs between the usage and the options
  std::vector<OptionSection> sections;
  std::vector<Positional> positionals;
};

/// Every command, sorted by name.
const std::vector<CommandSpec>& command_specs();
/// The command named `name`, nullptr when there is none.
const CommandSpec* find_command_spec(std::string_view name);
/// The choices of `o` as a list ({} when any value goes).
std::vector<std::string> option_choices(const CommandOption& o);

/// Exit codes (ninja exit_status.h style); README.md "Exit codes" and `schedsim --help` list them.
/// 4: the simulation ran but did not reach its natural end (tasks blocked forever, wake tokens
/// never consumed, work not conserved); the results say "complete": false.
/// 5: a resource budget (--max-memory) was exceeded. 6: `calibrate --check-only` found a trace
/// (or the set) calibrate would refuse; every trace's reasons are printed. 7: `compare --fail-on`:
/// a significant change crossed a threshold (a code of its own, so that a CI gate tells a
/// regression from a missing or broken results file, which is 1 as everywhere). A signal ends the process with 128 + signal
/// (130 SIGINT, 143 SIGTERM), after removing its temporaries.
enum ExitCode : int {
  kExitOk = 0, kExitInputError = 1, kExitUsage = 2, kExitInternal = 3, kExitIncomplete = 4, kExitResource = 5,
  kExitRefused = 6, kExitGateTripped = 7
};

/// The exit-code table printed by `schedsim --help` and `schedsim run --help`.
const char* exit_codes_help();
/// `schedsim --help`: the usage lines before the command list, and the global options after it.
const char* global_usage();
const char* global_options_help();

}  // namespace schedsim::driver
