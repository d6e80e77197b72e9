// The idle-wake cost model (policy_api/include/schedsim/engine/idle_wake.hpp): the formula, the cost
// parameters that select it, and the engine charging it by the target's idle time and for timer
// wakes on their own CPU. Expected delays are computed by hand from the parameters.
#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "two_cpus.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

CostModel halt_poll() {
  CostModel c = schedsim::testing::zero_costs();
  c.ipi_same_package = Duration::ns(600);
  c.idle_exit = Duration::ns(2000);
  c.idle_wake = IdleWakeMode::kVmHaltPoll;
  c.halt_poll_min = Duration::us(50);
  c.halt_poll_window = Duration::us(200);
  c.idle_exit_polled = Duration::ns(3400);
  c.idle_exit_halted = Duration::ns(13400);
  c.timer_wake_local = Duration::ns(1700);
  return c;
}

struct Wakes : Observer {
  std::vector<WakeFact> wakes;
  void on_wake(const WakeFact& f) override { wakes.push_back(f); }
};

PolicyStack prev_stack() {
  return builtin_registry().make({{"placement", "prev"}, {"idle-cores", "kernel"}, {"util", "pelt"},
                                  {"queue", "cfs"}, {"balance", "kernel"}},
                                 FeatureSet{});
}

TaskSpec task(std::string name, std::vector<Action> prog, int cpu, StartState st = StartState::kRunnable) {
  TaskSpec t;
  t.name = std::move(name);
  t.program = std::move(prog);
  t.start = st;
  t.initial_cpu = cpu;
  return t;
}

// Runs w on two CPUs (one LLC, or `llcs` 2: one each) with the prev-CPU placement; the one wake
// it makes lands on cpu1.
WakeFact only_wake(const Workload& w, const CostModel& c, SimSummary& s, uint32_t llcs = 1) {
  RegularMachine machine;
  machine.name = "test";
  machine.cores_per_package = 2;
  machine.llcs_per_package = llcs;
  Topology t = llcs == 1 ? schedsim::testing::two_cpus() : Topology::build(make_regular_machine(machine));
  Simulation sim(w, t, prev_stack(), c, SimConfig{});
  Wakes rec;
  sim.add_observer(&rec);
  s = sim.run();
  REQUIRE(s.complete);
  REQUIRE(rec.wakes.size() == 1);
  REQUIRE(rec.wakes[0].placement.cpu.value() == 1);
  return rec.wakes[0];
}

// A on cpu0 runs `before` and wakes B, blocked on cpu1. If `b_runs` > 0, B first runs that long
// on cpu1 and blocks, so cpu1 goes idle at b_runs instead of being idle since the start.
Duration wake_delay_after(const CostModel& c, Duration before, Duration b_runs = Duration::zero()) {
  Workload w;
  w.add_task(task("A", {Action::run(before), Action::wake(TaskId(1)), Action::run(Duration::us(10))}, 0));
  if (b_runs > Duration::zero())
    w.add_task(task("B", {Action::run(b_runs), Action::block(), Action::run(Duration::us(5))}, 1));
  else
    // "start": "blocked" waits for one token before its program (docs/workload-format.md).
    w.add_task(task("B", {Action::run(Duration::us(5))}, 1, StartState::kBlocked));
  SimSummary s;
  return only_wake(w, c, s).delay;
}

}  // namespace

TEST_CASE("idle_wake_cost: constant and vm-halt-poll formulas", "[engine][idle-wake]") {
  CostModel c = halt_poll();
  CHECK(idle_wake_cost(c, Duration::zero(), false) == Duration::ns(3400));
  CHECK(idle_wake_cost(c, Duration::us(50), false) == Duration::ns(3400));
  CHECK(idle_wake_cost(c, Duration::us(125), false) == Duration::ns(8400));  // halfway up the ramp
  CHECK(idle_wake_cost(c, Duration::us(200), false) == Duration::ns(13400));
  CHECK(idle_wake_cost(c, Duration::s(5), false) == Duration::ns(13400));
  CHECK(idle_wake_cost(c, Duration::s(5), true) == Duration::ns(1700));
  // a window not above the minimum is a step at the minimum
  c.halt_poll_window = Duration::us(50);
  CHECK(idle_wake_cost(c, Duration::us(51), false) == Duration::ns(13400));
  c.idle_wake = IdleWakeMode::kConstant;
  CHECK(idle_wake_cost(c, Duration::zero(), false) == Duration::ns(2000));
  CHECK(idle_wake_cost(c, Duration::s(5), true) == Duration::ns(2000));
}

