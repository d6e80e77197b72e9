// Task states of sched_switch's prev_state: the numeric form by kernel layout (the bit values
// changed in 2.6.3x, 3.9, 4.2, 4.8 and 4.14), the letter form ("S", "D|K", "R+") and the
// classification the extractor needs (runnable, blocked, dead).
#include "schedsim/traces/task_state.hpp"

#include <charconv>
#include <string>
#include <utility>

namespace schedsim::traces {

StateClass classify_state(uint16_t state) {
  const uint16_t s = static_cast<uint16_t>(state & ~kStatePreempted);
  if (s & (kStateDead | kStateZombie | kStateTaskDead)) return StateClass::kDead;
  // TASK_WAKING (W, < 4.14) is "being woken": runnable soon, like R.
  if (s == 0 || s == kStateWaking) return StateClass::kRunnable;
  return StateClass::kBlocked;
}

std::string state_to_string(uint16_t state) {
  static const std::pair<uint16_t, char> kLetters[] = {
      {kStateSleeping, 'S'}, {kStateDisk, 'D'},   {kStateStopped, 'T'},  {kStateTraced, 't'},
      {kStateDead, 'X'},     {kStateZombie, 'Z'}, {kStateParked, 'P'},   {kStateIdle, 'I'},
      {kStateTaskDead, 'x'}, {kStateWakekill, 'K'}, {kStateWaking, 'W'}, {kStateNoload, 'N'}};
  std::string out;
  for (auto [bit, c] : kLetters) {
    if (!(state & bit)) continue;
    if (!out.empty()) out += '|';
    out += c;
  }
  if (out.empty()) out.push_back('R');  // not `= "R"`: GCC 12 -Wrestrict false positive
  if (state & kStatePreempted) out += '+';
  return out;
}

bool state_layout_for_kernel(const std::string& version, StateLayout& out) {
  unsigned major = 0, minor = 0;
  const char* b = version.data();
  const char* e = b + version.size();
  auto r = std::from_chars(b, e, major);
  if (r.ec != std::errc() || r.ptr == e || *r.ptr != '.') return false;
  auto r2 = std::from_chars(r.ptr + 1, e, minor);
  if (r2.ec != std::errc()) return false;
  const unsigned v = major * 1000 + minor;
  if (v >= 4014) out = StateLayout::kV4_14;
  else if (v >= 4008) out = StateLayout::kV4_8;
  else if (v >= 4002) out = StateLayout::kV4_2;
  else if (v >= 3009) out = StateLayout::kV3_9;
  else out = StateLayout::kV2_6;
  return true;
}

bool decode_numeric_state(uint64_t raw, StateLayout layout, uint16_t& out) {
  // The TASK_* values of include/linux/sched.h in each era (Perfetto's task_state.cc decodes
  // them the same way per kernel version).
  uint16_t s = 0;
  auto take = [&](uint64_t bit, uint16_t ours) {
    if (raw & bit) {
      s = static_cast<uint16_t>(s | ours);
      raw &= ~bit;
    }
  };
  take(1, kStateSleeping);
  take(2, kStateDisk);
  take(4, kStateStopped);
  take(8, kStateTraced);
  if (layout == StateLayout::kV4_14) {
    take(0x10, kStateDead);
    take(0x20, kStateZombie);
    take(0x40, kStateParked);
    take(0x80, kStateIdle);
    take(0x100, kStatePreempted);
  } else {
    take(16, kStateZombie);
    take(32, kStateDead);
    take(64, kStateTaskDead);
    take(128, kStateWakekill);
    take(256, kStateWaking);
    switch (layout) {
      case StateLayout::kV2_6: take(512, kStatePreempted); break;
      case StateLayout::kV3_9: take(512, kStateParked); take(1024, kStatePreempted); break;
      case StateLayout::kV4_2:
        take(512, kStateParked); take(1024, kStateNoload); take(2048, kStatePreempted);
        break;
      case StateLayout::kV4_8:
        take(512, kStateParked); take(1024, kStateNoload);
        take(2048, 0);  // TASK_NEW: never a switch-out state, harmless
        take(4096, kStatePreempted);
        break;
      case StateLayout::kV4_14: break;
    }
  }
  out = s;
  return raw == 0;
}

bool decode_letter_state(std::string_view text, uint16_t& out) {
  uint16_t s = 0;
  if (text.empty()) return false;
  size_t n = text.size();
  if (text[n - 1] == '+') {
    s = kStatePreempted;
    --n;
  }
  bool expect_letter = true;
  for (size_t i = 0; i < n; ++i) {
    char c = text[i];
    if (!expect_letter) {
      if (c != '|') return false;
      expect_letter = true;
      continue;
    }
    uint16_t bit = 0;
    switch (c) {
      case 'R': bit = 0; break;
      case 'S': bit = kStateSleeping; break;
      case 'D': bit = kStateDisk; break;
      case 'T': bit = kStateStopped; break;
      case 't': bit = kStateTraced; break;
      case 'X': bit = kStateDead; break;
      case 'Z': bit = kStateZombie; break;
      case 'P': bit = kStateParked; break;
      case 'I': bit = kStateIdle; break;
      case 'x': bit = kStateTaskDead; break;
      case 'K': bit = kStateWakekill; break;
      case 'W': bit = kStateWaking; break;
      case 'N': bit = kStateNoload; break;
      default: return false;
    }
    s = static_cast<uint16_t>(s | bit);
    expect_letter = false;
  }
  if (expect_letter) return false;
  out = s;
  return true;
}

}  // namespace schedsim::traces
