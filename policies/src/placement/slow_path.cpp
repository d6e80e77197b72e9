// Models the fork/exec slow path: find_idlest_cpu(), find_idlest_group() and
// find_idlest_group_cpu(), kernel/sched/fair.c (renamed sched_balance_find_dst_* in 6.12), in
// the 4.17 form and the 5.5+ form (docs/sources.md, Wake path). Written from the spec.
//
// Simplifications:
// - No C-states: among idle CPUs the most recently idled one (latest idle_stamp) wins.
// - No SCHED_IDLE tasks, no NUMA preferred node, no asym packing / imbalanced group types.
// - 5.5+: group_runnable uses cpu_runnable (p's own runnable contribution is not removed).
// - 5.5+ NUMA has_spare: imb_numa_nr is approximated as max(1, local group weight / 4)
//   (the 5.x "25% of the node" rule) [U]; the kernel derives it from the LLC count.
// - 4.17: runnable_load_avg is approximated by cpu_runnable (equal for nice-0 tasks).
#include <algorithm>
#include <limits>

#include "placement/sis_shared.hpp"

namespace schedsim::placement {
namespace {

constexpr uint32_t kNone = kNoCpu;

/// group_type in precedence order (lower is less busy), as update_sg_wakeup_stats classifies.
enum class GroupType : uint8_t { kHasSpare, kFullyBusy, kMisfit, kOverloaded };

struct WakeupStats {
  uint64_t load = 0, util = 0, runnable = 0, capacity = 0, avg_load = 0;
  uint32_t nr_running = 0, idle_cpus = 0, weight = 0, max_capacity = 0;
  GroupType type = GroupType::kHasSpare;
};

}  // namespace

uint32_t KernelPlacement::find_idlest_group_cpu(const SchedState& s, TaskId p, const CpuMask& group,
                                                uint32_t this_cpu) const {
  if (group.count() == 1) return group.first();
  uint32_t shallowest = kNone, least_loaded = this_cpu;
  int64_t latest_stamp = std::numeric_limits<int64_t>::min();
  uint64_t min_load = std::numeric_limits<uint64_t>::max();
  const CpuMask cpus = group & s.allowed_cpus(p);
  for (uint32_t c : cpus) {
    if (is_idle(s, c)) {
      // Without exit latencies, prefer the CPU that went idle last (its cache is warmest).
      const CpuSched& rq = s.cpus[c];
      int64_t stamp = rq.idle_stamp_set ? rq.idle_stamp.ns() : 0;
      if (shallowest == kNone || stamp > latest_stamp) {
        latest_stamp = stamp;
        shallowest = c;
      }
    } else if (shallowest == kNone && s.util) {
      uint64_t load = era_.find_idlest_55 ? s.util->cpu_load(s, CpuId(c)) : s.util->cpu_runnable(s, CpuId(c));
      if (load < min_load) {
        min_load = load;
        least_loaded = c;
      }
    }
  }
  return shallowest != kNone ? shallowest : least_loaded;
}

int KernelPlacement::find_idlest_group_55(const SchedState& s, TaskId p, int level,
                                          uint32_t this_cpu) const {
  const SchedLevel& l = s.topo->levels()[static_cast<size_t>(level)];
  const CpuMask& allowed = s.allowed_cpus(p);
  const uint64_t pct = l.imbalance_pct;
  const TaskSched& t = s.tasks[p.value()];
  const bool p_queued = t.state == TaskState::kRunning || t.state == TaskState::kRunnable;
  const uint32_t p_util = s.util ? s.util->task_util_est(s, p) : 0;
  const auto& groups = l.groups[this_cpu];

  // update_sg_wakeup_stats(): the group's signals as if p were not there.
  auto stats = [&](const CpuMask& g) {
    WakeupStats st;
    for (uint32_t c : g) {
      if (s.util) {
        st.load += s.util->cpu_load_without(s, CpuId(c), p);
        st.util += s.util->cpu_util_without(s, CpuId(c), p);
        st.runnable += s.util->cpu_runnable(s, CpuId(c));
      }
      const CpuSched& rq = s.cpus[c];
      uint32_t nr = rq.nr_running;
      if (p_queued && t.cpu.value() == c && nr > 0) --nr;
      st.nr_running += nr;
      // idle_cpu_without() (added with this form of find_idlest_group, v5.5 commit 57abff067a08):
      // a CPU whose only task is p itself counts as idle. That is the exec'ing task's own CPU
      // (sched_exec()), which therefore stays put when the other groups have no more idle CPUs.
      const bool idle_without_p =
          (!rq.curr.valid() || rq.curr == p) && (!era_.idle_checks_ttwu || rq.ttwu_pending == 0);
      if (nr == 0 && idle_without_p) ++st.idle_cpus;
      st.capacity += s.cpus[c].capacity;
      st.max_capacity = std::max(st.max_capacity, s.cpus[c].capacity);
      ++st.weight;
    }
    const bool overloaded = st.nr_running > st.weight &&
                            (st.capacity * 100 < st.util * pct || st.capacity * pct < st.runnable * 100);
    const bool has_capacity = st.nr_running < st.weight ||
                              (st.capacity * pct >= st.runnable * 100 && st.capacity * 100 > st.util * pct);
    if (overloaded) st.type = GroupType::kOverloaded;
    else if (s.topo->asymmetric() && !fits_capacity(p_util, st.max_capacity)) st.type = GroupType::kMisfit;
    else if (!has_capacity) st.type = GroupType::kFullyBusy;
    if (st.type == GroupType::kOverloaded || st.type == GroupType::kFullyBusy)
      st.avg_load = st.load * 1024 / std::max<uint64_t>(st.capacity, 1);
    return st;
  };

  int idlest = -1, local = -1;
  WakeupStats idlest_st, local_st;
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const CpuMask& g = groups[gi];
    if (!g.intersects(allowed)) continue;
    WakeupStats st = stats(g);
    if (g.test(this_cpu)) {
      local = static_cast<int>(gi);
      local_st = st;
      continue;
    }
    // update_pick_idlest(): lowest group type, then the type's own tie-break.
    bool pick = false;
    if (idlest < 0 || st.type < idlest_st.type) {
      pick = true;
    } else if (st.type == idlest_st.type) {
      switch (st.type) {
        case GroupType::kOverloaded:
        case GroupType::kFullyBusy: pick = st.avg_load < idlest_st.avg_load; break;
        case GroupType::kMisfit: pick = st.max_capacity > idlest_st.max_capacity; break;
        case GroupType::kHasSpare:
          pick = st.idle_cpus > idlest_st.idle_cpus ||
                 (st.idle_cpus == idlest_st.idle_cpus && st.util < idlest_st.util);
          break;
      }
    }
    if (pick) {
      idlest = static_cast<int>(gi);
      idlest_st = st;
    }
  }
  if (idlest < 0) return -1;
  if (local < 0) return idlest;  // the local group was skipped for affinity
  if (local_st.type < idlest_st.type) return -1;
  if (local_st.type > idlest_st.type) return idlest;
  const bool numa = l.has(kSdNuma);
  switch (local_st.type) {
    case GroupType::kOverloaded:
    case GroupType::kFullyBusy: {
      const uint64_t imb = 1024 * (pct - 100) / 100;
      if (numa && idlest_st.avg_load + imb >= local_st.avg_load) return -1;
      if (idlest_st.avg_load >= local_st.avg_load + imb) return -1;
      if (100 * local_st.avg_load <= pct * idlest_st.avg_load) return -1;
      return idlest;
    }
    case GroupType::kMisfit:
      return idlest_st.max_capacity >= local_st.max_capacity ? -1 : idlest;
    case GroupType::kHasSpare: {
      if (numa) {
        // adjust_numa_imbalance(): a small imbalance is tolerated to keep tasks node-local.
        const uint32_t imb_numa_nr = std::max<uint32_t>(1, local_st.weight / 4);
        const uint32_t diff = local_st.idle_cpus > idlest_st.idle_cpus
                                  ? local_st.idle_cpus - idlest_st.idle_cpus
                                  : idlest_st.idle_cpus - local_st.idle_cpus;
        if (local_st.nr_running + 1 <= imb_numa_nr && diff <= 2) return -1;
      }
      return local_st.idle_cpus >= idlest_st.idle_cpus ? -1 : idlest;
    }
  }
  return idlest;
}

