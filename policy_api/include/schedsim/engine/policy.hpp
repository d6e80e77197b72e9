#pragma once
/// The policy slots. The engine owns these interfaces and calls them; it never includes a module.
/// Modules live in policies/ and are registered by name in its PolicyRegistry
/// (schedsim/policies/registry.hpp), which builds the PolicyStack a Simulation runs with.
///
///   placement   select_task_rq(): where a woken, forked or exec'ing task runs
///   idle-cores  the LLC's idle-core hint the placement search consults
///   util        PELT / util_est signals placement and balance read
///   queue       the per-CPU run queue: enqueue, pick, wakeup and tick preemption
///   balance     newidle and periodic load balancing
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "schedsim/base/assert.hpp"
#include "schedsim/base/ids.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/engine/state.hpp"

namespace schedsim {

/// The resolved sched_feat flags of a run by name (kernel names, the NO_ convention on the command
/// line), as reports show them. Modules do not read flags from here: they read them by the typed
/// Feature enum (schedsim/policies/features.hpp), which the policy registry builds from this.
class FeatureSet {
 public:
  bool has(const std::string& name) const { return flags_.count(name) != 0; }
  void set(const std::string& name, bool on) { flags_[name] = on; }
  const std::map<std::string, bool>& all() const { return flags_; }

 private:
  std::map<std::string, bool> flags_;
};

enum class WakeKind : uint8_t { kWakeup, kFork, kExec };

/// The question select_task_rq answers.
struct WakeContext {
  TaskId p;
  WakeKind kind = WakeKind::kWakeup;
  CpuId waker_cpu{0};       ///< the CPU running the wakeup (`cpu` in select_task_rq_fair)
  TaskId waker;             ///< current task of waker_cpu when the wakeup is in task context
  bool from_task = true;    ///< false for wakeups from interrupt/idle/timer context
  bool sync = false;        ///< WF_SYNC and the waker is not exiting
  CpuId prev_cpu{0};        ///< p->wake_cpu; the parent's CPU for fork
};

/// The wake flags a wakeup check sees (wakeup_preempt()'s wake_flags, and the context it runs in).
struct WakeFlags {
  bool fork = false;         ///< WF_FORK: wake_up_new_task()
  bool sync = false;         ///< WF_SYNC (the waker is not exiting)
  bool rq_selected = false;  ///< WF_RQ_SELECTED: select_task_rq() chose the CPU (more than one allowed)
  bool in_task = false;      ///< the check runs in a task's context (in_task()): not from an IPI's wake list, a timer or a balance softirq
};

/// Where a placement landed, for the outcome report (docs/results-schema.md).
enum class PlaceOutcome : uint8_t {
  kTarget,       ///< the affine target itself was idle
  kPrev,         ///< prev was idle (fast check)
  kRecent,       ///< recent_used_cpu
  kKthread,      ///< per-CPU kthread stacking
  kIdleCore,     ///< a wholly idle core found by the search
  kIdleCpu,      ///< an idle CPU found by the search
  kIdleSibling,  ///< an idle SMT sibling (select_idle_smt or the fold's fallback)
  kCapacity,     ///< select_idle_capacity on asymmetric machines
  kFallback,     ///< nothing idle found: target (possibly busy)
  kSlowPath,     ///< fork/exec find_idlest_cpu
  kPinned,       ///< single allowed CPU, class hook bypassed
  kDelayed,      ///< still queued (DELAY_DEQUEUE): woken in place, no select_task_rq (ttwu_runnable)
  kCount
};
const char* to_string(PlaceOutcome o);

struct PlacementResult {
  CpuId cpu{0};
  PlaceOutcome outcome = PlaceOutcome::kFallback;
  uint32_t probes_cpu = 0;   ///< CPUs examined by plain per-CPU probes
  uint32_t probes_core = 0;  ///< CPUs examined by core-wise probes
  Duration scan_cost;        ///< simulated search time, charged to the waker's CPU
  bool hint_consulted = false;  ///< has_idle_cores was read (for staleness accounting)
  bool hint_value = false;
};

class PlacementWrites;
class UtilPolicy;

/// A placement reads the state (const) and changes it only through PlacementWrites.
class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  /// Called once before the run, after SchedState::init.
  virtual void attach(const SchedState&, PlacementWrites&) {}
  virtual PlacementResult select_task_rq(const SchedState& s, PlacementWrites& w, const WakeContext& ctx) = 0;
  /// Periodic balance ran at `level` for `cpu` (update_idle_cpu_scan hooks here).
  virtual void on_periodic_balance(const SchedState&, PlacementWrites&, CpuId /*cpu*/, int /*level*/) {}
};

