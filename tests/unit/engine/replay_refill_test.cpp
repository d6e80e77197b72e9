// replay_overheads=migration-delta (cost_model.hpp): a replayed run recorded on another CPU than the
// task's previous recorded run has the recorded refill taken off; a migration the replay makes pays
// refill_* as for generated workloads. Expected end times are sums of run() and sleep() durations.
// replay_wakes=modelled (same header): a replayed waker's runs after a wake action lose the
// recorded wake's cost (wake_local / wake_remote by the recording's CPUs, Action::reserved), and
// each wake the replay performs charges the waker by the replay's placement; a banked wake (the
// wakee was not asleep) charges nothing.
#include <catch2/catch.hpp>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "two_cpus.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

constexpr int64_t kRefill = 5000;  // every refill_* level, ns

PolicyStack first_idle() {
  return builtin_registry().make({{"placement", "first-idle"}, {"idle-cores", "kernel"}, {"util", "pelt"},
                                  {"queue", "cfs"}, {"balance", "kernel"}},
                                 FeatureSet{});
}

CostModel costs(const std::string& mode, bool from_trace) {
  CostModel c = schedsim::testing::zero_costs();
  c.refill_smt = c.refill_cluster = c.refill_llc = c.refill_package = c.refill_numa = Duration::ns(kRefill);
  c.context_switch = Duration::ns(700);
  c.set("replay_overheads=" + mode);
  return c.for_input(from_trace);
}

TaskSpec task(std::string name, std::vector<Action> prog, int cpu, StartState st = StartState::kRunnable,
              Instant start = Instant{}) {
  TaskSpec t;
  t.name = std::move(name);
  t.program = std::move(prog);
  t.start = st;
  t.start_time = start;
  t.initial_cpu = cpu;
  return t;
}

int64_t end_ns(const Workload& w, const CostModel& c, uint64_t* migrations = nullptr) {
  Topology t = schedsim::testing::two_cpus();
  Simulation sim(w, t, first_idle(), c, SimConfig{});
  SimSummary s = sim.run();
  REQUIRE(s.complete);
  if (migrations) *migrations = s.migrations;
  return s.end.ns();
}


constexpr int64_t kLocal = 2000, kRemote = 5000;  // wake_local, wake_remote, ns

CostModel wake_costs(const std::string& mode, bool from_trace) {
  CostModel c = schedsim::testing::zero_costs();
  c.wake_local = Duration::ns(kLocal);
  c.wake_remote = Duration::ns(kRemote);
  c.set("replay_wakes=" + mode);
  return c.for_input(from_trace);
}

// A task of the two-CPU tests below, pinned to its CPU so that every placement is known.
TaskSpec pinned(std::string name, std::vector<Action> prog, int cpu, StartState st = StartState::kRunnable) {
  TaskSpec t = task(std::move(name), std::move(prog), cpu, st);
  t.affinity = CpuMask::of({static_cast<uint32_t>(cpu)});
  return t;
}

Action recorded_wake(uint32_t t, uint16_t where) {
  Action a = Action::wake(TaskId(t));
  a.reserved = where;
  return a;
}

SimSummary simulate(const Workload& w, const CostModel& c) {
  Topology t = schedsim::testing::two_cpus();
  Simulation sim(w, t, first_idle(), c, SimConfig{});
  SimSummary s = sim.run();
  REQUIRE(s.complete);
  CHECK(s.work_done == s.work_expected);  // the credited time counts as done
  return s;
}
}  // namespace

TEST_CASE("migration-delta: a migration only the recording made has its refill taken off", "[engine]") {
  // Pinned to CPU 0 the replay never migrates; the recording ran the second segment on CPU 1.
  Workload w;
  TaskSpec t = task("T", {Action::run_recorded(Duration::us(100), 0), Action::sleep(Duration::us(50)),
                          Action::run_recorded(Duration::us(100), 1)},
                    0);
  t.affinity = CpuMask::of({0});
  w.add_task(t);
  uint64_t mig = 1;
  CHECK(end_ns(w, costs("migration-delta", true), &mig) == 250000 - kRefill);
  CHECK(mig == 0);
  CHECK(end_ns(w, costs("recorded", true)) == 250000);
  // A generated workload (not from a trace) is never credited, whatever the mode.
  CHECK(end_ns(w, costs("migration-delta", false)) == 250000 + 700 * 2);
}

TEST_CASE("migration-delta: a migration only the replay makes pays the refill", "[engine]") {
  // T runs 10 us on CPU 0 and sleeps; H, pinned to CPU 0, wakes at 15 us and runs 50 us, so
  // T's timer wake at 30 us goes to idle CPU 1. The recording ran both of T's runs on CPU 0.
  Workload w;
  w.add_task(task("T", {Action::run_recorded(Duration::us(10), 0), Action::sleep(Duration::us(20)),
                        Action::run_recorded(Duration::us(100), 0)},
                  0));
  TaskSpec h = task("H", {Action::run(Duration::us(50))}, 0, StartState::kSleeping, Instant::from_ns(15000));
  h.affinity = CpuMask::of({0});
  w.add_task(h);
  uint64_t mig = 0;
  CHECK(end_ns(w, costs("migration-delta", true), &mig) == 130000 + kRefill);
  CHECK(mig == 1);
  CHECK(end_ns(w, costs("recorded", true)) == 130000);
  // Recorded on CPU 0 then CPU 1, replayed on CPU 0 then CPU 1: the two refills cancel.
  w.tasks[0].program[2] = Action::run_recorded(Duration::us(100), 1);
  CHECK(end_ns(w, costs("migration-delta", true)) == 130000);
}

