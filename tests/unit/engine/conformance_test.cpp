// Conformance and property tests: every module of every slot, on random small workloads and
// topologies, must keep the engine's invariants:
//   - no task runs on two CPUs at once, or outside its affinity;
//   - a placement never picks a CPU outside the task's affinity;
//   - every wake is accounted: it either woke a blocked task or banked a token, and on workloads
//     built to complete, the wakes and timer wakeups observed equal the wake and sleep actions
//     the programs hold (counted from the programs, not from the engine);
//   - work is conserved: the reference work done equals the work the programs asked for;
//   - time is accounted: per CPU, busy time (switch-in to switch-out) equals the wall time the
//     engine reported as run on it, and busy plus idle (idle enter to exit) covers the run;
//   - no starvation behind an idle CPU: a task queued on a CPU never waits while that CPU idles
//     (schedule() picks it at the instant the CPU has nothing running);
//   - the run is deterministic: the same seed gives the same schedule.
// The engine's own full invariant check (check_invariants_full) runs after every event too.
#include <catch2/catch.hpp>

#include <random>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"

using namespace schedsim;

namespace {

struct InvariantObserver : Observer {
  const SchedState* s = nullptr;
  std::vector<int32_t> running_on;  // per task
  std::vector<TaskId> curr;         // per cpu
  uint64_t wakes = 0, tokens = 0, switches = 0;
  uint64_t task_wakes = 0, timer_wakes = 0, exits = 0;  // wakeups by waker kind; on_exit calls
  uint64_t hash = 1469598103934665603ull;
  // Time accounting, per CPU.
  Instant start;
  std::vector<Instant> busy_since, idle_since;
  std::vector<bool> idle;
  std::vector<int64_t> busy_ns, idle_ns, run_wall_ns;
  int64_t work_ns = 0;
  // Starvation: which CPU's queue holds each queued-not-running task (-1: none), and how many
  // tasks each queue holds.
  std::vector<int32_t> queued_on;
  std::vector<uint32_t> queued;
  void mix(uint64_t v) { hash = (hash ^ v) * 1099511628211ull; }
  void on_start(const SchedState& st) override {
    s = &st;
    start = st.now;
    last_seen = st.now;
    running_on.assign(st.tasks.size(), -1);
    queued_on.assign(st.tasks.size(), -1);
    const size_t n = st.cpus.size();
    curr.assign(n, TaskId());
    busy_since.assign(n, st.now);
    idle_since.assign(n, st.now);
    idle.assign(n, true);
    busy_ns.assign(n, 0);
    idle_ns.assign(n, 0);
    run_wall_ns.assign(n, 0);
    queued.assign(n, 0);
  }
  void enqueue(TaskId t, uint32_t cpu) {
    if (queued_on[t.value()] >= 0) --queued[static_cast<uint32_t>(queued_on[t.value()])];
    queued_on[t.value()] = static_cast<int32_t>(cpu);
    ++queued[cpu];
  }
  void dequeue(TaskId t) {
    if (queued_on[t.value()] < 0) return;
    --queued[static_cast<uint32_t>(queued_on[t.value()])];
    queued_on[t.value()] = -1;
  }
  void on_wake(const WakeFact& f) override {
    see(f.at);
    REQUIRE(s->tasks[f.wakee.value()].affinity->test(f.placement.cpu.value()));
    if (f.kind == WakeKind::kWakeup) {
      ++wakes;
      ++(f.waker.valid() ? task_wakes : timer_wakes);
    }
    // A delayed-dequeue wake re-queues the task in place: it is on its CPU's queue again.
    if (f.placement.outcome == PlaceOutcome::kDelayed) enqueue(f.wakee, f.placement.cpu.value());
    mix(static_cast<uint64_t>(f.at.ns()) * 31 + f.placement.cpu.value());
  }
  void on_task_start(Instant at, TaskId, TaskId) override { see(at); }
  void on_enqueue(Instant at, TaskId t, CpuId cpu_id) override {
    const uint32_t cpu = cpu_id.value();
    see(at);
    enqueue(t, cpu);
  }
  void on_migrate(Instant at, TaskId t, CpuId, CpuId to_id, CpuDistance) override {
    const uint32_t to = to_id.value();
    see(at);
    if (queued_on[t.value()] >= 0) enqueue(t, to);  // a queued task pulled by load balance
  }
  void on_token(Instant at, TaskId, bool consumed) override {
    see(at);
    if (!consumed) ++tokens;
  }
  void on_switch(Instant at, CpuId cpu_id, TaskId prev, SwitchReason why, TaskId next) override {
    const uint32_t cpu = cpu_id.value();
    see(at);
    ++switches;
    REQUIRE(curr[cpu] == prev);
    if (prev.valid()) {
      running_on[prev.value()] = -1;
      busy_ns[cpu] += (at - busy_since[cpu]).count();
      if (why == SwitchReason::kPreempt) enqueue(prev, cpu);  // back on its queue, still runnable
    }
    if (next.valid()) {
      REQUIRE(running_on[next.value()] == -1);  // not running anywhere else
      REQUIRE(s->tasks[next.value()].affinity->test(cpu));
      running_on[next.value()] = static_cast<int32_t>(cpu);
      busy_since[cpu] = at;
      dequeue(next);
    }
    curr[cpu] = next;
    mix(static_cast<uint64_t>(at.ns()) * 7 + cpu * 13 + (next.valid() ? next.value() : 999));
  }
  void on_idle_enter(Instant at, CpuId cpu_id) override {
    const uint32_t cpu = cpu_id.value();
    see(at);
    REQUIRE_FALSE(idle[cpu]);
    idle[cpu] = true;
    idle_since[cpu] = at;
  }
  void on_idle_exit(Instant at, CpuId cpu_id) override {
    const uint32_t cpu = cpu_id.value();
    see(at);
    REQUIRE(idle[cpu]);
    idle[cpu] = false;
    idle_ns[cpu] += (at - idle_since[cpu]).count();
  }
  void on_exit(Instant at, TaskId t, CpuId) override {
    see(at);
    ++exits;
    dequeue(t);
  }
  void on_run(Instant at, TaskId t, CpuId cpu_id, Duration wall, Duration work) override {
    const uint32_t cpu = cpu_id.value();
    see(at);
    REQUIRE(curr[cpu] == t);
    run_wall_ns[cpu] += wall.count();
    work_ns += work.count();
  }
  /// After each batch of same-time events the engine has run schedule() on every CPU: none may
  /// sit idle with a task waiting in its own queue. Checked from the next event's time stamp
  /// (see()), so a CPU that is about to pick at the current instant is not flagged.
  Instant last_seen;
  void see(Instant at) {
    if (at == last_seen) return;
    for (size_t cpu = 0; cpu < curr.size(); ++cpu)
      if (!curr[cpu].valid() && queued[cpu] > 0)
        FAIL("cpu" << cpu << " idle with " << queued[cpu] << " queued task(s) at " << last_seen.ns() << " ns");
    last_seen = at;
  }
  void on_end(const SchedState&, Instant end) override {
    see(end + Duration::ns(1));
    for (size_t cpu = 0; cpu < curr.size(); ++cpu) {
      CHECK_FALSE(curr[cpu].valid());  // the loop ran out of events: nothing runs at the end
      if (idle[cpu]) idle_ns[cpu] += (end - idle_since[cpu]).count();
      CHECK(busy_ns[cpu] == run_wall_ns[cpu]);
      CHECK(busy_ns[cpu] + idle_ns[cpu] == (end - start).count());
    }
  }
};

// A random program mixing every action kind. Wakes target random tasks; some tasks end up
// blocked forever, which is a legal end state.
Workload random_workload(std::mt19937_64& rng, uint32_t nr_cpus) {
  Workload w;
  w.name = "random";
  uint32_t n = 2 + static_cast<uint32_t>(rng() % 10);
  uint32_t forked = 0;
  for (uint32_t i = 0; i < n; ++i) {
    TaskSpec t;
    t.name = "r" + std::to_string(i);
    t.start = StartState::kRunnable;
    t.start_time = Instant::from_ns(static_cast<int64_t>(rng() % 100000));
    t.nice = static_cast<int32_t>(rng() % 7) - 3;
    if (rng() % 4 == 0) {
      uint32_t c = static_cast<uint32_t>(rng() % nr_cpus);
      t.affinity.set(c);
      if (rng() % 2) t.affinity.set((c + 1) % nr_cpus);
    }
    uint32_t len = 3 + static_cast<uint32_t>(rng() % 10);
    for (uint32_t k = 0; k < len; ++k) {
      switch (rng() % 6) {
        case 0:
        case 1: t.program.push_back(Action::run(Duration::ns(static_cast<int64_t>(1000 + rng() % 3000000)))); break;
        case 2: t.program.push_back(Action::wake(TaskId(static_cast<uint32_t>(rng() % n)), rng() % 2 ? kWakeSync : 0)); break;
        case 3: t.program.push_back(Action::block()); break;
        case 4: t.program.push_back(Action::sleep(Duration::ns(static_cast<int64_t>(rng() % 2000000)))); break;
        case 5: t.program.push_back(Action::exec()); break;
      }
    }
    if (rng() % 3 == 0) t.program.push_back(Action::loop(static_cast<uint32_t>(t.program.size()), static_cast<int64_t>(rng() % 4)));
    w.add_task(std::move(t));
  }
  // A few forked children hanging off the first task.
  uint32_t kids = static_cast<uint32_t>(rng() % 3);
  for (uint32_t k = 0; k < kids; ++k) {
    TaskSpec c;
    c.name = "kid" + std::to_string(k);
    c.start = StartState::kForked;
    c.program = {Action::run(Duration::us(static_cast<int64_t>(10 + rng() % 500))), Action::wake(TaskId(0))};
    TaskId id = w.add_task(std::move(c));
    w.tasks[0].program.insert(w.tasks[0].program.begin(), Action::fork(id));
    ++forked;
  }
  // The loop body indexes shifted by the inserted forks: drop loops that now include a fork.
  auto& p0 = w.tasks[0].program;
  for (auto it = p0.begin(); it != p0.end();)
    if (it->kind == ActionKind::kLoop) it = p0.erase(it);
    else ++it;
  (void)forked;
  return w;
}

/// Wake and sleep actions a program set executes when every task runs to its end (no loops).
struct ActionCounts {
  uint64_t wakes = 0, sleeps = 0;
};

/// A random workload that always completes: wakes go only from a lower task index to a higher
/// one, and each task blocks exactly as often as it is woken, so task 0 never waits and each
/// task's blocks are all eventually matched by lower tasks (the counting-semaphore tokens make
/// the order irrelevant). Returns the wake and sleep actions counted from the programs.
Workload complete_workload(std::mt19937_64& rng, uint32_t nr_cpus, ActionCounts& counts) {
  Workload w;
  w.name = "complete";
  const uint32_t n = 2 + static_cast<uint32_t>(rng() % 8);
  std::vector<std::vector<Action>> progs(n);
  auto insert = [&](uint32_t task, Action a) {
    auto& p = progs[task];
    p.insert(p.begin() + static_cast<std::ptrdiff_t>(rng() % (p.size() + 1)), a);
  };
  for (uint32_t i = 0; i < n; ++i) {
    uint32_t len = 2 + static_cast<uint32_t>(rng() % 6);
    for (uint32_t k = 0; k < len; ++k) {
      switch (rng() % 3) {
        case 0: insert(i, Action::run(Duration::ns(static_cast<int64_t>(1000 + rng() % 2000000)))); break;
        case 1:
          insert(i, Action::sleep(Duration::ns(static_cast<int64_t>(1000 + rng() % 1000000))));
          ++counts.sleeps;
          break;
        case 2: insert(i, Action::exec()); break;
      }
    }
  }
  for (uint32_t j = 1; j < n; ++j) {
    uint32_t m = static_cast<uint32_t>(rng() % 4);
    for (uint32_t k = 0; k < m; ++k) {
      uint32_t i = static_cast<uint32_t>(rng() % j);
      insert(i, Action::wake(TaskId(j), rng() % 2 ? kWakeSync : 0));
      insert(j, Action::block());
      ++counts.wakes;
    }
  }
  for (uint32_t i = 0; i < n; ++i) {
    TaskSpec t;
    t.name = "c" + std::to_string(i);
    t.start = StartState::kRunnable;
    t.start_time = Instant::from_ns(static_cast<int64_t>(rng() % 100000));
    t.nice = static_cast<int32_t>(rng() % 7) - 3;
    if (rng() % 4 == 0) t.affinity.set(static_cast<uint32_t>(rng() % nr_cpus));
    t.program = std::move(progs[i]);
    w.add_task(std::move(t));
  }
  return w;
}

Topology random_topology(std::mt19937_64& rng) {
  RegularMachine m;
  m.name = "rand";
  m.packages = 1 + static_cast<uint32_t>(rng() % 2);
  m.cores_per_package = 1 + static_cast<uint32_t>(rng() % 4);
  m.threads = 1 + static_cast<uint32_t>(rng() % 2);
  m.llcs_per_package = (m.cores_per_package % 2 == 0 && rng() % 2) ? 2 : 1;
  return Topology::build(make_regular_machine(m));
}

std::map<std::string, std::string> with(const std::string& slot, const std::string& name) {
  auto choice = default_modules();
  choice[slot] = name;
  return choice;
}

/// Two runs of `w` with the stack `choice` + `flags` under the full invariant check: each keeps
/// the invariants and conserves work, and both give the same schedule.
/// With `counts` (a workload from complete_workload), the run must also complete and its wakes
/// must match the wake and sleep actions of the programs.
void check_runs(const std::map<std::string, std::string>& choice, const FeatureSet& flags, const Topology& topo,
                const Workload& w, const ActionCounts* counts = nullptr, const CostModel& cost = CostModel{}) {
  auto run_once = [&] {
    PolicyStack st = builtin_registry().make(choice, flags);
    SimConfig cfg;
    cfg.check_invariants_full = true;
    cfg.seed = 3;
    cfg.jitter_permille = 100;
    Simulation sim(w, topo, std::move(st), cost, cfg);
    InvariantObserver inv;
    sim.add_observer(&inv);
    SimSummary sum = sim.run();
    // Random programs may leave tasks blocked or tokens unconsumed (complete is false then), but
    // the loop must always run out of events by itself.
    REQUIRE(sum.stop == StopReason::kNone);
    CHECK(sum.work_done == sum.work_expected);
    CHECK(inv.wakes == sum.wakeups);
    CHECK(inv.tokens == sum.tokens_banked);
    if (counts) {
      CHECK(sum.complete);
      CHECK(inv.exits == w.tasks.size());
      // Every wake action either woke its (blocked) target or banked a token for it; every
      // sleep ended in a timer wakeup.
      CHECK(inv.task_wakes + inv.tokens == counts->wakes);
      CHECK(inv.timer_wakes == counts->sleeps);
    }
    return inv.hash;
  };
  uint64_t h1 = run_once();
  uint64_t h2 = run_once();
  CHECK(h1 == h2);
}

/// Machines the regular generator alone does not give: clusters inside an SMT LLC, and
/// asymmetric capacity (the upper half of the CPUs at `little` capacity).
Topology cluster_machine(uint32_t cores, uint32_t per_cluster) {
  RegularMachine m;
  m.name = "clusters";
  m.cores_per_package = cores;
  m.threads = 2;
  m.cores_per_cluster = per_cluster;
  return Topology::build(make_regular_machine(m));
}
Topology asymmetric_machine(uint32_t cores, uint32_t little) {
  RegularMachine m;
  m.name = "asym";
  m.cores_per_package = cores;
  MachineSpec spec = make_regular_machine(m);
  for (auto& c : spec.cpus)
    if (c.cpu >= cores / 2) c.capacity = little;
  return Topology::build(spec);
}

}  // namespace

