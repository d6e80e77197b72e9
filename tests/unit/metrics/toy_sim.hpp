#pragma once
// A tiny, self-consistent scheduler used only to drive observers with realistic call sequences
// until the real engine lands (and to build the results fixtures under tests/data/results/).
// It is NOT a model of Linux: per-CPU FIFO queues, two placement rules ("idle-first": scan for an
// idle CPU from prev; "prev": always prev), random bursts, timer and task wakeups, occasional
// wakeup preemption and newidle stealing. Every callback it emits obeys the Observer contract.
#include <cstdint>
#include <deque>
#include <queue>
#include <random>
#include <vector>

#include "schedsim/engine/observer.hpp"
#include "schedsim/engine/state.hpp"
#include "schedsim/workload/workload.hpp"

namespace toy {

using namespace schedsim;

struct ToyConfig {
  bool idle_first = true;   // placement: scan for idle CPUs (else stay on prev)
  uint32_t tasks = 24;
  uint32_t bursts = 60;     // bursts per task before exit
  uint64_t seed = 1;
  int64_t mean_run_ns = 30000;
  int64_t mean_sleep_ns = 260000;
};

inline Workload make_workload(const ToyConfig& c) {
  Workload w;
  w.name = c.idle_first ? "toy-idle-first" : "toy-prev";
  w.source = "tests/unit/metrics/toy_sim.hpp";
  for (uint32_t i = 0; i < c.tasks; ++i) {
    TaskSpec t;
    t.name = (i % 3 == 0 ? "sender-" : "receiver-") + std::to_string(i);
    t.pid = 2000 + i;
    t.tgid = 2000;
    w.add_task(std::move(t));
  }
  return w;
}

class ToySim {
 public:
  ToySim(const Topology& topo, const Workload& w, ToyConfig c)
      : topo_(topo), w_(w), c_(c), rng_(c.seed) {
    state_.init(topo, cost_, w.tasks.size());
    for (auto& t : state_.tasks) t.affinity = &topo.all_cpus();
    n_ = topo.nr_cpus();
    curr_.assign(n_, TaskId());
    queue_.assign(n_, {});
    gen_.assign(n_, 0);
    left_.assign(w.tasks.size(), c.bursts);
    prev_.assign(w.tasks.size(), 0);
    sleeping_.assign(w.tasks.size(), false);
    gen_wake_.assign(w.tasks.size(), 0);
  }

  void add(Observer* o) { obs_.push_back(o); }
  const SchedState& state() const { return state_; }

  Instant run() {
    for (auto* o : obs_) o->on_start(state_);
    for (uint32_t i = 0; i < w_.tasks.size(); ++i) {
      Instant at = Instant::from_ns(uniform(0, 50000));
      push({at, kStart, i, 0, 0});
    }
    Instant now;
    while (!events_.empty()) {
      Ev e = events_.top();
      events_.pop();
      now = e.at;
      state_.now = now;
      switch (e.kind) {
        case kStart: start(e); break;
        case kWake:
          if (sleeping_[e.a] && e.gen == gen_wake_[e.a]) {
            sleeping_[e.a] = false;
            wake(e.at, TaskId(e.a), TaskId());
          }
          break;
        case kEnqueue: enqueue(e.at, TaskId(e.a), e.b); break;
        case kRunEnd:
          if (e.gen == gen_[e.b]) run_end(e.at, e.b);
          break;
      }
    }
    for (auto* o : obs_) o->on_end(state_, now);
    return now;
  }

 private:
  enum Kind { kStart, kWake, kEnqueue, kRunEnd };
  struct Ev {
    Instant at;
    Kind kind;
    uint32_t a, b;
    uint64_t gen;
    uint64_t seq = 0;
    bool operator>(const Ev& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void push(Ev e) {
    e.seq = seq_++;
    events_.push(e);
  }
  int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng_); }
  int64_t expo(int64_t mean) {
    return 1000 + static_cast<int64_t>(std::exponential_distribution<double>(1.0 / static_cast<double>(mean))(rng_));
  }
  bool idle(uint32_t cpu) const { return !curr_[cpu].valid() && queue_[cpu].empty() && !reserved(cpu); }
  bool reserved(uint32_t cpu) const { return state_.cpus[cpu].ttwu_pending > 0; }

