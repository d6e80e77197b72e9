// `cfs`: the Completely Fair Scheduler's local queue as in 4.17-6.5 (docs/sources.md, Run queue and balance).
//
// Models, per CPU cfs_rq: the vruntime-ordered tree with curr kept out of it, min_vruntime,
// place_entity() (START_DEBIT for new tasks, sleeper credit of latency/2 with
// GENTLE_FAIR_SLEEPERS), check_preempt_wakeup() with wakeup_gran scaled by the wakee's weight
// and the next/last buddies, check_preempt_tick(), and pick_next_entity()'s buddy preference.
//
//   period P(n) = sched_latency              if n <= nr_latency (8)
//               = n x min_granularity        otherwise
//   sched_slice(se) = P(n) x w_se / W_cfs      (W_cfs includes se when it is not queued)
//   vruntime advances by delta x 1024 / w
//
// Simplifications: one level (no task groups), so h_nr_running = nr_running; migration keeps
// vruntime relative to the source min_vruntime and re-bases it on the destination's, which is
// what task_waking_fair()/migrate_task_rq_fair() achieve.
#include <set>

#include "queue/tunables.hpp"
#include "features.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace {

using queue::calc_delta_fair;

class CfsQueue final : public QueuePolicy {
 public:
  explicit CfsQueue(const Features& f)
      : gentle_(f.get(Feature::GENTLE_FAIR_SLEEPERS)), start_debit_(f.get(Feature::START_DEBIT)),
        last_buddy_(f.get(Feature::LAST_BUDDY)), next_buddy_(f.get(Feature::NEXT_BUDDY)),
        wakeup_preemption_(f.get(Feature::WAKEUP_PREEMPTION)) {}

  void attach(SchedState& s) override {
    int64_t factor = queue::tunable_factor(static_cast<uint32_t>(s.cpus.size()));
    latency_ = 6000000 * factor;
    min_gran_ = 750000 * factor;
    wakeup_gran_ = 1000000 * factor;
    rq_.assign(s.cpus.size(), Rq{});
    se_.assign(s.tasks.size(), Se{});
  }

  void task_fork(const SchedState& s, TaskId parent, TaskId child) override {
    // task_fork_fair(): the child starts at the parent's vruntime, then place_entity(initial)
    // puts it at least one vslice after min_vruntime (START_DEBIT); kept relative until enqueue.
    const CpuId cpu(s.tasks[parent.value()].cpu);
    Rq& rq = rq_[cpu.value()];
    Se& c = se_[child.value()];
    c.weight = s.tasks[child.value()].weight;
    int64_t v = se_[parent.value()].vruntime;
    int64_t base = rq.min_vruntime;
    if (start_debit_) base += vslice(rq, c.weight, true);
    c.vruntime = std::max(v, base) - rq.min_vruntime;
    c.relative = true;
  }
  bool task_fork_reads_queue() const override { return true; }
  bool update_curr_is_local(const SchedState&, CpuId) const override { return true; }  // vruntime, min_vruntime, sum_exec

  void enqueue(SchedState& s, CpuId cpu, TaskId p, EnqueueKind kind) override {
    Rq& rq = rq_[cpu.value()];
    Se& se = se_[p.value()];
    se.weight = s.tasks[p.value()].weight;
    update_min_vruntime(rq);  // enqueue_entity() runs update_curr() first
    if (kind == EnqueueKind::kNew && !se.relative) {
      // A task alive at the start (no parent seen): placed like a fork on this queue.
      se.vruntime = rq.min_vruntime + (start_debit_ ? vslice(rq, se.weight, true) : 0);
    } else if (se.relative) {
      se.vruntime += rq.min_vruntime;
    } else if (kind == EnqueueKind::kWakeup && se.cpu != cpu.value()) {
      se.vruntime = se.vruntime - rq_[se.cpu].min_vruntime + rq.min_vruntime;
    }
    se.relative = false;
    if (kind == EnqueueKind::kWakeup) {
      // place_entity(initial = 0): sleeper credit of at most latency (halved when gentle).
      int64_t thresh = gentle_ ? latency_ / 2 : latency_;
      se.vruntime = std::max(se.vruntime, rq.min_vruntime - thresh);
    }
    se.cpu = cpu.value();
    rq.tree.insert({se.vruntime, p.value()});
    rq.load += se.weight;
    ++rq.nr;
    s.rq(cpu).nr_running = rq.nr;
  }

