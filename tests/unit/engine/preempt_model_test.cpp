// SimConfig::preempt (engine.cpp preempt_curr()/return_to_user()): where a preemption the queue
// module (cfs: its sleeper credit makes every wakeup here preempt) asked for takes effect, on
// hand-written one-CPU workloads whose run actions say which
// time is inside a system call (kRunSyscall). With zero costs every switch time is a sum of
// run() and sleep durations or a tick boundary.
#include <catch2/catch.hpp>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "two_cpus.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

struct Switches : Observer {
  struct Sw {
    Instant at;
    TaskId prev, next;
    SwitchReason why;
  };
  std::vector<Sw> log;
  void on_switch(Instant t, CpuId, TaskId prev, SwitchReason why, TaskId next) override {
    log.push_back({t, prev, next, why});
  }
  // The first switch-in of task `id`.
  const Sw* first_in(uint32_t id) const {
    for (const auto& s : log)
      if (s.next.v == id) return &s;
    return nullptr;
  }
};

SimSummary simulate(const Workload& w, PreemptModel m, Switches* sw, const char* queue = "cfs") {
  Topology topo = testing::regular_cpus(1);
  PolicyStack pol = builtin_registry().make({{"placement", "first-idle"}, {"idle-cores", "kernel"}, {"util", "pelt"},
                                             {"queue", queue}, {"balance", "kernel"}},
                                            FeatureSet{});
  SimConfig cfg;
  cfg.preempt = m;
  Simulation sim(w, topo, std::move(pol), testing::zero_costs(), cfg);
  sim.add_observer(sw);
  return sim.run();
}

TaskSpec running(std::string name, std::vector<Action> prog) {
  TaskSpec t;
  t.name = std::move(name);
  t.program = std::move(prog);
  t.initial_cpu = 0;
  return t;
}

// Sleeping at the start, woken by its timer at `at` on CPU 0.
TaskSpec wakes_at(std::string name, Duration at, std::vector<Action> prog) {
  TaskSpec t = running(std::move(name), std::move(prog));
  t.start = StartState::kSleeping;
  t.start_time = Instant::zero() + at;
  return t;
}

Action sys(Duration d) { return Action::run(d, kRunSyscall); }

}  // namespace

TEST_CASE("preempt: a wakeup preemption waits for the end of curr's syscall under none", "[engine][preempt]") {
  // A spends 2 ms in a syscall, then 1 ms in user space. B, asleep since the start, wakes at
  // 100 us: the CFS queue places it half a latency behind min_vruntime and preempts A (full
  // switches at once); under none the switch happens at A's return to user space at 2 ms.
  Workload w;
  w.add_task(running("A", {sys(Duration::ms(2)), Action::run(Duration::ms(1))}));
  w.add_task(wakes_at("B", Duration::us(100), {Action::run(Duration::us(50))}));
  Switches full, none;
  SimSummary sf = simulate(w, PreemptModel::kFull, &full);
  SimSummary sn = simulate(w, PreemptModel::kNone, &none);
  REQUIRE(full.first_in(1));
  REQUIRE(none.first_in(1));
  CHECK(full.first_in(1)->at == Instant::zero() + Duration::us(100));
  CHECK(full.first_in(1)->why == SwitchReason::kPreempt);
  CHECK(sf.preempt_deferred == 0);
  CHECK(none.first_in(1)->at == Instant::zero() + Duration::ms(2));
  CHECK(none.first_in(1)->prev.v == 0);
  CHECK(none.first_in(1)->why == SwitchReason::kPreempt);
  CHECK(sn.preempt_deferred == 1);
  CHECK(sn.preempt_deferred_slept == 0);
  // voluntary is replayed as none.
  Switches vol;
  simulate(w, PreemptModel::kVoluntary, &vol);
  CHECK(vol.first_in(1)->at == Instant::zero() + Duration::ms(2));
}

TEST_CASE("preempt: under none a curr that blocks in its syscall first just sleeps", "[engine][preempt]") {
  // A sleeps at the end of its first syscall's kernel time (still inside it: no user run
  // between), so the preemption B's wakeup asked for never happens: B runs when A sleeps.
  Workload w;
  w.add_task(running("A", {sys(Duration::ms(2)), Action::sleep(Duration::ms(5)), sys(Duration::us(10)),
                           Action::run(Duration::us(10))}));
  w.add_task(wakes_at("B", Duration::us(100), {Action::run(Duration::us(50))}));
  Switches none;
  SimSummary sn = simulate(w, PreemptModel::kNone, &none);
  REQUIRE(none.first_in(1));
  CHECK(none.first_in(1)->at == Instant::zero() + Duration::ms(2));
  CHECK(none.first_in(1)->why == SwitchReason::kSleep);
  CHECK(sn.preempt_deferred == 1);
  CHECK(sn.preempt_deferred_slept == 1);
  CHECK(sn.complete);
}

