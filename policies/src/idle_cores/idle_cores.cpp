// Models __update_idle_core(), test_idle_cores() and set_idle_cores(), kernel/sched/fair.c
// (docs/sources.md, LLC search variants), plus the exact and off comparison modules. Written from the spec.
#include "schedsim/policies/idle_cores.hpp"

#include <memory>

#include "features.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace idle_cores {

void KernelHint::on_idle_enter(SchedState& s, CpuId cpu) {
  // Only with the SMT static key; a set hint is left alone (no write, no re-check).
  if (!s.sched_smt_active) return;
  LlcShared& llc = s.llc_of(cpu);
  if (llc.has_idle_cores) return;
  for (uint32_t sib : s.topo->smt_mask(cpu.value()))
    if (sib != cpu.value() && !s.cpus[sib].idle()) return;
  llc.has_idle_cores = true;
}

bool KernelHint::test(const SchedState& s, CpuId target) const {
  return s.llc_of(target).has_idle_cores;
}

void KernelHint::clear(SchedState& s, CpuId target) { s.llc_of(target).has_idle_cores = false; }

bool ExactHint::test(const SchedState& s, CpuId target) const {
  return s.llc_of(target).nr_idle_cores_exact > 0;
}

}  // namespace idle_cores

ModuleDef<IdleCoresPolicy> kernel_hint() {
  return {{"", "kernel", "has_idle_cores hint: set on idle entry when all siblings idle, cleared by a failed scan", {}},
          [](const Features&) { return std::make_unique<idle_cores::KernelHint>(); }};
}

ModuleDef<IdleCoresPolicy> exact_hint() {
  return {{"", "exact", "always-correct idle-core count (what the hint would be if free)", {}},
          [](const Features&) { return std::make_unique<idle_cores::ExactHint>(); }};
}

ModuleDef<IdleCoresPolicy> no_hint() {
  return {{"", "off", "no hint: never look for idle cores", {}},
          [](const Features&) { return std::make_unique<idle_cores::NoHint>(); }};
}

}  // namespace schedsim