TEST_CASE("idle_wake is a cost parameter with named modes", "[engine][idle-wake]") {
  CostModel c;
  CHECK(c.get("idle_wake") == "constant");
  CHECK_FALSE(c.idle_wake_set);
  c.set("idle_wake=vm-halt-poll");
  CHECK(c.idle_wake == IdleWakeMode::kVmHaltPoll);
  CHECK(c.idle_wake_set);
  CHECK(c.get("idle_wake") == "vm-halt-poll");
  c.set("idle_exit_halted=20us");
  CHECK(c.idle_exit_halted == Duration::us(20));
  CHECK_THROWS_AS(c.set("idle_wake=cstates"), InputError);
  CHECK_THROWS_AS(c.set("idle_exit_polled=2s"), InputError);
  CHECK(c.describe().find("idle_wake") != std::string::npos);
}

TEST_CASE("the engine charges the idle-wake cost by the target's idle time", "[engine][idle-wake]") {
  CostModel c = halt_poll();
  // cpu1 idle since the start: 10 us, 125 us, 300 us of idleness at the wake.
  CHECK(wake_delay_after(c, Duration::us(10)) == Duration::ns(600 + 3400));
  CHECK(wake_delay_after(c, Duration::us(125)) == Duration::ns(600 + 8400));
  CHECK(wake_delay_after(c, Duration::us(300)) == Duration::ns(600 + 13400));
  // B ran 280 us on cpu1 and blocked: at 300 us cpu1 has been idle only 20 us.
  CHECK(wake_delay_after(c, Duration::us(300), Duration::us(280)) == Duration::ns(600 + 3400));
  // constant: the same whatever the idleness
  c.idle_wake = IdleWakeMode::kConstant;
  CHECK(wake_delay_after(c, Duration::us(10)) == Duration::ns(2600));
  CHECK(wake_delay_after(c, Duration::us(300)) == Duration::ns(2600));
}

TEST_CASE("a timer wake on its own idle CPU pays timer_wake_local, no IPI or exit", "[engine][idle-wake]") {
  // B on cpu1: run 10 us, sleep 500 us, run 5 us. cpu1 is idle during the sleep; the timer fires
  // there and the placement (prev) keeps B on cpu1.
  for (bool halt : {true, false}) {
    CostModel c = halt_poll();
    if (!halt) c.idle_wake = IdleWakeMode::kConstant;
    Workload w;
    w.add_task(task("B", {Action::run(Duration::us(10)), Action::sleep(Duration::us(500)), Action::run(Duration::us(5))}, 1));
    SimSummary s;
    const WakeFact f = only_wake(w, c, s);  // the timer wake (B starts on cpu1 without placement)
    CHECK(f.at == Instant::zero() + Duration::us(510));
    CHECK(f.delay == (halt ? Duration::ns(1700) : Duration::ns(2000)));
    CHECK(s.end == Instant::zero() + Duration::us(515) + f.delay);
  }
}

namespace {
CostModel table_model() {
  CostModel c = halt_poll();
  c.idle_wake = IdleWakeMode::kTable;
  c.idle_exit_table = {{Duration::zero(), Duration::ns(5400)},
                       {Duration::us(150), Duration::ns(13400)},
                       {Duration::ms(2), Duration::ns(20000)}};
  return c;
}
}  // namespace

