// Models select_task_rq_fair(), record_wakee(), wake_wide(), wake_affine() and
// select_idle_sibling() with its LLC searches, kernel/sched/fair.c, 4.17 through 6.12
// (kernel-model.md §3-§4). Written from the spec, not from kernel code.
//
// Simplifications:
// - No SCHED_IDLE policy: sched_idle_cpu() is always false.
// - No vCPU preemption: available_idle_cpu() == idle_cpu().
// - The kernel's measured scan time is replaced by simulated probe costs:
//     elapsed = probes_cpu * cost.probe_cpu + probes_core * cost.probe_core_cpu
//   and only the probes made inside the region the kernel times count toward avg_scan_cost.
// - 4.17's runnable_load_avg (wake_affine, find_idlest) is approximated by the util slot's
//   cpu_runnable (equal for nice-0 tasks).
#include <algorithm>
#include <limits>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/random.hpp"
#include "schedsim/policies/sis.hpp"

namespace schedsim::placement {
namespace {

constexpr uint32_t kNone = CpuMask::kMaxCpus;

/// for_each_cpu_wrap(): set CPUs >= start, then those < start. `m` may shrink while walking;
/// removed CPUs are skipped because the walk re-reads the mask. f returns false to stop.
template <class F>
void for_each_cpu_wrap(const CpuMask& m, uint32_t start, F&& f) {
  for (uint32_t c = m.next_from(start); c < CpuMask::kMaxCpus; c = m.next(c))
    if (!f(c)) return;
  for (uint32_t c = m.first(); c < start; c = m.next(c))
    if (!f(c)) return;
}

const CostModel& cost_of(const SchedState& s) {
  static const CostModel kDefault{};
  return s.cost ? *s.cost : kDefault;
}

Duration probe_time(const SchedState& s, uint32_t cpu_probes, uint32_t core_probes) {
  const CostModel& c = cost_of(s);
  return c.probe_cpu * cpu_probes + c.probe_core_cpu * core_probes;
}

const CpuMask& allowed_mask(const SchedState& s, TaskId p) {
  const CpuMask* m = s.tasks[p.v].affinity;
  return m ? *m : s.topo->all_cpus();
}

/// fits_capacity(): u < 80% of cap, i.e. u * 1280 < cap * 1024 (util_fits_cpu without uclamp).
bool fits_capacity(uint64_t util, uint64_t cap) { return util * 1280 < cap * 1024; }

/// splitmix64 (base/random.hpp), the random-idle baseline's deterministic mixer.
constexpr uint64_t mix64(uint64_t x) { return splitmix64(x); }

}  // namespace

// ------------------------------------------------------------------------------------------
// Eras and knobs

Era era_4_17() {
  Era e;
  e.name = "4.17";
  e.wake_cap = true;
  e.recent_515 = false;
  e.kthread_stacking = false;
  e.kthread_in_task = false;
  e.wa_idle_prev = false;
  e.asym_capacity = false;
  e.cluster = false;
  e.idle_checks_ttwu = false;
  e.find_idlest_55 = false;
  e.cpus_upfront = false;
  return e;
}
Era era_5_11() {
  Era e;
  e.name = "5.11";
  e.recent_515 = false;
  e.kthread_in_task = false;
  e.cluster = false;
  return e;
}
Era era_5_15() {
  Era e;
  e.name = "5.15";
  e.cluster = false;
  return e;
}
Era era_6_12() { return Era{}; }

Knobs Knobs::from(const FeatureSet& f) {
  Knobs k;
  k.sis_prop = f.get("SIS_PROP");
  k.sis_util = f.get("SIS_UTIL");
  k.sis_avg_cpu = f.get("SIS_AVG_CPU");
  k.sis_fold = f.get("SIS_FOLD");
  k.sis_age = f.get("SIS_AGE");
  k.sis_once = f.get("SIS_ONCE");
  k.sis_fold_always = f.get("SIS_FOLD_ALWAYS");
  k.wa_idle = f.get("WA_IDLE");
  k.wa_weight = f.get("WA_WEIGHT");
  k.wa_bias = f.get("WA_BIAS");
  return k;
}

// ------------------------------------------------------------------------------------------
// Formulas

uint32_t sis_util_nr_idle_scan(uint64_t sum_util, uint32_t llc_weight, uint32_t imbalance_pct) {
  if (llc_weight == 0) return 0;
  // x = average per-CPU util; the scanned fraction is 1 - (x * pct / (100 * 1024))^2.
  uint64_t x = sum_util / llc_weight;
  uint64_t pct = imbalance_pct;
  uint64_t tmp = x * x * pct * pct / (10000ull * 1024ull);
  tmp = std::min<uint64_t>(tmp, 1024);
  uint64_t y = (1024 - tmp) * llc_weight / 1024;
  return static_cast<uint32_t>(y);
}

uint64_t sis_prop_nr(uint32_t span_weight, int64_t avg_idle_ns, int64_t avg_cost_ns) {
  int64_t span_avg = static_cast<int64_t>(span_weight) * std::max<int64_t>(avg_idle_ns, 0);
  if (avg_cost_ns <= 0) avg_cost_ns = 1;
  if (span_avg > 4 * avg_cost_ns) return static_cast<uint64_t>(span_avg / avg_cost_ns);
  return 4;
}

Duration update_avg(Duration avg, Duration sample) { return avg + (sample - avg) / 8; }

// ------------------------------------------------------------------------------------------
// KernelPlacement

KernelPlacement::KernelPlacement(LlcSearch search, const Era& era, const FeatureSet& features)
    : search_(search), era_(era), k_(Knobs::from(features)) {}

bool KernelPlacement::is_idle(const SchedState& s, uint32_t cpu) const {
  const CpuSched& c = s.cpus[cpu];
  if (era_.idle_checks_ttwu) return c.idle();
  return !c.curr.valid() && c.nr_running == 0;
}

bool KernelPlacement::test_idle_cores(SchedState& s, uint32_t target, PlacementResult& r) const {
  bool v = s.idle_cores ? s.idle_cores->test(s, target) : false;
  r.hint_consulted = true;
  r.hint_value = v;
  return v;
}

void KernelPlacement::clear_idle_cores(SchedState& s, uint32_t target) const {
  if (s.idle_cores) s.idle_cores->clear(s, target);
}

void KernelPlacement::record_wakee(SchedState& s, TaskId waker, TaskId p) {
  TaskSched& w = s.tasks[waker.v];
  // The decay is applied once, however many seconds passed (jiffies > decay_ts + HZ).
  if (s.now - w.wakee_flip_decay_ts > Duration::s(1)) {
    w.wakee_flips >>= 1;
    w.wakee_flip_decay_ts = s.now;
  }
  if (w.last_wakee != p) {
    w.last_wakee = p;
    ++w.wakee_flips;
  }
}

bool KernelPlacement::wake_wide(const SchedState& s, TaskId waker, TaskId p, uint32_t waker_cpu) {
  if (!waker.valid()) return false;
  uint32_t master = s.tasks[waker.v].wakee_flips;
  uint32_t slave = s.tasks[p.v].wakee_flips;
  uint32_t factor = s.topo->llc_mask(waker_cpu).count();
  if (master < slave) std::swap(master, slave);
  // Spread only when both sides switch partners at least once per LLC CPU, and the busier
  // side does so f times more: an m:n relation wider than the LLC.
  return slave >= factor && static_cast<uint64_t>(master) >= static_cast<uint64_t>(slave) * factor;
}

uint32_t KernelPlacement::wake_affine(const SchedState& s, const WakeContext& ctx, int level) const {
  const uint32_t this_cpu = ctx.waker_cpu, prev = ctx.prev_cpu;
  uint32_t target = kNone;
  if (k_.wa_idle) {
    // wake_affine_idle()
    if (is_idle(s, this_cpu) && s.topo->share_cache(this_cpu, prev))
      target = is_idle(s, prev) ? prev : this_cpu;
    else if (ctx.sync && s.cpus[this_cpu].nr_running == 1)
      target = this_cpu;
    else if (era_.wa_idle_prev && is_idle(s, prev))
      target = prev;
  }
  if (target == kNone && k_.wa_weight && s.util) {
    // wake_affine_weight(): this_eff = (L(this) [- waker] + tl) * 100 * cap(prev) against
    // prev_eff = (L(prev) - tl) * (100 + (pct - 100)/2) * cap(this) [+1 if sync].
    const UtilPolicy& u = *s.util;
    auto load = [&](uint32_t c) -> int64_t {
      return static_cast<int64_t>(era_.find_idlest_55 ? u.cpu_load(s, c) : u.cpu_runnable(s, c));
    };
    int64_t this_eff = load(this_cpu);
    bool decided = false;
    if (ctx.sync && ctx.waker.valid()) {
      int64_t cur = static_cast<int64_t>(u.task_load(s, ctx.waker));
      if (cur > this_eff) {
        target = this_cpu;
        decided = true;
      } else {
        this_eff -= cur;
      }
    }
    if (!decided) {
      int64_t tl = static_cast<int64_t>(u.task_load(s, ctx.p));
      int64_t pct = static_cast<int64_t>(s.topo->levels()[static_cast<size_t>(level)].imbalance_pct);
      this_eff += tl;
      if (k_.wa_bias) this_eff *= 100;
      this_eff *= static_cast<int64_t>(s.cpus[prev].capacity);
      int64_t prev_eff = load(prev) - tl;
      if (k_.wa_bias) prev_eff *= 100 + (pct - 100) / 2;
      prev_eff *= static_cast<int64_t>(s.cpus[this_cpu].capacity);
      if (ctx.sync) prev_eff += 1;
      if (this_eff < prev_eff) target = this_cpu;
    }
  }
  return target == kNone ? prev : target;
}

PlacementResult KernelPlacement::select_task_rq(SchedState& s, const WakeContext& ctx) {
  PlacementResult r;
  const Topology& topo = *s.topo;
  const CpuMask& allowed = allowed_mask(s, ctx.p);
  SCHEDSIM_ASSERT(!allowed.empty(), "task {} has no allowed CPU", ctx.p);
  // A task allowed on one CPU bypasses the class hook (select_task_rq in core.c).
  if (allowed.count() == 1) {
    r.cpu = allowed.first();
    r.outcome = PlaceOutcome::kPinned;
    return r;
  }
  const uint32_t cpu = ctx.waker_cpu, prev = ctx.prev_cpu;

  if (search_ == LlcSearch::kPrev) {
    r.cpu = allowed.test(prev) ? prev : allowed.next_wrap(prev);
    r.outcome = PlaceOutcome::kPrev;
    return r;
  }

  uint32_t new_cpu = prev;
  bool want_affine = false;
  uint32_t sd_flag = 0;  // SD_BALANCE_WAKE is never set by default (§2.2)
  if (ctx.kind == WakeKind::kWakeup) {
    if (ctx.waker.valid()) record_wakee(s, ctx.waker, ctx.p);
    want_affine = !wake_wide(s, ctx.waker, ctx.p, cpu) && allowed.test(cpu);
    if (want_affine && era_.wake_cap) {
      // wake_cap(): only on machines whose capacities differ by more than 1/8 of the max.
      uint32_t max_cap = topo.max_capacity();
      uint32_t min_cap = std::min(topo.capacity(prev), topo.capacity(cpu));
      if (max_cap - min_cap >= max_cap / 8 && s.util) {
        s.util->sync_task(s, ctx.p);
        if (!fits_capacity(s.util->task_util(s, ctx.p), min_cap)) want_affine = false;
      }
    }
  } else {
    sd_flag = ctx.kind == WakeKind::kFork ? kSdBalanceFork : kSdBalanceExec;
  }

  int sd = -1;
  const auto& levels = topo.levels();
  for (size_t i = 0; i < levels.size(); ++i) {
    const SchedLevel& l = levels[i];
    if (want_affine && l.has(kSdWakeAffine) && l.span[cpu].test(prev)) {
      if (cpu != prev) new_cpu = wake_affine(s, ctx, static_cast<int>(i));
      sd = -1;  // affine beats any balance flag
      break;
    }
    if (sd_flag != 0 && l.has(sd_flag)) sd = static_cast<int>(i);
    else if (!want_affine) break;
  }

  if (sd >= 0) {
    r.cpu = find_idlest_cpu(s, ctx, sd, cpu, prev, sd_flag);
    r.outcome = PlaceOutcome::kSlowPath;
  } else if (ctx.kind == WakeKind::kWakeup) {
    if (search_ == LlcSearch::kFirstIdle || search_ == LlcSearch::kFullScan ||
        search_ == LlcSearch::kRandomIdle)
      r.cpu = baseline_search(s, ctx, new_cpu, r);
    else
      r.cpu = select_idle_sibling(s, ctx, prev, new_cpu, r);
    // 4.17-5.11: the waker remembers the CPU it woke from (gone in 5.15).
    if (!era_.recent_515 && want_affine && ctx.waker.valid())
      s.tasks[ctx.waker.v].recent_used_cpu = static_cast<int32_t>(cpu);
  } else {
    r.cpu = new_cpu;
    r.outcome = PlaceOutcome::kFallback;
  }
  // select_fallback_rq(): never return a CPU the task may not use.
  if (!allowed.test(r.cpu)) {
    CpuMask in_llc = topo.llc_mask(r.cpu) & allowed;
    r.cpu = in_llc.empty() ? allowed.next_wrap(r.cpu) : in_llc.next_wrap(r.cpu);
  }
  r.scan_cost = probe_time(s, r.probes_cpu, r.probes_core);
  return r;
}

uint32_t KernelPlacement::select_idle_sibling(SchedState& s, const WakeContext& ctx, uint32_t prev,
                                              uint32_t target, PlacementResult& r) {
  const Topology& topo = *s.topo;
  const TaskId p = ctx.p;
  // Step 0, asymmetric capacity: every fast check also needs p to fit the candidate.
  const bool asym = era_.asym_capacity && topo.asymmetric();
  uint32_t task_util = 0;
  if (asym && s.util) {
    s.util->sync_task(s, p);
    task_util = s.util->task_util_est(s, p);
  }
  auto fits = [&](uint32_t c) { return !asym || fits_capacity(task_util, s.cpus[c].capacity); };
  auto share_cluster = [&](uint32_t a, uint32_t b) { return topo.cluster_mask(a).test(b); };
  const bool clusters = era_.cluster && topo.has_clusters();

  // 1. target
  if (is_idle(s, target) && fits(target)) {
    r.outcome = PlaceOutcome::kTarget;
    return target;
  }
  // 2. prev, if it shares the LLC (6.7+ with clusters: the cluster, else a late fallback)
  uint32_t prev_aff = kNone;
  if (prev != target && topo.share_cache(prev, target) && is_idle(s, prev) && fits(prev)) {
    if (!clusters || share_cluster(prev, target)) {
      r.outcome = PlaceOutcome::kPrev;
      return prev;
    }
    prev_aff = prev;
  }
  // 3. per-CPU kthread stacking: an I/O-completion style wakeup behaves like a sync one.
  if (era_.kthread_stacking && ctx.waker.valid() && s.tasks[ctx.waker.v].kthread &&
      (!era_.kthread_in_task || ctx.from_task) && prev == ctx.waker_cpu &&
      s.cpus[ctx.waker_cpu].nr_running <= 1 && fits(prev)) {
    r.outcome = PlaceOutcome::kKthread;
    return prev;
  }
  // 4. recent_used_cpu
  TaskSched& t = s.tasks[p.v];
  const int32_t recent = t.recent_used_cpu;
  if (era_.recent_515) t.recent_used_cpu = static_cast<int32_t>(prev);
  uint32_t recent_aff = kNone;
  if (recent >= 0) {
    uint32_t rc = static_cast<uint32_t>(recent);
    if (rc < topo.nr_cpus() && rc != prev && rc != target && topo.share_cache(rc, target) &&
        is_idle(s, rc) && allowed_mask(s, p).test(rc) && fits(rc)) {
      if (!era_.recent_515) t.recent_used_cpu = static_cast<int32_t>(prev);
      if (!clusters || share_cluster(rc, target)) {
        r.outcome = PlaceOutcome::kRecent;
        return rc;
      }
      recent_aff = rc;
    }
  }
  // 5. asymmetric capacity domain: select_idle_capacity() replaces the LLC scan.
  if (asym) return select_idle_capacity(s, p, target, task_util, r);

  // 6-7. the LLC search
  uint32_t i = llc_search(s, ctx, prev, target, r);
  if (i != kNone) return i;
  // 8. 6.7+ late fallbacks
  if (clusters) {
    if (prev_aff != kNone) {
      r.outcome = PlaceOutcome::kPrev;
      return prev_aff;
    }
    if (recent_aff != kNone) {
      r.outcome = PlaceOutcome::kRecent;
      return recent_aff;
    }
  }
  r.outcome = PlaceOutcome::kFallback;
  return target;
}

uint32_t KernelPlacement::llc_search(SchedState& s, const WakeContext& ctx, uint32_t prev,
                                     uint32_t target, PlacementResult& r) {
  const Topology& topo = *s.topo;
  const CpuMask& llc = topo.llc_mask(target);
  uint32_t i = kNone;
  switch (search_) {
    case LlcSearch::kFold2018:
    case LlcSearch::kFoldOpt:
      if (k_.sis_fold) {
        i = select_idle_cpu_fold(s, ctx, target, r);
        return i;
      }
      [[fallthrough]];  // NO_SIS_FOLD: the separate scans, with the RFC's budget
    case LlcSearch::kSeparate:
      i = select_idle_core_417(s, ctx.p, target, r);
      if (i != kNone) {
        r.outcome = PlaceOutcome::kIdleCore;
        return i;
      }
      i = (search_ == LlcSearch::kSeparate) ? select_idle_cpu_417(s, ctx, target, r)
                                            : select_idle_cpu_fold(s, ctx, target, r);
      if (i != kNone) {
        if (search_ == LlcSearch::kSeparate) r.outcome = PlaceOutcome::kIdleCpu;
        return i;
      }
      i = select_idle_smt(s, ctx.p, target, llc, r);
      if (i != kNone) r.outcome = PlaceOutcome::kIdleSibling;
      return i;
    case LlcSearch::kMerged:
    case LlcSearch::kUtil: {
      bool has_idle_core = false;
      if (s.sched_smt_active) {
        has_idle_core = test_idle_cores(s, target, r);
        if (!has_idle_core && topo.share_cache(prev, target)) {
          i = select_idle_smt(s, ctx.p, prev, llc, r);
          if (i != kNone) {
            r.outcome = PlaceOutcome::kIdleSibling;
            return i;
          }
        }
      }
      return search_ == LlcSearch::kMerged ? select_idle_cpu_512(s, ctx, has_idle_core, target, r)
                                           : select_idle_cpu_612(s, ctx, has_idle_core, target, r);
    }
    case LlcSearch::kPrev:
    case LlcSearch::kFirstIdle:
    case LlcSearch::kFullScan:
    case LlcSearch::kRandomIdle:
      return baseline_search(s, ctx, target, r);
  }
  SCHEDSIM_UNREACHABLE("bad LlcSearch");
}

// ------------------------------------------------------------------------------------------
// Variant A: 4.17-5.11

uint32_t KernelPlacement::select_idle_core_417(SchedState& s, TaskId p, uint32_t target,
                                               PlacementResult& r) {
  if (!s.sched_smt_active) return kNone;
  if (!test_idle_cores(s, target, r)) return kNone;
  const Topology& topo = *s.topo;
  CpuMask cpus = topo.llc_mask(target) & allowed_mask(s, p);
  uint32_t found = kNone;
  // Each core is visited once: all its siblings are checked (no early exit) and removed.
  for_each_cpu_wrap(cpus, target, [&](uint32_t core) {
    bool idle = true;
    for (uint32_t sib : topo.smt_mask(core)) {
      cpus.reset(sib);
      ++r.probes_core;
      if (!is_idle(s, sib)) idle = false;
    }
    if (idle) found = core;
    return !idle;
  });
  // An exhaustive miss proves there is no idle core right now.
  if (found == kNone) clear_idle_cores(s, target);
  return found;
}

uint32_t KernelPlacement::select_idle_cpu_417(SchedState& s, const WakeContext& ctx, uint32_t target,
                                              PlacementResult& r) {
  const Topology& topo = *s.topo;
  const uint32_t this_cpu = ctx.waker_cpu;
  // The cost estimate and the idle time belong to the waking CPU and its LLC, not target's.
  LlcShared& this_llc = s.llc_of(this_cpu);
  const CpuMask& span = topo.llc_mask(target);
  const CpuMask& allowed = allowed_mask(s, ctx.p);
  const int64_t avg_idle = s.cpus[this_cpu].avg_idle.count() / 512;  // the "fuzz factor"
  const int64_t avg_cost = this_llc.avg_scan_cost.count() + 1;
  if (k_.sis_avg_cpu && avg_idle < avg_cost) return kNone;
  uint64_t nr = std::numeric_limits<uint64_t>::max();
  if (k_.sis_prop) nr = sis_prop_nr(span.count(), avg_idle, avg_cost);

  // 5.11 intersects with the affinity up front, so CPUs p may not use cost no budget.
  CpuMask cpus = era_.cpus_upfront ? (span & allowed) : span;
  const uint32_t probes0 = r.probes_cpu;
  uint32_t found = kNone;
  bool exhausted = false;
  for_each_cpu_wrap(cpus, target, [&](uint32_t c) {
    if (--nr == 0) {
      exhausted = true;
      return false;
    }
    ++r.probes_cpu;
    if (!allowed.test(c)) return true;
    if (is_idle(s, c)) {
      found = c;
      return false;
    }
    return true;
  });
  // Running out of budget returns at once: that scan's time never reaches avg_scan_cost.
  if (exhausted) return kNone;
  this_llc.avg_scan_cost = update_avg(this_llc.avg_scan_cost, probe_time(s, r.probes_cpu - probes0, 0));
  return found;
}

uint32_t KernelPlacement::select_idle_smt(SchedState& s, TaskId p, uint32_t target, const CpuMask& llc,
                                          PlacementResult& r) const {
  if (!s.sched_smt_active) return kNone;
  const CpuMask& allowed = allowed_mask(s, p);
  for (uint32_t sib : s.topo->smt_mask(target)) {
    if (!allowed.test(sib) || !llc.test(sib)) continue;
    ++r.probes_cpu;
    if (is_idle(s, sib)) return sib;
  }
  return kNone;
}

// ------------------------------------------------------------------------------------------
// Variant B/C: 5.12+

uint32_t KernelPlacement::select_idle_core_512(const SchedState& s, uint32_t core, CpuMask& cpus,
                                               uint32_t& idle_cpu, PlacementResult& r) const {
  const CpuMask& smt = s.topo->smt_mask(core);
  if (!s.sched_smt_active) {
    ++r.probes_cpu;
    return is_idle(s, core) ? core : kNone;
  }
  bool idle = true;
  for (uint32_t sib : smt) {
    ++r.probes_core;
    if (!is_idle(s, sib)) {
      idle = false;
      // Keep looking only while no fallback exists (sched_idle_cpu is never true here).
      if (idle_cpu == kNone) continue;
      break;
    }
    if (idle_cpu == kNone && cpus.test(sib)) idle_cpu = sib;
  }
  if (idle) return core;
  cpus -= smt;
  return kNone;
}

uint32_t KernelPlacement::scan_llc_512(const SchedState& s, CpuMask& cpus, uint32_t target, bool has_idle_core,
                                       int64_t& nr, uint32_t& idle_cpu, bool& exhausted,
                                       PlacementResult& r) const {
  uint32_t core = kNone;
  for_each_cpu_wrap(cpus, target + 1, [&](uint32_t c) {
    if (has_idle_core) {
      core = select_idle_core_512(s, c, cpus, idle_cpu, r);
      return core == kNone;
    }
    if (--nr <= 0) {
      exhausted = true;
      return false;
    }
    ++r.probes_cpu;
    if (is_idle(s, c)) {
      idle_cpu = c;
      return false;
    }
    return true;
  });
  return core;
}

uint32_t KernelPlacement::select_idle_cpu_512(SchedState& s, const WakeContext& ctx, bool has_idle_core,
                                              uint32_t target, PlacementResult& r) {
  const Topology& topo = *s.topo;
  const uint32_t this_cpu = ctx.waker_cpu;
  CpuMask cpus = topo.llc_mask(target) & allowed_mask(s, ctx.p);
  int64_t nr = std::numeric_limits<int32_t>::max();
  bool timed = false;
  CpuSched& this_rq = s.cpus[this_cpu];
  LlcShared& this_llc = s.llc_of(this_cpu);
  if (k_.sis_prop && !has_idle_core) {
    // Age the estimate: every jiffy since the last idle->wake transition halves it (5.14+).
    const int64_t now = s.jiffies();
    while (this_rq.wake_stamp < now && this_rq.wake_avg_idle > Duration::zero()) {
      ++this_rq.wake_stamp;
      this_rq.wake_avg_idle = Duration::ns(this_rq.wake_avg_idle.count() / 2);
    }
    const int64_t avg_cost = this_llc.avg_scan_cost.count() + 1;
    nr = static_cast<int64_t>(std::min<uint64_t>(
        sis_prop_nr(topo.llc_mask(target).count(), this_rq.wake_avg_idle.count(), avg_cost),
        static_cast<uint64_t>(std::numeric_limits<int32_t>::max())));
    timed = true;
  }
  if (k_.sis_util) {
    // Overrides SIS_PROP's nr; an exhausted budget skips even the idle-core scan.
    nr = static_cast<int64_t>(s.llc_of(target).nr_idle_scan) + 1;
    if (nr == 1) return kNone;
  }
  const uint32_t cpu0 = r.probes_cpu, core0 = r.probes_core;
  uint32_t idle_cpu = kNone;
  bool exhausted = false;
  uint32_t core = scan_llc_512(s, cpus, target, has_idle_core, nr, idle_cpu, exhausted, r);
  if (core != kNone) {
    r.outcome = PlaceOutcome::kIdleCore;
    return core;
  }
  if (exhausted) return kNone;
  if (has_idle_core) clear_idle_cores(s, target);
  if (timed) {
    Duration elapsed = probe_time(s, r.probes_cpu - cpu0, r.probes_core - core0);
    this_rq.wake_avg_idle -= std::min(this_rq.wake_avg_idle, elapsed);
    this_llc.avg_scan_cost = update_avg(this_llc.avg_scan_cost, elapsed);
  }
  if (idle_cpu != kNone)
    r.outcome = has_idle_core ? PlaceOutcome::kIdleSibling : PlaceOutcome::kIdleCpu;
  return idle_cpu;
}

uint32_t KernelPlacement::select_idle_cpu_612(SchedState& s, const WakeContext& ctx, bool has_idle_core,
                                              uint32_t target, PlacementResult& r) {
  const Topology& topo = *s.topo;
  CpuMask cpus = topo.llc_mask(target) & allowed_mask(s, ctx.p);
  int64_t nr = std::numeric_limits<int32_t>::max();
  if (k_.sis_util) {
    nr = static_cast<int64_t>(s.llc_of(target).nr_idle_scan) + 1;
    if (nr == 1) return kNone;
  }
  uint32_t idle_cpu = kNone;
  auto done = [&](uint32_t cpu, PlaceOutcome o) {
    r.outcome = o;
    return cpu;
  };
  // The target's cluster first, when the LLC is split into clusters: a found CPU is returned at
  // once so the wakee stays cluster-local.
  const CpuMask& cls = topo.cluster_mask(target);
  if (era_.cluster && topo.has_clusters() && cls.count() < topo.llc_mask(target).count()) {
    CpuMask group = cls & cpus;
    bool exhausted = false;
    uint32_t core = scan_llc_512(s, group, target, has_idle_core, nr, idle_cpu, exhausted, r);
    if (core != kNone) return done(core, PlaceOutcome::kIdleCore);
    // A plain idle CPU of the cluster is taken at once; a core scan's sibling fallback waits.
    if (!has_idle_core && idle_cpu != kNone) return done(idle_cpu, PlaceOutcome::kIdleCpu);
    if (exhausted) return kNone;
    cpus -= cls;
  }
  bool exhausted = false;
  uint32_t core = scan_llc_512(s, cpus, target, has_idle_core, nr, idle_cpu, exhausted, r);
  if (core != kNone) return done(core, PlaceOutcome::kIdleCore);
  if (exhausted) return kNone;
  if (has_idle_core) clear_idle_cores(s, target);
  if (idle_cpu != kNone)
    return done(idle_cpu, has_idle_core ? PlaceOutcome::kIdleSibling : PlaceOutcome::kIdleCpu);
  return kNone;
}

// ------------------------------------------------------------------------------------------
// The 2018 RFC fold (kernel-model.md §4.8)

int64_t KernelPlacement::fold_budget(SchedState& s, uint32_t this_cpu) const {
  // [U] The RFC's exact expression was not available. With a per-CPU cost recorded (patch 1),
  // the budget is the number of CPU probes the expected idle time pays for:
  //   nr = max(4, est / (avg_scan_cost + 1)),
  // est = the aged wake_avg_idle with SIS_AGE (halved per jiffy since the idle->wake
  // transition, debited by SIS_ONCE), else avg_idle / 512 as in 4.17.
  if (!k_.sis_prop) return std::numeric_limits<int32_t>::max();
  CpuSched& rq = s.cpus[this_cpu];
  int64_t est;
  if (k_.sis_age) {
    const int64_t now = s.jiffies();
    while (rq.wake_stamp < now && rq.wake_avg_idle > Duration::zero()) {
      ++rq.wake_stamp;
      rq.wake_avg_idle = Duration::ns(rq.wake_avg_idle.count() / 2);
    }
    est = rq.wake_avg_idle.count();
  } else {
    est = rq.avg_idle.count() / 512;
  }
  const int64_t per_cpu_cost = s.llc_of(this_cpu).avg_scan_cost.count() + 1;
  int64_t nr = est / per_cpu_cost;
  return std::clamp<int64_t>(nr, 4, std::numeric_limits<int32_t>::max());
}

uint32_t KernelPlacement::select_idle_cpu_fold(SchedState& s, const WakeContext& ctx, uint32_t target,
                                               PlacementResult& r) {
  const Topology& topo = *s.topo;
  const uint32_t this_cpu = ctx.waker_cpu;
  const int64_t nr = fold_budget(s, this_cpu);
  CpuMask cpus = topo.llc_mask(target) & allowed_mask(s, ctx.p);
  const uint32_t cpu0 = r.probes_cpu, core0 = r.probes_core;
  // Which pass: the 2018 fold probes whole cores whenever SMT is present (and never reads the
  // hint); the optimized fold only when test_idle_cores() says an idle core may exist (or
  // SIS_FOLD_ALWAYS); NO_SIS_FOLD reaches here for the per-CPU part of the separate scans.
  bool core_wise = false;
  if (k_.sis_fold && s.sched_smt_active) {
    if (search_ == LlcSearch::kFold2018) core_wise = true;
    else core_wise = test_idle_cores(s, target, r) || k_.sis_fold_always;
  }
  uint32_t found = kNone;
  uint32_t fallback = kNone;
  int64_t loops = 0;
  PlaceOutcome o = PlaceOutcome::kIdleCpu;
  if (core_wise) {
    // __select_idle_core(): each core probed whole; the first idle sibling is the fallback.
    for_each_cpu_wrap(cpus, target, [&](uint32_t core) {
      bool idle = true;
      for (uint32_t sib : topo.smt_mask(core)) {
        if (!cpus.test(sib) && sib != core) continue;
        cpus.reset(sib);
        ++r.probes_core;
        ++loops;
        if (is_idle(s, sib)) {
          if (fallback == kNone) fallback = sib;
        } else {
          idle = false;
        }
      }
      if (idle) {
        found = core;
        o = PlaceOutcome::kIdleCore;
        return false;
      }
      return loops < nr;  // stop after nr probes, the cost is still accounted
    });
    if (found == kNone) {
      // Optimized fold: a miss clears the hint early (it is set again eagerly on idle entry).
      if (search_ == LlcSearch::kFoldOpt) clear_idle_cores(s, target);
      if (fallback != kNone) {
        found = fallback;
        o = PlaceOutcome::kIdleSibling;
      }
    }
  } else {
    // __select_idle_cpu(): plain per-CPU probes under the same budget.
    for_each_cpu_wrap(cpus, target, [&](uint32_t c) {
      if (loops >= nr) return false;
      ++loops;
      ++r.probes_cpu;
      if (is_idle(s, c)) {
        found = c;
        return false;
      }
      return true;
    });
  }
  // Cost accounting (patch 1): avg_scan_cost tracks the per-CPU cost elapsed / loops; SIS_ONCE
  // debits the whole elapsed time from the aged estimate.
  if (loops > 0) {
    Duration elapsed = probe_time(s, r.probes_cpu - cpu0, r.probes_core - core0);
    LlcShared& this_llc = s.llc_of(this_cpu);
    this_llc.avg_scan_cost = update_avg(this_llc.avg_scan_cost, elapsed / loops);
    if (k_.sis_once) {
      CpuSched& rq = s.cpus[this_cpu];
      rq.wake_avg_idle -= std::min(rq.wake_avg_idle, elapsed);
    }
  }
  if (found != kNone) r.outcome = o;
  return found;
}

// ------------------------------------------------------------------------------------------
// Asymmetric capacity (5.11+)

uint32_t KernelPlacement::select_idle_capacity(const SchedState& s, TaskId p, uint32_t target,
                                               uint32_t task_util, PlacementResult& r) const {
  const Topology& topo = *s.topo;
  // sd_asym_cpucapacity: the lowest domain flagged ASYM_CPUCAPACITY, else the whole machine.
  const CpuMask* span = &topo.all_cpus();
  for (const SchedLevel& l : topo.levels())
    if (l.has(kSdAsymCpuCapacity)) {
      span = &l.span[target];
      break;
    }
  CpuMask cpus = *span & allowed_mask(s, p);
  uint32_t best = kNone, best_cap = 0, found = kNone;
  for_each_cpu_wrap(cpus, target, [&](uint32_t c) {
    ++r.probes_cpu;
    if (!is_idle(s, c)) return true;
    uint32_t cap = s.cpus[c].capacity;
    if (fits_capacity(task_util, cap)) {
      found = c;
      return false;
    }
    if (cap > best_cap) {
      best_cap = cap;
      best = c;
    }
    return true;
  });
  r.outcome = PlaceOutcome::kCapacity;
  if (found != kNone) return found;
  if (best != kNone) return best;
  r.outcome = PlaceOutcome::kFallback;
  return target;
}

// ------------------------------------------------------------------------------------------
// Baselines

uint32_t KernelPlacement::baseline_search(SchedState& s, const WakeContext& ctx, uint32_t target,
                                          PlacementResult& r) {
  const Topology& topo = *s.topo;
  CpuMask cpus = topo.llc_mask(target) & allowed_mask(s, ctx.p);
  uint32_t found = kNone;
  switch (search_) {
    case LlcSearch::kFirstIdle:
      for (uint32_t c : cpus) {
        ++r.probes_cpu;
        if (is_idle(s, c)) {
          found = c;
          break;
        }
      }
      if (found != kNone) {
        r.outcome = found == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCpu;
        return found;
      }
      break;
    case LlcSearch::kFullScan: {
      // What select_idle_cpu would find with no depth limit and an always-right hint.
      uint32_t first_idle = kNone;
      for_each_cpu_wrap(cpus, target, [&](uint32_t core) {
        bool idle = true;
        for (uint32_t sib : topo.smt_mask(core)) {
          if (!cpus.test(sib) && sib != core) continue;
          cpus.reset(sib);
          ++r.probes_core;
          if (is_idle(s, sib)) {
            if (first_idle == kNone) first_idle = sib;
          } else {
            idle = false;
          }
        }
        if (idle) found = core;
        return !idle;
      });
      if (found != kNone) {
        r.outcome = found == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCore;
        return found;
      }
      if (first_idle != kNone) {
        r.outcome = first_idle == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCpu;
        return first_idle;
      }
      break;
    }
    case LlcSearch::kRandomIdle: {
      CpuMask idle;
      for (uint32_t c : cpus) {
        ++r.probes_cpu;
        if (is_idle(s, c)) idle.set(c);
      }
      uint32_t n = idle.count();
      if (n > 0) {
        // Deterministic: seeded from the task, the simulated time and a call counter.
        uint64_t h = mix64((uint64_t{ctx.p.v} << 32) ^ static_cast<uint64_t>(s.now.ns()) ^
                           mix64(rng_calls_++));
        found = idle.nth(static_cast<uint32_t>(h % n));
        r.outcome = found == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCpu;
        return found;
      }
      break;
    }
    default:
      break;
  }
  r.outcome = PlaceOutcome::kFallback;
  return target;
}

// ------------------------------------------------------------------------------------------
// SIS_UTIL refresh

void KernelPlacement::attach(SchedState& s) {
  // The kernel's sd_llc_shared starts zeroed at boot, so no scan happens before the first LLC
  // balance; the simulated machine is past boot, so start from the steady state instead.
  const int llc = s.topo->llc_level();
  if (llc < 0) return;
  for (uint32_t cpu = 0; cpu < s.topo->nr_cpus(); ++cpu)
    if (s.topo->llc_mask(cpu).first() == cpu) on_periodic_balance(s, cpu, llc);
}

void KernelPlacement::on_periodic_balance(SchedState& s, uint32_t cpu, int level) {
  if (!k_.sis_util || !s.util) return;
  const Topology& topo = *s.topo;
  if (level < 0 || level != topo.llc_level()) return;
  const CpuMask& llc = topo.llc_mask(cpu);
  uint64_t sum_util = 0;
  for (uint32_t c : llc) sum_util += s.util->cpu_util_cfs(s, c);
  const uint32_t pct = topo.levels()[static_cast<size_t>(level)].imbalance_pct;
  s.llc_of(cpu).nr_idle_scan = sis_util_nr_idle_scan(sum_util, llc.count(), pct);
}

}  // namespace schedsim::placement
