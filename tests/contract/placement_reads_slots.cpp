// The policy contract, checked by the compiler (tests/CMakeLists.txt, label contract): a
// placement reads the other slots through SchedState and writes only through PlacementWrites.
// Built as is, this file must compile (the reads and the named write); built with one of the
// WRITE_* macros, it must not: each is a write a placement could make before the slots were
// const in SchedState (issue 29: `s.util->update(...)` compiled from select_task_rq).
#include "schedsim/engine/policy.hpp"

namespace schedsim {

PlacementResult contract_probe(const SchedState& s, PlacementWrites& w, TaskId p, CpuId cpu) {
#if defined(WRITE_UTIL)
  s.util->update(s, cpu);
#elif defined(WRITE_QUEUE)
  s.queue->update_curr(s, cpu, Duration::ns(1));
#elif defined(WRITE_IDLE_CORES)
  s.idle_cores->on_idle_exit(s, cpu);
#elif defined(WRITE_STATE)
  const_cast<const SchedState&>(s).cpus[cpu.value()].nr_running = 0;
#else
  // What a placement may do: read every slot, write through the named writes.
  const uint32_t util = s.util->task_util(s, p);
  const bool idle_core = s.idle_cores->test(s, cpu);
  const bool delayed = s.queue->is_delayed(p);
  w.sync_task_util(p);
  w.clear_idle_cores(cpu);
  w.set_recent_used_cpu(p, cpu);
  (void)util;
  (void)idle_core;
  (void)delayed;
#endif
  PlacementResult r;
  r.cpu = cpu;
  return r;
}

}  // namespace schedsim
