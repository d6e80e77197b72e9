// sis-util: select_idle_sibling()'s LLC search from 6.7 on (docs/sources.md, LLC search variants): the 5.12
// merged scan with SIS_PROP gone (SIS_UTIL is the only depth limit), and, when the LLC is split
// into clusters, the target's cluster scanned first so the wakee stays cluster-local. The scan
// loop is the 5.12 one (sis_shared.cpp). Written from the spec.
#include <limits>

#include "placement/sis_shared.hpp"

namespace schedsim::placement {
namespace {

uint32_t select_idle_cpu_612(SearchEnv& e, bool has_idle_core, uint32_t target) {
  const SchedState& s = e.s;
  const Topology& topo = *s.topo;
  CpuMask cpus = topo.llc_mask(target) & s.allowed_cpus(e.ctx.p);
  int64_t nr = std::numeric_limits<int32_t>::max();
  if (e.k.sis_util) {
    nr = sis_util_budget(s, target);
    if (nr == 1) return kNoCpu;
  }
  uint32_t idle_cpu = kNoCpu;
  auto done = [&](uint32_t cpu, PlaceOutcome o) {
    e.r.outcome = o;
    return cpu;
  };
  // The target's cluster first, when the LLC is split into clusters: a found CPU is returned at
  // once so the wakee stays cluster-local.
  const CpuMask& cls = topo.cluster_mask(target);
  if (e.era.cluster && topo.has_clusters() && cls.count() < topo.llc_mask(target).count()) {
    CpuMask group = cls & cpus;
    bool exhausted = false;
    uint32_t core = scan_llc_512(e, group, target, has_idle_core, nr, idle_cpu, exhausted);
    if (core != kNoCpu) return done(core, PlaceOutcome::kIdleCore);
    // A plain idle CPU of the cluster is taken at once; a core scan's sibling fallback waits.
    if (!has_idle_core && idle_cpu != kNoCpu) return done(idle_cpu, PlaceOutcome::kIdleCpu);
    if (exhausted) return kNoCpu;
    cpus -= cls;
  }
  bool exhausted = false;
  uint32_t core = scan_llc_512(e, cpus, target, has_idle_core, nr, idle_cpu, exhausted);
  if (core != kNoCpu) return done(core, PlaceOutcome::kIdleCore);
  if (exhausted) return kNoCpu;
  if (has_idle_core) e.clear_idle_cores(target);
  if (idle_cpu != kNoCpu) return done(idle_cpu, has_idle_core ? PlaceOutcome::kIdleSibling : PlaceOutcome::kIdleCpu);
  return kNoCpu;
}

}  // namespace

PlacementModuleDef sis_util() {
  return module_def("sis-util", "6.7+: merged scan limited by SIS_UTIL only, cluster aware", era_6_12(),
                    {Feature::SIS_UTIL}, make_search<MergedSearch<select_idle_cpu_612>>);
}

}  // namespace schedsim::placement
