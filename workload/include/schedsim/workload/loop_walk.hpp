#pragma once
/// The one walk of a program's loops (workload.hpp: a kLoop action with arg = k jumps back
/// `body` actions k more times; nested loops keep a stack of remaining counts). The engine's
/// interpreter (engine/src/interpreter.hpp, Prog::fetch, on every step of the hot path) and the
/// tests' token replay resume it from a saved pc and stack; inline, so it costs what a copy in
/// place would.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedsim/workload/workload.hpp"

namespace schedsim {

/// One open loop: the pc of its kLoop action and the iterations still to run after the current one.
struct LoopFrame {
  size_t at;
  int64_t left;
};

/// From `w.pc`, resolves loop actions (jumping back, or leaving a finished loop) until `w.pc`
/// is at a non-loop action, and returns it; nullptr when the program ends. The caller steps
/// `w.pc` past the returned action itself (after executing it). `w` holds the walk's state as
/// members: `const Action* code`, `size_t code_size`, `size_t pc`, `std::vector<LoopFrame> loops`.
/// (Members of one object, not separate references: through a `size_t&` the compiler must assume
/// every push to the loop stack may change pc, which cost the interpreter 13% of its instructions.)
template <class Walk>
inline const Action* next_action(Walk& w) {
  while (w.pc < w.code_size) {
    const Action& a = w.code[w.pc];
    if (a.kind != ActionKind::kLoop) return &a;
    if (!w.loops.empty() && w.loops.back().at == w.pc) {
      if (--w.loops.back().left < 0) {
        w.loops.pop_back();
        ++w.pc;
        continue;
      }
    } else {
      if (a.arg <= 0) {
        ++w.pc;
        continue;
      }
      w.loops.push_back({w.pc, a.arg - 1});
    }
    w.pc -= a.body;
  }
  return nullptr;
}

}  // namespace schedsim