int KernelPlacement::find_idlest_group_417(const SchedState& s, TaskId p, int level, uint32_t this_cpu,
                                           uint32_t sd_flag) const {
  const SchedLevel& l = s.topo->levels()[static_cast<size_t>(level)];
  const CpuMask& allowed = s.allowed_cpus(p);
  const uint64_t pct = l.imbalance_pct;
  const uint64_t imbalance = 1024 * (pct - 100) / 100;
  const uint64_t imbalance_scale = 100 + (pct - 100) / 2;
  const uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t min_runnable = kMax, min_avg = kMax, this_runnable = 0, this_avg = 0;
  int64_t most_spare = 0, this_spare = 0;
  int idlest = -1, most_spare_sg = -1;
  const auto& groups = l.groups[this_cpu];
  for (size_t gi = 0; gi < groups.size(); ++gi) {
    const CpuMask& g = groups[gi];
    if (!g.intersects(allowed)) continue;
    const bool local = g.test(this_cpu);
    uint64_t runnable = 0, avg = 0, cap = 0;
    int64_t spare = 0;
    for (uint32_t c : g) {
      if (s.util) {
        runnable += s.util->cpu_runnable(s, CpuId(c));
        avg += s.util->cpu_load(s, CpuId(c));
        int64_t sp = static_cast<int64_t>(s.cpus[c].capacity) -
                     static_cast<int64_t>(s.util->cpu_util_without(s, CpuId(c), p));
        spare = std::max(spare, sp);
      }
      cap += s.cpus[c].capacity;
    }
    cap = std::max<uint64_t>(cap, 1);
    runnable = runnable * 1024 / cap;
    avg = avg * 1024 / cap;
    if (local) {
      this_runnable = runnable;
      this_avg = avg;
      this_spare = spare;
      continue;
    }
    if (min_runnable > runnable + imbalance) {
      min_runnable = runnable;
      min_avg = avg;
      idlest = static_cast<int>(gi);
    } else if (runnable < min_runnable + imbalance && 100 * min_avg > imbalance_scale * avg) {
      // Runnable loads are close: the blocked load (avg) decides.
      min_avg = avg;
      idlest = static_cast<int>(gi);
    }
    if (most_spare < spare) {
      most_spare = spare;
      most_spare_sg = static_cast<int>(gi);
    }
  }
  if (sd_flag != kSdBalanceFork) {
    // Spare capacity first, for exec (wakeups never get here by default).
    const int64_t half_util = s.util ? static_cast<int64_t>(s.util->task_util(s, p) / 2) : 0;
    if (this_spare > half_util &&
        static_cast<int64_t>(imbalance_scale) * this_spare > 100 * most_spare)
      return -1;
    if (most_spare > half_util) return most_spare_sg;
  }
  if (idlest < 0) return -1;
  if (l.has(kSdNuma) && min_runnable + imbalance >= this_runnable) return -1;
  if (min_runnable > this_runnable + imbalance) return -1;
  if (this_runnable < min_runnable + imbalance && 100 * this_avg < imbalance_scale * min_avg) return -1;
  return idlest;
}

