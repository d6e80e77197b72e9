#pragma once
/// Simulated time: Duration and Instant, both int64 nanoseconds (ns-3's int64 core without a
/// global resolution). Only meaningful arithmetic exists: Instant + Instant does not compile.
#include <chrono>
#include <compare>
#include <cstdint>
#include <limits>
#include <string>

#include <fmt/format.h>

namespace schedsim {

/// A signed span of simulated time in nanoseconds.
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration ns(int64_t v) { return Duration(v); }
  static constexpr Duration us(int64_t v) { return Duration(v * 1000); }
  static constexpr Duration ms(int64_t v) { return Duration(v * 1000000); }
  static constexpr Duration s(int64_t v) { return Duration(v * 1000000000); }
  static constexpr Duration zero() { return Duration(0); }
  static constexpr Duration max() { return Duration(std::numeric_limits<int64_t>::max()); }
  constexpr Duration(std::chrono::nanoseconds d) : ns_(d.count()) {}  // NOLINT: implicit at edges

  constexpr int64_t count() const { return ns_; }
  constexpr double to_us() const { return static_cast<double>(ns_) / 1e3; }
  constexpr double to_ms() const { return static_cast<double>(ns_) / 1e6; }
  constexpr double to_s() const { return static_cast<double>(ns_) / 1e9; }

  constexpr Duration operator+(Duration o) const { return Duration(ns_ + o.ns_); }
  constexpr Duration operator-(Duration o) const { return Duration(ns_ - o.ns_); }
  constexpr Duration operator-() const { return Duration(-ns_); }
  constexpr Duration operator*(int64_t k) const { return Duration(ns_ * k); }
  constexpr Duration operator/(int64_t k) const { return Duration(ns_ / k); }
  constexpr int64_t operator/(Duration o) const { return ns_ / o.ns_; }
  constexpr Duration& operator+=(Duration o) { ns_ += o.ns_; return *this; }
  constexpr Duration& operator-=(Duration o) { ns_ -= o.ns_; return *this; }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

/// A point on the simulated clock, nanoseconds since the simulation's (or trace's) origin.
class Instant {
 public:
  constexpr Instant() = default;
  static constexpr Instant from_ns(int64_t v) { return Instant(v); }
  static constexpr Instant zero() { return Instant(0); }
  static constexpr Instant max() { return Instant(std::numeric_limits<int64_t>::max()); }
  constexpr int64_t ns() const { return ns_; }

  constexpr Instant operator+(Duration d) const { return Instant(ns_ + d.count()); }
  constexpr Instant operator-(Duration d) const { return Instant(ns_ - d.count()); }
  constexpr Duration operator-(Instant o) const { return Duration::ns(ns_ - o.ns_); }
  constexpr Instant& operator+=(Duration d) { ns_ += d.count(); return *this; }
  constexpr auto operator<=>(const Instant&) const = default;

 private:
  constexpr explicit Instant(int64_t v) : ns_(v) {}
  int64_t ns_ = 0;
};

/// ftrace-style "sec.usec" rendering (6 decimals), as used in human output.
std::string format_ftrace_time(Instant t);
/// Human rendering of a duration with a unit chosen for readability: "850ns", "12.3us", "4.56ms".
std::string format_duration(Duration d);
/// Parses "10ms", "2.5us", "300ns", "1s" or a bare integer (ns). Returns false on bad text.
bool parse_duration(const std::string& text, Duration& out);

}  // namespace schedsim

template <>
struct fmt::formatter<schedsim::Duration> : fmt::formatter<std::string> {
  auto format(schedsim::Duration d, format_context& ctx) const {
    return fmt::formatter<std::string>::format(schedsim::format_duration(d), ctx);
  }
};
template <>
struct fmt::formatter<schedsim::Instant> : fmt::formatter<std::string> {
  auto format(schedsim::Instant t, format_context& ctx) const {
    return fmt::formatter<std::string>::format(schedsim::format_ftrace_time(t), ctx);
  }
};
