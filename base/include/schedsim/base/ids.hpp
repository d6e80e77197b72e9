#pragma once
/// Strong index types so a CPU number can never be passed where a task id is expected.
#include <compare>
#include <cstdint>
#include <functional>
#include <type_traits>

#include <fmt/format.h>

namespace schedsim {

/// A dense task index inside one workload (0..nr_tasks-1); not a kernel pid. A strong type as
/// CpuId is: made only explicitly, read only through value(), so a CPU number, a pid or a count
/// cannot be passed where a task is expected.
class TaskId {
 public:
  static constexpr uint32_t kInvalid = 0xffffffffu;
  constexpr TaskId() = default;
  constexpr explicit TaskId(uint32_t x) : v_(x) {}
  constexpr uint32_t value() const { return v_; }
  constexpr bool valid() const { return v_ != kInvalid; }
  constexpr auto operator<=>(const TaskId&) const = default;

 private:
  uint32_t v_ = kInvalid;
};

/// A logical CPU number as Linux numbers it on the modeled machine. A strong type: it is made
/// from a number only explicitly and gives it back only through value(), so a CPU cannot be
/// passed where a task id, an LLC or core index or a count is expected, nor the reverse. It is
/// a plain uint32_t in a register: no runtime cost.
class CpuId {
 public:
  static constexpr uint32_t kInvalid = 0xffffffffu;
  constexpr CpuId() = default;
  constexpr explicit CpuId(uint32_t x) : v_(x) {}
  constexpr uint32_t value() const { return v_; }
  constexpr bool valid() const { return v_ != kInvalid; }
  constexpr auto operator<=>(const CpuId&) const = default;

 private:
  uint32_t v_ = kInvalid;
};
static_assert(sizeof(CpuId) == sizeof(uint32_t) && std::is_trivially_copyable_v<CpuId>);

}  // namespace schedsim

template <> struct std::hash<schedsim::TaskId> {
  size_t operator()(schedsim::TaskId t) const noexcept { return t.value(); }
};
template <> struct std::hash<schedsim::CpuId> {
  size_t operator()(schedsim::CpuId c) const noexcept { return c.value(); }
};
template <> struct fmt::formatter<schedsim::TaskId> : fmt::formatter<uint32_t> {
  auto format(schedsim::TaskId t, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "task{}", t.value());
  }
};
template <> struct fmt::formatter<schedsim::CpuId> : fmt::formatter<uint32_t> {
  auto format(schedsim::CpuId c, format_context& ctx) const {
    return fmt::format_to(ctx.out(), "cpu{}", c.value());
  }
};
