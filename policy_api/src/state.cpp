#include "schedsim/engine/state.hpp"

namespace schedsim {

void SchedState::init(const Topology& t, const CostModel& c, size_t nr_tasks) {
  topo = &t;
  cost = &c;
  now = Instant::zero();
  tasks.assign(nr_tasks, TaskSched{});
  cpus.assign(t.nr_cpus(), CpuSched{});
  for (uint32_t cpu = 0; cpu < t.nr_cpus(); ++cpu) cpus[cpu].capacity = t.capacity(cpu);
  llcs.assign(t.nr_llcs(), LlcShared{});
  core_busy_threads.assign(t.nr_cores(), 0);
  // Every core starts idle: the exact count is the number of cores per LLC.
  for (uint32_t cpu = 0; cpu < t.nr_cpus(); ++cpu)
    if (t.smt_mask(cpu).first() == cpu) ++llcs[t.llc_index(cpu)].nr_idle_cores_exact;
  sched_smt_active = t.has_smt();
}

}  // namespace schedsim
