#pragma once
// Hand-driven observer fixture: a topology, a SchedState built with init() (as the engine does),
// and a workload whose tasks name the ids used in the synthetic call sequences.
#include <memory>
#include <string>

#include "schedsim/engine/cost_model.hpp"
#include "schedsim/engine/observer.hpp"
#include "schedsim/engine/state.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/workload.hpp"

namespace metrics_test {

using namespace schedsim;

inline Topology machine(uint32_t cores, uint32_t llcs = 1, uint32_t threads = 1, uint32_t packages = 1) {
  RegularMachine m;
  m.name = "test" + std::to_string(packages * cores * threads);
  m.packages = packages;
  m.cores_per_package = cores;
  m.threads = threads;
  m.llcs_per_package = llcs;
  return Topology::build(make_regular_machine(m), "<test>");
}

struct Fixture {
  Topology topo;
  CostModel cost;
  SchedState state;
  Workload w;
  Fixture(Topology t, const std::vector<std::string>& names) : topo(std::move(t)) {
    w.name = "fixture";
    int64_t pid = 100;
    for (auto& n : names) {
      TaskSpec s;
      s.name = n;
      s.pid = pid++;
      w.add_task(std::move(s));
    }
    state.init(topo, cost, w.tasks.size());
    for (auto& ts : state.tasks) ts.affinity = &topo.all_cpus();
  }
};

inline Instant ns(int64_t v) { return Instant::from_ns(v); }
inline TaskId T(uint32_t v) { return TaskId(v); }
/// A wakeup fact as the engine reports it: `wakee` woken at `at` by `waker` on `waker_cpu`
/// (prev_cpu its last CPU), placed on `cpu` with `outcome`.
inline WakeFact wake_fact(int64_t at, uint32_t wakee, TaskId waker, uint32_t waker_cpu, uint32_t prev_cpu, uint32_t cpu,
                          WakeKind kind = WakeKind::kWakeup, PlaceOutcome outcome = PlaceOutcome::kFallback) {
  WakeFact f;
  f.at = ns(at);
  f.wakee = T(wakee);
  f.waker = waker;
  f.waker_cpu = CpuId(waker_cpu);
  f.prev_cpu = CpuId(prev_cpu);
  f.kind = kind;
  f.placement.cpu = CpuId(cpu);
  f.placement.outcome = outcome;
  return f;
}
inline CpuId C(uint32_t v) { return CpuId(v); }
inline const TaskId kIdle{};

}  // namespace metrics_test
