// replay_overheads=migration-delta (cost_model.hpp): a replayed run recorded on another CPU than the
// task's previous recorded run has the recorded refill taken off; a migration the replay makes pays
// refill_* as for generated workloads. Expected end times are sums of run() and sleep() durations.
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
