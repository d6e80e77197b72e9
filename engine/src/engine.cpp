// The discrete-event core: the event loop and the core.c model.
//
// Time advances from event to event; an event is keyed by (time, tick-last, insertion sequence)
// so the order is total and the run deterministic. Cancellation is lazy: events carry a generation number and
// are dropped when it no longer matches the target's.
//
// What happens where (kernel function each step stands for):
//   wake action / sleep timer  -> try_to_wake_up(): select_task_rq() via the placement slot, the
//                                 search cost charged to the waker's CPU, then after scan + IPI +
//                                 idle-exit delay an kEnqueue event (ttwu_queue + the IPI)
//   kEnqueue                   -> ttwu_do_activate(): enqueue_task, avg_idle update (§7.2),
//                                 check_preempt_wakeup
//   schedule(cpu)              -> __schedule(): put_prev / pick_next, newidle balance when empty
//   kReschedIpi                -> scheduler_ipi(): a remote wakeup's preemption lands
//                                 (CostModel::resched_ipi after the decision)
//   kTick                      -> scheduler_tick(): update_curr, PELT, tick preemption, and
//                                 trigger_load_balance() when next_balance is due
//   kRunDone                   -> the running task's owed work is done: the interpreter
//                                 (interpreter.cpp) executes its next actions
//
// The other two parts of Simulation::Impl (simulation_impl.hpp): the task-program interpreter
// (interpreter.cpp) and the exact work/rate accountant (work.hpp, work.cpp).
#include "schedsim/engine/engine.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "simulation_impl.hpp"

