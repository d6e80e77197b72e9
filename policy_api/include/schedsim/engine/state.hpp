#pragma once
/// Scheduler state shared between the engine and the policy modules: the simulator's `struct rq`,
/// `struct task_struct` and `sd_llc_shared`. The engine owns it; policies read it and update
/// the fields their slot is responsible for (documented per field). Tests build one by hand to
/// pin a module against the spec without running the engine.
#include <cstdint>
#include <vector>

#include "schedsim/base/ids.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/engine/cost_model.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim {

class QueuePolicy;
class UtilPolicy;
class IdleCoresPolicy;

enum class TaskState : uint8_t { kNotStarted, kRunning, kRunnable, kBlocked, kSleeping, kExited };

/// Per-task scheduler state (task_struct + sched_entity fields that several slots read).
struct TaskSched {
  TaskState state = TaskState::kNotStarted;
  CpuId cpu{0};                  ///< task_cpu(p): where it runs / is queued / last ran (wake_cpu)
  CpuId recent_used_cpu;         ///< p->recent_used_cpu, invalid = none (placement writes)
  uint32_t wakee_flips = 0;      ///< record_wakee() state (placement writes)
  TaskId last_wakee;
  Instant wakee_flip_decay_ts;
  uint32_t weight = 1024;        ///< load weight in table units (queue policy sets from nice)
  /// sched_attr.sched_runtime as the task set it (TaskSpec::slice), zero = none: the EEVDF
  /// queues give the task this slice (se->custom_slice) instead of the base slice.
  Duration custom_slice;
  bool kthread = false;          ///< per-CPU kernel thread
  bool has_run = false;          ///< ran at least once (attached to a CPU's PELT)
  const CpuMask* affinity = nullptr;  ///< allowed CPUs (never null once the engine set it up)
  Instant last_ran;              ///< last switch-out time (cache hotness)
  Duration sum_exec;             ///< total CPU time consumed (wall, not reference work)
};

/// Per-CPU state (struct rq fields placement and balance read).
struct CpuSched {
  TaskId curr;                   ///< running task, invalid when idle
  uint32_t nr_running = 0;       ///< runnable tasks including curr (cfs.h_nr_running)
  /// Of nr_running, the tasks asleep in a delayed dequeue (h_nr_queued - h_nr_runnable, 6.14),
  /// maintained by a queue module that delays dequeues (eevdf DELAY_DEQUEUE).
  uint32_t nr_delayed = 0;
  uint32_t ttwu_pending = 0;     ///< wakeups in flight to this CPU (IPI not yet handled)
  uint32_t capacity = 1024;      ///< capacity_of(cpu)
  // Idle accounting (docs/sources.md, Run queue and balance), maintained by the engine.
  Instant idle_stamp;            ///< set when going idle (newidle balance start); 0 = not idle
  bool idle_stamp_set = false;
  Duration avg_idle = Duration::ms(1);            ///< 2 x migration_cost at boot
  Duration max_idle_balance_cost = Duration::us(500);
  Duration wake_avg_idle = Duration::ms(1);       ///< 5.14-6.6 aged estimate (SIS_PROP)
  int64_t wake_stamp = 0;                          ///< jiffies of the last idle->wake transition
  Instant next_balance;                           ///< periodic balance due time
  /// idle_cpu(): running the idle task with nothing queued and no wakeup in flight.
  bool idle() const { return !curr.valid() && nr_running == 0 && ttwu_pending == 0; }
};

/// Per-LLC shared state (sd_llc_shared), zero-initialised as the kernel's kzalloc.
struct LlcShared {
  bool has_idle_cores = false;   ///< the hint (idle-cores slot maintains; placement clears)
  uint32_t nr_idle_scan = 0;     ///< SIS_UTIL budget, refreshed by periodic balance at LLC level
  Duration avg_scan_cost;        ///< sd_llc->avg_scan_cost (SIS_PROP), per LLC
  uint32_t nr_idle_cores_exact = 0;  ///< truth, maintained by the engine on every transition
};

/// The whole mutable scheduler state of one simulation.
struct SchedState {
  const Topology* topo = nullptr;
  const CostModel* cost = nullptr;
  Instant now;
  std::vector<TaskSched> tasks;
  std::vector<CpuSched> cpus;
  std::vector<LlcShared> llcs;                ///< indexed by topo->llc_index(cpu)
  std::vector<uint32_t> core_busy_threads;    ///< per core index: non-idle SMT threads
  /// The other slots, for cross-slot queries: const, so a module reads them and cannot update
  /// them (a placement's writes go through PlacementWrites; tests/contract/ checks that a
  /// placement calling util->update() or queue->update_curr() does not compile).
  const QueuePolicy* queue = nullptr;
  const UtilPolicy* util = nullptr;
  const IdleCoresPolicy* idle_cores = nullptr;
  bool sched_smt_active = false;              ///< the SMT static key
  uint64_t seed = 1;                          ///< the run's seed (SimConfig::seed), for policies that draw

  /// cpu_rq(cpu): the run-queue state of `cpu`.
  CpuSched& rq(CpuId cpu) { return cpus[cpu.value()]; }
  const CpuSched& rq(CpuId cpu) const { return cpus[cpu.value()]; }
  /// jiffies at `now` for the configured tick.
  int64_t jiffies() const { return now.ns() / cost->tick.count(); }
  /// `cpu`'s sd_llc_shared.
  LlcShared& llc_of(CpuId cpu) { return llcs[topo->llc_index(cpu.value())]; }
  const LlcShared& llc_of(CpuId cpu) const { return llcs[topo->llc_index(cpu.value())]; }
  bool allowed(TaskId p, CpuId cpu) const { return tasks[p.value()].affinity->test(cpu.value()); }
  /// p's allowed CPUs (a hand-built state may leave affinity unset: then every CPU).
  const CpuMask& allowed_cpus(TaskId p) const {
    const CpuMask* m = tasks[p.value()].affinity;
    return m ? *m : topo->all_cpus();
  }
  /// A core is idle when none of its SMT threads is busy (truth, not the hint).
  bool core_idle(CpuId cpu) const { return core_busy_threads[topo->core_index(cpu.value())] == 0; }

  /// Sizes every array for the topology and task count; CPUs start idle, LLC state zeroed.
  void init(const Topology& t, const CostModel& c, size_t nr_tasks);
};

}  // namespace schedsim
