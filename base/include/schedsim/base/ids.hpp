#pragma once
/// Strong index types so a CPU number can never be passed where a task id is expected.
#include <compare>
#include <cstdint>
#include <functional>

#include <fmt/format.h>

namespace schedsim {

/// A dense task index inside one workload (0..nr_tasks-1); not a kernel pid.
struct TaskId {
  uint32_t v = kInvalid;
  static constexpr uint32_t kInvalid = 0xffffffffu;
  constexpr TaskId() = default;
  constexpr explicit TaskId(uint32_t x) : v(x) {}
  constexpr bool valid() const { return v != kInvalid; }
  constexpr auto operator<=>(const TaskId&) const = default;
};

/// A logical CPU number as Linux numbers it on the modeled machine.
struct CpuId {
  uint32_t v = kInvalid;
  static constexpr uint32_t kInvalid = 0xffffffffu;
  constexpr CpuId() = default;
  constexpr explicit CpuId(uint32_t x) : v(x) {}
  constexpr bool valid() const { return v != kInvalid; }
  constexpr auto operator<=>(const CpuId&) const = default;
};

}  // namespace schedsim

template <> struct std::hash<schedsim::TaskId> {
  size_t operator()(schedsim::TaskId t) const noexcept { return t.v; }
};
template <> struct std::hash<schedsim::CpuId> {
  size_t operator()(schedsim::CpuId c) const noexcept { return c.v; }
};
template <> struct fmt::formatter<schedsim::TaskId> : fmt::formatter<uint32_t> {
  auto format(schedsim::TaskId t, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "task{}", t.v);
  }
};
template <> struct fmt::formatter<schedsim::CpuId> : fmt::formatter<uint32_t> {
  auto format(schedsim::CpuId c, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "cpu{}", c.v);
  }
};
