// The segment advance: a CPU whose running task goes from run to run through steps that change
// nothing but its own state and tokens passes those completions without an event each (private
// to engine/src; bench/README.md, "Segment advance").
//
// In a messaging run most events are such steps: a receiver that holds banked wakes (tokens)
// finishing one read's run, passing its next block() with a token and starting the next run; a
// sender finishing a write's run, waking a receiver that is running or queued (the wake only
// banks a token) and starting the next write. When a task's next actions are such steps,
// try_stretch() computes their completion times at the CPU's rate (each rounded up as
// plan_completion() rounds it) and plans one kRunDone for the last. The ones before it are
// folded: settle() applies them the first time anything reads or changes that CPU, or when the
// stretch must end, and at its planned event at the latest, each as on_run_done() and advance()
// would have (the run's accounting, the step, the next run's work); a row of equal runs that is
// the rest of a loop of (block, run) is applied at once (the loop counter,
// update_curr_repeat(), one on_run() and one on_tokens_consumed() for the row).
//
// Why the result is byte for byte the engine's without it (SCHEDSIM_ENGINE_SEGMENT=0; ctest
// engine.ab-segment, engine.ab-segment-channels and the engine_ab fuzz target check it):
// - What a folded completion changes is its CPU's: curr's work and progress, the queue's
//   update_curr() (only while the queue says it is local there, QueuePolicy::update_curr_is_local:
//   CFS always, EEVDF while curr is alone), curr's program, tokens and sum_exec, and the work
//   totals. Everything that reads those goes through update_progress() or settle_if() first:
//   the tick, an enqueue on the CPU or of a task that last ran there (CFS re-bases a migrating
//   wakee on its old queue's min_vruntime), a migration from or to it, schedule(), the
//   reschedule IPI, an SMT sibling's rate change, and the end of the run. What placement and
//   balance read of another CPU (curr, nr_running, idle state, PELT signals, the queued tasks)
//   no folded completion changes.
// - The one change outside the CPU is a banked wake: the wakee's token count. Only the wakee
//   reads it, at a block() it has no token for (advance()): catch_up() first applies the
//   completions due by then of every stretch that banks for it (bank_cpus), so the block sees
//   the tokens the plain engine had banked. A wake banks only while its wakee is running or
//   queued (banks_to()); a wakee leaves that state only by blocking or exiting (leave_cpu(),
//   do_exit()), and then unbank() settles each stretch with a wake for it still to come, which
//   then runs as a real event: a wakeup, or nothing for an exited task.
// - Order: events of one instant run in push order, ticks after all others. A folded completion
//   was pushed, in the plain engine, when the run before it completed, so after every event
//   pending when the stretch began: settle() and catch_up() from a non-tick event apply only
//   completions before now (the event at now came first), from a tick or at the end those at
//   now as well (due()). An event pushed during the stretch for a folded completion's instant
//   would come after it: push() settles that stretch first (split_ties()), so the completion is
//   planned before the new event. Two stretches never share an instant (try_stretch() stops
//   before the first completion another stretch has), so their order never matters. tie_count
//   finds the stretch of an instant by a hash of the time (stretch_at()).
// - Observers see the folded completions' on_run() and on_token() (consumed and banked) late,
//   with their own times (a row: at its last). The metrics collector sums them; it is
//   order-free while every task is measured, so stretches are off with background tasks. They
//   are off with jitter too (each run draws from the one seeded generator, in event order),
//   with max_events (the count would stop elsewhere), and with the engine's debug log
//   (log_banked_wake() reads a task's work).
// - Events: each folded completion counts as the event it replaces. A stretch settled before its
//   end leaves its planned kRunDone stale; that one (a phantom) is dropped uncounted when it
//   comes up, and the clock does not move to it.
//
// - Channel reads and writes (only with SCHEDSIM_ENGINE_SEGMENT=channels): a write that finds
//   room and a read that finds data, when neither wakes anybody, are steps too. The task's side
//   (its program moves on) is folded with the stretch; the channel's side is queued on the
//   channel (ChannelTable::fold_add()) and applied in time order before the channel's next real
//   operation (channel_op()) or the next plan that reads it (chan_may_fold()), since a channel's
//   state depends on the order of its reads and writes. What may be folded is bounded per
//   channel by the queued operations (ChannelTable::may_fold(): room for the writes, bytes for
//   the reads, nobody waiting whom they would wake), so each keeps its outcome whatever comes
//   before it; a real operation that breaks a bound settles the stretches holding queued ones
//   (chan_check()), and those run as events. Exact (engine.ab-segment-channels), but not the
//   default: it folds 64-70% of the events of the channel model and runs no faster there
//   (bench/README.md, "Segment advance").
//
// Not folded: steps with a syscall boundary, recorded wake pairs, and a wake or channel
// operation whose recorded cost is credited (replay_wakes=modelled).
#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "schedsim/base/assert.hpp"
#include "schedsim/topology/cpu_mask.hpp"
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
  // Channel reads and writes are folded only when asked (bench/README.md, "Segment advance":
  // exact, but on the messaging seeds no faster than the plain engine).
  seg_channels = segment && env != nullptr && std::string_view(env) == "channels";
  if (!segment) {
    log->info("segment advance off ({}): every completion is an event", off);
    return;
  }
  static_assert(CpuMask::kMaxCpus < UINT16_MAX, "TieSlot::cpus holds a CPU number + 1");
  tie_count.assign(size_t{1} << kTieBits, TieSlot{});
  stretch_pos.assign(topo.nr_cpus(), 0);
  phantom.assign(topo.nr_cpus(), {});
  bank_cpus.assign(w.tasks.size(), {});
}