  void set_busy(uint32_t cpu, bool busy) {
    // Without SMT every CPU is a core: the exact idle-core count is the idle CPU count.
    auto& llc = state_.llcs[topo_.llc_index(cpu)];
    auto& cb = state_.core_busy_threads[topo_.core_index(cpu)];
    if (busy && cb == 0) {
      cb = 1;
      --llc.nr_idle_cores_exact;
      for (auto* o : obs_) o->on_idle_exit(state_.now, cpu);
    } else if (!busy && cb == 1) {
      cb = 0;
      ++llc.nr_idle_cores_exact;
      for (auto* o : obs_) o->on_idle_enter(state_.now, cpu);
    }
  }

  void start(const Ev& e) {
    TaskId t(e.a);
    for (auto* o : obs_) o->on_task_start(e.at, t, TaskId());
    uint32_t cpu = e.a % n_;
    prev_[e.a] = cpu;
    WakeFact f;
    f.at = e.at;
    f.wakee = t;
    f.kind = WakeKind::kFork;
    f.waker_cpu = cpu;
    f.prev_cpu = cpu;
    f.placement.cpu = cpu;
    f.placement.outcome = PlaceOutcome::kSlowPath;
    for (auto* o : obs_) o->on_wake(f);
    push({e.at + Duration::ns(500), kEnqueue, e.a, cpu, 0});
  }

  void wake(Instant at, TaskId t, TaskId waker) {
    uint32_t prev = prev_[t.v];
    uint32_t waker_cpu = waker.valid() ? static_cast<uint32_t>(state_.tasks[waker.v].cpu) : prev;
    WakeFact f;
    f.at = at;
    f.wakee = t;
    f.waker = waker;
    f.waker_cpu = waker_cpu;
    f.prev_cpu = prev;
    PlacementResult& p = f.placement;
    p.cpu = prev;
    p.outcome = idle(prev) ? PlaceOutcome::kPrev : PlaceOutcome::kFallback;
    if (c_.idle_first && !idle(prev)) {
      p.hint_consulted = true;
      p.hint_value = last_hint_;
      for (uint32_t k = 1; k < n_; ++k) {
        uint32_t cpu = (prev + k) % n_;
        ++p.probes_cpu;
        if (idle(cpu)) {
          p.cpu = cpu;
          p.outcome = PlaceOutcome::kIdleCpu;
          break;
        }
      }
      last_hint_ = state_.llcs[topo_.llc_index(prev)].nr_idle_cores_exact > 0;
    }
    p.scan_cost = Duration::ns(40) * static_cast<int64_t>(p.probes_cpu);
    f.target_was_idle = idle(p.cpu);
    f.delay = p.scan_cost + (p.cpu != waker_cpu ? Duration::ns(600) : Duration::zero()) +
              (f.target_was_idle ? Duration::us(2) : Duration::zero());
    for (auto* o : obs_) o->on_wake(f);
    if (p.cpu != prev) {
      for (auto* o : obs_) o->on_migrate(at, t, prev, p.cpu, topo_.distance(prev, p.cpu));
      prev_[t.v] = p.cpu;
    }
    state_.tasks[t.v].cpu = p.cpu;
    ++state_.cpus[p.cpu].ttwu_pending;
    push({at + f.delay, kEnqueue, t.v, p.cpu, 0});
  }

  void switch_to(Instant at, uint32_t cpu, TaskId prev, SwitchReason why, TaskId next) {
    for (auto* o : obs_) o->on_switch(at, cpu, prev, why, next);
    curr_[cpu] = next;
    state_.cpus[cpu].curr = next;
    if (next.valid()) {
      state_.tasks[next.v].cpu = cpu;
      prev_[next.v] = cpu;
      ++gen_[cpu];
      push({at + Duration::ns(expo(c_.mean_run_ns)), kRunEnd, 0, cpu, gen_[cpu]});
      run_start_[cpu] = at;
    }
    set_busy(cpu, next.valid());
  }

