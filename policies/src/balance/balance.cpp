// Load balancing (docs/sources.md, Run queue and balance), simplified where §8 allows a simulator to be.
//
// `kernel`  : newidle balance + periodic balance per domain level + a nohz idle-balance kick.
// `newidle` : newidle balance only.
// `none`    : no task ever moves after placement (periodic ticks still refresh SIS_UTIL).
//
// newidle (sched_balance_newidle / idle_balance): gated by "some CPU is overloaded" (the root
// domain's overload flag) and by avg_idle >= cost_so_far + max_newidle_lb_cost of the level;
// walks levels bottom-up, pulls one task from the busiest CPU of the span, stops once it pulled.
// The simulated cost of a level's attempt is probe_cpu per CPU of the span examined; it feeds
// max_newidle_lb_cost (decayed x253/256 per second as in 6.x) and rq->max_idle_balance_cost.
//
// periodic (rebalance_domains): from a busy CPU's tick, for each level whose interval
// (balance_interval = span weight in ms, x busy_factor while busy) has elapsed: find the busiest
// CPU of the span by nr_running and move (busiest - this)/2 queued tasks (at most 32,
// sched_nr_migrate), skipping pinned and cache-hot ones (ran within migration_cost = 0.5 ms)
// unless the level failed more than cache_nice_tries times in a row. The LLC level also calls
// the placement module's periodic hook (update_idle_cpu_scan for SIS_UTIL).
//
// nohz kick (nohz_balancer_kick, simplified): a busy CPU with nr_running >= 2 at its tick pulls
// one waiting task to the first idle CPU the task may run on, on behalf of the idle balancer.
//
// `kernel-6.14`: the same balance with the later kernels' rules as flags (balance/features.def,
// docs/kernel-versions.md section 4):
//   LB_RUNNABLE (6.14): every count above (overload, busiest CPU, imbalance, nohz kick) is the
//     runnable count, nr_running - nr_delayed, and a delayed-dequeue task is never a candidate.
//   NI_BUMP (6.17, 155213a2aed4): a newidle pass that pulls nothing records 1.5 x the level's
//     current max cost instead of its measured cost; recorded costs are capped at
//     migration_cost + 200 ns.
//   NI_RANDOM (6.18.y stable / 6.19, 33cf66d88306): per level calls/successes/ratio; a visit that
//     passes the avg_idle test draws d in [0, 1024) and skips the pass (a call without success)
//     when d > 1 + ratio; a pass that pulls credits round(1024 / (1 + ratio)) successes; every
//     1024 calls ratio = successes and both counters halve. One generator per run, seeded from
//     the run's seed (SchedState::seed), so a run stays reproducible.
//   ILB_SIS_UTIL: the LLC statistics of the idle CPUs' periodic balance. A tickless idle CPU does
//     not balance itself: at every tick of a busy CPU, nohz_balancer_kick() kicks an idle CPU
//     (kick_ilb()) once nohz.next_balance is due and either the busy CPU has two runnable tasks
//     or two CPUs of its LLC are busy (sd_llc_shared->nr_busy_cpus > 1); the kicked CPU
//     (_nohz_idle_balance()) balances every idle CPU whose balance is due, at the idle interval
//     (balance_interval, not x busy_factor). Each such LLC pass sums the LLC's utilization and
//     refreshes SIS_UTIL's nr_idle_scan (update_idle_cpu_scan() runs for every pass but a
//     newly-idle one), so the scan budget follows the load within a tick or so, where the busy
//     CPUs' own passes (16 ms x 16 on a 16-CPU LLC) would leave it at its value from before the
//     load. Modelled: the kick test, the per-CPU due time of the LLC pass (shared with the
//     busy pass's last_balance; a CPU that never balanced is due, the machine having been quiet
//     before the replay) and the refresh. Not modelled: the idle pass's pulls (the `kernel`
//     module's one-task kick stays) and its non-LLC levels; nohz.next_balance is the earliest
//     next LLC pass of the CPUs that were idle at the last kick, at least one tick on.
#include <algorithm>

#include "features.hpp"
#include "schedsim/base/random.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace {

constexpr int64_t kMigrationCost = 500000;  // sysctl_sched_migration_cost, ns

/// The later kernels' rules (balance/features.def); all off = the 6.12 balance.
struct BalanceRules {
  bool lb_runnable = false, ni_bump = false, ni_random = false, ilb_sis_util = false;
};