// A channel read or write t's folded step may make: one whose outcome is fixed (it completes
// and wakes nobody) under the channel's bounds (ChannelTable::may_fold()), with the same kind of
// operation on the channel the stretch being planned already holds (chops[0, nc)) counted in.
// A recorded wake it stands for would be credited (replay_wakes=modelled): not folded.
bool Simulation::Impl::chan_may_fold(uint32_t t, const Action& a, const Stretch& st, uint32_t nc) {
  if (a.reserved != 0 && cost.replay_wakes == ReplayWakes::kModelled) return false;
  // The channel's folded operations due by now first: the bounds then count only those to come
  // (and its queue stays short).
  const auto c = static_cast<size_t>(a.arg);
  if (!chans.folded(c).empty()) chans.apply_folded(c, s.now.ns(), ticking);
  int64_t more = chans.units(a);
  for (uint32_t i = 0; i < nc; ++i)
    if (st.chops[i].a->arg == a.arg && st.chops[i].a->kind == a.kind) more += chans.units(*st.chops[i].a);
  return chans.may_fold(t, a, more);
}

// A wake t's folded step may bank (do_wake()'s token path): a plain wake of another task that
// is running or queued. It stays so until it blocks or exits, and both end this stretch first
// (unbank()), so the wake banks whenever it comes.
bool Simulation::Impl::banks_to(uint32_t t, const Action& a) const {
  const uint32_t u = a.task().value();
  if (u == t || a.body != 0 || (a.reserved != 0 && cost.replay_wakes == ReplayWakes::kModelled)) return false;
  const TaskState st = s.tasks[u].state;
  return st == TaskState::kRunning || st == TaskState::kRunnable;
}

