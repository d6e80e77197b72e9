// sis-example: a select_idle_sibling() variant written for docs/adding-a-policy.md, exactly as a
// file under policies/src/placement/ would be (only its function is registered by the test in
// variant_walkthrough_test.cpp instead of by a line in modules.def). Not a kernel version: the
// 5.12-6.6 merged search with no depth limit, so every idle CPU of target's LLC that p may use
// is found whatever the load (what SIS_PROP and SIS_UTIL trade away for a cheaper scan).
#include <limits>

#include "placement/sis_shared.hpp"

namespace schedsim::placement {
namespace {

uint32_t select_idle_cpu_unlimited(SearchEnv& e, bool has_idle_core, uint32_t target) {
  CpuMask cpus = e.s.topo->llc_mask(target) & e.s.allowed_cpus(e.ctx.p);
  int64_t nr = std::numeric_limits<int32_t>::max();
  uint32_t idle_cpu = kNoCpu;
  bool exhausted = false;
  uint32_t core = scan_llc_512(e, cpus, target, has_idle_core, nr, idle_cpu, exhausted);
  if (core != kNoCpu) {
    e.r.outcome = PlaceOutcome::kIdleCore;
    return core;
  }
  if (has_idle_core) e.clear_idle_cores(target);
  if (idle_cpu != kNoCpu) e.r.outcome = has_idle_core ? PlaceOutcome::kIdleSibling : PlaceOutcome::kIdleCpu;
  return idle_cpu;
}

}  // namespace

PlacementModuleDef sis_example() {
  return module_def("sis-example", "example: the 5.12 merged search without a depth limit", era_5_15(), {},
                    make_search<MergedSearch<select_idle_cpu_unlimited>>);
}

}  // namespace schedsim::placement