class KernelBalance final : public BalancePolicy {
 public:
  KernelBalance(bool periodic, bool newidle, BalanceRules rules = {})
      : periodic_(periodic), newidle_(newidle), rules_(rules) {}

  void attach(SchedState& s) override {
    size_t nl = s.topo->levels().size();
    per_cpu_.assign(s.cpus.size(), PerCpu{});
    for (auto& p : per_cpu_) {
      p.last_balance.assign(nl, Instant::zero());
      p.balanced.assign(nl, false);
      p.failed.assign(nl, 0);
      p.max_newidle_cost.assign(nl, 0);
      p.ni.assign(nl, NewidleStats{});
    }
    // A stream of its own, so NI_RANDOM's draws do not shift the engine's jitter stream.
    rng_ = SplitMix64(derive_seed(s.seed, 0x4e495f52414e44ull));  // "NI_RAND"
  }

  bool newidle(SchedState& s, BalanceOps& ops, CpuId cpu) override {
    if (!newidle_) return false;
    if (!overloaded(s)) return false;
    PerCpu& pc = per_cpu_[cpu.value()];
    decay_newidle_cost(s, pc);
    const auto& levels = s.topo->levels();
    int64_t avg_idle = s.rq(cpu).avg_idle.count();
    int64_t spent = 0;
    bool pulled = false;
    for (size_t l = 0; l < levels.size(); ++l) {
      if (avg_idle < spent + pc.max_newidle_cost[l]) break;
      if (!levels[l].has(kSdBalanceNewidle)) continue;
      uint32_t weight = 1;
      if (rules_.ni_random) {
        weight = 1 + pc.ni[l].ratio;
        if (rng_.below(1024) > weight) {
          pc.ni[l].record(0);
          continue;
        }
        weight = (1024 + weight / 2) / weight;
      }
      const CpuMask& span = levels[l].span[cpu.value()];
      int64_t t = static_cast<int64_t>(span.count()) * s.cost->probe_cpu.count();
      pulled = pull_one(s, ops, cpu, span, l, true);
      // The recorded cost: the measured one, or with NI_BUMP 1.5x the max after a failed pass.
      int64_t recorded = rules_.ni_bump && !pulled ? pc.max_newidle_cost[l] * 3 / 2 : t;
      if (recorded > pc.max_newidle_cost[l])
        pc.max_newidle_cost[l] = rules_.ni_bump ? std::min(recorded, kMigrationCost + 200) : recorded;
      if (rules_.ni_random) pc.ni[l].record(pulled ? weight : 0);
      spent += t;
      if (pulled) break;
    }
    if (spent > s.rq(cpu).max_idle_balance_cost.count()) s.rq(cpu).max_idle_balance_cost = Duration::ns(spent);
    return pulled;
  }

  void periodic(SchedState& s, BalanceOps& ops, PlacementPolicy& placement, CpuId cpu) override {
    const auto& levels = s.topo->levels();
    PerCpu& pc = per_cpu_[cpu.value()];
    bool busy = s.rq(cpu).curr.valid();
    Instant next = s.now + Duration::s(1);
    for (size_t l = 0; l < levels.size(); ++l) {
      const SchedLevel& lv = levels[l];
      uint32_t weight = lv.span[cpu.value()].count();
      int64_t interval_ms = std::max<int64_t>(1, weight) * (busy ? lv.busy_factor : 1);
      Duration interval = std::max(Duration::ms(interval_ms), s.cost->tick);
      if (s.now >= pc.last_balance[l] + interval) {
        pc.last_balance[l] = s.now;
        pc.balanced[l] = true;
        if (static_cast<int>(l) == s.topo->llc_level()) {
          PlacementWrites w = ops.placement_writes();
          placement.on_periodic_balance(s, w, cpu, static_cast<int>(l));
        }
        if (periodic_) balance_level(s, ops, cpu, l);
      }
      next = std::min(next, pc.last_balance[l] + interval);
    }
    if (rules_.ilb_sis_util) {
      // nohz_balancer_kick() runs at every tick of a busy CPU.
      next = std::min(next, s.now + s.cost->tick);
      nohz_idle_llc_pass(s, ops, placement, cpu);
    }
    s.rq(cpu).next_balance = next;
    if (periodic_ && runnable(s, cpu.value()) >= 2) nohz_kick(s, ops, cpu);
  }