// Called where advance() would plan the completion of the run t just started (or resumed) on
// cpu: folds the steps that follow it, if any. A step is the actions between two runs that leave
// nothing but the task's own state and tokens changed: blocks its tokens pass (a receiver) and
// wakes that bank (a sender, banks_to()), and channel reads and writes whose outcome is fixed
// (chan_may_fold()). False: plan it as usual.
bool Simulation::Impl::try_stretch(uint32_t t, uint32_t cpu) {
  Prog& pr = prog[t];
  SCHEDSIM_DASSERT(may_stretch(pr), "try_stretch() for task{} that may_stretch() rules out", t);
  const Action* code = pr.code;
  const size_t pc = pr.pc;
  const ActionKind next = code[pc].kind;
  const CpuRun& r = run[cpu];
  if (pr.in_syscall || pr.wake_credit != 0 || r.need_resched || r.resched_deferred || r.resched_ipi_pending ||
      !pol.queue->update_curr_is_local(s, CpuId(cpu)))
    return false;
  auto runs = [&](const Action* ra) {
    return ra->arg > 0 && (ra->flags & kRunSyscall) == 0 &&
           (ra->body == 0 || cost.replay_overheads != ReplayOverheads::kMigrationDelta);
  };
  const bool row = next == ActionKind::kLoop && pr.tokens > 0 && !pr.loops.empty() && pr.loops.back().at == pc &&
                   pc >= 2 && code[pc].body == 2 && code[pc - 2].kind == ActionKind::kBlock && code[pc - 2].body == 0 &&
                   code[pc - 1].kind == ActionKind::kRun && runs(&code[pc - 1]);
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
  // ends[0], the run in progress's completion, costs a division: taken once a step is known to
  // follow it (most stretches that fail, fail at their first step).
  uint32_t n = 1, nbanks = 0, nchops = 0;
  int64_t at = 0;
  auto start = [&] {
    const detail::i128 first = detail::wall_to_done(pr.work.left(), rate);
    if (first > limit - now) return false;
    ends[0] = at = now + static_cast<int64_t>(first);
    return true;
  };
  st.row = row;
  if (row) {
    if (!start()) return false;
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
    int64_t tokens = pr.tokens;
    int64_t arg = -1;
    detail::i128 d = 0;
    while (n < kMaxWalk) {
      // The step after completion n - 1, up to its run.
      const Action* ra = nullptr;
      uint32_t nb = nbanks, nc = nchops;
      for (int k = 0; k < kMaxLocal; ++k) {
        const Action* a = next_action(walk);
        if (a == nullptr) break;
        if (a->kind == ActionKind::kRun) {
          ra = a;
          break;
        }
        if (a->kind == ActionKind::kBlock && a->body == 0 && tokens > 0) {
          --tokens;
        } else if (a->kind == ActionKind::kWake && nb < kMaxBanks && banks_to(t, *a)) {
          st.banks[nb++] = Stretch::Bank{n - 1, a->task().value()};
        } else if ((a->kind == ActionKind::kWrite || a->kind == ActionKind::kRead) && seg_channels &&
                   nc < kMaxChanOps && chan_may_fold(t, *a, st, nc)) {
          st.chops[nc++] = Stretch::ChanOp{n - 1, a};
        } else {
          break;
        }
        ++walk.pc;
      }
      if (ra == nullptr || !runs(ra) || (n == 1 && !start())) break;
      ++walk.pc;
      if (ra->arg != arg) {  // runs of one length take one wall time: one division per length
        arg = ra->arg;
        d = detail::wall_to_done(static_cast<detail::i128>(arg) * kScale, rate);
      }
      if (d > limit - at) break;
      at += static_cast<int64_t>(d);
      ends[n++] = at;
      nbanks = nb;
      nchops = nc;
    }
  }
  if (n < 2) return false;
  // Cut before the first completion another stretch has too; the ones kept enter tie_count.
  size_t keep = n;
  for (size_t i = 0; i < keep; ++i) {
    if (stretch_at(ends[i]) >= 0) {
      keep = i;
      break;
    }
    tie_add(ends[i], cpu);
  }
  if (keep < 2) {
    for (size_t i = 0; i < keep; ++i) tie_remove(ends[i], cpu);
    return false;
  }
  st.count = static_cast<uint32_t>(keep);
  st.done = 0;
  // The banks of the steps kept (the last completion's step is the planned event's).
  while (nbanks > 0 && st.banks[nbanks - 1].after + 1 >= keep) --nbanks;
  st.nbanks = nbanks;
  for (uint32_t i = 0; i < nbanks; ++i) {
    auto& l = bank_cpus[st.banks[i].task];
    if (std::find(l.begin(), l.end(), cpu) == l.end()) l.push_back(cpu);
  }
  while (nchops > 0 && st.chops[nchops - 1].after + 1 >= keep) --nchops;
  st.nchops = nchops;
  for (uint32_t i = 0; i < nchops; ++i)
    chans.fold_add(ChannelTable::Folded{ends[st.chops[i].after], cpu, t, st.chops[i].a});
  // No other stretch shares its time (checked above): pushed without push()'s tie check.
  enqueue_event(Instant::from_ns(st.last()), Ev::kRunDone, cpu, 0, ++run[cpu].done_gen);
  st.on = true;
  st.task = t;
  stretch_pos[cpu] = static_cast<uint32_t>(stretch_cpus.size());
  stretch_cpus.push_back(cpu);
  ++seg_stretches;
  return true;
}

