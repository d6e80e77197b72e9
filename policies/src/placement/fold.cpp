// The 2018 RFC "sched/fair: select_idle_sibling() rework" (SIS_FOLD, SIS_AGE, SIS_ONCE) and its
// follow-up "Optimize SIS_FOLD" (docs/sources.md, LLC search variants), shared by sis_fold_2018.cpp and
// sis_fold_opt.cpp: one folded LLC pass that probes whole cores and keeps the first idle
// sibling as a fallback, under a budget from the aged idle estimate. Written from the RFC's
// description, not from its code.
#include <algorithm>
#include <limits>

#include "placement/sis_shared.hpp"

namespace schedsim::placement {
namespace {

int64_t fold_budget(SearchEnv& e, uint32_t this_cpu) {
  // [U] The RFC's exact expression was not available. With a per-CPU cost recorded (patch 1),
  // the budget is the number of CPU probes the expected idle time pays for:
  //   nr = max(4, est / (avg_scan_cost + 1)),
  // est = the aged wake_avg_idle with SIS_AGE (halved per jiffy since the idle->wake
  // transition, debited by SIS_ONCE), else avg_idle / 512 as in 4.17.
  if (!e.k.sis_prop) return std::numeric_limits<int32_t>::max();
  const CpuSched& rq = e.s.cpus[this_cpu];
  int64_t est;
  if (e.k.sis_age) {
    e.w.age_wake_avg_idle(CpuId(this_cpu), e.s.jiffies());
    est = rq.wake_avg_idle.count();
  } else {
    est = rq.avg_idle.count() / 512;
  }
  const int64_t per_cpu_cost = e.s.llc_of(CpuId(this_cpu)).avg_scan_cost.count() + 1;
  int64_t nr = est / per_cpu_cost;
  return std::clamp<int64_t>(nr, 4, std::numeric_limits<int32_t>::max());
}

/// select_idle_cpu() as the RFC rewrote it: the folded core-wise pass, or (hint clear in the
/// optimized form, or NO_SIS_FOLD) plain per-CPU probes, both under fold_budget().
uint32_t select_idle_cpu_fold(SearchEnv& e, uint32_t target, bool optimized) {
  const SchedState& s = e.s;
  PlacementResult& r = e.r;
  const Topology& topo = *s.topo;
  const uint32_t this_cpu = e.ctx.waker_cpu.value();
  const int64_t nr = fold_budget(e, this_cpu);
  CpuMask cpus = topo.llc_mask(target) & s.allowed_cpus(e.ctx.p);
  const uint32_t cpu0 = r.probes_cpu, core0 = r.probes_core;
  // Which pass: the 2018 fold probes whole cores whenever SMT is present (and never reads the
  // hint); the optimized fold only when test_idle_cores() says an idle core may exist (or
  // SIS_FOLD_ALWAYS); NO_SIS_FOLD reaches here for the per-CPU part of the separate scans.
  bool core_wise = false;
  if (e.k.sis_fold && s.sched_smt_active) {
    if (!optimized)
      core_wise = true;
    else
      core_wise = e.test_idle_cores(target) || e.k.sis_fold_always;
  }
  uint32_t found = kNoCpu;
  uint32_t fallback = kNoCpu;
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
        if (e.is_idle(sib)) {
          if (fallback == kNoCpu) fallback = sib;
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
    if (found == kNoCpu) {
      // Optimized fold: a miss clears the hint early (it is set again eagerly on idle entry).
      if (optimized) e.clear_idle_cores(target);
      if (fallback != kNoCpu) {
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
      if (e.is_idle(c)) {
        found = c;
        return false;
      }
      return true;
    });
  }
  // Cost accounting (patch 1): avg_scan_cost tracks the per-CPU cost elapsed / loops; SIS_ONCE
  // debits the whole elapsed time from the aged estimate.
  if (loops > 0) {
    Duration elapsed = e.probe_time(r.probes_cpu - cpu0, r.probes_core - core0);
    e.w.update_avg_scan_cost(CpuId(this_cpu), elapsed / loops);
    if (e.k.sis_once) e.w.consume_wake_avg_idle(CpuId(this_cpu), elapsed);
  }
  if (found != kNoCpu) r.outcome = o;
  return found;
}

class FoldSearch final : public LlcSearch {
 public:
  explicit FoldSearch(bool optimized) : optimized_(optimized) {}

  uint32_t search(SearchEnv& e, uint32_t /*prev*/, uint32_t target) override {
    if (e.k.sis_fold) return select_idle_cpu_fold(e, target, optimized_);
    // NO_SIS_FOLD: the separate 4.17 scans, with the RFC's budget for the per-CPU one.
    uint32_t i = select_idle_core_417(e, target);
    if (i != kNoCpu) {
      e.r.outcome = PlaceOutcome::kIdleCore;
      return i;
    }
    i = select_idle_cpu_fold(e, target, optimized_);
    if (i != kNoCpu) return i;
    i = select_idle_smt(e, target, e.s.topo->llc_mask(target));
    if (i != kNoCpu) e.r.outcome = PlaceOutcome::kIdleSibling;
    return i;
  }

 private:
  bool optimized_;
};

}  // namespace

std::unique_ptr<LlcSearch> make_fold_search(bool optimized) { return std::make_unique<FoldSearch>(optimized); }

}  // namespace schedsim::placement
