// SimConfig::preempt (engine.cpp preempt_curr()/return_to_user()): where a preemption the queue
// module (cfs: its sleeper credit makes every wakeup here preempt) asked for takes effect, on
// hand-written one-CPU workloads whose run actions say which
// time is inside a system call (kRunSyscall). With zero costs every switch time is a sum of
// run() and sleep durations or a tick boundary.
#include <catch2/catch.hpp>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "switch_log.hpp"
#include "two_cpus.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

using Switches = testing::SwitchLog;
using testing::running;

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
  CHECK(none.first_in(1)->prev.value() == 0);
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

// CostModel::resched_ipi (engine.cpp preempt_from()/on_resched_ipi()): a wakeup's preemption of
// another CPU's running task takes effect resched_ipi after the decision; on the waker's own CPU
// at once. Two CPUs, every task pinned: W on CPU 0 wakes B, pinned to CPU 1 where A runs (remote)
// or to CPU 0 (local). Every other cost is zero, so the IPI's 5 us is the only delay.
namespace {

constexpr Duration kIpi = Duration::us(5);

// `llcs` 2 puts the two CPUs in separate LLCs (one package); `idle_exit` sets a vm-halt-poll
// exit cost for remote wakes of an idle CPU (a local timer wake stays free).
SimSummary simulate2(const Workload& w, PreemptModel m, Duration ipi, Switches* sw, uint32_t llcs = 1,
                     Duration idle_exit = Duration::zero()) {
  RegularMachine machine;
  machine.name = "test";
  machine.cores_per_package = 2;
  machine.llcs_per_package = llcs;
  Topology topo = Topology::build(make_regular_machine(machine));
  PolicyStack pol = builtin_registry().make({{"placement", "first-idle"}, {"idle-cores", "kernel"}, {"util", "pelt"},
                                             {"queue", "cfs"}, {"balance", "kernel"}},
                                            FeatureSet{});
  SimConfig cfg;
  cfg.preempt = m;
  CostModel cost = testing::zero_costs();
  cost.resched_ipi = ipi;
  if (idle_exit > Duration::zero()) {
    cost.idle_wake = IdleWakeMode::kVmHaltPoll;
    cost.idle_exit_polled = cost.idle_exit_halted = idle_exit;
    cost.timer_wake_local = Duration::zero();
  }
  Simulation sim(w, topo, std::move(pol), cost, cfg);
  sim.add_observer(sw);
  return sim.run();
}

TaskSpec pinned(std::string name, uint32_t cpu, std::vector<Action> prog) {
  TaskSpec t = running(std::move(name), std::move(prog));
  t.initial_cpu = static_cast<int32_t>(cpu);
  t.affinity = CpuMask::of({cpu});
  return t;
}

// Task 0 = A (its program `a`, on CPU 1), task 1 = B (blocked at the start, pinned to b_cpu,
// runs 50 us), task 2 = W (CPU 0: runs 100 us, wakes B, runs 1 ms).
Workload ipi_workload(std::vector<Action> a, uint32_t b_cpu) {
  Workload w;
  w.add_task(pinned("A", 1, std::move(a)));
  TaskSpec b = pinned("B", b_cpu, {Action::run(Duration::us(50))});
  b.start = StartState::kBlocked;
  w.add_task(b);
  w.add_task(pinned("W", 0, {Action::run(Duration::us(100)), Action::wake(TaskId(1)), Action::run(Duration::ms(1))}));
  return w;
}

const Switches::Sw* first_out(const Switches& sw, uint32_t id) {
  for (const auto& s : sw.log)
    if (s.prev.value() == id) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("resched_ipi: a remote wakeup preemption takes effect after the IPI, a local one at once",
          "[engine][preempt][resched_ipi]") {
  Workload remote = ipi_workload({Action::run(Duration::ms(2))}, 1);
  Switches at_once, delayed;
  SimSummary s0 = simulate2(remote, PreemptModel::kFull, Duration::zero(), &at_once);
  SimSummary s1 = simulate2(remote, PreemptModel::kFull, kIpi, &delayed);
  REQUIRE(at_once.first_in(1));
  REQUIRE(delayed.first_in(1));
  CHECK(at_once.first_in(1)->at == Instant::zero() + Duration::us(100));
  CHECK(s0.resched_ipi == 0);
  // A keeps CPU 1 until the IPI lands, then B preempts it.
  CHECK(delayed.first_in(1)->at == Instant::zero() + Duration::us(100) + kIpi);
  CHECK(delayed.first_in(1)->prev.value() == 0);
  CHECK(delayed.first_in(1)->why == SwitchReason::kPreempt);
  CHECK(s1.resched_ipi == 1);
  CHECK(s1.resched_ipi_superseded == 0);
  CHECK(s1.complete);

  // B pinned to W's CPU: W's own wakeup preempts W at once, whatever resched_ipi is.
  Workload local = ipi_workload({Action::run(Duration::ms(2))}, 0);
  Switches loc;
  SimSummary sl = simulate2(local, PreemptModel::kFull, kIpi, &loc);
  REQUIRE(loc.first_in(1));
  CHECK(loc.first_in(1)->at == Instant::zero() + Duration::us(100));
  CHECK(loc.first_in(1)->prev.value() == 2);
  CHECK(sl.resched_ipi == 0);
}

TEST_CASE("resched_ipi: a wake into another LLC goes on the wake list, its preemption is local",
          "[engine][preempt][resched_ipi]") {
  // ttwu_queue_cond(): CPU 1 in another LLC than the waker's: CPU 1 enqueues B itself and
  // resched_curr() there sends no IPI, so B preempts A at the enqueue, not kIpi later.
  Workload remote = ipi_workload({Action::run(Duration::ms(2))}, 1);
  Switches sw;
  SimSummary s = simulate2(remote, PreemptModel::kFull, kIpi, &sw, 2);
  REQUIRE(sw.first_in(1));
  CHECK(sw.first_in(1)->at == Instant::zero() + Duration::us(100));
  CHECK(sw.first_in(1)->prev.value() == 0);
  CHECK(s.resched_ipi == 0);
}

TEST_CASE("resched_ipi: a wake of an idle CPU goes on its wake list, a task that got there first is preempted locally",
          "[engine][preempt][resched_ipi]") {
  // ttwu_queue_cond(): CPU 1 has nothing on its runqueue when W (CPU 0, same LLC) wakes B at
  // 100 us, so B goes on CPU 1's wake list and CPU 1 enqueues it itself after its 50 us idle
  // exit. Meanwhile A's timer (102 us) put A on CPU 1. B's wakeup check there preempts A with a
  // local resched_curr(), at B's enqueue (150 us), not kIpi later. A is nice 19, so its 48 us of
  // run put it far enough right for CFS's wakeup granularity.
  Workload w;
  TaskSpec a = pinned("A", 1, {Action::run(Duration::ms(1))});
  a.start = StartState::kSleeping;
  a.start_time = Instant::zero() + Duration::us(102);
  a.nice = 19;
  w.add_task(a);
  TaskSpec b = pinned("B", 1, {Action::run(Duration::us(50))});
  b.start = StartState::kBlocked;
  w.add_task(b);
  w.add_task(pinned("W", 0, {Action::run(Duration::us(100)), Action::wake(TaskId(1)), Action::run(Duration::ms(1))}));
  // A remote wake of CPU 1, idle since the start, pays a 50 us exit; A's local timer wake none.
  Switches sw;
  SimSummary s = simulate2(w, PreemptModel::kFull, kIpi, &sw, 1, Duration::us(50));
  REQUIRE(sw.first_in(0));
  CHECK(sw.first_in(0)->at < Instant::zero() + Duration::us(150));
  REQUIRE(sw.first_in(1));
  CHECK(sw.first_in(1)->at == Instant::zero() + Duration::us(150));
  CHECK(sw.first_in(1)->prev.value() == 0);
  CHECK(sw.first_in(1)->why == SwitchReason::kPreempt);
  CHECK(s.resched_ipi == 0);
}

TEST_CASE("resched_ipi: curr blocking before the IPI lands hands the CPU to the wakee, the IPI finds nothing",
          "[engine][preempt][resched_ipi]") {
  // A sleeps 2 us after the wakeup, before the IPI (5 us): B runs from then, as a plain
  // wakee of an emptied CPU, and the IPI at 105 us does not interrupt it (B runs its 50 us).
  Workload w = ipi_workload({Action::run(Duration::us(102)), Action::sleep(Duration::ms(1)),
                             Action::run(Duration::us(10))},
                            1);
  Switches sw;
  SimSummary s = simulate2(w, PreemptModel::kFull, kIpi, &sw);
  REQUIRE(sw.first_in(1));
  CHECK(sw.first_in(1)->at == Instant::zero() + Duration::us(102));
  CHECK(sw.first_in(1)->why == SwitchReason::kSleep);
  REQUIRE(first_out(sw, 1));
  CHECK(first_out(sw, 1)->at == Instant::zero() + Duration::us(152));
  CHECK(s.resched_ipi == 1);
  CHECK(s.resched_ipi_superseded == 1);
  CHECK(s.complete);
}

TEST_CASE("resched_ipi: under none the IPI's preemption still waits for curr's syscall to end",
          "[engine][preempt][resched_ipi]") {
  // A is inside a 1 ms syscall when the IPI lands (105 us): held until its return to user
  // space at 1 ms.
  Workload in_sc = ipi_workload({sys(Duration::ms(1)), Action::run(Duration::ms(1))}, 1);
  Switches held;
  SimSummary sh = simulate2(in_sc, PreemptModel::kNone, kIpi, &held);
  REQUIRE(held.first_in(1));
  CHECK(held.first_in(1)->at == Instant::zero() + Duration::ms(1));
  CHECK(held.first_in(1)->why == SwitchReason::kPreempt);
  CHECK(sh.preempt_deferred == 1);
  // A leaves its syscall at 102 us, before the IPI: TIF_NEED_RESCHED is already set, so its
  // return to user space switches (exit_to_user_mode()), 3 us before the IPI would have.
  Workload leaves = ipi_workload({sys(Duration::us(102)), Action::run(Duration::ms(1))}, 1);
  Switches early;
  SimSummary se = simulate2(leaves, PreemptModel::kNone, kIpi, &early);
  REQUIRE(early.first_in(1));
  CHECK(early.first_in(1)->at == Instant::zero() + Duration::us(102));
  CHECK(early.first_in(1)->why == SwitchReason::kPreempt);
  CHECK(se.resched_ipi == 1);
  CHECK(se.resched_ipi_superseded == 1);
  // A sleeps inside the syscall at 102 us: no preemption at all, B runs on the emptied CPU.
  Workload sleeps = ipi_workload({sys(Duration::us(102)), Action::sleep(Duration::ms(1)), sys(Duration::us(10)),
                                  Action::run(Duration::us(10))},
                                 1);
  Switches slept;
  simulate2(sleeps, PreemptModel::kNone, kIpi, &slept);
  REQUIRE(slept.first_in(1));
  CHECK(slept.first_in(1)->at == Instant::zero() + Duration::us(102));
  CHECK(slept.first_in(1)->why == SwitchReason::kSleep);
}