// The index of cpu's first folded completion not yet due: those before now are, and those at now
// too from a tick or at the end. A completion at now itself comes after the event being handled,
// which was pushed before the stretch began (one pushed since would have split it), unless that
// event is a tick.
size_t Simulation::Impl::due(const Stretch& st) const {
  const size_t last = st.count - 1;
  size_t n = st.done;
  while (n < last && is_due(st.ends[n])) ++n;
  return n;
}

// A real read or write of channel c may have broken the bounds under which the folded ones
// pending on it keep their outcome (a task now waits in it, or it holds more or fewer bytes):
// then the stretches holding them are settled, and those operations run as events.
void Simulation::Impl::chan_check(size_t c) {
  // Called after apply_folded(): the operations still queued are all after now, in completions
  // not folded yet, and settle() drops them.
  const auto& l = chans.folded(c);
  if (chans.fold_safe(c)) return;
  while (!l.empty()) {
    const uint32_t cpu = l.back().cpu;
    SCHEDSIM_ASSERT(stretch[cpu].on, "channel {} holds a folded operation of cpu{}'s ended stretch after now", c, cpu);
    settle(cpu);
  }
}

// Applies cpu's folded completions up to now (all of them at the stretch's planned event) and
// ends the stretch; if one is still to come, the run in progress gets its own kRunDone.
void Simulation::Impl::settle(uint32_t cpu) {
  Stretch& st = stretch[cpu];
  const Instant now = s.now;
  const size_t n = due(st);
  end_stretch(cpu, n);
  if (n > st.done) fold(cpu, st.done, n);
  s.now = now;
  if (n < st.count - 1) {
    phantom[cpu].push_back(run[cpu].done_gen);
    ++nr_phantoms;
    push(Instant::from_ns(st.ends[n]), Ev::kRunDone, cpu, 0, ++run[cpu].done_gen);
  }
}

// t is at a block with no token: the stretches that bank wakes for it apply their completions
// due by now (the plain engine had banked those before this block), and go on.
void Simulation::Impl::catch_up(uint32_t t) {
  const Instant now = s.now;
  auto& l = bank_cpus[t];
  for (size_t i = 0; i < l.size();) {
    const uint32_t c = l[i];
    Stretch& st = stretch[c];
    const size_t n = due(st);
    if (n > st.done) {
      fold(c, st.done, n);
      s.now = now;
      st.done = static_cast<uint32_t>(n);
      // Only the planned completion left: it is a plain one now.
      if (n == st.count - 1) end_stretch(c, n);
    }
    if (i < l.size() && l[i] == c) ++i;
  }
}

