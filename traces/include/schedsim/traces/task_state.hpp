#pragma once
/// Decoding sched_switch's prev_state (task_state.cpp): the numeric form by kernel layout and the
/// letter form, into TaskStateBits (trace_event.hpp).
#include <cstdint>
#include <string>
#include <string_view>

#include "schedsim/traces/trace_event.hpp"

namespace schedsim::traces {

/// Which table decodes a numeric prev_state (the TASK_* bits of include/linux/sched.h changed in
/// 3.9, 4.2, 4.8 and 4.14).
enum class StateLayout : uint8_t {
  kV2_6,   ///< 2.6.3x - 3.8: preempt bit 512
  kV3_9,   ///< 3.9 - 4.1: P = 512, preempt bit 1024
  kV4_2,   ///< 4.2 - 4.7: N = 1024, preempt bit 2048
  kV4_8,   ///< 4.8 - 4.13: preempt bit 4096
  kV4_14,  ///< 4.14+: X = 0x10, Z = 0x20, P = 0x40, I = 0x80, preempt = 0x100 (default)
};
/// Layout for a "MAJOR.MINOR[...]" kernel version; false if the text is not a version.
bool state_layout_for_kernel(const std::string& version, StateLayout& out);

/// Decodes a numeric prev_state into TaskStateBits; false if bits outside the layout are set.
bool decode_numeric_state(uint64_t raw, StateLayout layout, uint16_t& out);
/// Decodes "R", "R+", "S", "D|K", ...; false on an unknown letter.
bool decode_letter_state(std::string_view text, uint16_t& out);

}  // namespace schedsim::traces
