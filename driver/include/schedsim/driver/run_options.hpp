#pragma once
/// The options of a run, declared once: name, type, default, help section and text, whether a
/// sweep may vary it (and why not), whether an empty value is refused, and the one function that
/// puts a value into a RunRequest. `run`'s command-line options, the trace options of `import`,
/// `trace info`, `calibrate` and `sched`, `sweep`'s parameter keys and their refusals, and the
/// empty-value refusal all expand from this table (cli/run_options_cli.hpp builds the Boost
/// options), so an option added here is in every one of them (ninja's and LLVM's option tables
/// are the model: one row per option, everything else generated).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/driver/run_request.hpp"

namespace schedsim::driver {

/// How an option's value is written and held.
enum class OptionType {
  kText,      ///< one string
  kTexts,     ///< repeatable strings (a sweep value is split like a shell line)
  kFlag,      ///< a switch (a sweep value is on/off, true/false, yes/no, 1/0)
  kCount32,   ///< a non-negative integer below 2^32
  kCount64,   ///< a non-negative integer
  kInt,       ///< a signed integer
  kInts,      ///< repeatable signed integers (a sweep value: space-separated)
};

/// The section of `run --help` an option is listed in, in this order.
enum class OptionGroup {
  kEssentials,     ///< "options (the essentials)"
  kModules,        ///< "policy modules (each defaults to --kernel's)"
  kModel,          ///< "the model"
  kOutput,         ///< "output"
  kLimits,         ///< "limits and checks"
  kTraceSelection, ///< which tasks of a trace are imported, and how (import, trace info, run, calibrate)
  kTraceReading,   ///< how a trace is read (also `sched`)
  kPositional,     ///< the WORKLOAD argument: not listed among the options
};

/// One value of an option, in the member its type uses.
struct OptionValue {
  std::string text;                   ///< kText
  std::vector<std::string> texts;     ///< kTexts
  bool flag = false;                  ///< kFlag
  uint64_t count = 0;                 ///< kCount32, kCount64
  int64_t integer = 0;                ///< kInt
  std::vector<int64_t> integers;      ///< kInts
};

/// A value an option's setter cannot take; what() says what was expected ("expected ...").
/// The caller names the option and the value (run: a usage error; sweep: the point).
class OptionValueError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct RunOption {
  const char* name;         ///< the long name, without dashes
  char short_name;          ///< 0: none
  OptionType type;
  OptionGroup group;
  const char* default_text; ///< the default when not given, as written on the command line; nullptr: none
  const char* help;
  /// nullptr: a sweep parameter. Otherwise why a sweep does not take it (its refusal).
  const char* not_swept;
  /// A given empty text is refused rather than taken as "not given" (RunRequest keeps "" for the
  /// default, and a value that expanded to nothing in a shell must not become that default).
  bool refuse_empty;
  /// What a value must be, for errors ("a machine (preset, topology file or 'host')"); nullptr:
  /// the type says it.
  const char* expects;
  /// Puts `v` into `r`. Throws OptionValueError for a value the option cannot take.
  void (*set)(RunRequest& r, const OptionValue& v);
};

/// Every option of a run, in help order within each group.
const std::vector<RunOption>& run_options();
/// The option named `name` (long name, no dashes), nullptr when there is none.
const RunOption* find_run_option(std::string_view name);
/// The caption of `g` in --help.
const char* option_group_title(OptionGroup g);

/// Reads `text` as a value of `o`, as a sweep parameter or a Python keyword writes it: lists
/// split like a shell line, flags as on/off (true/false, yes/no, 1/0), integers in full. Throws
/// OptionValueError ("expected ...") for text of the wrong form, and for an empty text where the
/// option refuses one.
OptionValue parse_option_text(const RunOption& o, const std::string& text);
/// A switch's value as a sweep writes it: on/true/yes/1 or off/false/no/0; false for anything else.
bool parse_on_off(const std::string& text, bool& out);
/// parse_option_text, then the setter.
void set_option_text(RunRequest& r, const RunOption& o, const std::string& text);

/// The error text for an empty value of `o` (refuse_empty): "expected EXPECTS, got ''", or, for
/// an option without `expects`, that the option must be left out for its default. `command`
/// names where `help` lists the values.
std::string empty_value_message(const RunOption& o, const std::string& command);

}  // namespace schedsim::driver