TEST_CASE("every module of every slot keeps the engine invariants", "[conformance][property]") {
  for (const auto& mod : builtin_registry().all()) {
    DYNAMIC_SECTION(mod.slot << "=" << mod.name) {
      std::mt19937_64 rng(0x5eed + std::hash<std::string>{}(mod.slot + mod.name) % 1000);
      for (int iter = 0; iter < 12; ++iter) {
        Topology topo = random_topology(rng);
        Workload w = random_workload(rng, topo.nr_cpus());
        validate_workload(w, "random");
        check_runs(with(mod.slot, mod.name), FeatureSet{}, topo, w);
        ActionCounts counts;
        Workload c = complete_workload(rng, topo.nr_cpus(), counts);
        validate_workload(c, "complete");
        check_runs(with(mod.slot, mod.name), FeatureSet{}, topo, c, &counts);
      }
    }
  }
}

TEST_CASE("a reschedule-IPI delay keeps the engine invariants with every queue module", "[conformance][property]") {
  // CostModel::resched_ipi > 0: remote wakeup preemptions land later and are often made moot by
  // a switch first; no wakee may be lost (complete workloads still complete) and the schedule
  // stays deterministic.
  CostModel cost;
  cost.resched_ipi = Duration::us(3);
  for (const auto& mod : builtin_registry().all()) {
    if (mod.slot != "queue") continue;
    DYNAMIC_SECTION(mod.slot << "=" << mod.name) {
      std::mt19937_64 rng(0x1b1 + std::hash<std::string>{}(mod.name) % 1000);
      for (int iter = 0; iter < 12; ++iter) {
        Topology topo = random_topology(rng);
        Workload w = random_workload(rng, topo.nr_cpus());
        validate_workload(w, "random");
        check_runs(with(mod.slot, mod.name), FeatureSet{}, topo, w, nullptr, cost);
        ActionCounts counts;
        Workload c = complete_workload(rng, topo.nr_cpus(), counts);
        validate_workload(c, "complete");
        check_runs(with(mod.slot, mod.name), FeatureSet{}, topo, c, &counts, cost);
      }
    }
  }
}