 private:
  // NI_RANDOM's per-domain statistics (sched_domain newidle_call/success/ratio), of 1024.
  struct NewidleStats {
    uint32_t calls = 512, successes = 256, ratio = 512;
    void record(uint32_t success) {
      ++calls;
      successes += success;
      if (calls >= 1024) {
        ratio = successes;
        calls /= 2;
        successes /= 2;
      }
    }
  };
  struct PerCpu {
    std::vector<Instant> last_balance;
    std::vector<bool> balanced;  ///< the level has had a periodic pass in this run
    std::vector<uint32_t> failed;
    std::vector<int64_t> max_newidle_cost;
    std::vector<NewidleStats> ni;
    Instant cost_decay;
  };

  // The count balance decisions use: nr_running, or with LB_RUNNABLE the runnable tasks only.
  uint32_t runnable(const SchedState& s, uint32_t cpu) const {
    const CpuSched& c = s.cpus[cpu];
    return rules_.lb_runnable ? c.nr_running - std::min(c.nr_delayed, c.nr_running) : c.nr_running;
  }
  bool movable(const SchedState& s, TaskId p) const { return !rules_.lb_runnable || !s.queue->is_delayed(p); }

  bool overloaded(const SchedState& s) const {
    for (uint32_t c = 0; c < s.cpus.size(); ++c)
      if (runnable(s, c) > 1) return true;
    return false;
  }

  void decay_newidle_cost(const SchedState& s, PerCpu& pc) {
    if (s.now < pc.cost_decay + Duration::s(1)) return;
    pc.cost_decay = s.now;
    for (auto& c : pc.max_newidle_cost) c = c * 253 / 256;
  }

  static bool cache_hot(const SchedState& s, TaskId p) {
    const TaskSched& t = s.tasks[p.value()];
    return t.has_run && (s.now - t.last_ran).count() < kMigrationCost;
  }

  // The CPU of `span` (other than dst) with the most runnable tasks, at least 2; invalid if none.
  CpuId busiest_cpu(const SchedState& s, CpuId dst, const CpuMask& span) const {
    CpuId best;
    uint32_t best_nr = 1;
    for (uint32_t c : span) {
      if (c == dst.value()) continue;
      uint32_t nr = runnable(s, c);
      // Compare nr_running per capacity, so a big core with 2 tasks is not busier than a little one with 2.
      if (nr > best_nr || (best.valid() && nr == best_nr && s.cpus[c].capacity < s.rq(best).capacity)) {
        best = CpuId(c);
        best_nr = nr;
      }
    }
    return best;
  }

  // Moves up to `max` queued tasks from the busiest CPU of span to dst (detach_tasks()).
  uint32_t pull(SchedState& s, BalanceOps& ops, CpuId dst, const CpuMask& span, size_t level, uint32_t max, bool newly_idle) {
    CpuId src = busiest_cpu(s, dst, span);
    if (!src.valid()) return 0;
    const SchedLevel& lv = s.topo->levels()[level];
    PerCpu& pc = per_cpu_[dst.value()];
    bool ignore_hot = pc.failed[level] > lv.cache_nice_tries;
    std::vector<TaskId> cand;
    s.queue->for_each_queued(s, src, [&](TaskId p) {
      if (s.allowed(p, dst) && movable(s, p) && (ignore_hot || !cache_hot(s, p))) cand.push_back(p);
      return cand.size() < 32;
    });
    uint32_t moved = 0;
    for (TaskId p : cand) {
      if (moved >= max) break;
      if (ops.migrate_queued(p, dst)) ++moved;
    }
    if (moved) {
      pc.failed[level] = 0;
    } else if (!newly_idle) {
      ++pc.failed[level];
    }
    return moved;
  }

  bool pull_one(SchedState& s, BalanceOps& ops, CpuId dst, const CpuMask& span, size_t level, bool newly_idle) {
    return pull(s, ops, dst, span, level, 1, newly_idle) > 0;
  }

  void balance_level(SchedState& s, BalanceOps& ops, CpuId cpu, size_t level) {
    const CpuMask& span = s.topo->levels()[level].span[cpu.value()];
    CpuId src = busiest_cpu(s, cpu, span);
    if (!src.valid()) return;
    uint32_t mine = runnable(s, cpu.value()), theirs = runnable(s, src.value());
    if (theirs < mine + 2) return;  // balanced enough: moving one would just swap the imbalance
    pull(s, ops, cpu, span, level, std::min<uint32_t>((theirs - mine) / 2, 32), false);
  }

