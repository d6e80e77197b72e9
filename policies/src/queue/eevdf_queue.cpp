// `eevdf`: the EEVDF local queue of 6.6+ (docs/sources.md, Run queue and balance).
//
//   V      = min_vruntime + sum_i w_i (v_i - min_vruntime) / sum_i w_i   (curr included)
//   lag_i  = V - v_i, clamped to +-calc_delta_fair(max(2 x slice, TICK), se)
//   eligible(i) <=> sum_j w_j (v_j - min_vruntime) >= (v_i - min_vruntime) x sum_j w_j
//   vd_i   = v_i + calc_delta_fair(slice, se)
//   pick   = the eligible entity with the earliest virtual deadline (pick_eevdf), except that with
//            RUN_TO_PARITY a still-eligible curr keeps the CPU until its deadline is renewed
//
// place_entity(): v = V - lag x (W + w) / W with PLACE_LAG (W = queued weight incl. curr);
// a new task gets vd = v + vslice/2 with PLACE_DEADLINE_INITIAL; PLACE_REL_DEADLINE (6.12) keeps
// a migrating task's deadline relative to its vruntime. Wakeup preemption: update_curr, then
// preempt iff pick_eevdf() returns the wakee; tick preemption only through deadline expiry.
//
// DELAY_DEQUEUE / DELAY_ZERO (6.12, flags): an ineligible sleeper stays queued (weight in V,
// counted in nr_running) until picked (then its dequeue completes and the pick repeats) or woken
// in place (requeue_delayed(); the engine skips select_task_rq, as ttwu_runnable() does).
//
// Custom slices (6.12, 857b158dc5e8): a task that set sched_attr.sched_runtime (TaskSched::
// custom_slice, clamped to 0.1..100 ms as __setscheduler_params() does) keeps that slice, unscaled, at
// every placement and deadline renewal; every other task gets the scaled base slice then.
//
// PREEMPT_SHORT (flag; 6.12, 85e511df3cec "sched/eevdf: Allow shorter slices to wakeup-preempt"):
// a wakee whose slice is shorter than curr's may get past curr's slice protection.
//   6.12-6.16 (`eevdf`, `eevdf-6.15`): check_preempt_wakeup_fair() cancels curr's protection
//     (marker = deadline + 1) when the wakee is eligible and either its deadline is earlier than
//     curr's or curr is no longer eligible (do_preempt_short()); the cancellation stands even if
//     the pick that follows is not the wakee. did_preempt_short(), in update_curr(): with the
//     flag on and others queued, curr is rescheduled at every update that finds it ineligible
//     while its marker differs from its deadline. The marker differs after a cancellation and
//     also after any deadline renewal that no set_next_entity() followed (curr ran alone, or was
//     picked again: see slice protection below), so this acts among equal slices too: such a
//     curr loses the CPU once it is ineligible, not at its deadline (docs/kernel-versions.md,
//     section 2).
//   6.17+ (`eevdf-6.17`; 9de74a9850b9 "sched/fair: Remove spurious shorter slice preemption",
//     052c3d87c82e): a shorter wakee slice alone makes the wakeup check pick without curr's
//     protection; the protection is cancelled only if that pick is the wakee (then it preempts);
//     otherwise, with RUN_TO_PARITY, curr's protection end is pulled in to
//     vprot = min(vprot, v + calc_delta_fair(shortest slice queued, curr included)).
//
// Fork placement, two rules:
//   6.6-6.11 (module `eevdf-6.6`): task_fork_fair() charges the parent's queue (update_curr) and
//     places the child against it with ENQUEUE_INITIAL, but wake_up_new_task() then enqueues the
//     child without that flag and enqueue_entity() places it again (unconditionally since
//     e8f331bcc270, 6.6), against the queue of the CPU it was given: the fork-time values are
//     overwritten before anything reads them, and the child's first request is a full slice,
//     vd = v + vslice. PLACE_DEADLINE_INITIAL therefore changes nothing (Daniel Jordan, LKML
//     20231004011737.188682-1-daniel.m.jordan@oracle.com, a fix not taken). What remains of the
//     fork-time work is the parent's charge: task_fork_reads_queue().
//   6.12+ (`eevdf`, `eevdf-6.15`, `eevdf-6.17`; c40dd90ac045 "sched: Initialize the vruntime of a
//     new task when it is first enqueued", Zhang Qiao, tip sched/core 2024-07-29, after
//     v6.11-rc1): task_fork_fair() no longer touches the queue; wake_up_new_task() passes
//     ENQUEUE_INITIAL, so the first enqueue gives the child half a request, vd = v + vslice/2.
//
// Wakeup preemption, two rules:
//   6.12-6.18 (every module but `eevdf-6.19`): as above; the wake flags are not read.
//   6.19 (`eevdf-6.19`; e837456fdca8 "sched/fair: Reimplement NEXT_BUDDY to align with EEVDF
//     goals", Mel Gorman, LKML 20251112122521.1331238-3-mgorman@techsingularity.net): unless the
//     wakee's slice is shorter (PREEMPT_SHORT, as 6.17), a fork wakeup or a delayed wakee never
//     preempts; with RESCHED_INELIGIBLE (the merged commit; 15257cc2f905 removed it) a check in
//     task context reschedules a curr that is no longer eligible; with NEXT_BUDDY the wakee
//     becomes the rq's next buddy unless the buddy already there has an earlier deadline, and
//     for a new buddy a WF_SYNC wakeup preempts only if the wakee's deadline is earlier than
//     curr's and curr ran sysctl_sched_migration_cost (0.5 ms; a quarter with WF_RQ_SELECTED)
//     since its exec_start, else not at all (preempt_sync()). exec_start is the time of curr's
//     last update_curr(), which the check itself has just run, so that time is 0 and a sync
//     wakeup never preempts here: the wakee waits to be picked as the buddy. Otherwise the
//     pick decides, as before, and __pick_eevdf() returns an eligible next buddy first
//     (PICK_BUDDY, on by default in every EEVDF kernel; only NEXT_BUDDY sets a buddy). A buddy is
//     cleared when it is picked or dequeued. Without RUN_TO_PARITY nothing else changes; with it,
//     a check that does not preempt always pulls curr's protection end in to the shortest queued
//     slice (update_protect_slice(); 6.17 did so only for a shorter wakee). NEXT_BUDDY was on by
//     default from aceccac58ad7 and off again from 4f70f106bca1 (tip sched/urgent 2026-01-23):
//     v6.19 has the restructured check without the buddy.
//
// Simplifications: one level (no groups, so the min_slice propagation of the 6.12 series does
// not arise); delayed tasks are never migrated (the 6.14 rule).
//
// Base slice (sysctl_sched_base_slice, scaled by tunable_factor()): 0.75 ms up to 6.14, 0.70 ms
// from 6.15 (2ae891b82695 "sched: Reduce the default slice to avoid tasks getting an extra
// tick"; also in 6.12.y stable). The module `eevdf-6.15` is this queue with the 0.70 ms slice.
//
// Slice protection (RUN_TO_PARITY), two rules:
//   6.6-6.16 (63304558ba5d): set_next_entity() marks the entity protected until its deadline is
//     renewed (the kernel keeps the marker in the lag field: vlag = deadline). A re-pick of the
//     task that was just running keeps the old marker: 6.12's put_prev_set_next_task()
//     (436f3eed5c69) returns early when next == prev, and pick_next_task_fair()'s cgroup path
//     skips set_next_entity() then (also in 6.6-6.11 with CONFIG_FAIR_GROUP_SCHED).
//   6.17 (module `eevdf-6.17`; series "sched/fair: Manage lag and run to parity with different
//     slices", Vincent Guittot, LKML 20250708165630.1948751-1-vincent.guittot@linaro.org:
//     3a0baa8e6c57, 052c3d87c82e, 0b9ca2dcabc3, 74eec63661d4): when a *different* entity is set
//     running, its protection end is kept in its own field, vprot = min(d, v + q/w) with
//     q = min(shortest slice among the other queued entities, own slice) under RUN_TO_PARITY, or
//     q = min(unscaled base slice, own slice) without it (a minimum quantum instead of none);
//     curr is protected while v < vprot (and eligible), and every update_curr that finds the
//     protection over requests a reschedule while others are queued, not only the one that
//     renews the deadline. A re-pick of the task that was just running keeps its vprot (the
//     kernel does not call set_next_entity() when prev is picked again). Equal slices (every
//     workload without custom slices) give vprot = d: the difference is the reschedule at each
//     update after it.
#include <limits>
#include <set>

