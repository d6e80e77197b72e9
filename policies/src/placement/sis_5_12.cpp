// sis-5.12: select_idle_sibling()'s LLC search from 5.12 to 6.6 (docs/sources.md, LLC search variants):
// select_idle_smt(prev) when the hint is clear, then one merged select_idle_cpu() pass that is
// core-wise while the hint is set (not budgeted) and per-CPU otherwise, its depth from SIS_PROP
// (the 5.14+ aged wake_avg_idle) and/or SIS_UTIL (nr_idle_scan). Written from the spec.
#include <algorithm>
#include <limits>

#include "placement/sis_shared.hpp"

namespace schedsim::placement {
namespace {

uint32_t select_idle_cpu_512(SearchEnv& e, bool has_idle_core, uint32_t target) {
  const SchedState& s = e.s;
  PlacementResult& r = e.r;
  const Topology& topo = *s.topo;
  const uint32_t this_cpu = e.ctx.waker_cpu.value();
  CpuMask cpus = topo.llc_mask(target) & s.allowed_cpus(e.ctx.p);
  int64_t nr = std::numeric_limits<int32_t>::max();
  bool timed = false;
  const CpuSched& this_rq = s.cpus[this_cpu];
  const LlcShared& this_llc = s.llc_of(CpuId(this_cpu));
  if (e.k.sis_prop && !has_idle_core) {
    // Age the estimate: every jiffy since the last idle->wake transition halves it (5.14+).
    e.w.age_wake_avg_idle(CpuId(this_cpu), s.jiffies());
    const int64_t avg_cost = this_llc.avg_scan_cost.count() + 1;
    nr = static_cast<int64_t>(
        std::min<uint64_t>(sis_prop_nr(topo.llc_mask(target).count(), this_rq.wake_avg_idle.count(), avg_cost),
                           static_cast<uint64_t>(std::numeric_limits<int32_t>::max())));
    timed = true;
  }
  if (e.k.sis_util) {
    // Overrides SIS_PROP's nr; an exhausted budget skips even the idle-core scan.
    nr = sis_util_budget(s, target);
    if (nr == 1) return kNoCpu;
  }
  const uint32_t cpu0 = r.probes_cpu, core0 = r.probes_core;
  uint32_t idle_cpu = kNoCpu;
  bool exhausted = false;
  uint32_t core = scan_llc_512(e, cpus, target, has_idle_core, nr, idle_cpu, exhausted);
  if (core != kNoCpu) {
    r.outcome = PlaceOutcome::kIdleCore;
    return core;
  }
  if (exhausted) return kNoCpu;
  if (has_idle_core) e.clear_idle_cores(target);
  if (timed) {
    Duration elapsed = e.probe_time(r.probes_cpu - cpu0, r.probes_core - core0);
    e.w.consume_wake_avg_idle(CpuId(this_cpu), elapsed);
    e.w.update_avg_scan_cost(CpuId(this_cpu), elapsed);
  }
  if (idle_cpu != kNoCpu) r.outcome = has_idle_core ? PlaceOutcome::kIdleSibling : PlaceOutcome::kIdleCpu;
  return idle_cpu;
}

}  // namespace

PlacementModuleDef sis_5_12() {
  return module_def(
      "sis-5.12", "5.12-6.6: select_idle_smt(prev) + merged core/CPU scan, SIS_PROP (aged) and/or SIS_UTIL", era_5_15(),
      // SIS_UTIL (5.19, backported to 5.15.y) turned SIS_PROP off by default.
      {{Feature::SIS_PROP, false}, Feature::SIS_UTIL}, make_search<MergedSearch<select_idle_cpu_512>>);
}

}  // namespace schedsim::placement