class IdleCoresPolicy {
 public:
  virtual ~IdleCoresPolicy() = default;
  /// `cpu` switched to idle (__update_idle_core).
  virtual void on_idle_enter(SchedState& s, CpuId cpu) = 0;
  /// `cpu` stopped being idle.
  virtual void on_idle_exit(const SchedState& s, CpuId cpu) = 0;
  /// test_idle_cores(target).
  virtual bool test(const SchedState& s, CpuId target) const = 0;
  /// set_idle_cores(target, 0) after a failed scan.
  virtual void clear(SchedState& s, CpuId target) = 0;
};

/// Every write a placement module may make to the scheduler state, named after the kernel code
/// that makes it; everything else a placement sees is const. The engine (and the balance slot,
/// for on_periodic_balance) makes one over its state for each call. Inline: the wake path calls
/// these once per wakeup.
class PlacementWrites {
 public:
  /// `util` and `idle_cores` are the run's own slots (SchedState holds them const): the two
  /// writes that go through a slot need them. A state without those slots may leave them out.
  explicit PlacementWrites(SchedState& s, UtilPolicy* util = nullptr, IdleCoresPolicy* idle_cores = nullptr)
      : s_(&s), util_(util), idle_cores_(idle_cores) {
    SCHEDSIM_ASSERT(!s.util || util, "PlacementWrites over a state with a util slot needs that slot");
    SCHEDSIM_ASSERT(!s.idle_cores || idle_cores, "PlacementWrites over a state with an idle-cores slot needs that slot");
  }

  /// record_wakee() (fair.c): the waker's wakee_flips decay by half once if more than 1 s
  /// passed since wakee_flip_decay_ts (however many seconds), then count a switch of wakee.
  void record_wakee(TaskId waker, TaskId p) {
    TaskSched& w = s_->tasks[waker.value()];
    if (s_->now - w.wakee_flip_decay_ts > Duration::s(1)) {
      w.wakee_flips >>= 1;
      w.wakee_flip_decay_ts = s_->now;
    }
    if (w.last_wakee != p) {
      w.last_wakee = p;
      ++w.wakee_flips;
    }
  }
  /// p->recent_used_cpu = cpu (select_idle_sibling 5.15+, select_task_rq_fair 4.17-5.11).
  void set_recent_used_cpu(TaskId p, CpuId cpu) { s_->tasks[p.value()].recent_used_cpu = cpu; }
  /// update_avg(&sd_llc->avg_scan_cost, sample) for cpu's LLC: avg += (sample - avg) / 8, signed.
  void update_avg_scan_cost(CpuId cpu, Duration sample) {
    Duration& avg = s_->llc_of(cpu).avg_scan_cost;
    avg = avg + (sample - avg) / 8;
  }
  /// sd_llc_shared->nr_idle_scan of cpu's LLC (update_idle_cpu_scan, SIS_UTIL).
  void set_nr_idle_scan(CpuId cpu, uint32_t nr) { s_->llc_of(cpu).nr_idle_scan = nr; }
  /// The 5.14+ aged idle estimate (also the 2018 RFC's SIS_AGE): every jiffy since cpu's last
  /// idle->wake transition (wake_stamp) halves rq->wake_avg_idle, up to `now_jiffies`.
  void age_wake_avg_idle(CpuId cpu, int64_t now_jiffies) {
    CpuSched& rq = s_->rq(cpu);
    while (rq.wake_stamp < now_jiffies && rq.wake_avg_idle > Duration::zero()) {
      ++rq.wake_stamp;
      rq.wake_avg_idle = Duration::ns(rq.wake_avg_idle.count() / 2);
    }
  }
  /// rq->wake_avg_idle -= min(wake_avg_idle, spent): a scan used up part of cpu's idle estimate.
  void consume_wake_avg_idle(CpuId cpu, Duration spent) {
    Duration& v = s_->rq(cpu).wake_avg_idle;
    v -= std::min(v, spent);
  }
  /// set_idle_cores(target, 0) after a scan that found no idle core (through the idle-cores slot).
  void clear_idle_cores(CpuId target) {
    if (idle_cores_) idle_cores_->clear(*s_, target);
  }
  /// sync_entity_load_avg(&p->se) (select_task_rq_fair, find_idlest_cpu): p's PELT signals
  /// brought up to its queue's last update, through the util slot (none: nothing to sync).
  inline void sync_task_util(TaskId p);