#include "queue/tunables.hpp"
#include "features.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim {
namespace {

using queue::calc_delta_fair;
using i128 = Int128;

class EevdfQueue final : public QueuePolicy {
 public:
  /// The slice-protection rule of the modelled version (see the file comment).
  enum class Protect : uint8_t { kDeadlineMarker, kVprot617 };
  /// Where a forked child gets its first placement (see the file comment, "Fork placement").
  enum class Fork : uint8_t { kPlacedAtFork66, kPlacedAtEnqueue612 };
  /// The wakeup preemption check of the modelled version (see the file comment).
  enum class Wake : uint8_t { kPick612, kBuddy619 };

  EevdfQueue(const Features& f, int64_t base_slice_ns, Protect protect = Protect::kDeadlineMarker,
             Fork fork = Fork::kPlacedAtEnqueue612, Wake wake = Wake::kPick612)
      : base_slice_ns_(base_slice_ns), protect_(protect), fork_(fork), wake_(wake), place_lag_(f.get(Feature::PLACE_LAG)),
        deadline_initial_(f.get(Feature::PLACE_DEADLINE_INITIAL)), rel_deadline_(f.get(Feature::PLACE_REL_DEADLINE)),
        run_to_parity_(f.get(Feature::RUN_TO_PARITY)), wakeup_preemption_(f.get(Feature::WAKEUP_PREEMPTION)),
        delay_dequeue_(f.get(Feature::DELAY_DEQUEUE)), delay_zero_(f.get(Feature::DELAY_ZERO)),
        preempt_short_(f.get(Feature::PREEMPT_SHORT)), next_buddy_(f.get(Feature::NEXT_BUDDY)),
        resched_ineligible_(f.get(Feature::RESCHED_INELIGIBLE)) {}