  void enqueue(Instant at, TaskId t, uint32_t cpu) {
    if (state_.cpus[cpu].ttwu_pending) --state_.cpus[cpu].ttwu_pending;
    for (auto* o : obs_) o->on_enqueue(at, t, cpu);
    if (!curr_[cpu].valid() && queue_[cpu].empty()) {
      switch_to(at, cpu, TaskId(), SwitchReason::kBlock, t);
      return;
    }
    if (uniform(0, 9) == 0 && curr_[cpu].valid()) {
      // Wakeup preemption: the current task goes back to the queue's head.
      TaskId cur = curr_[cpu];
      account(at, cur, cpu);
      queue_[cpu].push_front(cur);
      switch_to(at, cpu, cur, SwitchReason::kPreempt, t);
      return;
    }
    queue_[cpu].push_back(t);
  }

  void account(Instant at, TaskId t, uint32_t cpu) {
    Duration wall = at - run_start_[cpu];
    for (auto* o : obs_) o->on_run(at, t, cpu, wall, wall);
  }

  void run_end(Instant at, uint32_t cpu) {
    TaskId t = curr_[cpu];
    account(at, t, cpu);
    SwitchReason why = SwitchReason::kSleep;
    if (--left_[t.v] == 0) {
      for (auto* o : obs_) o->on_exit(at, t, cpu);
      why = SwitchReason::kExit;
    } else if (uniform(0, 1) == 0) {
      // Wake a sleeping task from this one (a pipe write), then sleep on a timer.
      for (uint32_t k = 0; k < 4; ++k) {
        uint32_t cand = static_cast<uint32_t>(uniform(0, static_cast<int64_t>(w_.tasks.size()) - 1));
        if (sleeping_[cand]) {
          sleeping_[cand] = false;
          ++gen_wake_[cand];
          wake(at, TaskId(cand), t);
          break;
        }
      }
    }
    if (why == SwitchReason::kSleep) {
      sleeping_[t.v] = true;
      timer_wake(at + Duration::ns(expo(c_.mean_sleep_ns)), t);
    }
    TaskId next;
    if (!queue_[cpu].empty()) {
      next = queue_[cpu].front();
      queue_[cpu].pop_front();
    } else {
      // newidle balance: steal the tail of the longest queue.
      uint32_t best = cpu;
      for (uint32_t c = 0; c < n_; ++c)
        if (queue_[c].size() > queue_[best].size()) best = c;
      if (best != cpu && !queue_[best].empty()) {
        next = queue_[best].back();
        queue_[best].pop_back();
        for (auto* o : obs_) o->on_migrate(at, next, best, cpu, topo_.distance(best, cpu));
      }
    }
    switch_to(at, cpu, t, why, next);
  }

  void timer_wake(Instant at, TaskId t) {
    // A timer wakeup fires only if no task woke the sleeper first (generation check).
    push({at, kWake, t.v, 0, gen_wake_[t.v]});
  }

  const Topology& topo_;
  const Workload& w_;
  ToyConfig c_;
  CostModel cost_;
  SchedState state_;
  std::mt19937_64 rng_;
  uint32_t n_ = 0;
  std::vector<TaskId> curr_;
  std::vector<std::deque<TaskId>> queue_;
  std::vector<uint64_t> gen_;
  std::vector<uint32_t> left_, prev_;
  std::vector<bool> sleeping_;
  std::vector<uint64_t> gen_wake_;
  std::vector<Observer*> obs_;
  std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> events_;
  std::vector<Instant> run_start_ = std::vector<Instant>(4096);
  uint64_t seq_ = 0;
  bool last_hint_ = true;
};

}  // namespace toy
