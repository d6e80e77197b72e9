#pragma once
/// Named spdlog loggers, one per module ("cli", "engine", "topology", "traces", "policy",
/// "metrics"), all writing to stderr. stdout carries results only.
#include <memory>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

namespace schedsim::log {

/// Creates the module loggers once. verbosity: 0 = warn, 1 = info, 2+ = debug. `spec` is a
/// spdlog level spec ("engine=debug,policy=trace"); SPDLOG_LEVEL in the environment is honoured.
void init(int verbosity = 0, const std::string& spec = {});
/// The named module logger (created on first use with the default level if init was not called).
std::shared_ptr<spdlog::logger> get(const std::string& module);

// Notes and warnings: a headline, then optionally '\n' and the detail (why, what to do, where the
// docs say more). Joined with a space the two read as one sentence, which is the full text. The
// results keep the text as written; stderr shows the headline alone unless --explain is given.
/// --explain: print notes and warnings in full on stderr.
void set_explain(bool on);
bool explain();
/// The headline: the text up to its first '\n' (all of it when there is none).
std::string_view headline(std::string_view text);
/// The full text on one line: each '\n' becomes a space.
std::string flat(std::string_view text);
/// What stderr shows: flat(text) under --explain, else the headline (less a trailing ':', ';' or
/// ',') followed by " [--explain]" when a detail was left out.
std::string brief(std::string_view text);
/// `text` wrapped at spaces to lines of at most `width` columns (a longer word stays whole), each
/// line after the first indented by `indent` spaces; line breaks already in `text` are kept.
std::string wrap_words(std::string_view text, size_t width, size_t indent);

}  // namespace schedsim::log