  void attach(SchedState& s) override {
    base_slice_ = base_slice_ns_ * queue::tunable_factor(static_cast<uint32_t>(s.cpus.size()));
    tick_ = s.cost->tick.count();
    rq_.assign(s.cpus.size(), Rq{});
    se_.assign(s.tasks.size(), Se{});
  }

  // 6.6-6.11: task_fork_fair() runs update_curr() on the parent's queue before its (discarded)
  // placement, so the engine charges the parent's CPU at the fork under UpdateCurr::kEvents.
  bool task_fork_reads_queue() const override { return fork_ == Fork::kPlacedAtFork66; }
  // update_curr() asks for a reschedule only with others queued (update_deadline(), the
  // protection and PREEMPT_SHORT checks); alone, it only moves curr's vruntime, deadline and V.
  bool update_curr_is_local(const SchedState&, CpuId cpu) const override { return rq_[cpu.value()].nr <= 1; }

  void task_fork(const SchedState& s, TaskId, TaskId child) override {
    Se& c = se_[child.value()];
    c.weight = s.tasks[child.value()].weight;
    c.custom_slice = custom_slice(s.tasks[child.value()]);
    c.vlag = 0;
    c.is_new = true;
  }

  void enqueue(SchedState& s, CpuId cpu, TaskId p, EnqueueKind kind) override {
    Rq& rq = rq_[cpu.value()];
    Se& se = se_[p.value()];
    se.weight = s.tasks[p.value()].weight;
    se.custom_slice = custom_slice(s.tasks[p.value()]);
    if (kind == EnqueueKind::kNew) se.is_new = true;
    // The engine has charged curr (update_curr) before this call, as enqueue_entity() does
    // before place_entity(): V includes curr's progress up to now.
    place_entity(rq, se);
    se.cpu = cpu.value();
    add(rq, p.value());
    ++rq.nr;
    s.rq(cpu).nr_running = rq.nr;
  }

  void dequeue(SchedState& s, CpuId cpu, TaskId p, DequeueKind kind) override {
    Rq& rq = rq_[cpu.value()];
    Se& se = se_[p.value()];
    // DELAY_DEQUEUE (152e11f6df29): a task going to sleep while not eligible (it ran more than
    // its share) stays queued, its weight still in V, until it is picked or woken. Exits leave.
    if (delay_dequeue_ && kind == DequeueKind::kSleep && s.tasks[p.value()].state != TaskState::kExited &&
        !se.delayed && !eligible(rq, se)) {
      if (rq.curr == p) {
        rq.curr = TaskId();
        insert_tree(rq, p.value());  // stays in the sums
      }
      se.delayed = true;
      ++s.rq(cpu).nr_delayed;
      return;
    }
    // update_entity_lag(): remember how far from fair the entity leaves.
    int64_t limit = calc_delta_fair(std::max<int64_t>(2 * se.slice, tick_), se.weight);
    se.vlag = std::clamp(avg_vruntime(rq) - se.vruntime, -limit, limit);
    // Leave the trees before touching the deadline: it is part of the tree key.
    if (rq.curr == p) {
      rq.curr = TaskId();
      sum_remove(rq, se);
    } else {
      remove(rq, p.value());
    }
    if (rq.last_put == p.value()) rq.last_put = kNone;  // leaving: a later pick is not a re-pick
    if (rq.next == p.value()) rq.next = kNone;          // dequeue_entity(): clear_buddies()
    se.rel_deadline = kind == DequeueKind::kMigrate && rel_deadline_;
    if (se.rel_deadline) se.deadline -= se.vruntime;
    --rq.nr;
    s.rq(cpu).nr_running = rq.nr;
    update_min_vruntime(rq);
  }