  void dequeue(SchedState& s, CpuId cpu, TaskId p, DequeueKind kind) override {
    Rq& rq = rq_[cpu.value()];
    Se& se = se_[p.value()];
    if (rq.curr == p) {
      rq.curr = TaskId();
    } else {
      rq.tree.erase({se.vruntime, p.value()});
    }
    rq.load -= se.weight;
    --rq.nr;
    s.rq(cpu).nr_running = rq.nr;
    clear_buddy(rq, p);
    update_min_vruntime(rq);
    if (kind == DequeueKind::kMigrate) {
      se.vruntime -= rq.min_vruntime;
      se.relative = true;
    }
  }

  TaskId pick_next(SchedState& s, CpuId cpu) override {
    Rq& rq = rq_[cpu.value()];
    if (rq.curr.valid()) {  // curr still current (put_prev not called): it stays
      return rq.curr;
    }
    if (rq.tree.empty()) return TaskId();
    // pick_next_entity(): leftmost, unless a buddy is within wakeup_gran of it.
    uint32_t left = rq.tree.begin()->second;
    uint32_t pick = left;
    if (rq.last.valid() && preempt_entity(se_[rq.last.value()], se_[left]) < 1) pick = rq.last.value();
    if (rq.next.valid() && preempt_entity(se_[rq.next.value()], se_[left]) < 1) pick = rq.next.value();
    clear_buddy(rq, TaskId(pick));
    Se& se = se_[pick];
    rq.tree.erase({se.vruntime, pick});
    rq.curr = TaskId(pick);
    se.prev_sum_exec = se.sum_exec;  // set_next_entity()
    update_min_vruntime(rq);
    (void)s;
    return rq.curr;
  }

  void put_prev(const SchedState&, CpuId cpu, TaskId prev) override {
    Rq& rq = rq_[cpu.value()];
    if (rq.curr != prev) return;
    rq.tree.insert({se_[prev.value()].vruntime, prev.value()});
    rq.curr = TaskId();
  }

  void update_curr(const SchedState&, CpuId cpu, Duration delta) override {
    Rq& rq = rq_[cpu.value()];
    if (!rq.curr.valid() || delta.count() <= 0) return;
    Se& se = se_[rq.curr.value()];
    se.sum_exec += delta.count();
    se.vruntime += calc_delta_fair(delta.count(), se.weight);
    update_min_vruntime(rq);
  }

  // Each call adds the same rounded calc_delta_fair(); min_vruntime only follows curr upwards,
  // so one update after the last call is where the n updates end.
  void update_curr_repeat(const SchedState&, CpuId cpu, Duration delta, int64_t n) override {
    Rq& rq = rq_[cpu.value()];
    if (!rq.curr.valid() || delta.count() <= 0 || n <= 0) return;
    Se& se = se_[rq.curr.value()];
    se.sum_exec += delta.count() * n;
    se.vruntime += calc_delta_fair(delta.count(), se.weight) * n;
    update_min_vruntime(rq);
  }

  bool check_preempt_wakeup(const SchedState&, CpuId cpu, TaskId wakee, const WakeFlags&) override {
    Rq& rq = rq_[cpu.value()];
    if (!rq.curr.valid()) return true;
    if (rq.curr == wakee || !wakeup_preemption_) return false;
    if (next_buddy_ && rq.nr >= kNrLatency) rq.next = wakee;
    if (preempt_entity(se_[rq.curr.value()], se_[wakee.value()]) == 1) {
      rq.next = wakee;  // set_next_buddy() on a preempting wakeup
      if (last_buddy_ && rq.nr >= kNrLatency) rq.last = rq.curr;
      return true;
    }
    return false;
  }