  void nohz_kick(SchedState& s, BalanceOps& ops, CpuId busy_cpu) {
    std::vector<TaskId> waiting;
    s.queue->for_each_queued(s, busy_cpu, [&](TaskId p) {
      if (movable(s, p)) waiting.push_back(p);
      return waiting.size() < 4;
    });
    for (TaskId p : waiting) {
      // The first idle CPU the task may use, nearest levels first.
      for (const auto& lv : s.topo->levels()) {
        CpuMask cand = lv.span[busy_cpu.value()] & *s.tasks[p.value()].affinity;
        bool done = false;
        for (uint32_t c : cand)
          if (c != busy_cpu.value() && s.cpus[c].idle()) {
            done = ops.migrate_queued(p, CpuId(c));
            break;
          }
        if (done) return;
      }
    }
  }

  // ILB_SIS_UTIL (see the header): nohz_balancer_kick()'s test, then the LLC pass of every idle
  // CPU whose pass is due, as _nohz_idle_balance() runs it, reduced to its SIS_UTIL refresh.
  void nohz_idle_llc_pass(SchedState& s, BalanceOps& ops, PlacementPolicy& placement, CpuId kicker) {
    const int llc = s.topo->llc_level();
    if (llc < 0 || s.now < nohz_next_) return;
    bool kick = runnable(s, kicker.value()) >= 2;
    if (!kick) {
      uint32_t busy = 0;
      for (uint32_t c : s.topo->llc_mask(kicker.value()))
        if (s.cpus[c].curr.valid()) ++busy;
      kick = busy > 1;
    }
    if (!kick) return;
    const auto l = static_cast<size_t>(llc);
    Instant next = Instant::max();
    for (uint32_t c = 0; c < s.cpus.size(); ++c) {
      if (c == kicker.value() || !s.cpus[c].idle()) continue;
      PerCpu& pc = per_cpu_[c];
      const uint32_t weight = s.topo->levels()[l].span[c].count();
      const Duration interval = std::max(Duration::ms(std::max<int64_t>(1, weight)), s.cost->tick);
      if (!pc.balanced[l] || s.now >= pc.last_balance[l] + interval) {
        pc.last_balance[l] = s.now;
        pc.balanced[l] = true;
        PlacementWrites w = ops.placement_writes();
        placement.on_periodic_balance(s, w, CpuId(c), llc);
      }
      next = std::min(next, pc.last_balance[l] + interval);
    }
    nohz_next_ = std::max(next == Instant::max() ? s.now : next, s.now + s.cost->tick);
  }

  bool periodic_, newidle_;
  BalanceRules rules_;
  std::vector<PerCpu> per_cpu_;
  Instant nohz_next_;
  SplitMix64 rng_{1};
};

}  // namespace

ModuleDef<BalancePolicy> kernel_balance() {
  return {{"", "kernel", "newidle pull + periodic per-level balance + nohz idle kick (simplified load_balance)", {}},
          [](const Features&) { return std::make_unique<KernelBalance>(true, true); }};
}

ModuleDef<BalancePolicy> kernel_614_balance() {
  return {{"", "kernel-6.14", "kernel, with the 6.14 runnable accounting and the 6.17 / 6.18.y newidle rules as flags",
           feature_docs({Feature::LB_RUNNABLE, Feature::NI_BUMP, {Feature::NI_RANDOM, false},
                         {Feature::ILB_SIS_UTIL, false}})},
          [](const Features& f) {
            return std::make_unique<KernelBalance>(
                true, true,
                BalanceRules{f.get(Feature::LB_RUNNABLE), f.get(Feature::NI_BUMP), f.get(Feature::NI_RANDOM),
                             f.get(Feature::ILB_SIS_UTIL)});
          }};
}

ModuleDef<BalancePolicy> newidle_balance() {
  return {{"", "newidle", "only newidle pulls when a CPU is about to go idle", {}},
          [](const Features&) { return std::make_unique<KernelBalance>(false, true); }};
}

ModuleDef<BalancePolicy> no_balance() {
  return {{"", "none", "no load balancing: tasks move only at wakeup placement", {}},
          [](const Features&) { return std::make_unique<KernelBalance>(false, false); }};
}

}  // namespace schedsim