  TaskId pick_next(SchedState& s, CpuId cpu) override {
    Rq& rq = rq_[cpu.value()];
    if (rq.curr.valid()) return rq.curr;
    const uint32_t prev = rq.last_put;
    rq.last_put = kNone;
    uint32_t best = pick_eevdf(rq);
    // A delayed entity that gets picked is eligible again: its dequeue completes (with
    // DELAY_ZERO a positive lag is dropped) and the pick is repeated.
    while (best != kNone && se_[best].delayed) {
      finish_delayed_dequeue(s, cpu, best);
      best = pick_eevdf(rq);
    }
    if (best == kNone) return TaskId();
    remove_tree(rq, best);
    rq.curr = TaskId(best);
    if (rq.next == best) rq.next = kNone;  // set_next_entity(): clear_buddies()
    Se& se = se_[best];
    se.exec_start = s.now.ns();
    // set_next_entity() runs only when the task changes: since 6.12 (436f3eed5c69, "sched:
    // Combine the last put_prev_task() and the first set_next_task()") put_prev_set_next_task()
    // returns early when prev is picked again, and the cgroup path of pick_next_task_fair() has
    // always skipped it then. A re-picked curr keeps its marker (6.12-6.16) or vprot (6.17).
    if (best != prev) {
      if (protect_ == Protect::kDeadlineMarker)
        se.vlag = se.deadline;  // set_next_entity(): the RUN_TO_PARITY marker
      else
        set_protect_slice(rq, se);
    }
    return rq.curr;
  }

  void put_prev(const SchedState&, CpuId cpu, TaskId prev) override {
    Rq& rq = rq_[cpu.value()];
    if (rq.curr != prev) return;
    insert_tree(rq, prev.value());
    rq.curr = TaskId();
    rq.last_put = prev.value();
  }

  void update_curr(const SchedState& s, CpuId cpu, Duration delta) override {
    Rq& rq = rq_[cpu.value()];
    if (!rq.curr.valid() || delta.count() <= 0) return;
    Se& se = se_[rq.curr.value()];
    se.exec_start = s.now.ns();
    int64_t dv = calc_delta_fair(delta.count(), se.weight);
    se.vruntime += dv;
    rq.sum_wkey += static_cast<i128>(se.weight) * dv;
    // update_deadline(): a used-up request gets a new slice and deadline, and a reschedule.
    if (se.vruntime >= se.deadline) {
      se.slice = slice_of(se);
      se.deadline = se.vruntime + calc_delta_fair(se.slice, se.weight);
      if (rq.nr > 1) rq.resched = true;
    }
    // 6.17 (0b9ca2dcabc3): a reschedule whenever the protected period is over.
    if (protect_ == Protect::kVprot617 && rq.nr > 1 && se.vruntime >= se.vprot) rq.resched = true;
    // 6.12-6.16 did_preempt_short(), with PREEMPT_SHORT: while others are queued, curr is
    // rescheduled at every update that finds it ineligible with its marker != its deadline.
    // The marker differs after a PREEMPT_SHORT cancellation (deadline + 1) and after any deadline
    // renewal that no set_next_entity() followed (curr ran alone, or was picked again), so this
    // also fires among equal slices.
    if (protect_ == Protect::kDeadlineMarker && preempt_short_ && rq.nr > 1 && se.vlag != se.deadline &&
        !eligible(rq, se))
      rq.resched = true;
    update_min_vruntime(rq);
  }

