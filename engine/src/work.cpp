// The exact work/rate accountant applied to the CPUs (work.hpp has the arithmetic and the model):
// what rate a CPU runs at, the progress of its running task up to now, and the completion event
// that advances the task's program when its owed work is done.
#include <fmt/format.h>

#include "simulation_impl.hpp"

namespace schedsim {

using detail::kScale;

// capacity x the SMT co-run factor while any sibling thread runs a task.
int64_t Simulation::Impl::rate_of(uint32_t cpu) const {
  int64_t corun = 1000;
  if (topo.has_smt()) {
    for (uint32_t sib : topo.smt_mask(cpu))
      if (sib != cpu && s.cpus[sib].curr.valid()) {
        corun = cost.smt_corun_permille;
        break;
      }
  }
  return detail::work_rate(s.cpus[cpu].capacity, corun);
}

// Accounts curr's progress up to now at the current rate (update_curr's job, for the engine).
void Simulation::Impl::account(uint32_t cpu, bool quiet) {
  CpuRun& r = run[cpu];
  TaskId t = s.cpus[cpu].curr;
  Duration elapsed = s.now - r.acct.seg_start;
  r.acct.seg_start = s.now;
  if (!t.valid()) return;
  // The scheduler's view (sum_exec, the queue's update_curr()) gets the time held back by quiet
  // calls too: the kernel charges it at its next scheduler event.
  if (!quiet && r.unreported.count() > 0) {
    const Duration held = r.unreported;
    r.unreported = Duration::zero();
    s.tasks[t.value()].sum_exec += held;
    pol.queue->update_curr(s, CpuId(cpu), held);
  }
  if (elapsed.count() <= 0) return;
  Prog& pr = prog[t.value()];
  i128 from_work = detail::consume(pr.work, static_cast<i128>(elapsed.count()) * r.acct.rate);
  work_done_scaled += from_work;
  if (pr.background) bg_work_done_scaled += from_work;
  if (quiet) {
    r.unreported += elapsed;
  } else {
    s.tasks[t.value()].sum_exec += elapsed;
    pol.queue->update_curr(s, CpuId(cpu), elapsed);
  }
  if (!obs.empty()) {
    Duration work = detail::scaled_to_ns(from_work);
    for (auto* o : obs) o->on_run(s.now, t, CpuId(cpu), elapsed, work);
  }
}

// (Re-)plans the completion event of cpu's running task at the current rate; any earlier one is
// cancelled (done_gen).
void Simulation::Impl::plan_completion(uint32_t cpu) {
  CpuRun& r = run[cpu];
  ++r.done_gen;
  TaskId t = s.cpus[cpu].curr;
  if (!t.valid()) return;
  const Prog& pr = prog[t.value()];
  // Even with nothing left (a re-plan at the very instant the work ran out) an event is needed:
  // it is what advances the program.
  i128 wall = detail::wall_to_done(pr.work.left(), r.acct.rate);
  Instant at = checked_after(wall, [&] {
    size_t pc = pr.pc;
    const auto& p = w.tasks[t.value()].program;
    bool is_run = pc > 0 && pc - 1 < p.size() && p[pc - 1].kind == ActionKind::kRun && pr.work.work_left > 0;
    return fmt::format("{}: {} on cpu{}", task_label(t.value()), is_run ? action_label(t.value(), pc - 1) : "its pending work", cpu);
  });
  push(at, Ev::kRunDone, cpu, 0, r.done_gen);
}

}  // namespace schedsim