// t blocks or exits: a wake a stretch banks for it later would find it asleep (a wakeup) or gone
// (ignored), so each stretch with one still to come is settled, and its step runs as an event.
void Simulation::Impl::unbank(uint32_t t) {
  const auto& l = bank_cpus[t];
  for (size_t i = 0; i < l.size();) {
    const Stretch& st = stretch[l[i]];
    bool ahead = false;
    for (uint32_t b = 0; b < st.nbanks; ++b) ahead = ahead || (st.banks[b].task == t && st.banks[b].after >= st.done);
    if (ahead) {
      settle(l[i]);  // its push may settle others too, each leaving the list: look again
      i = 0;
    } else {
      ++i;
    }
  }
}

// Completions [from, to) of cpu's stretch, each what on_run_done() and advance() do for a run
// whose next actions are a step try_stretch() checked: the run's update_progress(), the step,
// the next run's work. The first may end charged overhead too and is accounted alone; after it,
// a row of runs of one length and wall time is accounted at once (the queue's
// update_curr_repeat(), one on_run() for the row).
void Simulation::Impl::fold(uint32_t cpu, size_t from, size_t to) {
  const Stretch& st = stretch[cpu];
  const uint32_t t = st.task;
  const size_t n = to - from;
  const int64_t* ends = st.ends.data();
  // Quiet under kEvents only: the next action is a block or a wake, not a run across a syscall
  // boundary (on_run_done()).
  const bool quiet = cfg.update_curr == UpdateCurr::kEvents;
  const uint64_t before = sum.events;
  sum.events += n;
  seg_folded += n;
  s.now = Instant::from_ns(ends[from]);
  account(cpu, quiet);
  if (st.row) {
    // n passes through the loop of (block, run): pc stays at the loop action.
    Prog& pr = prog[t];
    pr.loops.back().left -= static_cast<int64_t>(n);
    pr.tokens -= static_cast<int64_t>(n);
    const detail::i128 work = static_cast<detail::i128>(st.run_ns) * kScale;
    pr.work.work_left = work;
    work_expected_scaled += work * static_cast<int64_t>(n);
    for (auto* o : obs) o->on_tokens_consumed(Instant::from_ns(ends[to - 1]), TaskId(t), n);
    if (n > 1)
      account_runs(cpu, t, static_cast<int64_t>(n) - 1, Duration::ns(ends[from + 1] - ends[from]), st.run_ns,
                   Instant::from_ns(ends[to - 1]), quiet);
  } else {
    const Stretch::Bank* bank = st.banks.data();
    const Stretch::Bank* bank_end = bank + st.nbanks;
    while (bank != bank_end && bank->after < from) ++bank;
    int64_t cur = fold_step(t, ends[from], bank, bank_end, from);
    for (size_t i = from + 1; i < to;) {
      const int64_t c = cur, d = ends[i] - ends[i - 1];
      int64_t k = 0;
      do {
        ++k;
        cur = fold_step(t, ends[i], bank, bank_end, i);
        ++i;
      } while (i < to && cur == c && ends[i] - ends[i - 1] == d);
      account_runs(cpu, t, k, Duration::ns(d), c, Instant::from_ns(ends[i - 1]), quiet);
    }
  }
  if (poll && before / Simulation::kPollEvery != sum.events / Simulation::kPollEvery) poll(s.now, sum.events);
}

