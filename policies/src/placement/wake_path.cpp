// Models select_task_rq_fair(), wake_wide(), wake_affine() (record_wakee() is PlacementWrites', policy.hpp) and
// select_idle_sibling()'s fast checks, kernel/sched/fair.c, 4.17 through 6.12 (docs/sources.md,
// "Wake path"): the wake path every placement module shares. The LLC search each variant ends with is
// an LlcSearch in its own file (sis_4_17.cpp ... sis_util.cpp, baselines.cpp). Written from the
// spec, not from kernel code.
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

#include "placement/sis_shared.hpp"
#include "schedsim/base/assert.hpp"

namespace schedsim::placement {

namespace {

constexpr uint32_t kNone = kNoCpu;

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

Knobs Knobs::from(const Features& f) {
  Knobs k;
  k.sis_prop = f.get(Feature::SIS_PROP);
  k.sis_util = f.get(Feature::SIS_UTIL);
  k.sis_avg_cpu = f.get(Feature::SIS_AVG_CPU);
  k.sis_fold = f.get(Feature::SIS_FOLD);
  k.sis_age = f.get(Feature::SIS_AGE);
  k.sis_once = f.get(Feature::SIS_ONCE);
  k.sis_fold_always = f.get(Feature::SIS_FOLD_ALWAYS);
  k.wa_idle = f.get(Feature::WA_IDLE);
  k.wa_weight = f.get(Feature::WA_WEIGHT);
  k.wa_bias = f.get(Feature::WA_BIAS);
  k.wa_idle_prev = f.get(Feature::WA_IDLE_PREV);
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


// ------------------------------------------------------------------------------------------
// KernelPlacement

KernelPlacement::KernelPlacement(std::unique_ptr<LlcSearch> search, const Era& era, const Features& features)
    : search_(std::move(search)), era_(era), k_(Knobs::from(features)) {}

bool KernelPlacement::wake_wide(const SchedState& s, TaskId waker, TaskId p, uint32_t waker_cpu) {
  if (!waker.valid()) return false;
  uint32_t master = s.tasks[waker.value()].wakee_flips;
  uint32_t slave = s.tasks[p.value()].wakee_flips;
  uint32_t factor = s.topo->llc_mask(waker_cpu).count();
  if (master < slave) std::swap(master, slave);
  // Spread only when both sides switch partners at least once per LLC CPU, and the busier
  // side does so f times more: an m:n relation wider than the LLC.
  return slave >= factor && static_cast<uint64_t>(master) >= static_cast<uint64_t>(slave) * factor;
}

uint32_t KernelPlacement::wake_affine(const SchedState& s, const WakeContext& ctx, int level) const {
  const uint32_t this_cpu = ctx.waker_cpu.value(), prev = ctx.prev_cpu.value();
  uint32_t target = kNone;
  if (k_.wa_idle) {
    // wake_affine_idle()
    if (is_idle(s, this_cpu) && s.topo->share_cache(this_cpu, prev))
      target = is_idle(s, prev) ? prev : this_cpu;
    else if (ctx.sync && s.cpus[this_cpu].nr_running == 1)
      target = this_cpu;
    else if (era_.wa_idle_prev && k_.wa_idle_prev && is_idle(s, prev))
      target = prev;
  }
  if (target == kNone && k_.wa_weight && s.util) {
    // wake_affine_weight(): this_eff = (L(this) [- waker] + tl) * 100 * cap(prev) against
    // prev_eff = (L(prev) - tl) * (100 + (pct - 100)/2) * cap(this) [+1 if sync].
    const UtilPolicy& u = *s.util;
    auto load = [&](uint32_t c) -> int64_t {
      return static_cast<int64_t>(era_.find_idlest_55 ? u.cpu_load(s, CpuId(c)) : u.cpu_runnable(s, CpuId(c)));
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

PlacementResult KernelPlacement::select_task_rq(const SchedState& s, PlacementWrites& w, const WakeContext& ctx) {
  PlacementResult r;
  const Topology& topo = *s.topo;
  const CpuMask& allowed = s.allowed_cpus(ctx.p);
  SCHEDSIM_ASSERT(!allowed.empty(), "task {} has no allowed CPU", ctx.p);
  // A task allowed on one CPU never gets here: core.c's select_task_rq() bypasses the class hook
  // for it, and so does the engine (PlaceOutcome::kPinned).
  const uint32_t cpu = ctx.waker_cpu.value(), prev = ctx.prev_cpu.value();

  if (search_->scope() == LlcSearch::Scope::kWhole) {
    SearchEnv env{s, w, ctx, era_, k_, r};
    r.cpu = CpuId(search_->search(env, prev, prev));
    return r;
  }

  uint32_t new_cpu = prev, chosen;
  bool want_affine = false;
  uint32_t sd_flag = 0;  // SD_BALANCE_WAKE is never set by default (§2.2)
  if (ctx.kind == WakeKind::kWakeup) {
    if (ctx.waker.valid()) w.record_wakee(ctx.waker, ctx.p);
    want_affine = !wake_wide(s, ctx.waker, ctx.p, cpu) && allowed.test(cpu);
    if (want_affine && era_.wake_cap) {
      // wake_cap(): only on machines whose capacities differ by more than 1/8 of the max.
      uint32_t max_cap = topo.max_capacity();
      uint32_t min_cap = std::min(topo.capacity(prev), topo.capacity(cpu));
      if (max_cap - min_cap >= max_cap / 8 && s.util) {
        w.sync_task_util(ctx.p);
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
    chosen = find_idlest_cpu(s, w, ctx, sd, cpu, prev, sd_flag);
    r.outcome = PlaceOutcome::kSlowPath;
  } else if (ctx.kind == WakeKind::kWakeup) {
    if (search_->scope() == LlcSearch::Scope::kSibling) {
      SearchEnv env{s, w, ctx, era_, k_, r};
      chosen = search_->search(env, prev, new_cpu);
    } else {
      chosen = select_idle_sibling(s, w, ctx, prev, new_cpu, r);
    }
    // 4.17-5.11: the waker remembers the CPU it woke from (gone in 5.15).
    if (!era_.recent_515 && want_affine && ctx.waker.valid())
      w.set_recent_used_cpu(ctx.waker, CpuId(cpu));
  } else {
    chosen = new_cpu;
    r.outcome = PlaceOutcome::kFallback;
  }
  // select_fallback_rq(): never return a CPU the task may not use.
  if (!allowed.test(chosen)) {
    CpuMask in_llc = topo.llc_mask(chosen) & allowed;
    chosen = in_llc.empty() ? allowed.next_wrap(chosen) : in_llc.next_wrap(chosen);
  }
  r.cpu = CpuId(chosen);
  r.scan_cost = probe_time(s, r.probes_cpu, r.probes_core);
  return r;
}

uint32_t KernelPlacement::select_idle_sibling(const SchedState& s, PlacementWrites& w, const WakeContext& ctx,
                                              uint32_t prev, uint32_t target, PlacementResult& r) {
  const Topology& topo = *s.topo;
  const TaskId p = ctx.p;
  // Step 0, asymmetric capacity: every fast check also needs p to fit the candidate.
  const bool asym = era_.asym_capacity && topo.asymmetric();
  uint32_t task_util = 0;
  if (asym && s.util) {
    w.sync_task_util(p);
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
  if (era_.kthread_stacking && ctx.waker.valid() && s.tasks[ctx.waker.value()].kthread &&
      (!era_.kthread_in_task || ctx.from_task) && CpuId(prev) == ctx.waker_cpu &&
      s.rq(ctx.waker_cpu).nr_running <= 1 && fits(prev)) {
    r.outcome = PlaceOutcome::kKthread;
    return prev;
  }
  // 4. recent_used_cpu
  const CpuId recent = s.tasks[p.value()].recent_used_cpu;
  if (era_.recent_515) w.set_recent_used_cpu(p, CpuId(prev));
  uint32_t recent_aff = kNone;
  if (recent.valid()) {
    const uint32_t rc = recent.value();
    if (rc < topo.nr_cpus() && rc != prev && rc != target && topo.share_cache(rc, target) &&
        is_idle(s, rc) && s.allowed_cpus(p).test(rc) && fits(rc)) {
      if (!era_.recent_515) w.set_recent_used_cpu(p, CpuId(prev));
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
  SearchEnv env{s, w, ctx, era_, k_, r};
  uint32_t i = search_->search(env, prev, target);
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
  CpuMask cpus = *span & s.allowed_cpus(p);
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
// SIS_UTIL refresh

void KernelPlacement::attach(const SchedState& s, PlacementWrites& w) {
  // The kernel's sd_llc_shared starts zeroed at boot, so no scan happens before the first LLC
  // balance; the simulated machine is past boot, so start from the steady state instead.
  const int llc = s.topo->llc_level();
  if (llc < 0) return;
  for (uint32_t cpu = 0; cpu < s.topo->nr_cpus(); ++cpu)
    if (s.topo->llc_mask(cpu).first() == cpu) on_periodic_balance(s, w, CpuId(cpu), llc);
}

void KernelPlacement::on_periodic_balance(const SchedState& s, PlacementWrites& w, CpuId cpu, int level) {
  if (!k_.sis_util || !s.util) return;
  const Topology& topo = *s.topo;
  if (level < 0 || level != topo.llc_level()) return;
  const CpuMask& llc = topo.llc_mask(cpu.value());
  uint64_t sum_util = 0;
  for (uint32_t c : llc) sum_util += s.util->cpu_util_cfs(s, CpuId(c));
  const uint32_t pct = topo.levels()[static_cast<size_t>(level)].imbalance_pct;
  w.set_nr_idle_scan(cpu, sis_util_nr_idle_scan(sum_util, llc.count(), pct));
}

}  // namespace schedsim::placement