TEST_CASE("idle_wake=table: the step with the largest idle_from <= the idle time", "[engine][idle-wake]") {
  CostModel c = table_model();
  CHECK(idle_wake_cost(c, Duration::zero(), false) == Duration::ns(5400));
  CHECK(idle_wake_cost(c, Duration::us(149), false) == Duration::ns(5400));  // flat, no ramp
  CHECK(idle_wake_cost(c, Duration::us(150), false) == Duration::ns(13400));  // the edge belongs to the step above
  CHECK(idle_wake_cost(c, Duration::ms(1), false) == Duration::ns(13400));
  CHECK(idle_wake_cost(c, Duration::s(5), false) == Duration::ns(20000));
  // timer wakes: timer_wake_local while timer_wake_table is empty, else its step
  CHECK(idle_wake_cost(c, Duration::ms(1), true) == Duration::ns(1700));
  c.timer_wake_table = {{Duration::zero(), Duration::ns(7000)}, {Duration::us(500), Duration::ns(9000)}};
  CHECK(idle_wake_cost(c, Duration::us(499), true) == Duration::ns(7000));
  CHECK(idle_wake_cost(c, Duration::ms(1), true) == Duration::ns(9000));
  CHECK(idle_table_lookup({}, Duration::ms(1)) == Duration::zero());
  CHECK(format_idle_cost_table(c.idle_exit_table) == "0:5400,150000:13400,2000000:20000");
  CHECK(format_idle_cost_table({}) == "-");
}

TEST_CASE("the engine charges the table's step for the target's idle time", "[engine][idle-wake]") {
  CostModel c = table_model();
  CHECK(wake_delay_after(c, Duration::us(100)) == Duration::ns(600 + 5400));
  CHECK(wake_delay_after(c, Duration::us(300)) == Duration::ns(600 + 13400));
  // B ran 280 us on cpu1 and blocked: idle 20 us at the wake, the first step
  CHECK(wake_delay_after(c, Duration::us(300), Duration::us(280)) == Duration::ns(600 + 5400));
}