// Step i of t's stretch, at `at` (advance()): the blocks its tokens pass, the wakes it banks
// (bank points at the stretch's first bank not yet applied), then the run; returns its length.
int64_t Simulation::Impl::fold_step(uint32_t t, int64_t at, const Stretch::Bank*& bank,
                                    [[maybe_unused]] const Stretch::Bank* bank_end,
                                    [[maybe_unused]] size_t i) {
  Prog& pr = prog[t];
  for (;;) {
    const Action* a = pr.fetch();
    SCHEDSIM_DASSERT(a != nullptr, "folded step of task{} past its program", t);
    switch (a->kind) {
      case ActionKind::kBlock:
        SCHEDSIM_DASSERT(pr.tokens > 0, "folded block of task{} without a token", t);
        --pr.tokens;
        ++pr.pc;
        for (auto* o : obs) o->on_token(Instant::from_ns(at), TaskId(t), true);
        break;
      case ActionKind::kWake: {
        const uint32_t u = a->task().value();
        SCHEDSIM_DASSERT(bank != bank_end && bank->after == i && bank->task == u, "folded wake of task{} unplanned", t);
        SCHEDSIM_DASSERT(s.tasks[u].state == TaskState::kRunning || s.tasks[u].state == TaskState::kRunnable,
                         "folded wake of task{} finds task{} asleep", t, u);
        ++bank;
        ++pr.pc;
        ++prog[u].tokens;
        ++seg_banked;
        note_banked(u, Instant::from_ns(at));
        break;
      }
      case ActionKind::kRun: {
        SCHEDSIM_DASSERT(a->arg > 0, "folded run of task{}", t);
        const detail::i128 work = static_cast<detail::i128>(a->arg) * kScale;
        pr.work.work_left = work;
        work_expected_scaled += work;
        ++pr.pc;
        return a->arg;
      }
      case ActionKind::kWrite:
      case ActionKind::kRead:
        // The channel's side is queued on it (ChannelTable::apply_folded()).
        ++pr.pc;
        ++seg_chanops;
        break;
      default:
        SCHEDSIM_UNREACHABLE("a folded step holds an action try_stretch() does not fold");
    }
  }
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

// Ends cpu's stretch, whose first `folded` completions are (or are being) folded: the channel
// operations of the steps after them will run as events.
void Simulation::Impl::end_stretch(uint32_t cpu, size_t folded) {
  Stretch& st = stretch[cpu];
  st.on = false;
  for (uint32_t i = 0; i < st.count; ++i) tie_remove(st.ends[i], cpu);
  const uint32_t pos = stretch_pos[cpu];
  SCHEDSIM_DASSERT(pos < stretch_cpus.size() && stretch_cpus[pos] == cpu, "stretch of cpu{} not listed", cpu);
  stretch_cpus[pos] = stretch_cpus.back();
  stretch_pos[stretch_cpus[pos]] = pos;
  stretch_cpus.pop_back();
  for (uint32_t i = 0; i < st.nbanks; ++i) {
    auto& l = bank_cpus[st.banks[i].task];
    const auto b = std::find(l.begin(), l.end(), cpu);
    if (b != l.end()) {
      *b = l.back();
      l.pop_back();
    }
  }
  for (uint32_t i = 0; i < st.nchops; ++i) {
    const Stretch::ChanOp& op = st.chops[i];
    if (op.after >= folded) chans.fold_drop(st.ends[op.after], cpu, *op.a);
  }
  st.nchops = 0;
}

// A non-tick event is about to be pushed for `at`: every stretch with a folded completion then
// is settled first.
void Simulation::Impl::split_ties(Instant at) {
  // settle() removes the stretch, and may settle others through its own push.
  for (int64_t c; (c = stretch_at(at.ns())) >= 0;) settle(static_cast<uint32_t>(c));
}

// The CPU whose stretch has a completion at `at` (two never share one), or -1.
int64_t Simulation::Impl::stretch_at(int64_t at) const {
  const TieSlot& slot = tie_count[tie_slot(at)];
  if (slot.count == 0) return -1;
  auto has = [&](uint32_t c) { return stretch[c].on && std::binary_search(stretch[c].begin(), stretch[c].end(), at); };
  if (slot.count == 1) {
    const uint32_t c = slot.cpus - 1U;  // the one CPU of the slot
    return c < stretch.size() && has(c) ? static_cast<int64_t>(c) : int64_t{-1};
  }
  for (uint32_t c : stretch_cpus)
    if (has(c)) return c;
  return -1;
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