TEST_CASE("preempt: a task in user space is preempted at once under none, not under lazy", "[engine][preempt]") {
  // A is in user space (an unflagged run) when B wakes; its program has a syscall later, so the
  // replay knows its mode. none: the resched IPI returns to user mode and switches at 100 us.
  // lazy: no IPI; the switch waits for A's next return to user space (after the syscall that
  // ends at 1.01 ms), before the next tick (4 ms).
  Workload w;
  w.add_task(running("A", {Action::run(Duration::ms(1)), sys(Duration::us(10)), Action::run(Duration::ms(1))}));
  w.add_task(wakes_at("B", Duration::us(100), {Action::run(Duration::us(50))}));
  Switches none, lazy;
  simulate(w, PreemptModel::kNone, &none);
  SimSummary sl = simulate(w, PreemptModel::kLazy, &lazy);
  REQUIRE(none.first_in(1));
  REQUIRE(lazy.first_in(1));
  CHECK(none.first_in(1)->at == Instant::zero() + Duration::us(100));
  CHECK(lazy.first_in(1)->at == Instant::zero() + Duration::us(1010));
  CHECK(sl.preempt_deferred == 1);
}

TEST_CASE("preempt: lazy upgrades a held-back preemption at the next tick", "[engine][preempt]") {
  // A is in a 20 ms syscall when B wakes at 100 us: none waits for its end, lazy for the next
  // tick (the default 250 Hz tick: 4 ms).
  Workload w;
  w.add_task(running("A", {sys(Duration::ms(20)), Action::run(Duration::us(10))}));
  w.add_task(wakes_at("B", Duration::us(100), {Action::run(Duration::us(50))}));
  Switches none, lazy;
  simulate(w, PreemptModel::kNone, &none);
  simulate(w, PreemptModel::kLazy, &lazy);
  const Duration tick = testing::zero_costs().tick;
  REQUIRE(tick > Duration::us(100));
  REQUIRE(tick < Duration::ms(20));
  CHECK(none.first_in(1)->at == Instant::zero() + Duration::ms(20));
  CHECK(lazy.first_in(1)->at == Instant::zero() + tick);
}

TEST_CASE("preempt: tick preemption inside a syscall waits for its end under none", "[engine][preempt]") {
  // Two CPU-bound tasks each in one 30 ms syscall on one CPU: full slices them at ticks; none
  // lets the first run its whole syscall (the switch comes when it exits).
  Workload w;
  w.add_task(running("A", {sys(Duration::ms(30))}));
  w.add_task(running("B", {sys(Duration::ms(30))}));
  Switches full, none;
  SimSummary sf = simulate(w, PreemptModel::kFull, &full);
  SimSummary sn = simulate(w, PreemptModel::kNone, &none);
  CHECK(sf.context_switches > 4);
  CHECK(sn.context_switches == 3);  // idle -> first, first exits -> second, second exits -> idle
  CHECK(sn.preempt_deferred >= 1);
  CHECK(sn.end == Instant::zero() + Duration::ms(60));
}

TEST_CASE("preempt: without syscall marks every model is full", "[engine][preempt]") {
  // Plain replays say nothing about kernel or user mode: none and lazy change nothing.
  Workload w;
  w.add_task(running("A", {Action::run(Duration::ms(2)), Action::run(Duration::ms(1))}));
  w.add_task(wakes_at("B", Duration::us(100), {Action::run(Duration::us(50))}));
  for (PreemptModel m : {PreemptModel::kNone, PreemptModel::kLazy}) {
    Switches sw;
    SimSummary s = simulate(w, m, &sw);
    REQUIRE(sw.first_in(1));
    CHECK(sw.first_in(1)->at == Instant::zero() + Duration::us(100));
    CHECK(s.preempt_deferred == 0);
  }
}

TEST_CASE("preempt: model names", "[engine][preempt]") {
  PreemptModel m = PreemptModel::kFull;
  CHECK(parse_preempt_model("none", m));
  CHECK(m == PreemptModel::kNone);
  CHECK(parse_preempt_model("lazy", m));
  CHECK(m == PreemptModel::kLazy);
  CHECK(std::string(to_string(PreemptModel::kVoluntary)) == "voluntary");
  CHECK_FALSE(parse_preempt_model("rt", m));
  CHECK(m == PreemptModel::kLazy);
}