 private:
  SchedState* s_;
  UtilPolicy* util_;
  IdleCoresPolicy* idle_cores_;
};

class UtilPolicy {
 public:
  virtual ~UtilPolicy() = default;
  virtual void attach(SchedState&) {}
  /// New task (post_init_entity_util_avg), placed on `cpu`.
  virtual void task_new(const SchedState& s, TaskId p, CpuId cpu) = 0;
  /// Brings cpu's and its current task's signals up to s.now (update_load_avg).
  virtual void update(const SchedState& s, CpuId cpu) = 0;
  /// p joins cpu's queue; migrated = it last ran elsewhere (attach).
  virtual void enqueue(const SchedState& s, TaskId p, CpuId cpu, bool migrated) = 0;
  /// p leaves cpu's queue; sleep = dequeue for sleep (util_est update), else migration.
  virtual void dequeue(const SchedState& s, TaskId p, CpuId cpu, bool sleep) = 0;
  /// p starts / stops running on cpu (the "running" input of PELT).
  virtual void set_running(const SchedState& s, TaskId p, CpuId cpu, bool running) = 0;
  /// Syncs a sleeping task's signals to now (sync_entity_load_avg).
  virtual void sync_task(const SchedState& s, TaskId p) = 0;
  virtual uint32_t task_util(const SchedState& s, TaskId p) const = 0;
  /// task_util_est(p) = max(util_avg, est).
  virtual uint32_t task_util_est(const SchedState& s, TaskId p) const = 0;
  /// Task load_avg (task_h_load for a root-group task).
  virtual uint64_t task_load(const SchedState& s, TaskId p) const = 0;
  /// cpu_util(cpu, p, dst, boost) (docs/sources.md, PELT and utilization); p invalid = no task
  /// adjustment, dst invalid = p goes nowhere (the kernel's dst_cpu -1).
  virtual uint32_t cpu_util(const SchedState& s, CpuId cpu, TaskId p, CpuId dst, bool boost) const = 0;
  uint32_t cpu_util_cfs(const SchedState& s, CpuId cpu) const { return cpu_util(s, cpu, TaskId(), CpuId(), false); }
  virtual uint32_t cpu_util_without(const SchedState& s, CpuId cpu, TaskId p) const = 0;
  /// cfs_rq load_avg (blocked load included), for wake_affine_weight and find_idlest_group.
  virtual uint64_t cpu_load(const SchedState& s, CpuId cpu) const = 0;
  virtual uint64_t cpu_load_without(const SchedState& s, CpuId cpu, TaskId p) const = 0;
  virtual uint64_t cpu_runnable(const SchedState& s, CpuId cpu) const = 0;
};

inline void PlacementWrites::sync_task_util(TaskId p) {
  if (util_) util_->sync_task(*s_, p);
}

enum class EnqueueKind : uint8_t { kWakeup, kNew, kMigrate, kRestore };
enum class DequeueKind : uint8_t { kSleep, kMigrate };

