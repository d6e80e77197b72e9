// The segment advance: a CPU whose running task consumes banked wakes goes through its
// completions without an event each (private to engine/src; bench/README.md, "Segment advance").
//
// In a messaging run a large share of events is a receiver that holds banked wakes (tokens)
// finishing one read's run, passing its next block() with a token and starting the next run:
// nothing leaves its CPU. When a task's next actions are such (token block, run) pairs,
// try_stretch() computes their completion times at the CPU's rate (each rounded up as
// plan_completion() rounds it) and plans one kRunDone for the last. The ones before it are
// folded: settle() applies them the first time anything reads or changes that CPU, or when the
// stretch must end, and at its planned event at the latest, each as on_run_done() and advance()
// would have (the run's accounting, the token, the next run's work); a row of equal runs that
// is the rest of a loop is applied at once (the loop counter, update_curr_repeat(), one
// on_run() and one on_tokens_consumed() for the row).
//
// Why the result is byte for byte the engine's without it (SCHEDSIM_ENGINE_SEGMENT=0; ctest
// engine.ab-segment and the engine_ab fuzz target check it):
// - What a folded completion changes is its CPU's: curr's work and progress, the queue's
//   update_curr() (only while the queue says it is local there, QueuePolicy::update_curr_is_local:
//   CFS always, EEVDF while curr is alone), curr's program, tokens and sum_exec, and the work
//   totals. Everything that reads those goes through update_progress() or settle_if() first:
//   the tick, an enqueue on the CPU or of a task that last ran there (CFS re-bases a migrating
//   wakee on its old queue's min_vruntime), a migration from or to it, schedule(), the
//   reschedule IPI, an SMT sibling's rate change, and the end of the run. What placement and
//   balance read of another CPU (curr, nr_running, idle state, PELT signals, the queued tasks)
//   no folded completion changes.
// - Order: events of one instant run in push order, ticks after all others. A folded completion
//   was pushed, in the plain engine, when the run before it completed, so after every event
//   pending when the stretch began: settle() from a non-tick event applies only completions
//   before now (the event at now came first), from a tick or at the end those at now as well.
//   An event pushed during the stretch for a folded completion's instant would come after it:
//   push() settles that stretch first (split_ties()), so the completion is planned before the
//   new event. Two stretches never share an instant (try_stretch() stops before the first
//   completion another stretch has), so their order never matters. tie_count finds candidates
//   for both checks by a hash of the time.
// - Observers see the folded completions' on_run() and on_token() late, with their own times
//   (a row: at its last). The metrics collector sums them; it is order-free while every task is
//   measured, so stretches are off with background tasks. They are off with jitter too (each
//   run draws from the one seeded generator, in event order), with max_events (the count would
//   stop elsewhere), and with the engine's debug log (log_banked_wake() reads a task's work).
// - Events: each folded completion counts as the event it replaces. A stretch settled before its
//   end leaves its planned kRunDone stale; that one (a phantom) is dropped uncounted when it
//   comes up, and the clock does not move to it.
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "schedsim/base/assert.hpp"
#include "simulation_impl.hpp"

