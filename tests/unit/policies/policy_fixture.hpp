#pragma once
// A hand-built SchedState for pinning policy modules against the spec without the engine.
#include <memory>
#include <string>
#include <vector>

#include "schedsim/engine/policy.hpp"
#include "schedsim/engine/state.hpp"
#include "schedsim/policies/pelt.hpp"
#include "schedsim/policies/sis.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim::test {

/// A util slot whose answers the test sets directly: the `none` module (pelt::NoUtil: every
/// update a no-op) with readers that return the test's tables.
class FakeUtil final : public pelt::NoUtil {
 public:
  std::vector<uint32_t> util;      ///< per CPU cpu_util_cfs
  std::vector<uint64_t> load;      ///< per CPU cpu_load
  std::vector<uint64_t> tload;     ///< per task task_load
  std::vector<uint32_t> tutil;     ///< per task util
  FakeUtil(size_t cpus, size_t tasks) : util(cpus), load(cpus), tload(tasks), tutil(tasks) {}
  uint32_t task_util(const SchedState&, TaskId p) const override { return tutil[p.value()]; }
  uint32_t task_util_est(const SchedState&, TaskId p) const override { return tutil[p.value()]; }
  uint64_t task_load(const SchedState&, TaskId p) const override { return tload[p.value()]; }
  uint32_t cpu_util(const SchedState&, CpuId c, TaskId, CpuId, bool) const override { return util[c.value()]; }
  uint32_t cpu_util_without(const SchedState&, CpuId c, TaskId) const override { return util[c.value()]; }
  uint64_t cpu_load(const SchedState&, CpuId c) const override { return load[c.value()]; }
  uint64_t cpu_load_without(const SchedState&, CpuId c, TaskId) const override { return load[c.value()]; }
  uint64_t cpu_runnable(const SchedState&, CpuId c) const override { return load[c.value()]; }
};

/// A hint that answers what the test says and records clears.
class FakeHint final : public IdleCoresPolicy {
 public:
  bool value = false;
  int clears = 0;
  void on_idle_enter(SchedState&, CpuId) override {}
  void on_idle_exit(const SchedState&, CpuId) override {}
  bool test(const SchedState&, CpuId) const override { return value; }
  void clear(SchedState&, CpuId) override {
    value = false;
    ++clears;
  }
};

struct Machine {
  Topology topo;
  CostModel cost;
  SchedState s;
  PlacementWrites w{s, &util, &hint};  ///< the writes placement modules make to s (and its slots)
  CpuMask all;
  FakeUtil util;
  FakeHint hint;

  /// packages x cores x threads, one LLC per package unless llcs says otherwise.
  Machine(uint32_t packages, uint32_t cores, uint32_t threads, size_t nr_tasks = 8, uint32_t llcs = 1)
      : topo(Topology::build(make_regular_machine(spec(packages, cores, threads, llcs)))),
        util(topo.nr_cpus(), nr_tasks) {
    s.init(topo, cost, nr_tasks);
    all = topo.all_cpus();
    for (auto& t : s.tasks) t.affinity = &all;
    s.util = &util;
    s.idle_cores = &hint;
  }
  static RegularMachine spec(uint32_t packages, uint32_t cores, uint32_t threads, uint32_t llcs) {
    RegularMachine m;
    m.name = "test";
    m.packages = packages;
    m.cores_per_package = cores;
    m.threads = threads;
    m.llcs_per_package = llcs;
    return m;
  }
  /// Makes `cpu` run task `t` (not idle), keeping the exact idle-core truth consistent.
  void busy(uint32_t cpu, uint32_t t = 7) {
    CpuSched& c = s.cpus[cpu];
    if (!c.curr.valid()) {
      uint32_t core = topo.core_index(cpu);
      if (s.core_busy_threads[core]++ == 0) --s.llc_of(CpuId(cpu)).nr_idle_cores_exact;
    }
    c.curr = TaskId(t);
    c.nr_running = 1;
  }
  void busy_all() {
    for (uint32_t c = 0; c < topo.nr_cpus(); ++c) busy(c);
  }
  void idle(uint32_t cpu) {
    CpuSched& c = s.cpus[cpu];
    if (c.curr.valid()) {
      uint32_t core = topo.core_index(cpu);
      if (--s.core_busy_threads[core] == 0) ++s.llc_of(CpuId(cpu)).nr_idle_cores_exact;
    }
    c.curr = TaskId();
    c.nr_running = 0;
  }
};

/// The module's flags at its defaults, then `overrides`.
inline FeatureSet module_features(const std::string& name,
                                  std::initializer_list<std::pair<const char*, bool>> overrides = {}) {
  FeatureSet f;
  for (const auto& d : placement::placement_module_defs())
    if (d.name == name)
      for (const auto& fd : d.features) f.set(fd.name, fd.default_on);
  for (const auto& [n, on] : overrides) f.set(n, on);
  return f;
}

inline std::unique_ptr<placement::KernelPlacement> make_module(
    const std::string& name, std::initializer_list<std::pair<const char*, bool>> overrides = {}) {
  for (const auto& d : placement::placement_module_defs())
    if (d.name == name)
      return d.make(Features::from(module_features(name, overrides)));
  return nullptr;
}

inline WakeContext wakeup(uint32_t p, uint32_t waker_cpu, uint32_t prev, uint32_t waker = 6) {
  WakeContext ctx;
  ctx.p = TaskId(p);
  ctx.kind = WakeKind::kWakeup;
  ctx.waker_cpu = CpuId(waker_cpu);
  ctx.waker = TaskId(waker);
  ctx.prev_cpu = CpuId(prev);
  return ctx;
}

}  // namespace schedsim::test
