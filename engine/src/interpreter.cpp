// The task-program interpreter (interpreter.hpp has its per-task state): executes the actions of
// the task running on a CPU, in program order, until one needs CPU time (a run(), or overhead
// charged on the way, whose completion event brings it back here) or takes the task off the CPU.
// What an action does to the scheduler (a wakeup, a block, a fork placement) is the core's
// (engine.cpp); the interpreter decides only which action comes next and what it asks for.
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "schedsim/base/assert.hpp"
#include "simulation_impl.hpp"

namespace schedsim {

std::string Simulation::Impl::action_label(uint32_t t, size_t pc) const {
  const auto& p = w.tasks[t].program;
  if (pc >= p.size()) return fmt::format("the end of its program (action {})", pc);
  const Action& a = p[pc];
  switch (a.kind) {
    case ActionKind::kRun: return fmt::format("action {} (run {} ns)", pc, a.arg);
    case ActionKind::kSleep: return fmt::format("action {} (sleep {} ns)", pc, a.arg);
    case ActionKind::kWake: return fmt::format("action {} (wake task {})", pc, a.arg);
    case ActionKind::kFork: return fmt::format("action {} (fork task {})", pc, a.arg);
    case ActionKind::kWrite:
    case ActionKind::kRead:
      return fmt::format("action {} ({} {} bytes, channel {})", pc, to_string(a.kind), a.body, a.arg);
    default: return fmt::format("action {} ({})", pc, to_string(a.kind));
  }
}

// Runs t's program on cpu from its pc until it needs CPU time or leaves the CPU.
void Simulation::Impl::advance(uint32_t t, uint32_t cpu) {
  Prog& pr = prog[t];
  for (uint64_t steps = 0;; ++steps) {
    if (steps > 10000000)
      throw InputError(SourceLoc{w.source}, "task " + std::to_string(t) + " ('" + w.tasks[t].name +
                                                "') executes more than 10 million actions without consuming time");
    if (pr.work.pending()) {
      if (!segment || !may_stretch(pr) || !try_stretch(t, cpu)) plan_completion(cpu);
      return;
    }
    const Action* a = pr.fetch();
    if (!a) {
      do_exit(t, cpu);
      return;
    }
    switch (a->kind) {
      case ActionKind::kRun: {
        // SimConfig::preempt: a run without kRunSyscall after one with it is the return to user
        // space (exit_to_user_mode()), where a preemption held back inside the syscall happens.
        const bool sc = (a->flags & kRunSyscall) != 0;
        if (pr.in_syscall && !sc) return_to_user(cpu);
        pr.in_syscall = sc;
        int64_t d = a->arg;
        if (cfg.jitter_permille > 0 && d > 0) {
          double f = 1.0 + (rng.uniform() * 2.0 - 1.0) * static_cast<double>(cfg.jitter_permille) / 1000.0;
          double scaled = static_cast<double>(d) * f;  // may not fit: the cast would be UB
          d = scaled >= 9.2e18 ? INT64_MAX : std::max<int64_t>(0, static_cast<int64_t>(scaled));
        }
        // replay_overheads=migration-delta: a run recorded on another CPU than the task's
        // previous recorded run holds the refill the recording paid for that migration; the
        // replay charges its own migrations (schedule()), so that recorded refill is not run
        // again. It counts as done (it is the recording's on-CPU time, replaced by the replay's
        // own refills), which keeps the work conservation check exact.
        int64_t credit = 0;
        if (a->body > 0 && cost.replay_overheads == ReplayOverheads::kMigrationDelta) {
          const auto rec = static_cast<int32_t>(a->body - 1);
          if (pr.last_recorded_cpu >= 0 && rec != pr.last_recorded_cpu &&
              static_cast<uint32_t>(rec) < topo.nr_cpus() && static_cast<uint32_t>(pr.last_recorded_cpu) < topo.nr_cpus())
            credit = std::min(d, detail::refill_cost(cost, topo.distance(static_cast<uint32_t>(pr.last_recorded_cpu),
                                                                         static_cast<uint32_t>(rec)))
                                     .count());
          pr.last_recorded_cpu = rec;
        }
        // replay_wakes=modelled: the recorded try_to_wake_up() work of the wakes this task's
        // previous actions stand for (their sched_waking precedes it: it is in this run, or in
        // the next ones when this one is shorter); the replay charges its own wakes (decide()).
        // Counted as done, like the refill above.
        if (pr.wake_credit > 0) {
          const int64_t wc = std::min(d - credit, pr.wake_credit);
          pr.wake_credit -= wc;
          credit += wc;
          sum.recorded_wake_credited += Duration::ns(wc);
        }
        pr.work.work_left = static_cast<i128>(d - credit) * detail::kScale;
        work_expected_scaled += static_cast<i128>(d) * detail::kScale;
        if (pr.background) bg_work_expected_scaled += static_cast<i128>(d) * detail::kScale;
        if (credit > 0) {
          work_done_scaled += static_cast<i128>(credit) * detail::kScale;
          if (pr.background) bg_work_done_scaled += static_cast<i128>(credit) * detail::kScale;
          sum.recorded_refill_credited += Duration::ns(credit);
        }
        ++pr.pc;
        break;
      }
      case ActionKind::kWake:
        credit_recorded_wakes(t, a->reserved);
        ++pr.pc;
        do_wake(a->task().value(), TaskId(t), cpu, (a->flags & kWakeSync) != 0, a->body);
        break;
      case ActionKind::kFork:
        ++pr.pc;
        do_fork(a->task().value(), t, cpu);
        break;
      case ActionKind::kExec:
        ++pr.pc;
        if (do_exec(t, cpu)) return;
        break;
      case ActionKind::kBlock:
        if (a->body != 0) {
          // A recorded pair (--wake-match recorded): only the wake that ended this sleep in the
          // recording releases it, whatever other wakes the task holds.
          if (pr.pair_is_done(a->body)) {
            pr.set_pair_done(a->body, false);
            --pr.pairs_held;
            ++pr.pc;
            for (auto* o : obs) o->on_token(s.now, TaskId(t), true);
            break;
          }
          pr.waiting_pair = a->body;
          leave_cpu(t, cpu, TaskState::kBlocked);
          return;
        }
        // Wakes folded into other CPUs' stretches bank late (segment.cpp): those due by now
        // count before the task may sleep.
        if (pr.tokens == 0 && segment && !bank_cpus[t].empty()) catch_up(t);
        if (pr.tokens > 0) {
          --pr.tokens;
          ++pr.pc;
          for (auto* o : obs) o->on_token(s.now, TaskId(t), true);
          break;
        }
        leave_cpu(t, cpu, TaskState::kBlocked);
        return;
      case ActionKind::kSleep: {
        Instant until = checked_after(a->arg, [&] { return fmt::format("{}: {}", task_label(t), action_label(t, pr.pc)); });
        ++pr.pc;
        leave_cpu(t, cpu, TaskState::kSleeping);
        push(until, Ev::kSleepEnd, t, 0, ++pr.sleep_gen);
        return;
      }
      case ActionKind::kExit:
        do_exit(t, cpu);
        return;
      case ActionKind::kWrite:
      case ActionKind::kRead:
        if (!channel_op(t, cpu, *a)) return;
        break;
      case ActionKind::kLoop:
        SCHEDSIM_UNREACHABLE("fetch() resolves loops");
    }
  }
}

// replay_wakes=modelled: the wakes an action of t stood for in the recording (Action::reserved:
// a wake action, or a channel operation whose recorded wakes the channel replaces) leave their
// recorded cost to be taken off t's next run() actions.
void Simulation::Impl::credit_recorded_wakes(uint32_t t, uint16_t recorded) {
  if (cost.replay_wakes != ReplayWakes::kModelled || recorded == 0) return;
  if ((recorded & kRecordedWakeLocal) != 0) prog[t].wake_credit += cost.wake_local.count();
  if ((recorded & kRecordedWakeRemote) != 0) prog[t].wake_credit += cost.wake_remote.count();
}

// A write or read action of t on cpu (channel.hpp): wakes whom the channel says (sync wakes:
// the pipe and socket wakeups are), then either goes on (true) or blocks t in the operation,
// which it re-executes when the channel wakes it (false).
bool Simulation::Impl::channel_op(uint32_t t, uint32_t cpu, const Action& a) {
  // The segment advance's folded operations on the channel before this one come first
  // (segment.cpp; at this instant too from a tick, which comes after them).
  const auto c = static_cast<size_t>(a.arg);
  if (seg_channels && !chans.folded(c).empty()) chans.apply_folded(c, s.now.ns(), ticking);
  ChannelStep st = a.kind == ActionKind::kWrite ? chans.write(t, a) : chans.read(t, a);
  if (seg_channels && !chans.folded(c).empty()) chan_check(c);
  for (uint32_t wakee : *st.wake) {
    SCHEDSIM_ASSERT(s.tasks[wakee].state == TaskState::kBlocked && !prog[wakee].in_flight,
                    "channel wakes task{} that is not asleep in it", wakee);
    activate(wakee, TaskId(t), cpu, true);
  }
  if (st.done) {
    credit_recorded_wakes(t, a.reserved);
    ++prog[t].pc;
    return true;
  }
  leave_cpu(t, cpu, TaskState::kBlocked);
  return false;
}

}  // namespace schedsim
