#pragma once
// The task-program interpreter's per-task state (private to engine/src). A task's program is a
// list of actions (workload.hpp) with compact loops; the interpreter walks it from the task's pc
// while the task runs on a CPU (interpreter.cpp, Simulation::Impl::advance) and stops at the
// first action that needs CPU time (run, or overhead charged on the way) or takes the task off
// the CPU (block without a token, sleep, a channel operation that must wait, exit).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "schedsim/engine/policy.hpp"
#include "schedsim/workload/loop_walk.hpp"
#include "schedsim/workload/workload.hpp"
#include "work.hpp"

namespace schedsim::detail {

// State of one task (the engine's, not the scheduler's: that is TaskSched in SchedState).
struct Prog {
  // The task's program, cached here: the hot path reads it on every step and TaskSpec is
  // hundreds of bytes wide (one cache miss per step when reached through w.tasks[t]).
  const Action* code = nullptr;
  size_t code_size = 0;
  size_t pc = 0;
  std::vector<LoopFrame> loops;
  TaskWork work;           // what it still owes of its run() action and charged overheads
  int64_t tokens = 0;      // wakes posted while not blocked
  // Recorded wake pairs (a trace extracted with --wake-match recorded, Action::body of a wake
  // and of the block it ended): the pair numbers whose wake came before the task reached their
  // block (bit n of pair_done), how many of those are still held, and the pair of the block the
  // task is asleep in (0: none, or a token block).
  std::vector<uint64_t> pair_done;
  int64_t pairs_held = 0;
  uint32_t waiting_pair = 0;
  uint64_t sleep_gen = 0;
  bool in_flight = false;  // woken, waiting for its kEnqueue
  uint32_t woken_from = 0;  // while in_flight: the CPU whose wakeup check is remote (the waker's; the target for a wake-list wake)
  WakeFlags wake_flags;    // while in_flight: what its enqueue's wakeup check is told
  bool is_new = false;     // placed by the fork path, not yet enqueued anywhere
  // StartState::kBlocked and not yet woken: it waits for a token *before* its first action
  // (not in a block() action of its program), so the wake that releases it consumes no action.
  bool waits_before_start = false;
  int32_t last_cpu_ran = -1;
  // The CPU of the task that woke it, until its next switch-in (-1: not woken by a task since):
  // xfer_* charges the transfer of what the waker wrote by that distance (cost_model.hpp).
  int32_t woken_by_cpu = -1;
  // SimConfig::preempt: its current run() is inside a syscall (kRunSyscall); the program has
  // such runs at all (a task without any: nothing is known about its kernel/user mode).
  bool in_syscall = false;
  bool knows_syscalls = false;
  // The recorded CPU of the last run() action that carried one (replay_overheads=migration-delta).
  int32_t last_recorded_cpu = -1;
  // replay_wakes=modelled: recorded wake time (ns) still to take off its next run() actions.
  int64_t wake_credit = 0;
  // TaskSpec::background: load only; its work is kept apart (bg_work_*_scaled) and its end does
  // not count towards the run's end (Impl::fg_live).
  bool background = false;

  // Wakes it holds that no block consumed yet (tokens and early recorded pairs).
  int64_t held() const { return tokens + pairs_held; }
  bool pair_is_done(uint32_t n) const { return n / 64 < pair_done.size() && ((pair_done[n / 64] >> (n % 64)) & 1U) != 0; }
  void set_pair_done(uint32_t n, bool on) {
    if (n / 64 >= pair_done.size()) pair_done.resize(n / 64 + 1, 0);
    if (on)
      pair_done[n / 64] |= uint64_t{1} << (n % 64);
    else
      pair_done[n / 64] &= ~(uint64_t{1} << (n % 64));
  }

  // Fetches the next non-loop action, resolving loop-backs; nullptr at the end of the program.
  const Action* fetch() { return next_action(*this); }
};

}  // namespace schedsim::detail