namespace schedsim {

using detail::kScale;

void Simulation::Impl::init_segment() {
  stretch.assign(topo.nr_cpus(), Stretch{});
  const char* env = std::getenv("SCHEDSIM_ENGINE_SEGMENT");
  const char* off = env != nullptr && std::string_view(env) == "0" ? "SCHEDSIM_ENGINE_SEGMENT=0"
                    : nr_background > 0                           ? "background tasks"
                    : cfg.jitter_permille > 0                      ? "jitter"
                    : cfg.max_events != UINT64_MAX                 ? "an event limit"
                    : log->should_log(spdlog::level::debug)        ? "the engine's debug log"
                                                                   : nullptr;
  segment = off == nullptr;
  if (!segment) {
    log->info("segment advance off ({}): every completion is an event", off);
    return;
  }
  tie_count.assign(size_t{1} << kTieBits, 0);
  phantom.assign(topo.nr_cpus(), {});
}

// Called where advance() would plan the completion of the run t just started (or resumed) on
// cpu: folds the (token block, run) pairs that follow it, if any. False: plan it as usual.
bool Simulation::Impl::try_stretch(uint32_t t, uint32_t cpu) {
  Prog& pr = prog[t];
  const CpuRun& r = run[cpu];
  if (pr.tokens <= 0 || pr.in_syscall || pr.wake_credit != 0 || r.need_resched || r.resched_deferred ||
      r.resched_ipi_pending || !pol.queue->update_curr_is_local(s, CpuId(cpu)))
    return false;
  // The next action: a block (a walk checks what follows), or the loop action closing a loop of
  // (block, run) whose remaining iterations are a row; anything else ends the stretch at once.
  const Action* code = pr.code;
  const size_t pc = pr.pc;
  if (pc >= pr.code_size || (code[pc].kind != ActionKind::kBlock && code[pc].kind != ActionKind::kLoop)) return false;
  auto folds = [&](const Action* b, const Action* ra) {
    return b->kind == ActionKind::kBlock && b->body == 0 && ra->kind == ActionKind::kRun && ra->arg > 0 &&
           (ra->flags & kRunSyscall) == 0 && (ra->body == 0 || cost.replay_overheads != ReplayOverheads::kMigrationDelta);
  };
  const bool row = code[pc].kind == ActionKind::kLoop && !pr.loops.empty() && pr.loops.back().at == pc && pc >= 2 &&
                   code[pc].body == 2 && folds(&code[pc - 2], &code[pc - 1]);
  const int64_t rate = r.acct.rate;
  const int64_t now = s.now.ns();
  // Up to the CPU's next tick (it would settle the stretch) and the simulated-time limit (the
  // plain engine's error for a run past it comes from plan_completion()). A tick pending at now
  // itself (now on a tick boundary) leaves no room, which only costs this stretch.
  const int64_t tick = cost.tick.count();
  int64_t limit = cfg.max_time.ns();
  if (tick > 0) limit = std::min(limit, (now + tick - 1) / tick * tick);
  Stretch& st = stretch[cpu];
  int64_t* ends = st.ends.data();
  uint32_t n = 0;
  const detail::i128 first = detail::wall_to_done(pr.work.left(), rate);
  if (first > limit - now) return false;
  int64_t at = now + static_cast<int64_t>(first);
  ends[n++] = at;
  st.row = row;
  if (row) {
    // Its remaining iterations, no walk needed.
    st.run_ns = code[pc - 1].arg;
    const detail::i128 d128 = detail::wall_to_done(static_cast<detail::i128>(st.run_ns) * kScale, rate);
    if (d128 > limit - at) return false;
    const auto d = static_cast<int64_t>(d128);
    const int64_t room = std::min<int64_t>((limit - at) / d, kMaxStretch - 1);
    const int64_t k = std::min({pr.loops.back().left, pr.tokens, room});
    for (int64_t i = 0; i < k; ++i) ends[n++] = at += d;
  } else {
    walk.code = pr.code;
    walk.code_size = pr.code_size;
    walk.pc = pr.pc;
    walk.loops.assign(pr.loops.begin(), pr.loops.end());
    int64_t arg = -1;
    detail::i128 d = 0;
    for (int64_t tokens = pr.tokens; tokens > 0 && n < kMaxStretch; --tokens) {
      const Action* b = next_action(walk);
      if (b == nullptr || b->kind != ActionKind::kBlock) break;
      ++walk.pc;
      const Action* ra = next_action(walk);
      if (ra == nullptr || !folds(b, ra)) break;
      ++walk.pc;
      if (ra->arg != arg) {  // runs of one length take one wall time: one division per length
        arg = ra->arg;
        d = detail::wall_to_done(static_cast<detail::i128>(arg) * kScale, rate);
      }
      if (d > limit - at) break;
      at += static_cast<int64_t>(d);
      ends[n++] = at;
    }
  }
  if (n < 2) return false;
  // Cut before the first completion another stretch has too; the ones kept enter tie_count.
  size_t keep = n;
  for (size_t i = 0; i < keep; ++i) {
    uint16_t& slot = tie_count[tie_slot(ends[i])];
    if (slot != 0) {
      bool shared = false;
      for (uint32_t c : stretch_cpus)
        shared = shared || std::binary_search(stretch[c].begin(), stretch[c].end(), ends[i]);
      if (shared) {
        keep = i;
        break;
      }
    }
    ++slot;
  }
  if (keep < 2) {
    for (size_t i = 0; i < keep; ++i) --tie_count[tie_slot(ends[i])];
    return false;
  }
  st.count = static_cast<uint32_t>(keep);
  // No other stretch shares its time (checked above): pushed without push()'s tie check.
  enqueue_event(Instant::from_ns(st.last()), Ev::kRunDone, cpu, 0, ++run[cpu].done_gen);
  st.on = true;
  st.task = t;
  stretch_cpus.push_back(cpu);
  ++seg_stretches;
  return true;
}

// Applies cpu's folded completions up to now (all of them at the stretch's planned event) and
// ends the stretch; if one is still to come, the run in progress gets its own kRunDone.
void Simulation::Impl::settle(uint32_t cpu) {
  Stretch& st = stretch[cpu];
  const Instant now = s.now;
  end_stretch(cpu);
  const size_t last = st.count - 1;
  size_t n = 0;
  // A completion at now itself comes after the event being handled, which was pushed before the
  // stretch began (one pushed since would have split it), unless that event is a tick.
  while (n < last && (st.ends[n] < now.ns() || (ticking && st.ends[n] == now.ns()))) ++n;
  if (n > 0) fold(cpu, n);
  seg_folded += n;
  s.now = now;
  if (n < last) {
    phantom[cpu].push_back(run[cpu].done_gen);
    ++nr_phantoms;
    push(Instant::from_ns(st.ends[n]), Ev::kRunDone, cpu, 0, ++run[cpu].done_gen);
  }
}

// The first n completions of cpu's stretch, each what on_run_done() and advance() do for a run
// whose next actions are a block its tokens pass and another run (try_stretch() checked them):
// the run's update_progress(), the token, the next run's work. The first may end charged
// overhead too and is accounted alone; after it, a row of runs of one length and wall time is
// accounted at once (the queue's update_curr_repeat(), one on_run() for the row).
void Simulation::Impl::fold(uint32_t cpu, size_t n) {
  const Stretch& st = stretch[cpu];
  const uint32_t t = st.task;
  const bool quiet = cfg.update_curr == UpdateCurr::kEvents;  // the next action is a block
  const uint64_t before = sum.events;
  sum.events += n;
  s.now = Instant::from_ns(st.ends[0]);
  account(cpu, quiet);
  if (st.row) {
    // n passes through the loop of (block, run): pc stays at the loop action.
    Prog& pr = prog[t];
    pr.loops.back().left -= static_cast<int64_t>(n);
    pr.tokens -= static_cast<int64_t>(n);
    const detail::i128 work = static_cast<detail::i128>(st.run_ns) * kScale;
    pr.work.work_left = work;
    work_expected_scaled += work * static_cast<int64_t>(n);
    for (auto* o : obs) o->on_tokens_consumed(Instant::from_ns(st.ends[n - 1]), TaskId(t), n);
    if (n > 1)
      account_runs(cpu, t, static_cast<int64_t>(n) - 1, Duration::ns(st.ends[1] - st.ends[0]), st.run_ns,
                   Instant::from_ns(st.ends[n - 1]), quiet);
    if (poll && before / Simulation::kPollEvery != sum.events / Simulation::kPollEvery) poll(s.now, sum.events);
    return;
  }
  int64_t cur = fold_token_run(t, st.ends[0]);
  for (size_t i = 1; i < n;) {
    const int64_t c = cur, d = st.ends[i] - st.ends[i - 1];
    int64_t k = 0;
    do {
      ++k;
      cur = fold_token_run(t, st.ends[i]);
      ++i;
    } while (i < n && cur == c && st.ends[i] - st.ends[i - 1] == d);
    account_runs(cpu, t, k, Duration::ns(d), c, Instant::from_ns(st.ends[i - 1]), quiet);
  }
  if (poll && before / Simulation::kPollEvery != sum.events / Simulation::kPollEvery) poll(s.now, sum.events);
}

// The block a banked wake passes and the run after it (advance()); returns the run's length.
int64_t Simulation::Impl::fold_token_run(uint32_t t, int64_t at) {
  Prog& pr = prog[t];
  [[maybe_unused]] const Action* b = pr.fetch();
  SCHEDSIM_DASSERT(b != nullptr && b->kind == ActionKind::kBlock && pr.tokens > 0, "folded block of task{}", t);
  --pr.tokens;
  ++pr.pc;
  for (auto* o : obs) o->on_token(Instant::from_ns(at), TaskId(t), true);
  const Action* a = pr.fetch();
  SCHEDSIM_DASSERT(a != nullptr && a->kind == ActionKind::kRun && a->arg > 0, "folded run of task{}", t);
  const detail::i128 work = static_cast<detail::i128>(a->arg) * kScale;
  pr.work.work_left = work;
  work_expected_scaled += work;
  ++pr.pc;
  return a->arg;
}

// k runs of `c` ns of work, each ending `d` after the previous, the last at `end`: what k
// calls of account() give. Each run's completion consumes exactly its work (its wall time was
// rounded up to cover it); the first call of the row found nothing held back (the completion
// before it was accounted, quiet or not, the same way).
void Simulation::Impl::account_runs(uint32_t cpu, uint32_t t, int64_t k, Duration d, int64_t c, Instant end, bool quiet) {
  CpuRun& r = run[cpu];
  s.now = end;
  r.acct.seg_start = end;
  work_done_scaled += static_cast<detail::i128>(c) * kScale * k;
  const Duration wall = d * k;
  if (quiet) {
    r.unreported += wall;
  } else {
    s.tasks[t].sum_exec += wall;
    pol.queue->update_curr_repeat(s, CpuId(cpu), d, k);
  }
  for (auto* o : obs) o->on_run(end, TaskId(t), CpuId(cpu), wall, Duration::ns(c * k));
}

void Simulation::Impl::end_stretch(uint32_t cpu) {
  Stretch& st = stretch[cpu];
  st.on = false;
  for (uint32_t i = 0; i < st.count; ++i) --tie_count[tie_slot(st.ends[i])];
  const auto it = std::find(stretch_cpus.begin(), stretch_cpus.end(), cpu);
  SCHEDSIM_DASSERT(it != stretch_cpus.end(), "stretch of cpu{} not listed", cpu);
  *it = stretch_cpus.back();
  stretch_cpus.pop_back();
}

// A non-tick event is about to be pushed for `at`: every stretch with a folded completion then
// is settled first.
void Simulation::Impl::split_ties(Instant at) {
  if (tie_count[tie_slot(at.ns())] == 0) return;
  for (size_t i = 0; i < stretch_cpus.size();) {
    const uint32_t c = stretch_cpus[i];
    if (std::binary_search(stretch[c].begin(), stretch[c].end(), at.ns())) {
      settle(c);  // removes c from the list (and may settle others through its own push)
      i = 0;
    } else {
      ++i;
    }
  }
}

// A stale kRunDone that was a settled stretch's planned end: dropped without counting.
bool Simulation::Impl::drop_phantom(const Event& e) {
  auto& gens = phantom[e.a];
  const auto it = std::find(gens.begin(), gens.end(), e.gen);
  if (it == gens.end()) return false;
  *it = gens.back();
  gens.pop_back();
  --nr_phantoms;
  return true;
}

}  // namespace schedsim