class QueuePolicy {
 public:
  virtual ~QueuePolicy() = default;
  virtual void attach(SchedState&) {}
  /// Adds p to cpu's queue (p is not running). Updates s.cpus[cpu].nr_running.
  virtual void enqueue(SchedState& s, CpuId cpu, TaskId p, EnqueueKind kind) = 0;
  /// Removes p from cpu's queue. p may be cpu's current task (sleep) or a queued task.
  virtual void dequeue(SchedState& s, CpuId cpu, TaskId p, DequeueKind kind) = 0;
  /// Picks the next task to run on cpu from its queue (curr included if still runnable), or
  /// invalid when empty. The engine then sets curr. Called after put_prev.
  virtual TaskId pick_next(SchedState& s, CpuId cpu) = 0;
  /// curr stops running but stays runnable (preemption, yield).
  virtual void put_prev(const SchedState& s, CpuId cpu, TaskId prev) = 0;
  /// curr ran for `delta` ns of wall time since the last update (update_curr).
  virtual void update_curr(const SchedState& s, CpuId cpu, Duration delta) = 0;
  /// True when, as long as nothing is enqueued on or dequeued from cpu, update_curr() there changes
  /// nothing but cpu's queue and its current entity (what it reads of the state is cpu's and
  /// s.now) and never asks for a reschedule: the engine may then apply a running task's updates
  /// late, each with its own delta and clock (the segment advance, engine/src/segment.cpp). CFS:
  /// always; EEVDF: while curr is alone (with others queued, a used-up slice reschedules).
  virtual bool update_curr_is_local(const SchedState&, CpuId) const { return false; }
  /// `n` update_curr() calls of `delta` each, in a row with nothing in between; a module whose
  /// update is linear in the calls gives the same state at once.
  virtual void update_curr_repeat(const SchedState& s, CpuId cpu, Duration delta, int64_t n) {
    for (int64_t i = 0; i < n; ++i) update_curr(s, cpu, delta);
  }
  /// Should the newly enqueued `wakee` preempt cpu's current task? `flags`: how it was woken.
  virtual bool check_preempt_wakeup(const SchedState& s, CpuId cpu, TaskId wakee, const WakeFlags& flags) = 0;
  /// Tick: should curr be preempted now?
  virtual bool check_preempt_tick(const SchedState& s, CpuId cpu) = 0;
  /// Queued (not running) tasks of cpu, in the queue's order, for load balancing.
  virtual void for_each_queued(const SchedState& s, CpuId cpu,
                               const std::function<bool(TaskId)>& fn) const = 0;
  /// Fork: initialise the child's queue state from the parent (task_fork_fair).
  virtual void task_fork(const SchedState&, TaskId /*parent*/, TaskId /*child*/) {}
  /// True when the fork touches the parent's queue, as task_fork_fair() did up to v6.11: an
  /// update_curr(), then a placement of the child (CFS: kept; EEVDF 6.6-6.11: overwritten at the
  /// first enqueue). Under SimConfig::update_curr = kEvents the engine then charges the parent's
  /// CPU first. Since v6.12 (c40dd90ac045 "sched: Initialize the vruntime of a new task when it
  /// is first enqueued", Zhang Qiao) the child is placed at its first enqueue only.
  virtual bool task_fork_reads_queue() const { return false; }
  // ---- DELAY_DEQUEUE (6.12+; fid-impl) ----
  /// True while p sleeps but is still in its CPU's queue (a delayed dequeue): a wakeup then
  /// re-queues it in place (requeue_delayed) instead of placing it.
  virtual bool is_delayed(TaskId /*p*/) const { return false; }
  /// ttwu_runnable() for a delayed p on cpu: p is runnable again where it is.
  virtual void requeue_delayed(SchedState&, CpuId /*cpu*/, TaskId /*p*/) {}
};

/// Operations the engine offers the balance slot.
class BalanceOps {
 public:
  virtual ~BalanceOps() = default;
  /// Moves a queued (not running) task to dst (detach + attach). Returns false if not allowed.
  virtual bool migrate_queued(TaskId p, CpuId dst) = 0;
  /// The writes a placement may make, over the run's state and slots, for the placement's
  /// on_periodic_balance() hook that the balance slot calls.
  virtual PlacementWrites placement_writes() = 0;
};

class BalancePolicy {
 public:
  virtual ~BalancePolicy() = default;
  virtual void attach(SchedState&) {}
  /// cpu is about to go idle: try to pull work (sched_balance_newidle). Returns true if pulled.
  virtual bool newidle(SchedState& s, BalanceOps& ops, CpuId cpu) = 0;
  /// Periodic rebalance from the tick of a busy cpu (rebalance_domains). Must call
  /// placement.on_periodic_balance for levels it visits.
  virtual void periodic(SchedState& s, BalanceOps& ops, PlacementPolicy& placement, CpuId cpu) = 0;
};

/// A chosen module of each slot plus, for reports, the module names and the resolved flags.
struct PolicyStack {
  std::unique_ptr<PlacementPolicy> placement;
  std::unique_ptr<IdleCoresPolicy> idle_cores;
  std::unique_ptr<UtilPolicy> util;
  std::unique_ptr<QueuePolicy> queue;
  std::unique_ptr<BalancePolicy> balance;
  std::map<std::string, std::string> names;  ///< slot -> module name, for reports
  FeatureSet features;
};

}  // namespace schedsim