TEST_CASE("replay_overheads: the three modes parse and print, anything else is refused", "[engine]") {
  CostModel c;
  CHECK(c.get("replay_overheads") == "recorded");
  c.set("replay_overheads=migration-delta");
  CHECK(c.get("replay_overheads") == "migration-delta");
  CostModel t = c.for_input(true);
  CHECK(t.context_switch == Duration::zero());
  CHECK(t.refill_llc == c.refill_llc);
  CHECK(c.for_input(false).get("replay_overheads") == "charged");
  CHECK_THROWS(c.set("replay_overheads=delta"));
}

TEST_CASE("replay_wakes: a banked wake costs the waker less under modelled", "[engine][replay_wakes]") {
  // W (CPU 0) runs 10 us, wakes R (recorded on the other CPU: remote), runs 100 us. R (CPU 1) is
  // still running its 50 us when the wake comes: the replay banks it, R's block() passes at once.
  // recorded: W ends at 110 us. modelled: the recorded remote wake is taken off W's 100 us and the
  // banked wake charges nothing: 105 us.
  Workload w;
  w.add_task(pinned("W", {Action::run(Duration::us(10)), recorded_wake(1, kRecordedWakeRemote), Action::run(Duration::us(100))},
                  0));
  w.add_task(pinned("R", {Action::run(Duration::us(50)), Action::block(), Action::run(Duration::us(1))}, 1));
  SimSummary rec = simulate(w, wake_costs("recorded", true));
  SimSummary mod = simulate(w, wake_costs("modelled", true));
  CHECK(rec.tokens_banked == 1);
  CHECK(mod.tokens_banked == 1);
  CHECK(rec.end.ns() == 110000);
  CHECK(mod.end.ns() == 110000 - kRemote);
  CHECK(mod.recorded_wake_credited == Duration::ns(kRemote));
  CHECK(mod.wake_cost_charged == Duration::zero());
  CHECK(rec.recorded_wake_credited == Duration::zero());
  // A generated workload (not from a trace) has no recorded wakes: never credited or charged.
  CHECK(simulate(w, wake_costs("modelled", false)).end.ns() == 110000);
}

TEST_CASE("replay_wakes: a performed wake charges by the replay's placement", "[engine][replay_wakes]") {
  // R starts asleep, pinned to CPU 1: W's wake is performed and goes to the other CPU (remote).
  // Recorded as a local wake, modelled W pays 100 - 2 + 5 us after its wake.
  Workload w;
  w.add_task(pinned("W", {Action::run(Duration::us(10)), recorded_wake(1, kRecordedWakeLocal), Action::run(Duration::us(100))},
                  0));
  w.add_task(pinned("R", {Action::run(Duration::us(1))}, 1, StartState::kBlocked));
  SimSummary rec = simulate(w, wake_costs("recorded", true));
  SimSummary mod = simulate(w, wake_costs("modelled", true));
  CHECK(rec.end.ns() == 110000);
  CHECK(mod.end.ns() == 110000 - kLocal + kRemote);
  CHECK(mod.wake_cost_charged == Duration::ns(kRemote));
  // Recorded remote and replayed remote: the two cancel.
  w.tasks[0].program[1].reserved = kRecordedWakeRemote;
  CHECK(simulate(w, wake_costs("modelled", true)).end.ns() == 110000);
  // A wake the recording did not classify (no target CPU) is not credited, only charged.
  w.tasks[0].program[1].reserved = 0;
  CHECK(simulate(w, wake_costs("modelled", true)).end.ns() == 110000 + kRemote);
}

TEST_CASE("replay_wakes: a credit larger than the next run carries to the following one", "[engine][replay_wakes]") {
  // The run after the wake is 0 ns (the traces' 1 us clock: a wake at its syscall's enter): the
  // credit comes off the run after it.
  Workload w;
  w.add_task(pinned("W", {Action::run(Duration::us(10)), recorded_wake(1, kRecordedWakeRemote), Action::run(Duration::zero()),
                        Action::run(Duration::us(100))},
                  0));
  w.add_task(pinned("R", {Action::run(Duration::us(50)), Action::block(), Action::run(Duration::us(1))}, 1));
  SimSummary mod = simulate(w, wake_costs("modelled", true));
  CHECK(mod.end.ns() == 110000 - kRemote);
  CHECK(mod.recorded_wake_credited == Duration::ns(kRemote));
}

TEST_CASE("replay_wakes: the two modes parse and print, anything else is refused", "[engine][replay_wakes]") {
  CostModel c;
  CHECK(c.get("replay_wakes") == "recorded");
  c.set("replay_wakes=modelled");
  CHECK(c.get("replay_wakes") == "modelled");
  CHECK(c.for_input(true).get("replay_wakes") == "modelled");
  CHECK(c.for_input(false).get("replay_wakes") == "recorded");
  CHECK_THROWS(c.set("replay_wakes=charged"));
  c.set("wake_remote=6us");
  CHECK(c.get("wake_remote") == "6000");
}