  bool check_preempt_wakeup(const SchedState& s, CpuId cpu, TaskId wakee, const WakeFlags& flags) override {
    Rq& rq = rq_[cpu.value()];
    if (!rq.curr.valid()) return true;
    if (rq.curr == wakee) return false;
    if (rq.resched) {
      rq.resched = false;
      return true;
    }
    if (!wakeup_preemption_) return false;
    Se& curr = se_[rq.curr.value()];
    const Se& pse = se_[wakee.value()];
    const bool shorter = preempt_short_ && pse.slice < curr.slice;
    if (wake_ == Wake::kBuddy619) return check_preempt_619(s, rq, curr, wakee.value(), flags, shorter);
    if (protect_ == Protect::kDeadlineMarker) {
      // 6.12 do_preempt_short(), then cancel_protect_slice(): marker = deadline + 1.
      if (shorter && eligible(rq, pse) && (pse.deadline < curr.deadline || !eligible(rq, curr)) &&
          curr.vlag == curr.deadline) {
        curr.vlag = curr.deadline + 1;
      }
      return pick_eevdf(rq) == wakee.value();
    }
    // 6.17: the pick decides; curr's protection is shortened only for a shorter wakee.
    return pick_preempts(rq, curr, wakee.value(), shorter, shorter);
  }

  bool check_preempt_tick(const SchedState&, CpuId cpu) override {
    Rq& rq = rq_[cpu.value()];
    bool r = rq.resched;
    rq.resched = false;
    return r && rq.nr > 1;
  }

  bool is_delayed(TaskId p) const override { return p.value() < se_.size() && se_[p.value()].delayed; }

  void requeue_delayed(SchedState& s, CpuId cpu, TaskId p) override {
    Rq& rq = rq_[cpu.value()];
    Se& se = se_[p.value()];
    se.delayed = false;
    --s.rq(cpu).nr_delayed;
    // requeue_delayed_entity(): with DELAY_ZERO an entity that has become owed service (lag > 0)
    // is re-placed at zero lag; otherwise it keeps its vruntime and deadline.
    if (delay_zero_ && avg_vruntime(rq) - se.vruntime > 0) {
      remove(rq, p.value());
      --rq.nr;
      se.vlag = 0;
      place_entity(rq, se);
      add(rq, p.value());
      ++rq.nr;
    }
  }

  void for_each_queued(const SchedState&, CpuId cpu, const std::function<bool(TaskId)>& fn) const override {
    for (const auto& [d, t] : rq_[cpu.value()].by_deadline)
      if (!fn(TaskId(t))) return;
  }

 private:
  static constexpr uint32_t kNone = 0xffffffffu;
  static constexpr int64_t kMigrationCost = 500000;  // sysctl_sched_migration_cost (ns), not scaled
  struct Se {
    int64_t vruntime = 0, deadline = 0, vlag = 0, slice = 0;
    int64_t exec_start = 0;  // when curr was set running or last charged (update_curr())
    int64_t custom_slice = 0;  // se->custom_slice: the clamped sched_runtime, 0 = the base slice
    int64_t vprot = 0;  // 6.17: end of the slice protection (vruntime)
    uint32_t weight = 1024, cpu = 0;
    bool is_new = false, rel_deadline = false;
    bool delayed = false;  // asleep but still queued (DELAY_DEQUEUE)
  };
  struct Rq {
    std::set<std::pair<int64_t, uint32_t>> by_deadline, by_vruntime;  // queued, curr excluded
    TaskId curr;
    int64_t min_vruntime = 0;
    i128 sum_wkey = 0;  // sum w_i (v_i - min_vruntime), curr included
    int64_t sum_w = 0;  // sum w_i, curr included
    uint32_t nr = 0;
    uint32_t nr_custom = 0;     // entities in the trees with a custom slice
    uint32_t last_put = kNone;  // the task put_prev() just put back, if any
    uint32_t next = kNone;      // cfs_rq->next: the next buddy (eevdf-6.19 with NEXT_BUDDY)
    bool resched = false;
  };

