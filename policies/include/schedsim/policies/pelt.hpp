#pragma once
/// The util slot: per-entity load tracking (PELT) per task and per CPU, util_est, and the
/// cpu_util()/cpu_util_without() queries placement and balance read (docs/sources.md, PELT and utilization).
///
/// PELT (kernel/sched/pelt.c): time is counted in 1024 ns units; a period is 1024 units. A
/// signal's sum decays by y per period with y^32 = 1/2, and a full period adds 1024 (x the input):
///   sum' = sum * y^p + input * (d1 y^p + 1024 * sum_{n=1}^{p-1} y^n + d3)
///   avg  = w * sum / (LOAD_AVG_MAX - 1024 + period_contrib)
/// The middle term is LOAD_AVG_MAX - decay(LOAD_AVG_MAX, p) - 1024. Frequency and capacity
/// invariance are 1 (homogeneous CPUs at their highest frequency), so clock_pelt = the clock.
#include <array>
#include <cstdint>
#include <vector>

#include "schedsim/engine/policy.hpp"
#include "schedsim/policies/features.hpp"

namespace schedsim::pelt {

inline constexpr uint32_t kLoadAvgPeriod = 32;     ///< y^32 = 1/2
inline constexpr uint64_t kLoadAvgMax = 47742;     ///< max value of a sum with input 1
inline constexpr uint32_t kUtilEstMargin = 1024 / 100;  ///< 10: "1% of capacity"

/// y^n * (2^32 - 1), n = 0..31, computed at startup with long double (runnable_avg_yN_inv).
const std::array<uint32_t, kLoadAvgPeriod>& decay_table();
/// decay_load(): val * y^n; 0 for n > 32 * 63.
uint64_t decay_load(uint64_t val, uint64_t n);
/// The sum of the 1024-wide full periods of a p-period update, plus the partial ends:
/// d1 y^p + 1024 sum_{n=1}^{p-1} y^n + d3.
uint64_t accumulate_segments(uint64_t periods, uint32_t d1, uint32_t d3);

/// struct sched_avg: one entity's (or cfs_rq's) signals.
struct SchedAvg {
  int64_t last_update_time = 0;  ///< ns, a multiple of 1024 past the first update
  uint64_t load_sum = 0, runnable_sum = 0, util_sum = 0;
  uint32_t period_contrib = 0;   ///< units of the current period already accrued (0..1023)
  uint64_t load_avg = 0, runnable_avg = 0, util_avg = 0;

  uint32_t divider() const { return static_cast<uint32_t>(kLoadAvgMax - 1024 + period_contrib); }
  /// ___update_load_sum + ___update_load_avg: advance to `now_ns` with the given inputs (load:
  /// 0/1 for a task, sum of weights for a cfs_rq; runnable: count; running: 0/1), then
  /// recompute the averages with multiplier `weight` if a period boundary was crossed.
  /// Returns true when the averages were recomputed.
  bool update(int64_t now_ns, uint64_t load, uint64_t runnable, bool running, uint64_t weight);
};

/// PELT-based util modules: `pelt` (util_est off) and `pelt-util-est`.
class PeltUtil final : public UtilPolicy {
 public:
  PeltUtil(bool util_est_module, const Features& f);

  void attach(SchedState& s) override;
  void task_new(const SchedState& s, TaskId p, CpuId cpu) override;
  void update(const SchedState& s, CpuId cpu) override;
  void enqueue(const SchedState& s, TaskId p, CpuId cpu, bool migrated) override;
  void dequeue(const SchedState& s, TaskId p, CpuId cpu, bool sleep) override;
  void set_running(const SchedState& s, TaskId p, CpuId cpu, bool running) override;
  void sync_task(const SchedState& s, TaskId p) override;
  uint32_t task_util(const SchedState& s, TaskId p) const override;
  uint32_t task_util_est(const SchedState& s, TaskId p) const override;
  uint64_t task_load(const SchedState& s, TaskId p) const override;
  uint32_t cpu_util(const SchedState& s, CpuId cpu, TaskId p, CpuId dst, bool boost) const override;
  uint32_t cpu_util_without(const SchedState& s, CpuId cpu, TaskId p) const override;
  uint64_t cpu_load(const SchedState& s, CpuId cpu) const override;
  uint64_t cpu_load_without(const SchedState& s, CpuId cpu, TaskId p) const override;
  uint64_t cpu_runnable(const SchedState& s, CpuId cpu) const override;