uint32_t KernelPlacement::find_idlest_cpu(const SchedState& s, PlacementWrites& w, const WakeContext& ctx, int level,
                                          uint32_t cpu, uint32_t prev, uint32_t sd_flag) {
  const Topology& topo = *s.topo;
  const auto& levels = topo.levels();
  const TaskId p = ctx.p;
  if (!levels[static_cast<size_t>(level)].span[cpu].intersects(s.allowed_cpus(p))) return prev;
  // Sync p's signals first except for a fork, whose child has none yet (5.x+).
  if (era_.find_idlest_55 && ctx.kind != WakeKind::kFork && s.util) w.sync_task_util(p);
  uint32_t new_cpu = cpu;
  int sd = level;
  while (sd >= 0) {
    const SchedLevel& l = levels[static_cast<size_t>(sd)];
    if (!l.has(sd_flag)) {
      --sd;
      continue;
    }
    int g = era_.find_idlest_55 ? find_idlest_group_55(s, p, sd, cpu)
                                : find_idlest_group_417(s, p, sd, cpu, sd_flag);
    if (g < 0) {
      --sd;
      continue;
    }
    new_cpu = find_idlest_group_cpu(s, p, l.groups[cpu][static_cast<size_t>(g)], cpu);
    if (new_cpu == cpu) {
      --sd;
      continue;
    }
    // Continue from the new CPU, at the highest flagged level narrower than the one just done.
    const uint32_t weight = l.span[cpu].count();
    cpu = new_cpu;
    int next = -1;
    for (size_t i = 0; i < levels.size(); ++i) {
      if (levels[i].span[cpu].count() >= weight) break;
      if (levels[i].has(sd_flag)) next = static_cast<int>(i);
    }
    sd = next;
  }
  return new_cpu;
}

}  // namespace schedsim::placement