namespace schedsim {

using detail::kScale;

namespace {

// Nice-to-weight table (docs/sources.md, Units and constants, sched_prio_to_weight), nice -20..19.
constexpr uint32_t kNiceWeight[40] = {
    88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
    9548,  7620,  6100,  4904,  3906,  3121,  2501,  1991,  1586,  1277,
    1024,  820,   655,   526,   423,   335,   272,   215,   172,   137,
    110,   87,    70,    56,    45,    36,    29,    23,    18,    15};

}  // namespace

Simulation::Impl::Impl(const Workload& wl, const Topology& t, PolicyStack p, CostModel c, SimConfig cf)
    : w(wl), topo(t), pol(std::move(p)), cost(std::move(c)), cfg(cf), rng{cf.seed * 0x2545f4914f6cdd1dull + 1} {
  SCHEDSIM_ASSERT(pol.placement && pol.idle_cores && pol.util && pol.queue && pol.balance,
                  "every policy slot needs a module");
  s.init(topo, cost, w.tasks.size());
  s.seed = cf.seed;
  s.queue = pol.queue.get();
  s.util = pol.util.get();
  s.idle_cores = pol.idle_cores.get();
  prog.assign(w.tasks.size(), Prog{});
  for (size_t i = 0; i < w.tasks.size(); ++i) {
    for (const Action& a : w.tasks[i].program)
      if (a.kind == ActionKind::kRun && (a.flags & kRunSyscall) != 0) {
        prog[i].knows_syscalls = true;
        break;
      }
    prog[i].code = w.tasks[i].program.data();
    prog[i].code_size = w.tasks[i].program.size();
    prog[i].background = w.tasks[i].background;
    if (prog[i].background)
      ++nr_background;
    else
      ++fg_live;
  }
  chans.init(w);
  run.assign(topo.nr_cpus(), CpuRun{});
  for (size_t i = 0; i < w.tasks.size(); ++i) {
    const TaskSpec& spec = w.tasks[i];
    TaskSched& ts = s.tasks[i];
    ts.weight = kNiceWeight[std::clamp(spec.nice, -20, 19) + 20];
    ts.kthread = spec.kthread;
    ts.custom_slice = spec.slice;
    ts.affinity = spec.affinity.empty() ? &topo.all_cpus() : &spec.affinity;
    ts.cpu = CpuId(spec.initial_cpu >= 0 ? static_cast<uint32_t>(spec.initial_cpu) : ts.affinity->first());
  }
  pol.queue->attach(s);
  pol.util->attach(s);
  PlacementWrites writes = placement_writes();
  pol.placement->attach(s, writes);
  pol.balance->attach(s);
  // Ticks in a FIFO beside the heap (event_queue.hpp) unless SCHEDSIM_ENGINE_TICK_FIFO=0: the
  // same pops either way; the switch exists to prove that (tests/engine_ab.cmake) and to
  // measure it (bench/README.md, "Engine optimizations").
  const char* fifo = std::getenv("SCHEDSIM_ENGINE_TICK_FIFO");
  q.set_tick_fifo(fifo == nullptr || std::string_view(fifo) != "0");
  // Each CPU's first periodic balance is due one tick in.
  for (uint32_t cpu = 0; cpu < topo.nr_cpus(); ++cpu) s.cpus[cpu].next_balance = Instant::zero() + cost.tick;
  init_segment();
}

std::string Simulation::Impl::format_sim_time(i128 t) {
  if (t > INT64_MAX) return fmt::format("{:.3g} s (past the 64-bit clock)", static_cast<double>(t) / 1e9);
  return fmt::format("{} s", Instant::from_ns(static_cast<int64_t>(t)));
}

std::string Simulation::Impl::format_limit(Instant limit) {
  if (limit.ns() % 1000000000 == 0) return fmt::format("{} s", limit.ns() / 1000000000);
  return format_sim_time(limit.ns());
}

std::string Simulation::Impl::task_label(uint32_t t) const {
  const TaskSpec& spec = w.tasks[t];
  std::string out = fmt::format("task {} ('{}'", t, spec.name);
  if (spec.pid >= 0) out += fmt::format(", pid {}", spec.pid);
  return out + ")";
}

// Called after anything that can change curr / nr_running / ttwu_pending of cpu. Two notions:
// "busy" (running a task) drives SMT rates, ticks and idle enter/exit; idle() (nothing running,
// queued or in flight, what a search probe sees) drives the exact idle-core count.
void Simulation::Impl::refresh_cpu(uint32_t cpu) {
  CpuRun& r = run[cpu];
  CpuSched& c = s.cpus[cpu];
  bool busy = c.curr.valid();
  bool went_idle = false;
  if (busy != r.busy) {
    r.busy = busy;
    // Siblings' work rate changes with this thread's busy state (SMT co-run factor). It is no
    // scheduler event on the sibling: under UpdateCurr::kEvents its time stays held back.
    if (topo.has_smt())
      for (uint32_t sib : topo.smt_mask(cpu))
        if (sib != cpu && s.cpus[sib].curr.valid()) {
          update_progress(sib, cfg.update_curr == UpdateCurr::kEvents);
          run[sib].acct.rate = rate_of(sib);
          plan_completion(sib);
        }
    if (busy) {
      for (auto* o : obs) o->on_idle_exit(s.now, CpuId(cpu));
      pol.idle_cores->on_idle_exit(s, CpuId(cpu));
      arm_tick(cpu);
    } else {
      for (auto* o : obs) o->on_idle_enter(s.now, CpuId(cpu));
      went_idle = true;
    }
  }
  bool idle = c.idle();
  if (idle != r.was_idle) {
    r.was_idle = idle;
    uint32_t core = topo.core_index(cpu);
    LlcShared& llc = s.llc_of(CpuId(cpu));
    if (idle) {
      if (--s.core_busy_threads[core] == 0) ++llc.nr_idle_cores_exact;
    } else {
      if (s.core_busy_threads[core]++ == 0) --llc.nr_idle_cores_exact;
    }
  }
  // __update_idle_core() runs when the CPU switches to its idle task, after the exact count
  // is current so the hint module sees this CPU as idle.
  if (went_idle && idle) pol.idle_cores->on_idle_enter(s, CpuId(cpu));
}

void Simulation::Impl::arm_tick(uint32_t cpu) {
  CpuRun& r = run[cpu];
  if (r.tick_armed) return;
  r.tick_armed = true;
  ++r.tick_gen;
  int64_t t = cost.tick.count();
  Instant next = Instant::from_ns((s.now.ns() / t + 1) * t);
  push(next, Ev::kTick, cpu, 0, r.tick_gen);
}

// The queue module asked to preempt cpu's running task (check_preempt_wakeup() or
// check_preempt_tick() returned true): resched_curr(), and where that takes effect under the
// preemption model (SimConfig::preempt). Under preempt=full the switch is immediate. Under
// none (and voluntary, replayed as none) TIF_NEED_RESCHED set while curr executes kernel code
// for a syscall is acted on only at exit_to_user_mode(): the switch waits for the end of curr's
// syscall (return_to_user()), and if curr blocks in it first the switch is its sleep; in user
// space the resched IPI or the tick's own interrupt returns to user mode and switches at once.
// Under lazy (7c70cb94d29c "sched: Add Lazy preemption model", v6.13) the fair class sets
// TIF_NEED_RESCHED_LAZY (resched_curr_lazy()) and sends no IPI for it: it waits for curr's next
// return to user space, or the next tick, which makes it TIF_NEED_RESCHED (on_tick()); a tick's
// own request in user space is seen at that interrupt's return. Only a task whose program says
// where its syscalls are (run actions flagged kRunSyscall) is ever held back: for the others
// the mode is unknown to the replay and the switch is immediate as under full.
void Simulation::Impl::preempt_curr(uint32_t cpu, bool from_tick) {
  const TaskId c = s.cpus[cpu].curr;
  bool hold = false;
  if (c.valid()) {
    const Prog& p = prog[c.value()];
    switch (cfg.preempt) {
      case PreemptModel::kFull: break;
      case PreemptModel::kNone:
      case PreemptModel::kVoluntary: hold = p.in_syscall; break;
      case PreemptModel::kLazy: hold = p.in_syscall || (p.knows_syscalls && !from_tick); break;
    }
  }
  if (!hold) {
    resched(cpu);
    return;
  }
  if (!run[cpu].resched_deferred) {
    run[cpu].resched_deferred = true;
    ++sum.preempt_deferred;
  }
}

// A wakeup on from_cpu (the waker's CPU, or the one whose timer fired) decided that cpu's
// running task is to be preempted. On the same CPU that is preempt_curr(). On another CPU,
// resched_curr() sets TIF_NEED_RESCHED on the remote curr and sends it a reschedule IPI
// (smp_send_reschedule()); the target acts on it when the IPI is handled (scheduler_ipi(), then
// __schedule() at the interrupt's return) or earlier at a return to user space that finds the
// flag. CostModel::resched_ipi is that delay, measured from the preemption decision to the
// switch (docs/model.md "The reschedule IPI"); meanwhile curr keeps running. Under lazy the
// fair class's resched_curr_lazy() sends no IPI, so a task whose syscalls are known gets
// preempt_curr()'s lazy rule at once. With resched_ipi = 0 nothing is delayed (the behaviour
// before the parameter, and every event sequence is unchanged).
void Simulation::Impl::preempt_from(uint32_t cpu, uint32_t from_cpu) {
  const TaskId c = s.cpus[cpu].curr;
  const bool lazy_no_ipi = cfg.preempt == PreemptModel::kLazy && c.valid() && prog[c.value()].knows_syscalls;
  if (from_cpu == cpu || cost.resched_ipi.count() == 0 || lazy_no_ipi) {
    preempt_curr(cpu, false);
    return;
  }
  CpuRun& r = run[cpu];
  // test_tsk_need_resched(): the flag is already set and an IPI on its way, resched_curr()
  // sends no second one.
  if (r.resched_ipi_pending || r.resched_deferred || r.need_resched) return;
  r.resched_ipi_pending = true;
  ++sum.resched_ipi;
  Instant land = checked_after(cost.resched_ipi.count(), [&] {
    return fmt::format("the reschedule IPI to cpu{} (resched_ipi {} ns)", cpu, cost.resched_ipi.count());
  });
  push(land, Ev::kReschedIpi, cpu, 0, ++r.ipi_gen);
}

// The reschedule IPI reaches cpu (scheduler_ipi()): if no switch there consumed the request
// meanwhile, the preemption now takes effect under the preemption model (preempt_curr(): at
// once, or held until curr's return to user space if it is inside a syscall under none). No
// new wakeup check: the kernel decided at the wakeup, and __schedule() picks afresh anyway.
void Simulation::Impl::on_resched_ipi(uint32_t cpu, uint64_t gen) {
  CpuRun& r = run[cpu];
  if (gen != r.ipi_gen || !r.resched_ipi_pending) return;
  settle_if(cpu);
  r.resched_ipi_pending = false;
  if (s.cpus[cpu].curr.valid()) preempt_curr(cpu, false);
}

// cpu's running task leaves a syscall for user space (exit_to_user_mode()): a preemption held
// back by preempt_curr() happens now (schedule() picks again; curr may still be the best), and
// so does one whose reschedule IPI is still on the way (TIF_NEED_RESCHED is already set).
void Simulation::Impl::return_to_user(uint32_t cpu) {
  if (run[cpu].resched_deferred || run[cpu].resched_ipi_pending) resched(cpu);
}

// curr of cpu stops being runnable (block, sleep): dequeue for sleep and reschedule.
void Simulation::Impl::leave_cpu(uint32_t t, uint32_t cpu, TaskState st) {
  SCHEDSIM_ASSERT(s.cpus[cpu].curr.value() == t, "task{} leaving cpu{} it does not run on", t, cpu);
  if (segment && !bank_cpus[t].empty()) unbank(t);  // a later folded wake would find it asleep
  update_progress(cpu);  // gives the queue time a syscall boundary held back (nothing else: now)
  s.tasks[t].state = st;
  run[cpu].leave_reason = st == TaskState::kBlocked ? SwitchReason::kBlock : SwitchReason::kSleep;
  pol.util->update(s, CpuId(cpu));
  pol.queue->dequeue(s, CpuId(cpu), TaskId(t), DequeueKind::kSleep);
  pol.util->dequeue(s, TaskId(t), CpuId(cpu), true);
  resched(cpu);
}

void Simulation::Impl::do_exit(uint32_t t, uint32_t cpu) {
  if (segment && !bank_cpus[t].empty()) unbank(t);  // a later folded wake would find it gone
  update_progress(cpu);  // as in leave_cpu()
  s.tasks[t].state = TaskState::kExited;
  run[cpu].leave_reason = SwitchReason::kExit;
  pol.util->update(s, CpuId(cpu));
  pol.queue->dequeue(s, CpuId(cpu), TaskId(t), DequeueKind::kSleep);
  pol.util->dequeue(s, TaskId(t), CpuId(cpu), true);
  for (auto* o : obs) o->on_exit(s.now, TaskId(t), CpuId(cpu));
  note_end(TaskId(t));
  if (!prog[t].background) --fg_live;
  resched(cpu);
}

// Search time + the wake IPI + the idle-wake cost of an idle target (idle_wake.hpp: by how long
// the target had been idle; idle_stamp is when it went idle, unset = idle since the start). The
// IPI is sent where the kernel sends one: to another CPU that is idle (the wake list of
// ttwu_queue_cond(), or resched_curr() kicking an idle CPU for a new task) or in another LLC
// (the wake list). A wakeup into a busy CPU of the waker's LLC takes that CPU's rq lock and
// enqueues the wakee itself, no IPI (TTWU_QUEUE, ttwu_queue_cond() since 518cd6234178, v5.8);
// if it preempts, the reschedule IPI follows (resched_ipi, preempt_from()). A timer wakeup
// (interrupt context, no waking task) placed on the CPU that took the timer interrupt is local:
// that CPU already left idle to run the handler.
Duration Simulation::Impl::wake_delay(const WakeContext& ctx, uint32_t to_cpu, Duration scan) const {
  const uint32_t from_cpu = ctx.waker_cpu.value();
  Duration d = scan;
  const CpuSched& c = s.cpus[to_cpu];
  if (from_cpu != to_cpu && (c.idle() || !topo.share_cache(from_cpu, to_cpu)))
    d += topo.package_of(from_cpu) == topo.package_of(to_cpu) ? cost.ipi_same_package : cost.ipi_cross_package;
  if (!c.curr.valid()) {
    Duration idle_for = s.now - (c.idle_stamp_set ? c.idle_stamp : Instant::zero());
    bool timer_local = ctx.kind == WakeKind::kWakeup && !ctx.from_task && from_cpu == to_cpu;
    d += idle_wake_cost(cost, idle_for, timer_local);
  }
  return d;
}

// try_to_wake_up(): a token for t; if t is blocked, place it and send it on its way.
void Simulation::Impl::do_wake(uint32_t t, TaskId waker, uint32_t waker_cpu, bool sync, uint32_t pair) {
  Prog& pr = prog[t];
  TaskSched& ts = s.tasks[t];
  // A task asleep in a channel operation is not released by a plain wake: the token waits for
  // its next block(). A recorded pair (`pair` != 0) releases only the block it ended in the
  // recording, a plain wake only a token block (or the wait before the program starts).
  if (ts.state != TaskState::kBlocked || pr.in_flight || chans.waiting(t) || pr.waiting_pair != pair) {
    if (ts.state == TaskState::kExited) {
      log->debug("[{}] wake of exited task{} ignored", s.now, t);
      return;
    }
    if (pair != 0) {
      SCHEDSIM_ASSERT(!pr.pair_is_done(pair), "recorded wake pair {} of task{} posted twice", pair, t);
      pr.set_pair_done(pair, true);
      ++pr.pairs_held;
    } else {
      ++pr.tokens;
    }
    if (!pr.background && log->should_log(spdlog::level::debug)) log_banked_wake(t);
    note_banked(t, s.now);
    return;
  }
  if (pr.waits_before_start)
    pr.waits_before_start = false;  // released; its program runs from its first action
  else
    ++pr.pc;  // the wake satisfies the block() the task is parked on
  pr.waiting_pair = 0;
  activate(t, waker, waker_cpu, sync);
}

// `--log engine=debug`: where a banked wake found its wakee (docs/model.md "Where the banked
// wakes start"). The run still ahead of it before its next block() is what the wakee would have
// had to finish earlier for the wake to find it asleep, as the recorded one was: its current
// run() (a running wakee's progress since its CPU's last accounting taken off) plus the runs up
// to the next block() in its program text (not followed through a compact loop: then "-").
void Simulation::Impl::log_banked_wake(uint32_t t) const {
  const Prog& pr = prog[t];
  const TaskSched& ts = s.tasks[t];
  i128 left = pr.work.left();
  if (ts.state == TaskState::kRunning) {
    const CpuRun& r = run[ts.cpu.value()];
    left -= static_cast<i128>((s.now - r.acct.seg_start).count()) * r.acct.rate;
  }
  Duration ahead = detail::scaled_to_ns(std::max<i128>(left, 0));
  bool known = false;
  for (size_t i = pr.pc; i < pr.code_size; ++i) {
    const Action& a = pr.code[i];
    if (a.kind == ActionKind::kBlock) {
      known = true;
      break;
    }
    if (a.kind == ActionKind::kLoop) break;
    if (a.kind == ActionKind::kRun) ahead += Duration::ns(a.arg);
  }
  const char* where = pr.in_flight                          ? "woken, not yet enqueued"
                      : ts.state == TaskState::kRunning     ? "running"
                      : ts.state == TaskState::kRunnable    ? "queued"
                      : ts.state == TaskState::kNotStarted  ? "not started"
                      : chans.waiting(t)                    ? "asleep in a channel operation"
                                                            : "off CPU";
  const auto idle = std::count_if(s.cpus.begin(), s.cpus.end(), [](const auto& c) { return !c.curr.valid(); });
  log->debug("[{}] wake of task{} banked as a token: {}, {} token{} held, {} of run before its next block, {} CPU{} idle",
             s.now, t, where, pr.held(), pr.held() == 1 ? "" : "s", known ? fmt::format("{}", ahead) : std::string("-"), idle,
             idle == 1 ? "" : "s");
}

// The task is off every CPU and now becomes runnable: place it and send it on its way.
void Simulation::Impl::activate(uint32_t t, TaskId waker, uint32_t waker_cpu, bool sync) {
  TaskSched& ts = s.tasks[t];
  ++sum.wakeups;
  WakeContext ctx;
  ctx.p = TaskId(t);
  ctx.kind = WakeKind::kWakeup;
  ctx.waker_cpu = CpuId(waker_cpu);
  ctx.waker = waker;
  ctx.from_task = waker.valid();
  ctx.sync = sync && waker.valid();
  ctx.prev_cpu = ts.cpu;
  prog[t].woken_by_cpu = waker.valid() ? static_cast<int32_t>(waker_cpu) : -1;
  if (pol.queue->is_delayed(ctx.p)) {
    wake_delayed(ctx);
    return;
  }
  place_and_send(ctx);
}

// replay_wakes=modelled: the waker pays the try_to_wake_up() it runs for a wake the replay
// performs, wake_local when the wakee goes to the waker's CPU, else wake_remote (the remote
// enqueue or the wake-list IPI it sends; the measurement, syscall_wake_cost.py, classes a wake by
// the wakee's CPU at the waking, the replay by the placement, which on the guests measured kept
// wakees local). A banked wake (do_wake()) charges nothing: the kernel's try_to_wake_up() stops at
// ttwu_state_match() for a wakee not asleep, and a channel with no sleeper wakes nobody.
void Simulation::Impl::charge_wake(const WakeContext& ctx, uint32_t target) {
  if (cost.replay_wakes != ReplayWakes::kModelled || !ctx.waker.valid() || s.rq(ctx.waker_cpu).curr != ctx.waker)
    return;
  const Duration c = target == ctx.waker_cpu.value() ? cost.wake_local : cost.wake_remote;
  if (c.count() <= 0) return;
  prog[ctx.waker.value()].work.charge(c);
  sum.wake_cost_charged += c;
}

// ttwu_runnable() for a task still queued by DELAY_DEQUEUE: no select_task_rq(), no IPI; the
// waker re-queues it in place on its CPU, then the wakeup-preemption check.
void Simulation::Impl::wake_delayed(const WakeContext& ctx) {
  uint32_t t = ctx.p.value(), cpu = s.tasks[t].cpu.value();
  WakeFact f;
  f.at = s.now;
  f.wakee = ctx.p;
  f.waker = ctx.waker;
  f.waker_cpu = ctx.waker_cpu;
  f.prev_cpu = CpuId(cpu);
  f.kind = ctx.kind;
  f.sync = ctx.sync;
  f.placement.cpu = CpuId(cpu);
  f.placement.outcome = PlaceOutcome::kDelayed;
  f.target_was_idle = false;
  charge_wake(ctx, cpu);
  for (auto* o : obs) o->on_wake(f);
  s.tasks[t].state = TaskState::kRunnable;
  settle_if(cpu);  // the queue places the wakee against curr (segment.cpp)
  pol.util->update(s, CpuId(cpu));
  pol.util->enqueue(s, ctx.p, CpuId(cpu), false);
  pol.queue->requeue_delayed(s, CpuId(cpu), ctx.p);
  for (auto* o : obs) o->on_enqueue(s.now, ctx.p, CpuId(cpu));
  refresh_cpu(cpu);
  if (!s.cpus[cpu].curr.valid()) {
    resched(cpu);
  } else {
    update_progress(cpu);
    // ttwu_runnable(): the waker's own context, no select_task_rq().
    WakeFlags wf;
    wf.sync = ctx.sync;
    wf.in_task = ctx.from_task;
    if (pol.queue->check_preempt_wakeup(s, CpuId(cpu), ctx.p, wf)) preempt_from(cpu, ctx.waker_cpu.value());
  }
}

// select_task_rq() for ctx (bypassed for a single allowed CPU), checked against the affinity,
// with the search time charged to the task running the search on the waker's CPU. The caller
// sets the delay and tells the observers.
WakeFact Simulation::Impl::decide(const WakeContext& ctx) {
  TaskSched& ts = s.tasks[ctx.p.value()];
  PlacementResult res;
  if (ts.affinity->count() == 1) {
    res.cpu = CpuId(ts.affinity->first());
    res.outcome = PlaceOutcome::kPinned;
  } else {
    PlacementWrites writes = placement_writes();
    res = pol.placement->select_task_rq(s, writes, ctx);
  }
  SCHEDSIM_ASSERT(res.cpu.value() < topo.nr_cpus() && ts.affinity->test(res.cpu.value()),
                  "placement chose cpu{} outside task{}'s affinity {}", res.cpu.value(), ctx.p.value(), *ts.affinity);
  WakeFact f;
  f.at = s.now;
  f.wakee = ctx.p;
  f.waker = ctx.waker;
  f.waker_cpu = ctx.waker_cpu;
  f.prev_cpu = ctx.prev_cpu;
  f.kind = ctx.kind;
  f.sync = ctx.sync;
  f.placement = res;
  f.target_was_idle = s.rq(res.cpu).idle();
  if (ctx.waker.valid() && res.scan_cost.count() > 0 && s.rq(ctx.waker_cpu).curr == ctx.waker)
    prog[ctx.waker.value()].work.charge(res.scan_cost);
  if (ctx.kind == WakeKind::kWakeup) charge_wake(ctx, res.cpu.value());
  return f;
}

void Simulation::Impl::place_and_send(const WakeContext& ctx) {
  uint32_t t = ctx.p.value();
  TaskSched& ts = s.tasks[t];
  WakeFact f = decide(ctx);
  const PlacementResult& res = f.placement;
  f.delay = wake_delay(ctx, res.cpu.value(), res.scan_cost);
  for (auto* o : obs) o->on_wake(f);
  Instant arrive = checked_after(f.delay.count(), [&] {
    return fmt::format("the wakeup of {} (search + IPI + idle exit {} ns)", task_label(t), f.delay.count());
  });
  prog[t].in_flight = true;
  // ttwu_queue_cond(): a wakeup for a CPU in another LLC, or for another CPU with nothing on its
  // runqueue (nr_running == 0: idle, or about to be), goes on that CPU's wake list, and the
  // target enqueues the wakee itself (sched_ttwu_pending() in the IPI or the idle loop): its
  // wakeup check's resched_curr() is local, so a task that reached that CPU meanwhile is
  // preempted without a reschedule IPI (preempt_from()). wake_up_new_task() enqueues a new task
  // from the forking CPU, whatever the LLC.
  const uint32_t waker_cpu = ctx.waker_cpu.value();
  const bool wake_list = ctx.kind == WakeKind::kWakeup &&
                         (!topo.share_cache(waker_cpu, res.cpu.value()) ||
                          (res.cpu.value() != waker_cpu && f.target_was_idle));
  prog[t].woken_from = wake_list ? res.cpu.value() : waker_cpu;
  // The flags the enqueue's wakeup check gets: a wake-list enqueue runs in the target's IPI or
  // idle loop, not in a task's context.
  WakeFlags& wf = prog[t].wake_flags;
  wf.fork = ctx.kind == WakeKind::kFork;
  wf.sync = ctx.kind == WakeKind::kWakeup && ctx.sync;
  wf.rq_selected = f.placement.outcome != PlaceOutcome::kPinned;
  wf.in_task = ctx.from_task && !wake_list;
  ts.state = TaskState::kRunnable;
  ++s.rq(res.cpu).ttwu_pending;
  refresh_cpu(res.cpu.value());
  push(arrive, Ev::kEnqueue, t, res.cpu.value());
}

void Simulation::Impl::do_fork(uint32_t child, uint32_t parent, uint32_t cpu) {
  ++sum.forks;
  TaskSched& cs = s.tasks[child];
  cs.cpu = CpuId(cpu);
  cs.recent_used_cpu = CpuId(cpu);  // wake_up_new_task: p->recent_used_cpu = task_cpu(p)
  // sched_fork() keeps the child's copy of the parent's se.custom_slice and se.slice
  // (857b158dc5e8 dropped __sched_fork()'s reset; only SCHED_RESET_ON_FORK clears them): a
  // child without a slice of its own runs with its parent's.
  if (cs.custom_slice.count() == 0) cs.custom_slice = s.tasks[parent].custom_slice;
  // UpdateCurr::kEvents: a queue module whose fork touches the parent's queue (task_fork_fair()
  // up to v6.11: update_curr(), then place_entity()) gets the parent charged first; since v6.12
  // (c40dd90ac045) the child is placed at its first enqueue, which on_enqueue() charges.
  // Under kActions the parent's run was charged when its last run action ended.
  if (cfg.update_curr == UpdateCurr::kEvents && pol.queue->task_fork_reads_queue()) update_progress(cpu);
  pol.queue->task_fork(s, TaskId(parent), TaskId(child));
  for (auto* o : obs) o->on_task_start(s.now, TaskId(child), TaskId(parent));
  WakeContext ctx;
  ctx.p = TaskId(child);
  ctx.kind = WakeKind::kFork;
  ctx.waker_cpu = CpuId(cpu);
  ctx.waker = TaskId(parent);
  ctx.from_task = true;
  ctx.prev_cpu = CpuId(cpu);
  start_new(ctx);
}

// A task's first placement (fork, or a task alive/started without a known CPU).
void Simulation::Impl::start_new(const WakeContext& ctx) {
  pol.util->task_new(s, ctx.p, ctx.prev_cpu);
  prog[ctx.p.value()].is_new = true;
  place_and_send(ctx);
}

// sched_exec(): may move the running task to a CPU the exec balance path picks. Returns true
// if the task left this CPU.
bool Simulation::Impl::do_exec(uint32_t t, uint32_t cpu) {
  TaskSched& ts = s.tasks[t];
  if (ts.affinity->count() == 1) return false;
  WakeContext ctx;
  ctx.p = TaskId(t);
  ctx.kind = WakeKind::kExec;
  ctx.waker_cpu = CpuId(cpu);
  ctx.waker = TaskId(t);
  ctx.prev_cpu = CpuId(cpu);
  WakeFact f = decide(ctx);
  const PlacementResult& res = f.placement;
  for (auto* o : obs) o->on_wake(f);
  if (res.cpu.value() == cpu) return false;
  // The stopper moves it: off this CPU as a preemption, queued on the new one.
  update_progress(cpu);
  pol.util->update(s, CpuId(cpu));
  pol.queue->put_prev(s, CpuId(cpu), TaskId(t));
  s.cpus[cpu].curr = TaskId();
  ++run[cpu].done_gen;
  ts.state = TaskState::kRunnable;
  for (auto* o : obs) o->on_switch(s.now, CpuId(cpu), TaskId(t), SwitchReason::kMigrate, TaskId());
  note_end(TaskId(t));  // a switch-out like any other (FtraceWriter follows the same rule)
  ++sum.context_switches;
  migrate_queued(TaskId(t), res.cpu);
  refresh_cpu(cpu);
  resched(cpu);
  return true;
}

bool Simulation::Impl::migrate_queued(TaskId p, CpuId to) {
  const uint32_t dst = to.value();
  TaskSched& ts = s.tasks[p.value()];
  uint32_t src = ts.cpu.value();
  if (!ts.affinity->test(dst) || ts.state != TaskState::kRunnable || prog[p.value()].in_flight) return false;
  SCHEDSIM_ASSERT(s.cpus[src].curr != p, "migrate_queued of a running task{}", p.value());
  settle_if(src);  // the dequeue reads the source queue's curr (min_vruntime), as the enqueue does the destination's
  settle_if(dst);
  // dequeue_entity() on the source queue runs update_curr() first (UpdateCurr::kEvents; under
  // kActions, historically, the source's curr is charged at its next run end).
  if (cfg.update_curr == UpdateCurr::kEvents && s.cpus[src].curr.valid()) update_progress(src);
  pol.util->update(s, CpuId(src));
  pol.queue->dequeue(s, CpuId(src), p, DequeueKind::kMigrate);
  pol.util->dequeue(s, p, CpuId(src), false);
  ts.cpu = to;
  note_migration(p, src, dst);
  if (s.cpus[dst].curr.valid()) update_progress(dst);  // enqueue_entity(): update_curr() before placing
  pol.util->update(s, CpuId(dst));
  pol.util->enqueue(s, p, CpuId(dst), true);
  pol.queue->enqueue(s, CpuId(dst), p, EnqueueKind::kMigrate);
  refresh_cpu(src);
  refresh_cpu(dst);
  if (!s.cpus[dst].curr.valid())
    resched(dst);
  else if (pol.queue->check_preempt_wakeup(s, CpuId(dst), p, WakeFlags{}))  // attach_task(): flags 0
    preempt_curr(dst, false);
  return true;
}

void Simulation::Impl::note_migration(TaskId p, uint32_t src, uint32_t dst) {
  if (src == dst) return;
  ++sum.migrations;
  CpuDistance d = topo.distance(src, dst);
  for (auto* o : obs) o->on_migrate(s.now, p, CpuId(src), CpuId(dst), d);
}

void Simulation::Impl::schedule(uint32_t cpu) {
  run[cpu].need_resched = false;
  CpuSched& c = s.cpus[cpu];
  TaskId prev = c.curr;
  if (prev.valid()) {
    update_progress(cpu);
    pol.util->update(s, CpuId(cpu));
  }
  // Whoever runs next plans its own completion; anything pending belongs to prev.
  ++run[cpu].done_gen;
  bool prev_runnable = prev.valid() && s.tasks[prev.value()].state == TaskState::kRunning;
  if (run[cpu].resched_deferred) {
    // A held-back preemption ends here: taken (prev still runnable), or prev left first.
    run[cpu].resched_deferred = false;
    if (!prev_runnable) ++sum.preempt_deferred_slept;
  }
  if (run[cpu].resched_ipi_pending) {
    // A switch before the reschedule IPI landed consumed the request (curr blocked or slept,
    // or another preemption came first): the IPI will find nothing to do.
    run[cpu].resched_ipi_pending = false;
    ++sum.resched_ipi_superseded;
  }
  if (prev_runnable) {
    s.tasks[prev.value()].state = TaskState::kRunnable;
    pol.queue->put_prev(s, CpuId(cpu), prev);
  }
  TaskId next = pol.queue->pick_next(s, CpuId(cpu));
  if (!next.valid()) {
    // About to idle: newidle balance (idle_stamp is set at its start, docs/sources.md, Run queue and balance).
    c.curr = TaskId();
    c.idle_stamp = s.now;
    c.idle_stamp_set = true;
    if (pol.balance->newidle(s, *this, CpuId(cpu))) {
      c.idle_stamp_set = false;
      next = pol.queue->pick_next(s, CpuId(cpu));
    }
  }
  if (prev.valid() && prev != next) {
    TaskSched& ps = s.tasks[prev.value()];
    ps.last_ran = s.now;
    pol.util->set_running(s, prev, CpuId(cpu), false);
    SwitchReason why = prev_runnable ? SwitchReason::kPreempt : run[cpu].leave_reason;
    run[cpu].leave_reason = SwitchReason::kPreempt;
    note_end(prev);
    if (!next.valid()) {
      c.curr = TaskId();
      for (auto* o : obs) o->on_switch(s.now, CpuId(cpu), prev, why, TaskId());
      ++sum.context_switches;
      refresh_cpu(cpu);
      return;
    }
    for (auto* o : obs) o->on_switch(s.now, CpuId(cpu), prev, why, next);
    ++sum.context_switches;
  } else if (!prev.valid() && next.valid()) {
    for (auto* o : obs) o->on_switch(s.now, CpuId(cpu), TaskId(), SwitchReason::kBlock, next);
    ++sum.context_switches;
  } else if (!prev.valid() && !next.valid()) {
    refresh_cpu(cpu);
    return;
  }
  c.curr = next;
  TaskSched& ns = s.tasks[next.value()];
  Prog& np = prog[next.value()];
  bool switched = prev != next;
  if (switched) {
    ns.state = TaskState::kRunning;
    pol.util->set_running(s, next, CpuId(cpu), true);
    np.work.charge(cost.context_switch);
    if (np.last_cpu_ran >= 0 && static_cast<uint32_t>(np.last_cpu_ran) != cpu)
      np.work.charge(detail::refill_cost(cost, topo.distance(static_cast<uint32_t>(np.last_cpu_ran), cpu)));
    // A wakee first reads what its waker wrote (the message, the pipe or socket buffer, the
    // wait-queue entry): those lines come from the waker's CPU's cache at the distance between
    // the two (xfer_*, 0 unless given).
    if (np.woken_by_cpu >= 0 && static_cast<uint32_t>(np.woken_by_cpu) != cpu)
      np.work.charge(detail::xfer_cost(cost, topo.distance(static_cast<uint32_t>(np.woken_by_cpu), cpu)));
    np.woken_by_cpu = -1;
    np.last_cpu_ran = static_cast<int32_t>(cpu);
    ns.has_run = true;
  }
  ns.state = TaskState::kRunning;
  run[cpu].acct.seg_start = s.now;
  refresh_cpu(cpu);
  run[cpu].acct.rate = rate_of(cpu);
  advance(next.value(), cpu);
}

void Simulation::Impl::on_enqueue(uint32_t t, uint32_t cpu) {
  TaskSched& ts = s.tasks[t];
  Prog& pr = prog[t];
  pr.in_flight = false;
  CpuSched& c = s.cpus[cpu];
  SCHEDSIM_ASSERT(c.ttwu_pending > 0, "enqueue without a pending wakeup on cpu{}", cpu);
  --c.ttwu_pending;
  bool is_new = pr.is_new;
  pr.is_new = false;
  uint32_t src = ts.cpu.value();
  // The queue reads this CPU's curr, and CFS re-bases a migrating wakee on its old queue's
  // min_vruntime: neither may be in the middle of a folded stretch (segment.cpp).
  settle_if(cpu);
  settle_if(src);
  ts.cpu = CpuId(cpu);
  if (!is_new) note_migration(TaskId(t), src, cpu);
  // ttwu_do_activate(): avg_idle from the length of the idle period this wakeup ends (§7.2),
  // and the 5.14+ wake_avg_idle seed used by SIS_PROP's aging.
  if (c.idle_stamp_set) {
    Duration sample = s.now - c.idle_stamp;
    Duration max = c.max_idle_balance_cost * 2;
    c.avg_idle += (sample - c.avg_idle) / 8;
    if (c.avg_idle > max) c.avg_idle = max;
    c.idle_stamp_set = false;
    c.wake_stamp = s.jiffies();
    c.wake_avg_idle = c.avg_idle / 2;
  }
  // enqueue_entity() runs update_curr() before place_entity(): the wakee is placed against the
  // average that includes the running task's progress up to now (a stale curr would sit too far
  // right once charged, and look ineligible to the wakeup check).
  if (c.curr.valid()) update_progress(cpu);
  pol.util->update(s, CpuId(cpu));
  pol.util->enqueue(s, TaskId(t), CpuId(cpu), !is_new && src != cpu);
  pol.queue->enqueue(s, CpuId(cpu), TaskId(t), is_new ? EnqueueKind::kNew : EnqueueKind::kWakeup);
  for (auto* o : obs) o->on_enqueue(s.now, TaskId(t), CpuId(cpu));
  refresh_cpu(cpu);
  if (!c.curr.valid()) {
    resched(cpu);
  } else {
    if (pol.queue->check_preempt_wakeup(s, CpuId(cpu), TaskId(t), pr.wake_flags)) preempt_from(cpu, pr.woken_from);
  }
}

void Simulation::Impl::on_task_start(uint32_t t) {
  const TaskSpec& spec = w.tasks[t];
  TaskSched& ts = s.tasks[t];
  for (auto* o : obs) o->on_task_start(s.now, TaskId(t), TaskId());
  if (spec.initial_cpu >= 0 && ts.affinity->test(static_cast<uint32_t>(spec.initial_cpu))) {
    // Alive at trace start on a known CPU: it is simply there.
    uint32_t cpu = static_cast<uint32_t>(spec.initial_cpu);
    ts.cpu = CpuId(cpu);
    ts.state = TaskState::kRunnable;
    settle_if(cpu);  // the queue places it against curr (segment.cpp)
    // enqueue_entity()'s update_curr() (UpdateCurr::kEvents; kActions keeps its historical order).
    if (cfg.update_curr == UpdateCurr::kEvents && s.cpus[cpu].curr.valid()) update_progress(cpu);
    pol.util->task_new(s, TaskId(t), CpuId(cpu));
    pol.util->update(s, CpuId(cpu));
    pol.util->enqueue(s, TaskId(t), CpuId(cpu), false);
    pol.queue->enqueue(s, CpuId(cpu), TaskId(t), EnqueueKind::kNew);
    for (auto* o : obs) o->on_enqueue(s.now, TaskId(t), CpuId(cpu));
    refresh_cpu(cpu);
    if (!s.cpus[cpu].curr.valid())
      resched(cpu);
    else if (pol.queue->check_preempt_wakeup(s, CpuId(cpu), TaskId(t), WakeFlags{}))
      preempt_curr(cpu, false);
    return;
  }
  WakeContext ctx;
  ctx.p = TaskId(t);
  ctx.kind = WakeKind::kFork;
  ctx.waker_cpu = ts.cpu;
  ctx.from_task = false;
  ctx.prev_cpu = ts.cpu;
  start_new(ctx);
}

void Simulation::Impl::on_sleep_end(uint32_t t, uint64_t gen) {
  Prog& pr = prog[t];
  if (gen != pr.sleep_gen || s.tasks[t].state != TaskState::kSleeping) return;
  s.tasks[t].state = TaskState::kBlocked;
  // A timer wakeup: from hard-irq context on the CPU the task slept on. If that CPU was idle,
  // the interrupt's own idle exit came before the waking; a replayed sleep already contains
  // it (it lasts from the switch-out to the recorded sched_waking), so nothing is added here;
  // wake_delay() charges only what follows the waking (idle_wake.hpp, timer_wake_local).
  activate(t, TaskId(), s.tasks[t].cpu.value(), false);
}

void Simulation::Impl::on_tick(uint32_t cpu, uint64_t gen) {
  CpuRun& r = run[cpu];
  if (gen != r.tick_gen) return;
  r.tick_armed = false;
  CpuSched& c = s.cpus[cpu];
  if (!c.curr.valid()) return;  // nohz: an idle CPU stops its tick
  update_progress(cpu);
  pol.util->update(s, CpuId(cpu));
  // preempt=lazy: sched_tick() first turns a pending TIF_NEED_RESCHED_LAZY into
  // TIF_NEED_RESCHED, which a preemptible kernel acts on at the interrupt's return.
  if (cfg.preempt == PreemptModel::kLazy && r.resched_deferred) resched(cpu);
  if (pol.queue->check_preempt_tick(s, CpuId(cpu))) preempt_curr(cpu, true);
  if (s.now >= c.next_balance) {
    pol.balance->periodic(s, *this, *pol.placement, CpuId(cpu));
    if (c.next_balance <= s.now) c.next_balance = s.now + cost.tick;
  }
  // update_progress() kept the rate, so the pending completion event is still exact.
  arm_tick(cpu);
}

void Simulation::Impl::on_run_done(uint32_t cpu, uint64_t gen) {
  if (gen != run[cpu].done_gen) return;
  TaskId t = s.cpus[cpu].curr;
  SCHEDSIM_ASSERT(t.valid(), "completion on idle cpu{}", cpu);
  // A run that ends where the task enters or leaves a syscall (the next action is a run with
  // work on the other side of kRunSyscall) is no scheduler event: the kernel calls no
  // update_curr() at a syscall entry or exit, so the time goes to the queue at the next real
  // event (update_progress()'s quiet mode). Without it, splitting a run at a syscall boundary
  // would move the replay by charging vruntime more often than the kernel does.
  // UpdateCurr::kEvents extends that to every end of a run: the kernel sees no end of a replayed
  // run action at all, only the scheduler events around it (the tick, enqueue/dequeue, the
  // wakeup check, schedule()), which charge the held time through update_progress().
  const Prog& pr = prog[t.value()];
  bool quiet = cfg.update_curr == UpdateCurr::kEvents;
  if (!quiet && pr.pc < pr.code_size && pr.loops.empty()) {
    const Action& next = pr.code[pr.pc];
    quiet = next.kind == ActionKind::kRun && next.arg > 0 && ((next.flags & kRunSyscall) != 0) != pr.in_syscall;
  }
  update_progress(cpu, quiet);
  advance(t.value(), cpu);
}

void Simulation::Impl::drain_resched() {
  // Two buffers swapped in turn: no allocation per event once both have grown.
  while (!resched_list.empty()) {
    resched_work.clear();
    resched_work.swap(resched_list);
    for (uint32_t cpu : resched_work)
      if (run[cpu].need_resched) schedule(cpu);
  }
}

void Simulation::Impl::check_full() {
  std::vector<int32_t> on(w.tasks.size(), -1);
  for (uint32_t cpu = 0; cpu < topo.nr_cpus(); ++cpu) {
    TaskId t = s.cpus[cpu].curr;
    if (!t.valid()) continue;
    SCHEDSIM_ASSERT(on[t.value()] < 0, "task{} runs on cpu{} and cpu{}", t.value(), on[t.value()], cpu);
    on[t.value()] = static_cast<int32_t>(cpu);
    SCHEDSIM_ASSERT(s.tasks[t.value()].cpu == CpuId(cpu), "task{} runs on cpu{} but task_cpu is {}", t.value(), cpu,
                    s.tasks[t.value()].cpu.value());
    SCHEDSIM_ASSERT(s.tasks[t.value()].affinity->test(cpu), "task{} runs on cpu{} outside its affinity", t.value(), cpu);
    uint32_t queued = 0;
    pol.queue->for_each_queued(s, CpuId(cpu), [&](TaskId) { ++queued; return true; });
    SCHEDSIM_ASSERT(queued + 1 == s.cpus[cpu].nr_running, "cpu{} nr_running {} but {} queued + curr", cpu,
                    s.cpus[cpu].nr_running, queued);
  }
}

Instant Simulation::Impl::checked_start(uint32_t t) {
  const TaskSpec& spec = w.tasks[t];
  if (spec.start_time.ns() < 0)
    throw InputError(SourceLoc{w.source}, fmt::format("{}: negative start_time {} ns", task_label(t), spec.start_time.ns()));
  return checked_after(spec.start_time.ns(), [&] { return fmt::format("{}: its start_time", task_label(t)); });
}

SimSummary Simulation::Impl::run_all() {
  if (cfg.max_time > SimConfig::kMaxTimeLimit || cfg.max_time <= Instant::zero())
    throw InputError(fmt::format("simulated-time limit {} ns outside 1..{} ns", cfg.max_time.ns(),
                                 SimConfig::kMaxTimeLimit.ns()));
  for (auto* o : obs) o->on_start(s);
  for (uint32_t t = 0; t < w.tasks.size(); ++t) {
    const TaskSpec& spec = w.tasks[t];
    switch (spec.start) {
      case StartState::kForked:
        break;
      case StartState::kRunnable:
        push(checked_start(t), Ev::kTaskStart, t);
        break;
      case StartState::kBlocked:
        s.tasks[t].state = TaskState::kBlocked;
        prog[t].waits_before_start = true;
        break;
      case StartState::kSleeping:
        s.tasks[t].state = TaskState::kSleeping;
        push(checked_start(t), Ev::kSleepEnd, t, 0, ++prog[t].sleep_gen);
        break;
    }
  }
  while (!q.empty()) {
    Event e = q.top();
    // A settled stretch's planned end (segment.cpp): no event of the plain engine.
    if (nr_phantoms != 0 && e.type == Ev::kRunDone && e.gen != run[e.a].done_gen && drop_phantom(e)) {
      q.pop();
      continue;
    }
    if (e.at > cfg.stop_at || sum.events >= cfg.max_events) {
      sum.complete = false;
      sum.stop = e.at > cfg.stop_at ? StopReason::kStopAt : StopReason::kMaxEvents;
      if (sum.stop == StopReason::kStopAt) {
        // The run covers [0, stop_at]: nothing changes between the last event and the stop
        // (every rate change is an event), so the clock moves on to it and finish() accounts
        // the running tasks' progress up to there. The span ends at the stop, with or without
        // background tasks, not at whichever task last switched before it; except when the
        // measured tasks were all stuck before it with only background events pending: the
        // measured span then ended at their last event, as it does in a run without the stop
        // (explain_incomplete() says why the run may be stuck).
        s.now = cfg.stop_at;
        if (measured_stuck() == 0) sum.end = cfg.stop_at;
      }
      break;
    }
    // Only a run with background tasks plans past the limit (checked_after()): the measured
    // tasks have not all ended by it, so the run does need that time.
    if (e.at > cfg.max_time && !past_limit.empty()) throw InputError(SourceLoc{w.source}, past_limit);
    q.pop();
    SCHEDSIM_ASSERT(e.at >= s.now, "time went backwards: {} after {}", e.at, s.now);
    s.now = e.at;
    if (++sum.events % Simulation::kPollEvery == 0 && poll) poll(s.now, sum.events);
    ticking = e.type == Ev::kTick;  // segment.cpp: a completion at a tick's instant came first
    switch (e.type) {
      case Ev::kTaskStart: on_task_start(e.a); break;
      case Ev::kSleepEnd: on_sleep_end(e.a, e.gen); break;
      case Ev::kEnqueue: on_enqueue(e.a, e.b); break;
      case Ev::kRunDone: on_run_done(e.a, e.gen); break;
      case Ev::kTick: on_tick(e.a, e.gen); break;
      case Ev::kReschedIpi: on_resched_ipi(e.a, e.gen); break;
    }
    drain_resched();
    if (cfg.check_invariants_full) check_full();
    if (nr_background > 0 && fg_live == 0) {
      // Every measured task has exited: the run is over. Background tasks still running,
      // queued, sleeping or blocked are cut off here (they are load, not part of the result).
      cut_background = true;
      break;
    }
  }
  finish();
  return sum;
}

void Simulation::Impl::finish() {
  ticking = true;  // the end (or stop_at) comes after every event of its instant: settle() takes them all
  // Bring partial progress up to the end (only matters for an early stop).
  for (uint32_t cpu = 0; cpu < topo.nr_cpus(); ++cpu)
    if (s.cpus[cpu].curr.valid()) update_progress(cpu);
  // The channels' side of the folded reads and writes (segment.cpp): all due by now.
  for (size_t c = 0; c < chans.size(); ++c) {
    chans.apply_folded(c, s.now.ns(), true);
    SCHEDSIM_DASSERT(chans.folded(c).empty(), "channel {} holds folded operations past the end", c);
  }
  const i128 fg_done = work_done_scaled - bg_work_done_scaled;
  const i128 fg_expected = work_expected_scaled - bg_work_expected_scaled;
  sum.work_done = Duration::ns(static_cast<int64_t>(fg_done / kScale));
  sum.work_expected = Duration::ns(static_cast<int64_t>(fg_expected / kScale));
  if (segment)
    log->info("segment advance: {} of the {} events were run completions folded into {} stretches; their steps "
              "banked {} wakes{}",
              seg_folded, sum.events, seg_stretches, seg_banked,
              seg_channels ? fmt::format(" and made {} channel reads and writes", seg_chanops) : std::string());
  if (cost.replay_wakes == ReplayWakes::kModelled)
    log->debug("replay_wakes=modelled: {} ns of recorded wakes taken off the wakers' runs, {} ns charged for the "
               "replay's wakes",
               sum.recorded_wake_credited.count(), sum.wake_cost_charged.count());
  const ChannelStats& cs = chans.stats();
  sum.channel_writes = cs.writes;
  sum.channel_reads = cs.reads;
  sum.channel_wakes = cs.reader_wakes + cs.writer_wakes;
  sum.channel_sleeps = cs.reader_sleeps + cs.writer_sleeps;
  for (uint32_t t = 0; t < w.tasks.size(); ++t) {
    TaskState st = s.tasks[t].state;
    if (prog[t].background) {
      // Load only: whatever state the end finds it in is no error (it was cut off, or its
      // program ran past the span the measured tasks cover).
      if (st != TaskState::kExited) ++sum.background_cut;
      continue;
    }
    sum.tokens_left += static_cast<uint64_t>(prog[t].held());
    if (st == TaskState::kBlocked) ++sum.tasks_stuck;
    if (st == TaskState::kRunning || st == TaskState::kRunnable || st == TaskState::kSleeping) sum.complete = false;
    if (sum.stop == StopReason::kNone && (st == TaskState::kBlocked || st == TaskState::kNotStarted || prog[t].held() > 0)) {
      UnfinishedTask u;
      u.task = TaskId(t);
      u.state = st;
      u.pc = prog[t].pc;
      u.before_start = prog[t].waits_before_start;
      u.tokens = prog[t].held();
      sum.unfinished.push_back(u);
    }
  }
  explain_incomplete();
  if (sum.stop == StopReason::kNone) {
    // Work conservation: every run() action that started was completed exactly (of the measured
    // tasks, when background tasks were cut off mid-run).
    SCHEDSIM_ASSERT(fg_done == fg_expected, "work not conserved: done {} expected {}",
                    static_cast<int64_t>(fg_done / kScale), static_cast<int64_t>(fg_expected / kScale));
    SCHEDSIM_ASSERT(cut_background || work_done_scaled == work_expected_scaled,
                    "work not conserved: done {} expected {}", static_cast<int64_t>(work_done_scaled / kScale),
                    static_cast<int64_t>(work_expected_scaled / kScale));
    for (uint32_t cpu = 0; cpu < topo.nr_cpus() && !cut_background; ++cpu) {
      SCHEDSIM_ASSERT(!s.cpus[cpu].curr.valid() && s.cpus[cpu].nr_running == 0 && s.cpus[cpu].ttwu_pending == 0,
                      "cpu{} not idle at the end", cpu);
    }
  }
  if (sum.end == Instant::zero()) sum.end = s.now;
  for (auto* o : obs) o->on_end(s, sum.end);
}

uint32_t Simulation::Impl::measured_stuck() const {
  if (nr_background == 0) return 0;
  uint32_t blocked = 0;
  for (uint32_t t = 0; t < w.tasks.size(); ++t) {
    if (prog[t].background) continue;
    const TaskState st = s.tasks[t].state;
    if (st == TaskState::kRunning || st == TaskState::kRunnable || st == TaskState::kSleeping ||
        (st == TaskState::kNotStarted && w.tasks[t].start != StartState::kForked))
      return 0;
    blocked += st == TaskState::kBlocked;
  }
  return blocked;
}

// Fills sum.incomplete (and clears sum.complete) for every reason the run did not reach its
// natural end: an early stop, no tasks, tasks that never finished, tokens nobody consumed.
void Simulation::Impl::explain_incomplete() {
  auto& out = sum.incomplete;
  if (sum.stop == StopReason::kStopAt) {
    out.push_back(fmt::format("stopped at {} s (stop_at) with events still pending", cfg.stop_at));
    // Only background tasks' events were left: a run without the stop would go on until a
    // background task wakes them or none is left (stuck, the stuck-task report, exit 4); which
    // one is unknown here, so the span ends at their last event and the reason is printed.
    if (const uint32_t blocked = measured_stuck(); blocked > 0)
      out.push_back(fmt::format("at the stop no measured task could run ({} blocked, the rest exited or never "
                                "forked) and only background tasks' events were pending: the measured tasks may be "
                                "stuck (the span ends at their last event); without --stop-at the run shows whether "
                                "a background task wakes them",
                                blocked));
  } else if (sum.stop == StopReason::kMaxEvents) {
    out.push_back(fmt::format("stopped after {} events (max_events) with events still pending", sum.events));
  }
  if (w.tasks.empty()) out.emplace_back("the workload has no tasks: nothing was simulated");
  if (!sum.unfinished.empty()) {
    uint32_t blocked = 0, unstarted = 0, with_tokens = 0;
    uint64_t tokens = 0;
    for (const auto& u : sum.unfinished) {
      blocked += u.state == TaskState::kBlocked;
      unstarted += u.state == TaskState::kNotStarted;
      with_tokens += u.tokens > 0;
      tokens += static_cast<uint64_t>(u.tokens);
    }
    std::vector<std::string> parts;
    uint32_t exited = 0;
    for (uint32_t t = 0; t < w.tasks.size(); ++t)
      exited += !prog[t].background && s.tasks[t].state == TaskState::kExited;
    const size_t measured = w.tasks.size() - nr_background;
    if (blocked)
      parts.push_back(fmt::format("{} task{} blocked forever, waiting for a wake no task was left to post{}", blocked,
                                  blocked == 1 ? "" : "s",
                                  blocked + unstarted + exited == measured && exited == 0 ? " (deadlock)" : ""));
    if (unstarted)
      parts.push_back(fmt::format("{} task{} never started (no fork of {} was executed)", unstarted,
                                  unstarted == 1 ? "" : "s", unstarted == 1 ? "it" : "them"));
    if (with_tokens)
      parts.push_back(fmt::format("{} task{} ended with {} wake token{} never consumed (woken more often than {} blocked)",
                                  with_tokens, with_tokens == 1 ? "" : "s", tokens, tokens == 1 ? "" : "s",
                                  with_tokens == 1 ? "it" : "they"));
    out.push_back(fmt::format("the simulation ran out of events with {}", fmt::join(parts, "; ")));
    size_t shown = 0;
    for (const auto& u : sum.unfinished) {
      if (shown++ == SimSummary::kMaxIncompleteLines) {
        out.push_back(fmt::format("... and {} more", sum.unfinished.size() - SimSummary::kMaxIncompleteLines));
        break;
      }
      const uint32_t t = u.task.value();
      std::string where;
      if (u.state == TaskState::kNotStarted) {
        where = "never started: it is \"start\": \"forked\" and no task executed a fork of it";
      } else if (u.state == TaskState::kBlocked && u.before_start) {
        where = "blocked since the start (\"start\": \"blocked\"), never woken, before action 0";
      } else if (u.state == TaskState::kBlocked) {
        where = fmt::format("blocked at {}, never woken", action_label(t, u.pc));
        const auto& loops = prog[t].loops;
        if (!loops.empty())
          where += fmt::format(" (in the loop closed at action {}, {} more iteration{} after this one)",
                               loops.back().at, loops.back().left, loops.back().left == 1 ? "" : "s");
      } else {
        where = "exited";
      }
      if (u.tokens > 0) where += fmt::format("{} {} wake token{} never consumed", u.state == TaskState::kExited ? " with" : "; holds",
                                              u.tokens, u.tokens == 1 ? "" : "s");
      out.push_back(fmt::format("{}: {}", task_label(t), where));
    }
  }
  if (!out.empty()) sum.complete = false;
}

Simulation::Simulation(const Workload& w, const Topology& t, PolicyStack policies, CostModel cost, SimConfig cfg)
    : impl_(std::make_unique<Impl>(w, t, std::move(policies), std::move(cost), cfg)) {
  for (const auto& spec : w.tasks)
    if (!spec.affinity.empty() && !spec.affinity.is_subset_of(t.all_cpus()))
      throw InputError(SourceLoc{w.source}, "task '" + spec.name + "' has affinity " + spec.affinity.to_cpulist() +
                                                " outside the machine's CPUs " + t.all_cpus().to_cpulist());
  for (const auto& spec : w.tasks)
    if (spec.initial_cpu >= static_cast<int32_t>(t.nr_cpus()))
      throw InputError(SourceLoc{w.source}, "task '" + spec.name + "' starts on CPU " + std::to_string(spec.initial_cpu) +
                                                " but topology '" + t.name() + "' has " + std::to_string(t.nr_cpus()) + " CPUs");
}

Simulation::~Simulation() = default;

void Simulation::add_observer(Observer* o) { impl_->obs.push_back(o); }

void Simulation::set_poll(std::function<void(Instant, uint64_t)> poll) { impl_->poll = std::move(poll); }

SimSummary Simulation::run() { return impl_->run_all(); }

const SchedState& Simulation::state() const { return impl_->s; }

const char* to_string(PreemptModel m) {
  switch (m) {
    case PreemptModel::kFull: return "full";
    case PreemptModel::kNone: return "none";
    case PreemptModel::kVoluntary: return "voluntary";
    case PreemptModel::kLazy: return "lazy";
  }
  return "?";
}

bool parse_preempt_model(std::string_view s, PreemptModel& out) {
  for (PreemptModel m : {PreemptModel::kFull, PreemptModel::kNone, PreemptModel::kVoluntary, PreemptModel::kLazy})
    if (s == to_string(m)) {
      out = m;
      return true;
    }
  return false;
}

const char* to_string(UpdateCurr u) {
  switch (u) {
    case UpdateCurr::kActions: return "actions";
    case UpdateCurr::kEvents: return "events";
  }
  return "?";
}

bool parse_update_curr(std::string_view s, UpdateCurr& out) {
  for (UpdateCurr u : {UpdateCurr::kActions, UpdateCurr::kEvents})
    if (s == to_string(u)) {
      out = u;
      return true;
    }
  return false;
}

}  // namespace schedsim