TEST_CASE("idle-duration tables: --cost text form, JSON form, and their errors", "[engine][idle-wake]") {
  CostModel c;
  c.set("idle_wake=table");
  CHECK(c.get("idle_wake") == "table");
  CHECK_THROWS_WITH(c.validate(), Catch::Contains("idle_wake=table needs idle_exit_table"));
  c.set("idle_exit_table=0:5us,150us:13400ns");
  CHECK(c.idle_exit_table == IdleCostTable{{Duration::zero(), Duration::us(5)}, {Duration::us(150), Duration::ns(13400)}});
  CHECK(c.get("idle_exit_table") == "0:5000,150000:13400");
  CHECK_NOTHROW(c.validate());
  CHECK(c.get("timer_wake_table") == "-");
  // the printed form reads back, "-" included
  CostModel d;
  d.set("idle_exit_table=" + c.get("idle_exit_table"));
  CHECK(d.idle_exit_table == c.idle_exit_table);
  d.set("idle_exit_table=-");
  CHECK(d.idle_exit_table.empty());
  CHECK_THROWS_WITH(c.set("idle_exit_table=20us:5us"), Catch::Contains("first step must start at idle_from 0"));
  CHECK_THROWS_WITH(c.set("idle_exit_table=0:5us,150us:13us,100us:9us"),
                    Catch::Contains("must increase") && Catch::Contains("step 3"));
  CHECK_THROWS_WITH(c.set("idle_exit_table=0:5us,0:6us"), Catch::Contains("must increase"));
  CHECK_THROWS_WITH(c.set("idle_exit_table=0:-5us"), Catch::Contains("expected a duration"));
  CHECK_THROWS_WITH(c.set("idle_exit_table=0:2s"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(c.set("idle_exit_table=0"), Catch::Contains("expected idle_from:cost"));
  CHECK_THROWS_WITH(c.set("idle_exit_table="), Catch::Contains("expected idle_from:cost"));
  std::string many = "0:1us";
  for (int i = 1; i <= 32; ++i) many += "," + std::to_string(i) + "us:1us";
  CHECK_THROWS_WITH(c.set("idle_exit_table=" + many), Catch::Contains("33 steps, at most 32"));
  // a failed set leaves the table as it was
  CHECK(c.get("idle_exit_table") == "0:5000,150000:13400");

  CostModel j;
  j.load_json(R"({"idle_wake": "table", "idle_exit_table": [{"idle_from": 0, "cost": "5us", "samples": 30},
                  {"idle_from": "150us", "cost": 13400}], "timer_wake_table": "0:7us"})",
              "c.json");
  CHECK(j.idle_exit_table == IdleCostTable{{Duration::zero(), Duration::us(5)}, {Duration::us(150), Duration::ns(13400)}});
  CHECK(j.timer_wake_table == IdleCostTable{{Duration::zero(), Duration::us(7)}});
  auto json_err = [](const char* text) {
    try {
      CostModel m;
      m.load_json(text, "c.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(json_err(R"({"idle_exit_table": [{"idle_from": 0, "cost": 1}, {"idle_from": 0, "cost": 2}]})"),
             Catch::Contains("c.json: /idle_exit_table/1/idle_from") && Catch::Contains("must increase"));
  CHECK_THAT(json_err(R"({"idle_exit_table": [{"idle_from": 0, "cost": -1}]})"),
             Catch::Contains("/idle_exit_table/0/cost") && Catch::Contains("must not be negative"));
  CHECK_THAT(json_err(R"({"idle_exit_table": [{"idle_from": 0, "cost": "2s"}]})"),
             Catch::Contains("/idle_exit_table/0/cost") && Catch::Contains("too large"));
  CHECK_THAT(json_err(R"({"idle_exit_table": [{"idle_from": 0}]})"),
             Catch::Contains("/idle_exit_table/0") && Catch::Contains("no 'cost'"));
  CHECK_THAT(json_err(R"({"idle_exit_table": [{"idle_from": 0, "cost": 1, "p50": 3}]})"),
             Catch::Contains("/idle_exit_table/0/p50") && Catch::Contains("unknown key"));
  CHECK_THAT(json_err(R"({"idle_exit_table": [{"idle_from": 0, "cost": 1, "samples": -3}]})"),
             Catch::Contains("/idle_exit_table/0/samples"));
  CHECK_THAT(json_err(R"({"idle_exit_table": [3]})"), Catch::Contains("/idle_exit_table/0") && Catch::Contains("object"));
  CHECK_THAT(json_err(R"({"idle_exit_table": []})"), Catch::Contains("no step"));
  CHECK_THAT(json_err(R"({"idle_exit_table": 5})"), Catch::Contains("expected an array"));
  std::string big = R"({"idle_exit_table": [)";
  for (int i = 0; i < 33; ++i) big += std::string(i ? "," : "") + R"({"idle_from": )" + std::to_string(i * 1000) + R"(, "cost": 1})";
  CHECK_THAT(json_err((big + "]}").c_str()), Catch::Contains("33 steps, at most 32"));
}

TEST_CASE("the wake IPI is charged where the kernel sends one: an idle target or another LLC", "[engine][idle-wake]") {
  // ttwu_queue_cond(): a wakeup into a busy CPU of the waker's LLC locks that CPU's runqueue and
  // enqueues the wakee from the waker's CPU, no IPI; into another LLC it goes on the target's
  // wake list, with the IPI, busy or not. A on cpu0 wakes B (blocked, cpu1) while C runs on cpu1.
  CostModel c = halt_poll();
  Workload w;
  w.add_task(task("A", {Action::run(Duration::us(10)), Action::wake(TaskId(1)), Action::run(Duration::us(10))}, 0));
  w.add_task(task("B", {Action::run(Duration::us(5))}, 1, StartState::kBlocked));
  w.add_task(task("C", {Action::run(Duration::ms(1))}, 1));
  SimSummary s;
  CHECK(only_wake(w, c, s).delay == Duration::zero());
  CHECK(only_wake(w, c, s, 2).delay == Duration::ns(600));
  // cpu1 idle (no C): the IPI and the idle exit, in either LLC layout.
  w.tasks.pop_back();
  CHECK(only_wake(w, c, s).delay == Duration::ns(600 + 3400));
  CHECK(only_wake(w, c, s, 2).delay == Duration::ns(600 + 3400));
}
