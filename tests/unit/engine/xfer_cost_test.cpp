// xfer_* (cost_model.hpp): a wakee switched in on another CPU than its waker's pays the transfer
// of what the waker wrote, by the distance between the two CPUs; a wakee on its waker's CPU, a
// timer wake and a preempted task resumed later pay nothing; a replayed trace (recorded
// overheads) is never charged. Expected end times are sums of run() durations and charges.
#include <catch2/catch.hpp>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "two_cpus.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

constexpr int64_t kXfer = 3000;  // xfer_llc, ns: both CPUs of two_cpus() share the LLC

PolicyStack first_idle() {
  return builtin_registry().make({{"placement", "first-idle"}, {"idle-cores", "kernel"}, {"util", "pelt"},
                                  {"queue", "cfs"}, {"balance", "kernel"}},
                                 FeatureSet{});
}

TaskSpec pinned(std::string name, std::vector<Action> prog, uint32_t cpu, StartState st = StartState::kRunnable) {
  TaskSpec t;
  t.name = std::move(name);
  t.program = std::move(prog);
  t.start = st;
  t.initial_cpu = static_cast<int>(cpu);
  t.affinity = CpuMask::of({cpu});
  return t;
}

int64_t end_ns(const Workload& w, const CostModel& c) {
  Topology t = schedsim::testing::two_cpus();
  Simulation sim(w, t, first_idle(), c, SimConfig{});
  SimSummary s = sim.run();
  REQUIRE(s.complete);
  CHECK(s.work_done == s.work_expected);  // a charge is overhead, not work
  return s.end.ns();
}

CostModel xfer(int64_t llc) {
  CostModel c = schedsim::testing::zero_costs();
  c.xfer_llc = Duration::ns(llc);
  return c;
}

// A ping-pong of `rounds` over two CPUs: a runs 10 us and wakes b, which runs 10 us and wakes a.
Workload pingpong(int rounds, bool same_cpu) {
  Workload w;
  const TaskId a(0), b(1);
  std::vector<Action> pa, pb;
  for (int i = 0; i < rounds; ++i) {
    pa.insert(pa.end(), {Action::run(Duration::us(10)), Action::wake(b, kWakeSync), Action::block()});
    pb.insert(pb.end(), {Action::block(), Action::run(Duration::us(10)), Action::wake(a, kWakeSync)});
  }
  pa.push_back(Action::exit());
  pb.push_back(Action::exit());
  w.add_task(pinned("a", pa, 0));
  w.add_task(pinned("b", pb, same_cpu ? 0 : 1));
  return w;
}

}  // namespace

TEST_CASE("xfer: a wakee on another CPU than its waker pays the transfer at every switch-in", "[engine]") {
  // 3 rounds: b is woken 3 times, a 3 times (the last wake lets a exit, after its charge); a's
  // first run follows no wake: 6 charges.
  const Workload w = pingpong(3, false);
  const int64_t base = end_ns(w, xfer(0));
  CHECK(base == 60000);
  CHECK(end_ns(w, xfer(kXfer)) == base + 6 * kXfer);
}

TEST_CASE("xfer: a wakee on its waker's CPU pays nothing", "[engine]") {
  const Workload w = pingpong(3, true);
  CHECK(end_ns(w, xfer(kXfer)) == end_ns(w, xfer(0)));
}

TEST_CASE("xfer: a timer wake pays nothing, a replayed trace is never charged", "[engine]") {
  Workload w;
  w.add_task(pinned("sleeper", {Action::run(Duration::us(10)), Action::sleep(Duration::us(50)),
                                Action::run(Duration::us(10)), Action::exit()},
                    1));
  CHECK(end_ns(w, xfer(kXfer)) == 70000);
  CostModel c = xfer(kXfer);
  CHECK(c.for_input(true).xfer_llc == Duration::zero());   // recorded overheads: in the trace
  CHECK(c.for_input(false).xfer_llc == Duration::ns(kXfer));
}
