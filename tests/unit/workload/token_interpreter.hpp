#pragma once
// A minimal replay of a workload's token semantics with infinitely many CPUs and zero-time
// actions: every runnable task runs until it blocks without a token or exits. It checks the
// structural promises a generator makes: no deadlock, every task exits, no token left over.
#include <deque>
#include <vector>

#include "schedsim/workload/loop_walk.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::testing {

struct TokenReplay {
  bool all_exited = false;
  uint64_t leftover_tokens = 0;
  uint64_t sleeping_blocks = 0;  // block() calls that found no token
  std::vector<uint64_t> wakes_received;
};

inline TokenReplay replay_tokens(const Workload& w) {
  struct State {
    const Action* code = nullptr;  // the task's program, for the loop walk
    size_t code_size = 0;
    size_t pc = 0;
    std::vector<LoopFrame> loops;
    int64_t tokens = 0;
    bool started = false, blocked = false, exited = false;
    bool before_start = false;  // StartState::kBlocked: waiting before its first action
  };
  const size_t n = w.tasks.size();
  std::vector<State> st(n);
  for (size_t i = 0; i < n; ++i) {
    st[i].code = w.tasks[i].program.data();
    st[i].code_size = w.tasks[i].program.size();
  }
  TokenReplay out;
  out.wakes_received.assign(n, 0);
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (w.tasks[i].start != StartState::kForked) {
      st[i].started = true;
      if (w.tasks[i].start == StartState::kBlocked) st[i].blocked = st[i].before_start = true;
      else ready.push_back(i);
    }
  while (!ready.empty()) {
    size_t ti = ready.front();
    ready.pop_front();
    State& s = st[ti];
    while (true) {
      // The engine's loop walk (loop_walk.hpp), resumed from this task's pc and stack.
      const Action* next = next_action(s);
      if (!next) {
        s.exited = true;
        break;
      }
      const Action& a = *next;
      if (a.kind == ActionKind::kExit) {
        s.exited = true;
        break;
      }
      if (a.kind == ActionKind::kBlock) {
        if (s.tokens > 0) {
          --s.tokens;
          ++s.pc;
          continue;
        }
        ++out.sleeping_blocks;
        s.blocked = true;
        break;
      }
      ++s.pc;
      if (a.kind == ActionKind::kWake) {
        size_t t = static_cast<size_t>(a.arg);
        ++out.wakes_received[t];
        if (st[t].blocked) {
          st[t].blocked = false;
          if (st[t].before_start) st[t].before_start = false;  // released before its first action
          else ++st[t].pc;  // the block it waited in completes
          ready.push_back(t);
        } else {
          ++st[t].tokens;
        }
      } else if (a.kind == ActionKind::kFork) {
        size_t t = static_cast<size_t>(a.arg);
        st[t].started = true;
        ready.push_back(t);
      }
    }
  }
  out.all_exited = true;
  for (const auto& s : st) {
    if (!s.exited) out.all_exited = false;
    out.leftover_tokens += static_cast<uint64_t>(s.tokens);
  }
  return out;
}

}  // namespace schedsim::testing
