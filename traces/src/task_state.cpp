// Task states of sched_switch's prev_state: the numeric form by kernel layout (the bit values
// changed in 2.6.3x, 3.9, 4.2, 4.8 and 4.14), the letter form ("S", "D|K", "R+") and the
// classification the extractor needs (runnable, blocked, dead).
#include "schedsim/traces/task_state.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
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

const char* state_layout_kernels(StateLayout layout) {
  switch (layout) {
    case StateLayout::kV2_6: return "2.6.32-3.8";
    case StateLayout::kV3_9: return "3.9-4.1";
    case StateLayout::kV4_2: return "4.2-4.7";
    case StateLayout::kV4_8: return "4.8-4.13";
    case StateLayout::kV4_14: break;
  }
  return "4.14+";
}

const char* state_layout_version(StateLayout layout) {
  switch (layout) {
    case StateLayout::kV2_6: return "3.0";
    case StateLayout::kV3_9: return "3.9";
    case StateLayout::kV4_2: return "4.2";
    case StateLayout::kV4_8: return "4.8";
    case StateLayout::kV4_14: break;
  }
  return "4.14";
}

bool provisional_state_layout(uint64_t raw, StateLayout& out) {
  uint16_t s = 0;
  for (StateLayout l : kStateLayouts)
    if (decode_numeric_state(raw, l, s)) {
      out = l;
      return true;
    }
  return false;
}

namespace {

// The preempted flag of the layouts before 4.14 (TASK_STATE_MAX of their era).
uint64_t old_preempt_bit(StateLayout layout) {
  switch (layout) {
    case StateLayout::kV2_6: return 512;
    case StateLayout::kV3_9: return 1024;
    case StateLayout::kV4_2: return 2048;
    case StateLayout::kV4_8: return 4096;
    case StateLayout::kV4_14: break;
  }
  return 0x100;
}

// A value the kernels of `layout` report at a switch-out (infer_state_layout's comment).
bool reported_state(uint64_t raw, StateLayout layout) {
  uint16_t s = 0;
  if (!decode_numeric_state(raw, layout, s)) return false;
  if (layout == StateLayout::kV4_14) return (raw & (raw - 1)) == 0;
  const uint64_t pre = old_preempt_bit(layout);
  if ((raw & pre) != 0) return raw == pre;
  if (raw & 256) return false;  // TASK_WAKING: set only on a task that is not running
  if ((raw & 128) && !(raw & (2 | 4 | 8))) return false;  // TASK_WAKEKILL alone
  const bool noload = layout == StateLayout::kV4_2 || layout == StateLayout::kV4_8;
  if (noload && (raw & 1024) && !(raw & 2)) return false;  // TASK_NOLOAD without D
  if (layout == StateLayout::kV4_8 && (raw & 2048)) return false;  // TASK_NEW
  return true;
}

const char* class_word(StateClass c) {
  switch (c) {
    case StateClass::kRunnable: return "runnable";
    case StateClass::kBlocked: return "blocked";
    case StateClass::kDead: break;
  }
  return "dead";
}

}  // namespace

StateLayoutInference infer_state_layout(const std::vector<uint64_t>& values) {
  StateLayoutInference r;
  auto fitting = [&](bool strict) {
    std::vector<StateLayout> c;
    for (StateLayout l : kStateLayouts) {
      bool all = true;
      uint16_t s = 0;
      for (uint64_t v : values)
        if (strict ? !reported_state(v, l) : !decode_numeric_state(v, l, s)) all = false;
      if (all) c.push_back(l);
    }
    return c;
  };
  r.candidates = fitting(true);
  if (r.candidates.empty()) r.candidates = fitting(false);
  if (r.candidates.empty()) {
    std::vector<std::string> bad;
    for (uint64_t v : values) {
      StateLayout l;
      if (!provisional_state_layout(v, l)) bad.push_back(std::to_string(v));
    }
    r.why = bad.empty() ? "no single kernel's layout decodes all of them together"
                        : fmt::format("{} {} not a state number in any kernel's layout", join(bad, ", "),
                                      bad.size() == 1 ? "is" : "are");
    return r;
  }
  // Values whose meaning differs between the fitting layouts, each meaning with the kernels
  // that read the value so (adjacent layouts merged: "2.6.32-4.13").
  auto index_of = [](StateLayout l) {
    return static_cast<size_t>(std::find(std::begin(kStateLayouts), std::end(kStateLayouts), l) - std::begin(kStateLayouts));
  };
  auto kernels_of = [&](const std::vector<StateLayout>& ls) {
    std::vector<std::string> ranges;
    for (size_t i = 0; i < ls.size();) {
      size_t j = i;
      while (j + 1 < ls.size() && index_of(ls[j + 1]) == index_of(ls[j]) + 1) ++j;
      std::string newest = state_layout_kernels(ls[i]), oldest = state_layout_kernels(ls[j]);
      std::string from = oldest.substr(0, oldest.find_first_of("-+"));
      ranges.push_back(i == j ? newest : from + (newest.back() == '+' ? "+" : newest.substr(newest.find('-'))));
      i = j + 1;
    }
    return join(ranges, ", ");
  };
  std::vector<std::string> differ;
  for (uint64_t v : values) {
    struct Meaning {
      std::string text;
      std::vector<StateLayout> layouts;
    };
    std::vector<Meaning> meanings;
    for (StateLayout l : r.candidates) {
      uint16_t s = 0;
      decode_numeric_state(v, l, s);
      std::string text = fmt::format("{} ({})", state_to_string(s), class_word(classify_state(s)));
      auto it = std::find_if(meanings.begin(), meanings.end(), [&](const Meaning& m) { return m.text == text; });
      if (it == meanings.end()) meanings.push_back({text, {l}});
      else it->layouts.push_back(l);
    }
    std::vector<StateClass> classes;
    std::vector<std::string> parts;
    for (const auto& m : meanings) {
      uint16_t s = 0;
      decode_numeric_state(v, m.layouts.front(), s);
      if (std::find(classes.begin(), classes.end(), classify_state(s)) == classes.end()) classes.push_back(classify_state(s));
      parts.push_back(fmt::format("{} on {}", m.text, kernels_of(m.layouts)));
    }
    if (classes.size() > 1) differ.push_back(fmt::format("{} is {}", v, join(parts, " but ")));
  }
  if (!differ.empty()) {
    r.outcome = StateLayoutInference::Outcome::kAmbiguous;
    r.why = join(differ, "; ");
    return r;
  }
  r.outcome = StateLayoutInference::Outcome::kDecided;
  r.layout = r.candidates.front();
  return r;
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
