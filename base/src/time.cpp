#include "schedsim/base/time.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace schedsim {

std::string format_ftrace_time(Instant t) {
  int64_t ns = t.ns();
  const char* sign = ns < 0 ? "-" : "";
  if (ns < 0) ns = -ns;
  return fmt::format("{}{}.{:06d}", sign, ns / 1000000000, (ns % 1000000000) / 1000);
}

std::string format_duration(Duration d) {
  int64_t v = d.count();
  int64_t a = v < 0 ? -v : v;
  if (a < 1000) return fmt::format("{}ns", v);
  if (a < 1000000) return fmt::format("{:.1f}us", static_cast<double>(v) / 1e3);
  if (a < 1000000000) return fmt::format("{:.2f}ms", static_cast<double>(v) / 1e6);
  return fmt::format("{:.3f}s", static_cast<double>(v) / 1e9);
}

bool parse_duration(const std::string& text, Duration& out) {
  if (text.empty()) return false;
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.'))
    ++i;
  if (i == 0) return false;
  std::string num = text.substr(0, i), unit = text.substr(i);
  char* end = nullptr;
  double v = std::strtod(num.c_str(), &end);
  if (end != num.c_str() + num.size() || !std::isfinite(v)) return false;
  double scale;
  if (unit.empty() || unit == "ns") scale = 1;
  else if (unit == "us") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else return false;
  double ns = v * scale;
  if (ns > 9.2e18) return false;
  out = Duration::ns(static_cast<int64_t>(std::llround(ns)));
  return true;
}

}  // namespace schedsim