  int64_t avg_vruntime(const Rq& rq) const {
    if (rq.sum_w == 0) return rq.min_vruntime;
    i128 k = rq.sum_wkey;
    // Round toward -infinity like the kernel's avg_vruntime() (a left bias).
    if (k < 0) k -= rq.sum_w - 1;
    return rq.min_vruntime + static_cast<int64_t>(k / rq.sum_w);
  }
  bool eligible(const Rq& rq, const Se& se) const {
    return rq.sum_wkey >= static_cast<i128>(se.vruntime - rq.min_vruntime) * rq.sum_w;
  }
  // __pick_eevdf(protect): `protect` false ignores curr's slice protection (6.17 PREEMPT_SHORT).
  uint32_t pick_eevdf(const Rq& rq, bool protect = true) const {
    const Se* curr = rq.curr.valid() ? &se_[rq.curr.value()] : nullptr;
    if (rq.nr == 1) return curr ? rq.curr.value() : (rq.by_deadline.empty() ? kNone : rq.by_deadline.begin()->second);
    // PICK_BUDDY: an eligible next buddy goes first, ahead of curr's protection.
    if (rq.next != kNone && eligible(rq, se_[rq.next])) return rq.next;
    if (curr && !eligible(rq, *curr)) curr = nullptr;
    if (curr && protect && protected_curr(*curr)) return rq.curr.value();
    uint32_t best = kNone;
    for (const auto& [d, t] : rq.by_deadline)
      if (eligible(rq, se_[t])) {
        best = t;
        break;
      }
    if (curr && (best == kNone || curr->deadline < se_[best].deadline)) return rq.curr.value();
    if (best == kNone && !rq.by_deadline.empty()) best = rq.by_deadline.begin()->second;  // never starve
    return best;
  }
  // 6.19 check_preempt_wakeup_fair() (e837456fdca8; see the file comment), after the pending
  // reschedule and WAKEUP_PREEMPTION checks. The protection rule is 6.17's (vprot).
  bool check_preempt_619(const SchedState& s, Rq& rq, Se& curr, uint32_t p, const WakeFlags& flags, bool shorter) {
    const Se& pse = se_[p];
    if (!shorter) {
      if (flags.fork || pse.delayed) return false;
      if (resched_ineligible_ && flags.in_task && !eligible(rq, curr)) return true;
      // set_preempt_buddy(): keep a buddy whose deadline is earlier than the wakee's.
      if (next_buddy_ && !(rq.next != kNone && se_[rq.next].deadline < pse.deadline)) {
        rq.next = p;
        // preempt_sync(): only a new buddy obeys WF_SYNC, and only once curr has run a while.
        if (flags.sync) {
          int64_t threshold = kMigrationCost;
          if (flags.rq_selected) threshold >>= 2;
          const int64_t ran = std::max<int64_t>(0, s.now.ns() - curr.exec_start);
          return pse.deadline < curr.deadline && ran >= threshold;
        }
      }
    }
    return pick_preempts(rq, curr, p, shorter, true);
  }
  // The end of the 6.17+ wakeup check: pick without curr's protection when the wakee's slice is
  // shorter; if that pick is the wakee, cancel the protection (vprot = v) for a shorter wakee and
  // preempt; else update_protect_slice() (`shorten`: 6.17 for a shorter wakee only, 6.19 always)
  // shortens it to the shortest queued slice under RUN_TO_PARITY.
  bool pick_preempts(Rq& rq, Se& curr, uint32_t p, bool shorter, bool shorten) const {
    if (pick_eevdf(rq, !shorter) == p) {
      if (shorter && curr.vruntime < curr.vprot) curr.vprot = curr.vruntime;
      return true;
    }
    if (shorten && run_to_parity_)
      curr.vprot = std::min(curr.vprot, curr.vruntime + calc_delta_fair(min_slice(rq, &curr), curr.weight));
    return false;
  }
  bool protected_curr(const Se& curr) const {
    if (protect_ == Protect::kVprot617) return curr.vruntime < curr.vprot;
    return run_to_parity_ && curr.vlag == curr.deadline;
  }
  // set_protect_slice() (6.17): q = the shortest slice queued (RUN_TO_PARITY) or the unscaled
  // base slice, at most the own slice; vprot = d unless q is shorter than the own slice.
  // Called with `se` already out of the tree and no curr, as set_next_entity() does, so the
  // shortest queued slice is over the other entities (delayed ones included: they are queued).
  void set_protect_slice(const Rq& rq, Se& se) const {
    int64_t q = std::min(run_to_parity_ ? min_slice(rq, nullptr) : base_slice_ns_, se.slice);
    se.vprot = se.deadline;
    if (q < se.slice) se.vprot = std::min(se.deadline, se.vruntime + calc_delta_fair(q, se.weight));
  }
  // cfs_rq_min_slice(): the shortest slice among the queued entities and `curr` (if given); the
  // kernel keeps it in the augmented tree, here a scan only while some queued entity has a
  // custom slice (otherwise every queued slice is the base slice).
  int64_t min_slice(const Rq& rq, const Se* curr) const {
    int64_t m = curr ? curr->slice : std::numeric_limits<int64_t>::max();
    if (rq.nr_custom == 0) return rq.by_deadline.empty() ? m : std::min(m, base_slice_);
    for (const auto& [d, t] : rq.by_deadline) m = std::min(m, se_[t].slice);
    return m;
  }
  static int64_t custom_slice(const TaskSched& t) {
    if (t.custom_slice.count() == 0) return 0;
    return std::clamp(t.custom_slice.count(), kMinSlice.count(), kMaxSlice.count());
  }
  // The slice an entity gets at placement and at each deadline renewal (place_entity(),
  // update_deadline()): its custom slice, else the (scaled) base slice.
  int64_t slice_of(const Se& se) const { return se.custom_slice != 0 ? se.custom_slice : base_slice_; }
  void finish_delayed_dequeue(SchedState& s, CpuId cpu, uint32_t t) {
    Rq& rq = rq_[cpu.value()];
    Se& se = se_[t];
    int64_t limit = calc_delta_fair(std::max<int64_t>(2 * se.slice, tick_), se.weight);
    se.vlag = std::clamp(avg_vruntime(rq) - se.vruntime, -limit, limit);
    if (delay_zero_ && se.vlag > 0) se.vlag = 0;
    remove(rq, t);
    se.delayed = false;
    --s.rq(cpu).nr_delayed;
    --rq.nr;
    s.rq(cpu).nr_running = rq.nr;
    update_min_vruntime(rq);
  }
  void place_entity(Rq& rq, Se& se) {
    se.slice = slice_of(se);
    int64_t vslice = calc_delta_fair(se.slice, se.weight);
    int64_t V = avg_vruntime(rq);
    int64_t lag = 0;
    if (place_lag_ && rq.nr > 0 && !se.is_new) {
      lag = se.vlag;
      i128 l = static_cast<i128>(lag) * (rq.sum_w + se.weight) / std::max<int64_t>(rq.sum_w, 1);
      lag = static_cast<int64_t>(l);
    }
    se.vruntime = V - lag;
    if (se.rel_deadline) {
      se.deadline += se.vruntime;
      se.rel_deadline = false;
      se.is_new = false;
      return;
    }
    // PLACE_DEADLINE_INITIAL acts only where ENQUEUE_INITIAL reaches the enqueue: 6.12+ (the
    // 6.6-6.11 fork placement that had the flag is overwritten; see "Fork placement").
    if (se.is_new && deadline_initial_ && fork_ == Fork::kPlacedAtEnqueue612) vslice /= 2;
    se.deadline = se.vruntime + vslice;
    se.is_new = false;
  }
  void sum_add(Rq& rq, const Se& se) {
    rq.sum_wkey += static_cast<i128>(se.weight) * (se.vruntime - rq.min_vruntime);
    rq.sum_w += se.weight;
  }
  void sum_remove(Rq& rq, const Se& se) {
    rq.sum_wkey -= static_cast<i128>(se.weight) * (se.vruntime - rq.min_vruntime);
    rq.sum_w -= se.weight;
  }
  void insert_tree(Rq& rq, uint32_t t) {
    rq.by_deadline.insert({se_[t].deadline, t});
    rq.by_vruntime.insert({se_[t].vruntime, t});
    if (se_[t].custom_slice != 0) ++rq.nr_custom;
  }
  void remove_tree(Rq& rq, uint32_t t) {
    rq.by_deadline.erase({se_[t].deadline, t});
    rq.by_vruntime.erase({se_[t].vruntime, t});
    if (se_[t].custom_slice != 0) --rq.nr_custom;
  }
  void add(Rq& rq, uint32_t t) {
    sum_add(rq, se_[t]);
    insert_tree(rq, t);
    update_min_vruntime(rq);
  }
  void remove(Rq& rq, uint32_t t) {
    sum_remove(rq, se_[t]);
    remove_tree(rq, t);
  }
  // min_vruntime is monotonic; moving it re-bases the weighted key sum (avg_vruntime_update()).
  void update_min_vruntime(Rq& rq) {
    auto v = queue::min_vruntime_candidate(rq.curr.valid() ? &se_[rq.curr.value()].vruntime : nullptr,
                                           rq.by_vruntime.empty() ? nullptr : &rq.by_vruntime.begin()->first);
    if (v && *v > rq.min_vruntime) {
      rq.sum_wkey -= static_cast<i128>(rq.sum_w) * (*v - rq.min_vruntime);
      rq.min_vruntime = *v;
    }
  }

