// The baseline placement modules, for comparison with the kernel variants: prev (no search at
// all), first-idle, full-scan and random-idle (each replaces select_idle_sibling() on the kernel
// wake path: wake_affine picks the target, the fork/exec slow path is the kernel's).
#include "placement/sis_shared.hpp"
#include "schedsim/base/random.hpp"

namespace schedsim::placement {
namespace {

/// `prev`: always the previous CPU (the next allowed one after it if p may not run there).
class PrevSearch final : public LlcSearch {
 public:
  Scope scope() const override { return Scope::kWhole; }
  uint32_t search(SearchEnv& e, uint32_t prev, uint32_t /*target*/) override {
    const CpuMask& allowed = e.s.allowed_cpus(e.ctx.p);
    e.r.outcome = PlaceOutcome::kPrev;
    return allowed.test(prev) ? prev : allowed.next_wrap(prev);
  }
};

/// `first-idle`: the lowest-numbered idle CPU of target's LLC, else target.
class FirstIdle final : public LlcSearch {
 public:
  Scope scope() const override { return Scope::kSibling; }
  uint32_t search(SearchEnv& e, uint32_t /*prev*/, uint32_t target) override {
    CpuMask cpus = e.s.topo->llc_mask(target) & e.s.allowed_cpus(e.ctx.p);
    for (uint32_t c : cpus) {
      ++e.r.probes_cpu;
      if (e.is_idle(c)) {
        e.r.outcome = c == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCpu;
        return c;
      }
    }
    e.r.outcome = PlaceOutcome::kFallback;
    return target;
  }
};

/// `full-scan`: what select_idle_cpu would find with no depth limit and an always-right hint:
/// the first wholly idle core from target on, else the first idle CPU seen, else target.
class FullScan final : public LlcSearch {
 public:
  Scope scope() const override { return Scope::kSibling; }
  uint32_t search(SearchEnv& e, uint32_t /*prev*/, uint32_t target) override {
    const Topology& topo = *e.s.topo;
    CpuMask cpus = topo.llc_mask(target) & e.s.allowed_cpus(e.ctx.p);
    uint32_t found = kNoCpu, first_idle = kNoCpu;
    for_each_cpu_wrap(cpus, target, [&](uint32_t core) {
      bool idle = true;
      for (uint32_t sib : topo.smt_mask(core)) {
        if (!cpus.test(sib) && sib != core) continue;
        cpus.reset(sib);
        ++e.r.probes_core;
        if (e.is_idle(sib)) {
          if (first_idle == kNoCpu) first_idle = sib;
        } else {
          idle = false;
        }
      }
      if (idle) found = core;
      return !idle;
    });
    if (found != kNoCpu) {
      e.r.outcome = found == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCore;
      return found;
    }
    if (first_idle != kNoCpu) {
      e.r.outcome = first_idle == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCpu;
      return first_idle;
    }
    e.r.outcome = PlaceOutcome::kFallback;
    return target;
  }
};

/// `random-idle`: a uniformly chosen idle CPU of target's LLC, else target. Deterministic: seeded
/// from the task, the simulated time and a per-module call counter (two picks at one instant differ).
class RandomIdle final : public LlcSearch {
 public:
  Scope scope() const override { return Scope::kSibling; }
  uint32_t search(SearchEnv& e, uint32_t /*prev*/, uint32_t target) override {
    CpuMask cpus = e.s.topo->llc_mask(target) & e.s.allowed_cpus(e.ctx.p);
    CpuMask idle;
    for (uint32_t c : cpus) {
      ++e.r.probes_cpu;
      if (e.is_idle(c)) idle.set(c);
    }
    uint32_t n = idle.count();
    if (n == 0) {
      e.r.outcome = PlaceOutcome::kFallback;
      return target;
    }
    uint64_t h = splitmix64((uint64_t{e.ctx.p.value()} << 32) ^ static_cast<uint64_t>(e.s.now.ns()) ^ splitmix64(calls_++));
    uint32_t found = idle.nth(static_cast<uint32_t>(h % n));
    e.r.outcome = found == target ? PlaceOutcome::kTarget : PlaceOutcome::kIdleCpu;
    return found;
  }

 private:
  uint64_t calls_ = 0;
};

}  // namespace

PlacementModuleDef baseline_prev() {
  return {
      "prev", "baseline: always the previous CPU (no search, no slow path)", era_6_12(), {}, make_search<PrevSearch>};
}

PlacementModuleDef baseline_first_idle() {
  return module_def("first-idle", "baseline: the lowest-numbered idle CPU of the target's LLC, else target", era_6_12(), {},
                    make_search<FirstIdle>);
}

PlacementModuleDef baseline_full_scan() {
  return module_def("full-scan", "baseline: unlimited LLC scan: first wholly idle core, else first idle CPU", era_6_12(), {},
                    make_search<FullScan>);
}

PlacementModuleDef baseline_random_idle() {
  return module_def("random-idle", "baseline: a uniformly random idle CPU of the LLC (deterministic seed)", era_6_12(), {},
                    make_search<RandomIdle>);
}

}  // namespace schedsim::placement
