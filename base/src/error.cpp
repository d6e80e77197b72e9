#include "schedsim/base/error.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "schedsim/base/assert.hpp"

namespace schedsim {

InputError::InputError(SourceLoc loc, std::string message, std::string context)
    : std::runtime_error(message), loc_(std::move(loc)), message_(std::move(message)),
      context_(std::move(context)) {
  static_cast<std::runtime_error&>(*this) = std::runtime_error(render());
}

InputError::InputError(std::string message) : InputError(SourceLoc{}, std::move(message)) {}

namespace {
// Length of the valid UTF-8 sequence starting at s[i] (0 if invalid).
size_t utf8_len(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
  if (c >= 0xf5 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}
}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      if (size_t n = utf8_len(s, i)) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    } else if ((c >= 0x20 && c != 0x7f) || c == '\t') {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    out += fmt::format("\\x{:02x}", c);
    ++i;
  }
  return out;
}

std::string InputError::render() const {
  std::string out;
  if (!loc_.path.empty()) {
    out += loc_.path;
    if (loc_.line > 0) out += fmt::format(":{}", loc_.line);
    if (loc_.line > 0 && loc_.col > 0) out += fmt::format(":{}", loc_.col);
    out += ": ";
  }
  out += "error: " + printable(message_);
  if (!context_.empty()) {
    std::string_view raw = context_;
    if (raw.size() > 200) raw = raw.substr(0, 200);
    std::string line = printable(raw) + (context_.size() > 200 ? "..." : "");
    if (loc_.col > 0 && static_cast<size_t>(loc_.col) <= raw.size() + 1) {
      // The caret column counts the escapes before it.
      const size_t at = printable(raw.substr(0, static_cast<size_t>(loc_.col - 1))).size();
      out += "\n" + line + "\n" + std::string(at, ' ') + "^";
    } else {
      out += "\n" + line;
    }
  }
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(const std::string& name, const std::vector<std::string>& candidates) {
  // A case or separator variant (SIS_UTIL, sis_util for sis-util) is the answer whatever its
  // edit distance.
  auto folded = [](const std::string& s) {
    std::string f;
    for (char c : s) f += c == '_' || c == '-' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return f;
  };
  for (const auto& c : candidates)
    if (folded(c) == folded(name)) return c;
  std::string best;
  size_t best_d = std::max<size_t>(2, name.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

std::string unknown_choice_message(const std::string& kind, const std::string& name,
                                   const std::vector<std::string>& valid) {
  std::string msg = fmt::format("unknown {} '{}'", kind, name);
  std::string near = closest_match(name, valid);
  msg += near.empty() ? ";" : fmt::format("; did you mean '{}'?", near);
  msg += " valid: " + join(valid, ", ");
  return msg;
}

namespace detail {
[[noreturn]] void assert_fail(const char* file, int line, const char* expr, const std::string& msg) {
  fmt::print(stderr, "{}:{}: internal error: assertion '{}' failed: {}\n", file, line, expr, msg);
  std::fflush(stderr);
  std::abort();
}
}  // namespace detail

}  // namespace schedsim