  int64_t base_slice_ns_;  // unscaled sysctl_sched_base_slice of the modelled version
  Protect protect_;
  Fork fork_;
  Wake wake_;
  bool place_lag_, deadline_initial_, rel_deadline_, run_to_parity_, wakeup_preemption_;
  bool delay_dequeue_, delay_zero_, preempt_short_, next_buddy_, resched_ineligible_;
  int64_t base_slice_ = 0, tick_ = 4000000;
  std::vector<Rq> rq_;
  std::vector<Se> se_;
};

}  // namespace

static std::vector<FeatureDoc> eevdf_flags() {
  return feature_docs({Feature::PLACE_LAG, Feature::PLACE_DEADLINE_INITIAL, Feature::PLACE_REL_DEADLINE,
                       Feature::RUN_TO_PARITY, Feature::WAKEUP_PREEMPTION, Feature::DELAY_DEQUEUE,
                       Feature::DELAY_ZERO, Feature::PREEMPT_SHORT});
}

ModuleDef<QueuePolicy> eevdf_queue() {
  return {{"", "eevdf", "EEVDF (6.12+ rules; eevdf-6.6 for 6.6-6.11): lag, eligibility, virtual deadlines, RUN_TO_PARITY", eevdf_flags()},
          [](const Features& f) { return std::make_unique<EevdfQueue>(f, 750000); }};
}