  /// Per-task state (sched_entity avg + util_est), public for tests.
  struct Task {
    SchedAvg avg;
    bool init = false, on_rq = false, running = false;
    bool fresh = false;          ///< task_new() done, never enqueued yet
    CpuId attached_cpu;          ///< whose cfs_rq holds this task's contribution (invalid: none)
    uint32_t est_enqueued = 0;   ///< util_est.enqueued (<= 6.8 form)
    uint32_t est_ewma = 0;       ///< util_est.ewma
    bool avg_unchanged = false;  ///< UTIL_AVG_UNCHANGED: no util_avg update since the last sample
    uint32_t queued_est = 0;     ///< est(p) added to the cfs sum at enqueue
  };
  /// Per-CPU cfs_rq state.
  struct Cfs {
    SchedAvg avg;
    uint64_t load_weight = 0;   ///< sum of queued entities' weights (table units)
    uint32_t h_nr_running = 0;
    TaskId curr;
    uint64_t util_est = 0;      ///< sum of est(p) over queued tasks
  };
  const Task& task(TaskId p) const { return tasks_[p.value()]; }
  const Cfs& cfs(uint32_t cpu) const { return cfs_[cpu]; }

 private:
  // Called by every operation (a task or CPU seen for the first time grows the tables): inline,
  // since the check is all it does once they have grown.
  void ensure(const SchedState& s) {
    if (tasks_.size() < s.tasks.size() || cfs_.size() < s.cpus.size()) grow(s);
  }
  void grow(const SchedState& s);
  void update_cfs(const SchedState& s, uint32_t cpu);
  void update_task(const SchedState& s, TaskId p);
  void attach_to(const SchedState& s, TaskId p, uint32_t cpu);
  void detach(const SchedState& s, TaskId p);
  void util_est_update(const SchedState& s, TaskId p, uint32_t cpu);
  uint32_t est(const Task& t) const;

  bool util_est_ = false, fastup_ = false;
  std::vector<Task> tasks_;
  std::vector<Cfs> cfs_;
};

/// `none`: every signal is zero (for comparison with the PELT modules). Also the base of the
/// tests' util stubs (tests/unit/policies/policy_fixture.hpp), which override only the readers.
class NoUtil : public UtilPolicy {
 public:
  void task_new(const SchedState&, TaskId, CpuId) override {}
  void update(const SchedState&, CpuId) override {}
  void enqueue(const SchedState&, TaskId, CpuId, bool) override {}
  void dequeue(const SchedState&, TaskId, CpuId, bool) override {}
  void set_running(const SchedState&, TaskId, CpuId, bool) override {}
  void sync_task(const SchedState&, TaskId) override {}
  uint32_t task_util(const SchedState&, TaskId) const override { return 0; }
  uint32_t task_util_est(const SchedState&, TaskId) const override { return 0; }
  uint64_t task_load(const SchedState&, TaskId) const override { return 0; }
  uint32_t cpu_util(const SchedState&, CpuId, TaskId, CpuId, bool) const override { return 0; }
  uint32_t cpu_util_without(const SchedState&, CpuId, TaskId) const override { return 0; }
  uint64_t cpu_load(const SchedState&, CpuId) const override { return 0; }
  uint64_t cpu_load_without(const SchedState&, CpuId, TaskId) const override { return 0; }
  uint64_t cpu_runnable(const SchedState&, CpuId) const override { return 0; }
};

}  // namespace schedsim::pelt
