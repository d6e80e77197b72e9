// The kernel pieces several placement variants share (see sis_shared.hpp), and SearchEnv.
// Written from docs/sources.md, LLC search variants, not from kernel code.
#include "placement/sis_shared.hpp"

namespace schedsim::placement {

// ------------------------------------------------------------------------------------------
// SearchEnv

bool SearchEnv::test_idle_cores(uint32_t target) {
  bool v = s.idle_cores ? s.idle_cores->test(s, CpuId(target)) : false;
  r.hint_consulted = true;
  r.hint_value = v;
  return v;
}

Duration SearchEnv::probe_time(uint32_t cpu_probes, uint32_t core_probes) const {
  return placement::probe_time(s, cpu_probes, core_probes);
}

Duration probe_time(const SchedState& s, uint32_t cpu_probes, uint32_t core_probes) {
  static const CostModel kDefault{};
  const CostModel& c = s.cost ? *s.cost : kDefault;
  return c.probe_cpu * cpu_probes + c.probe_core_cpu * core_probes;
}

// ------------------------------------------------------------------------------------------
// Shared pieces

uint32_t select_idle_core_417(SearchEnv& e, uint32_t target) {
  if (!e.s.sched_smt_active) return kNoCpu;
  if (!e.test_idle_cores(target)) return kNoCpu;
  const Topology& topo = *e.s.topo;
  CpuMask cpus = topo.llc_mask(target) & e.s.allowed_cpus(e.ctx.p);
  uint32_t found = kNoCpu;
  // Each core is visited once: all its siblings are checked (no early exit) and removed.
  for_each_cpu_wrap(cpus, target, [&](uint32_t core) {
    bool idle = true;
    for (uint32_t sib : topo.smt_mask(core)) {
      cpus.reset(sib);
      ++e.r.probes_core;
      if (!e.is_idle(sib)) idle = false;
    }
    if (idle) found = core;
    return !idle;
  });
  // An exhaustive miss proves there is no idle core right now.
  if (found == kNoCpu) e.clear_idle_cores(target);
  return found;
}

uint32_t select_idle_smt(SearchEnv& e, uint32_t target, const CpuMask& llc) {
  if (!e.s.sched_smt_active) return kNoCpu;
  const CpuMask& allowed = e.s.allowed_cpus(e.ctx.p);
  for (uint32_t sib : e.s.topo->smt_mask(target)) {
    if (!allowed.test(sib) || !llc.test(sib)) continue;
    ++e.r.probes_cpu;
    if (e.is_idle(sib)) return sib;
  }
  return kNoCpu;
}

uint32_t select_idle_core_512(SearchEnv& e, uint32_t core, CpuMask& cpus, uint32_t& idle_cpu) {
  const CpuMask& smt = e.s.topo->smt_mask(core);
  if (!e.s.sched_smt_active) {
    ++e.r.probes_cpu;
    return e.is_idle(core) ? core : kNoCpu;
  }
  bool idle = true;
  for (uint32_t sib : smt) {
    ++e.r.probes_core;
    if (!e.is_idle(sib)) {
      idle = false;
      // Keep looking only while no fallback exists (sched_idle_cpu is never true here).
      if (idle_cpu == kNoCpu) continue;
      break;
    }
    if (idle_cpu == kNoCpu && cpus.test(sib)) idle_cpu = sib;
  }
  if (idle) return core;
  cpus -= smt;
  return kNoCpu;
}

uint32_t scan_llc_512(SearchEnv& e, CpuMask& cpus, uint32_t target, bool has_idle_core, int64_t& nr, uint32_t& idle_cpu,
                      bool& exhausted) {
  uint32_t core = kNoCpu;
  for_each_cpu_wrap(cpus, target + 1, [&](uint32_t c) {
    if (has_idle_core) {
      core = select_idle_core_512(e, c, cpus, idle_cpu);
      return core == kNoCpu;
    }
    if (--nr <= 0) {
      exhausted = true;
      return false;
    }
    ++e.r.probes_cpu;
    if (e.is_idle(c)) {
      idle_cpu = c;
      return false;
    }
    return true;
  });
  return core;
}

uint32_t merged_prelude(SearchEnv& e, uint32_t prev, uint32_t target, bool& has_idle_core) {
  has_idle_core = false;
  if (!e.s.sched_smt_active) return kNoCpu;
  const Topology& topo = *e.s.topo;
  has_idle_core = e.test_idle_cores(target);
  if (!has_idle_core && topo.share_cache(prev, target)) {
    uint32_t i = select_idle_smt(e, prev, topo.llc_mask(target));
    if (i != kNoCpu) {
      e.r.outcome = PlaceOutcome::kIdleSibling;
      return i;
    }
  }
  return kNoCpu;
}

// ------------------------------------------------------------------------------------------
// Module flags

PlacementModuleDef module_def(std::string name, std::string summary, const Era& era,
                              std::initializer_list<FlagDefault> own,
                              std::function<std::unique_ptr<LlcSearch>()> make_search) {
  std::vector<FeatureDoc> out = feature_docs(own);
  // wake_affine's parts are read by every module that runs the kernel wake path.
  for (const auto& wa : feature_docs({Feature::WA_IDLE, Feature::WA_WEIGHT, Feature::WA_BIAS})) out.push_back(wa);
  if (era.wa_idle_prev)
    for (const auto& wa : feature_docs({Feature::WA_IDLE_PREV})) out.push_back(wa);
  return {std::move(name), std::move(summary), era, std::move(out), std::move(make_search)};
}

}  // namespace schedsim::placement
