#pragma once
/// Small inputs read whole (topology JSON and lscpu files, cost files): bounded in size, and JSON
/// bounded in nesting before a DOM is built (dumping or destroying a deep DOM recurses).
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace schedsim {

inline constexpr size_t kMaxInputFileBytes = size_t{64} << 20;  ///< 64 MiB
inline constexpr int kMaxJsonDepth = 64;

/// The whole file `path` (`what` names it in errors: "topology file", "cost file"). InputError
/// for a directory, an unreadable file, an empty one, or one larger than kMaxInputFileBytes.
std::string read_input_file(const std::string& path, const std::string& what);

/// Parses JSON text (the JSON_DIAGNOSTICS=1 json type: define it in every target that calls
/// this); nesting deeper than kMaxJsonDepth and syntax errors are InputErrors with
/// source:line:col and the offending line.
nlohmann::json parse_json_input(const std::string& text, const std::string& source);

/// `v` rendered for a message, elided past 40 characters.
std::string describe_json_value(const nlohmann::json& v);

}  // namespace schedsim
