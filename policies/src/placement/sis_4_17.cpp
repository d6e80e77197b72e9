// sis-4.17: select_idle_sibling()'s LLC search from 4.17 to 5.11 (docs/sources.md, LLC search variants): three
// separate scans, select_idle_core() (hint-gated, exhaustive), select_idle_cpu() (SIS_PROP depth
// from avg_idle/512, SIS_AVG_CPU cut-off), select_idle_smt() on target's siblings. The 5.11
// module (sis_5_11.cpp) runs the same search on its own era. Written from the spec.
#include <algorithm>
#include <limits>

#include "placement/sis_shared.hpp"

namespace schedsim::placement {
namespace {

/// 4.17 select_idle_cpu(): a plain per-CPU walk of target's LLC, depth nr = SIS_PROP's budget;
/// the search charge of a scan that ran to its end (or found a CPU) feeds avg_scan_cost.
uint32_t select_idle_cpu_417(SearchEnv& e, uint32_t target) {
  const SchedState& s = e.s;
  const Topology& topo = *s.topo;
  const uint32_t this_cpu = e.ctx.waker_cpu.value();
  // The cost estimate and the idle time belong to the waking CPU and its LLC, not target's.
  const LlcShared& this_llc = s.llc_of(CpuId(this_cpu));
  const CpuMask& span = topo.llc_mask(target);
  const CpuMask& allowed = s.allowed_cpus(e.ctx.p);
  const int64_t avg_idle = s.cpus[this_cpu].avg_idle.count() / 512;  // the "fuzz factor"
  const int64_t avg_cost = this_llc.avg_scan_cost.count() + 1;
  if (e.k.sis_avg_cpu && avg_idle < avg_cost) return kNoCpu;
  uint64_t nr = std::numeric_limits<uint64_t>::max();
  if (e.k.sis_prop) nr = sis_prop_nr(span.count(), avg_idle, avg_cost);

  // 5.11 intersects with the affinity up front, so CPUs p may not use cost no budget.
  CpuMask cpus = e.era.cpus_upfront ? (span & allowed) : span;
  const uint32_t probes0 = e.r.probes_cpu;
  uint32_t found = kNoCpu;
  bool exhausted = false;
  for_each_cpu_wrap(cpus, target, [&](uint32_t c) {
    if (--nr == 0) {
      exhausted = true;
      return false;
    }
    ++e.r.probes_cpu;
    if (!allowed.test(c)) return true;
    if (e.is_idle(c)) {
      found = c;
      return false;
    }
    return true;
  });
  // Running out of budget returns at once: that scan's time never reaches avg_scan_cost.
  if (exhausted) return kNoCpu;
  e.w.update_avg_scan_cost(CpuId(this_cpu), e.probe_time(e.r.probes_cpu - probes0, 0));
  return found;
}

class SeparateScans final : public LlcSearch {
 public:
  uint32_t search(SearchEnv& e, uint32_t /*prev*/, uint32_t target) override {
    uint32_t i = select_idle_core_417(e, target);
    if (i != kNoCpu) {
      e.r.outcome = PlaceOutcome::kIdleCore;
      return i;
    }
    i = select_idle_cpu_417(e, target);
    if (i != kNoCpu) {
      e.r.outcome = PlaceOutcome::kIdleCpu;
      return i;
    }
    i = select_idle_smt(e, target, e.s.topo->llc_mask(target));
    if (i != kNoCpu) e.r.outcome = PlaceOutcome::kIdleSibling;
    return i;
  }
};

}  // namespace

std::unique_ptr<LlcSearch> make_separate_scans() { return std::make_unique<SeparateScans>(); }

PlacementModuleDef sis_4_17() {
  return module_def("sis-4.17", "4.17: select_idle_core, select_idle_cpu (SIS_PROP, avg_idle/512, min 4), select_idle_smt",
                    era_4_17(), {Feature::SIS_PROP, Feature::SIS_AVG_CPU}, make_separate_scans);
}

}  // namespace schedsim::placement
