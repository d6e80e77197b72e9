#pragma once
/// Decoding sched_switch's prev_state (task_state.cpp): the numeric form by kernel layout and the
/// letter form, into TaskStateBits (trace_event.hpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

/// The layouts, newest first, and the kernels each covers ("4.8-4.13") and a version that
/// selects it ("4.8").
inline constexpr StateLayout kStateLayouts[] = {StateLayout::kV4_14, StateLayout::kV4_8, StateLayout::kV4_2,
                                                StateLayout::kV3_9, StateLayout::kV2_6};
const char* state_layout_kernels(StateLayout layout);
const char* state_layout_version(StateLayout layout);
/// The first layout, newest first, that decodes `raw` (the reading a first pass uses before the
/// layout is inferred); false if none does.
bool provisional_state_layout(uint64_t raw, StateLayout& out);

/// What the numeric prev_state values a trace holds say about its kernel's layout.
struct StateLayoutInference {
  enum class Outcome : uint8_t {
    kDecided,    ///< one layout fits, or every fitting layout gives each value the same meaning
    kAmbiguous,  ///< several fit and give some value different meanings: `why` says which
    kNone,       ///< no layout decodes every value
  };
  Outcome outcome = Outcome::kNone;
  StateLayout layout = StateLayout::kV4_14;  ///< with kDecided
  std::vector<StateLayout> candidates;       ///< the layouts that fit, newest first
  std::string why;                           ///< kAmbiguous / kNone: in words
};
/// Infers the layout from the distinct values seen. A layout fits a value when the value decodes
/// in it and is one its kernels report at a switch-out: on 4.14+ zero or a single bit (the
/// tracepoint reports one state index, commit efb40f588b43 "sched/tracing: Fix
/// trace_sched_switch task-state printing"); before 4.14 the preempted flag alone (TASK_STATE_MAX,
/// set as "TASK_RUNNING | TASK_STATE_MAX"), TASK_WAKEKILL only with D, T or t, TASK_NOLOAD only
/// with D (TASK_IDLE), never TASK_WAKING or TASK_NEW. When no layout fits that way, decoding
/// alone decides. Meanings are compared as runnable / blocked / dead (what extraction uses).
StateLayoutInference infer_state_layout(const std::vector<uint64_t>& values);
/// Decodes "R", "R+", "S", "D|K", ...; false on an unknown letter.
bool decode_letter_state(std::string_view text, uint16_t& out);

}  // namespace schedsim::traces
