#pragma once
/// Tier-2 errors: bad input from the user (flags, traces, topology files, JSON). Printed once, in
/// cli/main.cpp, GCC-style as "path:line:col: error: message" plus the offending line and a caret.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace schedsim {

/// Where in the user's input a problem sits. line/col are 1-based; 0 means unknown.
struct SourceLoc {
  std::string path;
  long line = 0;
  long col = 0;
};

/// A recoverable input error. `context` is the offending line's text when known.
class InputError : public std::runtime_error {
 public:
  InputError(SourceLoc loc, std::string message, std::string context = {});
  explicit InputError(std::string message);
  const SourceLoc& loc() const { return loc_; }
  const std::string& message() const { return message_; }
  const std::string& context() const { return context_; }
  /// The full rendering: "path:line:col: error: message\n<line>\n<caret>".
  std::string render() const;

 private:
  SourceLoc loc_;
  std::string message_;
  std::string context_;
};

/// `s` made safe for a terminal: control bytes (but tab) and bytes that are not valid UTF-8
/// become "\xNN", so a binary file named as a trace never dumps raw bytes into an error.
std::string printable(std::string_view s);

/// Levenshtein distance, used for "did you mean" suggestions.
size_t edit_distance(const std::string& a, const std::string& b);
/// The closest candidate within a small distance of `name`, or "" if none is close.
std::string closest_match(const std::string& name, const std::vector<std::string>& candidates);
/// "unknown KIND 'x'; did you mean 'y'? valid: a, b, c" (the suggestion only when one is close).
std::string unknown_choice_message(const std::string& kind, const std::string& name,
                                   const std::vector<std::string>& valid);
/// Joins strings with a separator.
std::string join(const std::vector<std::string>& parts, const std::string& sep);

}  // namespace schedsim