// eevdf with the 6.6-6.11 fork rule: the parent is charged at the fork and the child's first
// request is a full slice (its half-slice fork placement is overwritten; c40dd90ac045 moved it).
ModuleDef<QueuePolicy> eevdf_66_queue() {
  return {{"", "eevdf-6.6",
           "eevdf with the 6.6-6.11 fork rule: parent charged at fork, child's first request a full slice "
           "(PLACE_DEADLINE_INITIAL without effect until c40dd90ac045, v6.12)",
           eevdf_flags()},
          [](const Features& f) {
            return std::make_unique<EevdfQueue>(f, 750000, EevdfQueue::Protect::kDeadlineMarker,
                                                EevdfQueue::Fork::kPlacedAtFork66);
          }};
}

// The 6.15 base slice (0.70 ms, commit 2ae891b82695; was 0.75 ms); same flags as eevdf.
ModuleDef<QueuePolicy> eevdf_615_queue() {
  return {{"", "eevdf-6.15", "EEVDF with the 6.15 base slice of 0.70 ms (2ae891b82695; was 0.75 ms)", eevdf_flags()},
          [](const Features& f) { return std::make_unique<EevdfQueue>(f, 700000); }};
}

// eevdf-6.15 with the 6.17 slice protection (vprot, resched at its end; 0b9ca2dcabc3 and series).
ModuleDef<QueuePolicy> eevdf_617_queue() {
  return {{"", "eevdf-6.17",
           "eevdf-6.15 with the 6.17 RUN_TO_PARITY rule: protection end kept apart (min queued slice), "
           "resched once it is over (0b9ca2dcabc3, 052c3d87c82e)",
           eevdf_flags()},
          [](const Features& f) { return std::make_unique<EevdfQueue>(f, 700000, EevdfQueue::Protect::kVprot617); }};
}

// eevdf-6.17 with the 6.19 wakeup check (e837456fdca8; see the file comment): NEXT_BUDDY and
// RESCHED_INELIGIBLE as flags, both off as in v6.19.
ModuleDef<QueuePolicy> eevdf_619_queue() {
  std::vector<FeatureDoc> flags = eevdf_flags();
  for (auto& d : feature_docs({{Feature::NEXT_BUDDY, false}, {Feature::RESCHED_INELIGIBLE, false}})) flags.push_back(d);
  return {{"", "eevdf-6.19",
           "eevdf-6.17 with the 6.19 wakeup check: no preemption by fork wakes, NEXT_BUDDY as a buddy with "
           "a WF_SYNC rule (e837456fdca8)",
           flags},
          [](const Features& f) {
            return std::make_unique<EevdfQueue>(f, 700000, EevdfQueue::Protect::kVprot617,
                                                EevdfQueue::Fork::kPlacedAtEnqueue612, EevdfQueue::Wake::kBuddy619);
          }};
}

}  // namespace schedsim