  bool check_preempt_tick(const SchedState&, CpuId cpu) override {
    Rq& rq = rq_[cpu.value()];
    if (!rq.curr.valid() || rq.nr <= 1) return false;
    Se& curr = se_[rq.curr.value()];
    int64_t ideal = sched_slice(rq, curr.weight, false);
    int64_t ran = curr.sum_exec - curr.prev_sum_exec;
    if (ran > ideal) {
      clear_buddy(rq, rq.curr);
      return true;
    }
    if (ran < min_gran_ || rq.tree.empty()) return false;
    int64_t delta = curr.vruntime - se_[rq.tree.begin()->second].vruntime;
    return delta > ideal;
  }

  void for_each_queued(const SchedState&, CpuId cpu, const std::function<bool(TaskId)>& fn) const override {
    for (const auto& [v, t] : rq_[cpu.value()].tree)
      if (!fn(TaskId(t))) return;
  }

 private:
  static constexpr uint32_t kNrLatency = 8;
  struct Se {
    int64_t vruntime = 0, sum_exec = 0, prev_sum_exec = 0;
    uint32_t weight = 1024, cpu = 0;
    bool relative = false;  // vruntime is relative to some min_vruntime (fork/migration)
  };
  struct Rq {
    std::set<std::pair<int64_t, uint32_t>> tree;
    TaskId curr, next, last;
    int64_t min_vruntime = 0;
    uint64_t load = 0;
    uint32_t nr = 0;
  };

  int64_t period(uint32_t n) const { return n <= kNrLatency ? latency_ : static_cast<int64_t>(n) * min_gran_; }
  // sched_slice(): the share of the period this weight gets; `adding` = se is not queued yet.
  int64_t sched_slice(const Rq& rq, uint32_t w, bool adding) const {
    uint32_t n = rq.nr + (adding ? 1 : 0);
    uint64_t load = rq.load + (adding ? w : 0);
    if (load == 0) return period(n);
    Int128 v = static_cast<Int128>(period(n)) * w / load;
    return static_cast<int64_t>(v);
  }
  int64_t vslice(const Rq& rq, uint32_t w, bool adding) const { return calc_delta_fair(sched_slice(rq, w, adding), w); }
  // wakeup_preempt_entity(curr, se): -1 if se is not ahead, 1 if ahead by more than gran.
  int preempt_entity(const Se& curr, const Se& se) const {
    int64_t vdiff = curr.vruntime - se.vruntime;
    if (vdiff <= 0) return -1;
    return vdiff > calc_delta_fair(wakeup_gran_, se.weight) ? 1 : 0;
  }
  void clear_buddy(Rq& rq, TaskId p) {
    if (rq.next == p) rq.next = TaskId();
    if (rq.last == p) rq.last = TaskId();
  }
  void update_min_vruntime(Rq& rq) {
    auto v = queue::min_vruntime_candidate(rq.curr.valid() ? &se_[rq.curr.value()].vruntime : nullptr,
                                           rq.tree.empty() ? nullptr : &rq.tree.begin()->first);
    if (v) rq.min_vruntime = std::max(rq.min_vruntime, *v);
  }

  bool gentle_, start_debit_, last_buddy_, next_buddy_, wakeup_preemption_;
  int64_t latency_ = 0, min_gran_ = 0, wakeup_gran_ = 0;
  std::vector<Rq> rq_;
  std::vector<Se> se_;
};

}  // namespace

ModuleDef<QueuePolicy> cfs_queue() {
  return {{"", "cfs", "CFS (4.17-6.5): vruntime tree, sleeper credit, wakeup granularity, buddies",
           feature_docs({Feature::GENTLE_FAIR_SLEEPERS, Feature::START_DEBIT, Feature::LAST_BUDDY,
                         Feature::NEXT_BUDDY, Feature::WAKEUP_PREEMPTION})},
          [](const Features& f) { return std::make_unique<CfsQueue>(f); }};
}

}  // namespace schedsim
