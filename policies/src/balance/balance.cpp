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
#include <algorithm>

#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace {

constexpr int64_t kMigrationCost = 500000;  // sysctl_sched_migration_cost, ns

class KernelBalance final : public BalancePolicy {
 public:
  KernelBalance(bool periodic, bool newidle) : periodic_(periodic), newidle_(newidle) {}

  void attach(SchedState& s) override {
    size_t nl = s.topo->levels().size();
    per_cpu_.assign(s.cpus.size(), PerCpu{});
    for (auto& p : per_cpu_) {
      p.last_balance.assign(nl, Instant::zero());
      p.failed.assign(nl, 0);
      p.max_newidle_cost.assign(nl, 0);
    }
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
      const CpuMask& span = levels[l].span[cpu.value()];
      int64_t t = static_cast<int64_t>(span.count()) * s.cost->probe_cpu.count();
      pulled = pull_one(s, ops, cpu, span, l, true);
      pc.max_newidle_cost[l] = std::max(pc.max_newidle_cost[l], t);
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
        if (static_cast<int>(l) == s.topo->llc_level()) {
          PlacementWrites w(s);
          placement.on_periodic_balance(s, w, cpu, static_cast<int>(l));
        }
        if (periodic_) balance_level(s, ops, cpu, l);
      }
      next = std::min(next, pc.last_balance[l] + interval);
    }
    s.rq(cpu).next_balance = next;
    if (periodic_ && s.rq(cpu).nr_running >= 2) nohz_kick(s, ops, cpu);
  }

 private:
  struct PerCpu {
    std::vector<Instant> last_balance;
    std::vector<uint32_t> failed;
    std::vector<int64_t> max_newidle_cost;
    Instant cost_decay;
  };

  static bool overloaded(const SchedState& s) {
    for (const auto& c : s.cpus)
      if (c.nr_running > 1) return true;
    return false;
  }

  void decay_newidle_cost(const SchedState& s, PerCpu& pc) {
    if (s.now < pc.cost_decay + Duration::s(1)) return;
    pc.cost_decay = s.now;
    for (auto& c : pc.max_newidle_cost) c = c * 253 / 256;
  }

  static bool cache_hot(const SchedState& s, TaskId p) {
    const TaskSched& t = s.tasks[p.v];
    return t.has_run && (s.now - t.last_ran).count() < kMigrationCost;
  }

  // The CPU of `span` (other than dst) with the most runnable tasks, at least 2; invalid if none.
  static CpuId busiest_cpu(const SchedState& s, CpuId dst, const CpuMask& span) {
    CpuId best;
    uint32_t best_nr = 1;
    for (uint32_t c : span) {
      if (c == dst.value()) continue;
      uint32_t nr = s.cpus[c].nr_running;
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
      if (s.allowed(p, dst) && (ignore_hot || !cache_hot(s, p))) cand.push_back(p);
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
    uint32_t mine = s.rq(cpu).nr_running, theirs = s.rq(src).nr_running;
    if (theirs < mine + 2) return;  // balanced enough: moving one would just swap the imbalance
    pull(s, ops, cpu, span, level, std::min<uint32_t>((theirs - mine) / 2, 32), false);
  }

  void nohz_kick(SchedState& s, BalanceOps& ops, CpuId busy_cpu) {
    std::vector<TaskId> waiting;
    s.queue->for_each_queued(s, busy_cpu, [&](TaskId p) {
      waiting.push_back(p);
      return waiting.size() < 4;
    });
    for (TaskId p : waiting) {
      // The first idle CPU the task may use, nearest levels first.
      for (const auto& lv : s.topo->levels()) {
        CpuMask cand = lv.span[busy_cpu.value()] & *s.tasks[p.v].affinity;
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

  bool periodic_, newidle_;
  std::vector<PerCpu> per_cpu_;
};

}  // namespace

void register_balance_modules(PolicyRegistry& reg) {
  reg.add_balance({"", "kernel", "newidle pull + periodic per-level balance + nohz idle kick (simplified load_balance)", {}},
                  [](const Features&) { return std::make_unique<KernelBalance>(true, true); });
  reg.add_balance({"", "newidle", "only newidle pulls when a CPU is about to go idle", {}},
                  [](const Features&) { return std::make_unique<KernelBalance>(false, true); });
  reg.add_balance({"", "none", "no load balancing: tasks move only at wakeup placement", {}},
                  [](const Features&) { return std::make_unique<KernelBalance>(false, false); });
}

}  // namespace schedsim