TEST_CASE("placement modules keep the invariants with non-default flags, clusters and asymmetric capacity",
          "[conformance][property]") {
  struct Config {
    const char* placement;
    std::vector<const char*> flags;  // NO_X turns X off
  };
  const Config configs[] = {
      {"sis-fold-opt", {"NO_SIS_FOLD"}},
      {"sis-fold-2018", {"NO_SIS_FOLD", "NO_SIS_ONCE"}},
      {"sis-fold-opt", {"SIS_FOLD_ALWAYS", "NO_SIS_AGE"}},
      {"sis-5.12", {"SIS_PROP", "NO_SIS_UTIL"}},
      {"sis-5.12", {"SIS_PROP"}},
      {"sis-4.17", {"SIS_AVG_CPU", "NO_SIS_PROP"}},
      {"sis-5.11", {"NO_WA_IDLE", "NO_WA_BIAS"}},
      {"sis-util", {"NO_SIS_UTIL", "NO_WA_WEIGHT"}},
  };
  std::vector<std::pair<std::string, Topology>> machines;
  machines.emplace_back("clusters-4x2", cluster_machine(8, 2));
  machines.emplace_back("clusters-2x3", cluster_machine(6, 3));
  machines.emplace_back("asym-1024-512", asymmetric_machine(6, 512));
  machines.emplace_back("asym-1024-160", asymmetric_machine(4, 160));
  REQUIRE(machines[0].second.has_clusters());
  REQUIRE(machines[2].second.asymmetric());
  for (const Config& c : configs) {
    FeatureSet flags;
    std::string label = c.placement;
    for (const char* f : c.flags) {
      std::string name = f;
      const bool on = name.rfind("NO_", 0) != 0;
      flags.set(on ? name : name.substr(3), on);
      label += " " + name;
    }
    for (const auto& [mname, topo] : machines) {
      DYNAMIC_SECTION(label << " on " << mname) {
        std::mt19937_64 rng(0xf1a6 + std::hash<std::string>{}(label + mname) % 1000);
        for (int iter = 0; iter < 6; ++iter) {
          Workload w = random_workload(rng, topo.nr_cpus());
          validate_workload(w, "random");
          check_runs(with("placement", c.placement), flags, topo, w);
          ActionCounts counts;
          Workload cw = complete_workload(rng, topo.nr_cpus(), counts);
          validate_workload(cw, "complete");
          check_runs(with("placement", c.placement), flags, topo, cw, &counts);
        }
      }
    }
  }
}
