// Engine tests on hand-written tiny workloads with hand-computed answers. Costs are zeroed unless
// a test is about a cost, so the expected numbers are plain sums of run() durations.
#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

using schedsim::testing::zero_costs;

Topology machine(uint32_t cores, uint32_t threads, uint32_t packages = 1) {
  RegularMachine m;
  m.name = "test";
  m.packages = packages;
  m.cores_per_package = cores;
  m.threads = threads;
  return Topology::build(make_regular_machine(m));
}

PolicyStack stack(const std::string& placement = "first-idle", const std::string& queue = "cfs",
                  const std::string& balance = "kernel") {
  return builtin_registry().make({{"placement", placement}, {"idle-cores", "kernel"}, {"util", "pelt"},
                                  {"queue", queue}, {"balance", balance}},
                                 FeatureSet{});
}

// Records every switch so tests can check who ran where and when.
struct Recorder : Observer {
  struct Sw {
    Instant at;
    uint32_t cpu;
    TaskId prev, next;
  };
  std::vector<Sw> switches;
  std::vector<Instant> exits;
  std::vector<WakeFact> wakes;
  uint64_t tokens_banked = 0;
  void on_switch(Instant at, CpuId cpu_id, TaskId prev, SwitchReason, TaskId next) override {
    const uint32_t cpu = cpu_id.value();
    switches.push_back({at, cpu, prev, next});
  }
  void on_exit(Instant at, TaskId, CpuId) override { exits.push_back(at); }
  void on_wake(const WakeFact& f) override { wakes.push_back(f); }
  void on_token(Instant, TaskId, bool consumed) override { tokens_banked += consumed ? 0 : 1; }
};

TaskSpec task(std::string name, std::vector<Action> prog, StartState st = StartState::kRunnable) {
  TaskSpec t;
  t.name = std::move(name);
  t.program = std::move(prog);
  t.start = st;
  return t;
}

}  // namespace

TEST_CASE("two tasks ping-pong on two CPUs", "[engine]") {
  // A: 100 x { run 100us; wake B; block }   B: 100 x { block; run 100us; wake A }
  // Strict alternation: only one task is ever runnable, so makespan = 200 x 100us = 20ms,
  // minus nothing (A's last block is satisfied by B's last wake, then both end).
  Workload w;
  TaskId a(0), b(1);
  w.add_task(task("A", {Action::run(Duration::us(100)), Action::wake(b), Action::block(), Action::loop(3, 99)}));
  w.add_task(task("B", {Action::block(), Action::run(Duration::us(100)), Action::wake(a), Action::loop(3, 99)}));
  Topology t = machine(2, 1);
  Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
  Recorder rec;
  sim.add_observer(&rec);
  SimSummary s = sim.run();
  CHECK(s.complete);
  CHECK(s.end == Instant::zero() + Duration::ms(20));
  CHECK(s.wakeups == 200);
  CHECK(s.work_done == Duration::ms(20));
  CHECK(s.work_done == s.work_expected);
  CHECK(s.tasks_stuck == 0);
}

TEST_CASE("SMT co-run factor slows siblings", "[engine]") {
  // Four tasks of 1ms on one core pair x 2 threads (2 cores, SMT2): all four run at once, each
  // with a busy sibling, so each progresses at 0.5 work/ns with corun 500 permille: 2ms.
  Workload w;
  for (int i = 0; i < 4; ++i) w.add_task(task("t" + std::to_string(i), {Action::run(Duration::ms(1))}));
  for (uint32_t i = 0; i < 4; ++i) w.tasks[i].initial_cpu = static_cast<int32_t>(i);
  Topology t = machine(2, 2);
  CostModel c = zero_costs();
  c.smt_corun_permille = 500;
  Simulation sim(w, t, stack(), c, SimConfig{});
  SimSummary s = sim.run();
  CHECK(s.end == Instant::zero() + Duration::ms(2));
  CHECK(s.work_done == Duration::ms(4));

  // One task alone on a core runs at full speed: 1ms.
  Workload w1;
  w1.add_task(task("solo", {Action::run(Duration::ms(1))}));
  w1.tasks[0].initial_cpu = 0;
  Simulation sim1(w1, t, stack(), c, SimConfig{});
  CHECK(sim1.run().end == Instant::zero() + Duration::ms(1));
}

TEST_CASE("the co-run rate is re-planned when a sibling goes idle", "[engine]") {
  // CPU0 runs 2ms of work, its sibling CPU2 (threads of core 0 are 0 and 2 on a 2-core SMT2
  // machine) runs 0.5ms. At rate 0.5 both progress: after 1ms the short one is done (0.5ms work);
  // CPU0 has done 0.5ms and finishes the remaining 1.5ms alone: end at 2.5ms.
  Workload w;
  w.add_task(task("long", {Action::run(Duration::ms(2))}));
  w.add_task(task("short", {Action::run(Duration::us(500))}));
  w.tasks[0].initial_cpu = 0;
  w.tasks[1].initial_cpu = 2;
  Topology t = machine(2, 2);
  CostModel c = zero_costs();
  c.smt_corun_permille = 500;
  Simulation sim(w, t, stack(), c, SimConfig{});
  SimSummary s = sim.run();
  CHECK(s.end == Instant::zero() + Duration::us(2500));
}

TEST_CASE("fork chain", "[engine]") {
  // t0 runs 100us and forks t1; t1 runs 100us and forks t2; ... t3 runs 100us and exits.
  // Each child starts when its parent forks it, parents exit right after forking: 400us.
  Workload w;
  for (uint32_t i = 0; i < 4; ++i) {
    std::vector<Action> p = {Action::run(Duration::us(100))};
    if (i < 3) p.push_back(Action::fork(TaskId(i + 1)));
    w.add_task(task("c" + std::to_string(i), p, i == 0 ? StartState::kRunnable : StartState::kForked));
  }
  Topology t = machine(2, 1);
  Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
  SimSummary s = sim.run();
  CHECK(s.forks == 3);
  CHECK(s.end == Instant::zero() + Duration::us(400));
  CHECK(s.complete);
}

TEST_CASE("a wake to a blocked task vs a not-yet-blocked one", "[engine]") {
  Topology t = machine(2, 1);
  SECTION("wakee already blocked: it waits for the wake") {
    // B blocks at 0; A runs 300us then wakes B; B runs 100us: end 400us, one real wakeup.
    Workload w;
    w.add_task(task("A", {Action::run(Duration::us(300)), Action::wake(TaskId(1))}));
    w.add_task(task("B", {Action::block(), Action::run(Duration::us(100))}));
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    Recorder rec;
    sim.add_observer(&rec);
    SimSummary s = sim.run();
    CHECK(s.end == Instant::zero() + Duration::us(400));
    CHECK(s.wakeups == 1);
    CHECK(s.tokens_banked == 0);
  }
  SECTION("wakee not blocked yet: the token is banked and its block passes at once") {
    // A wakes B at 0 while B runs 300us; B's block consumes the token; B runs 100us more: 400us.
    Workload w;
    w.add_task(task("A", {Action::wake(TaskId(1))}));
    w.add_task(task("B", {Action::run(Duration::us(300)), Action::block(), Action::run(Duration::us(100))}));
    w.tasks[0].initial_cpu = 0;
    w.tasks[1].initial_cpu = 1;
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    Recorder rec;
    sim.add_observer(&rec);
    SimSummary s = sim.run();
    CHECK(s.end == Instant::zero() + Duration::us(400));
    CHECK(s.wakeups == 0);
    CHECK(s.tokens_banked == 1);
    CHECK(rec.tokens_banked == 1);
    CHECK(s.tokens_left == 0);  // its block() consumed it
  }
  SECTION("a token nobody consumes is reported at the end") {
    // B never blocks again after the wake: the token is left over (a spare token in a replay).
    Workload w;
    w.add_task(task("A", {Action::wake(TaskId(1))}));
    w.add_task(task("B", {Action::run(Duration::us(300))}));
    w.tasks[0].initial_cpu = 0;
    w.tasks[1].initial_cpu = 1;
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    SimSummary s = sim.run();
    CHECK(s.tokens_banked == 1);
    CHECK(s.tokens_left == 1);
  }
}

// --wake-match recorded (docs/traces.md "Wake matching"): a block numbered N waits for the wake
// numbered N only; a wake posted before its wakee reaches its own block is held for that block.
TEST_CASE("a recorded wake pair releases only its own block", "[engine]") {
  Topology t = machine(3, 1);
  // R sleeps twice: its first sleep was ended by W1 (pair 1), its second by W2 (pair 2). W2 posts
  // its wake at 10 us, while R is still asleep in its first block; W1 posts its own at 50 us.
  auto work = [](uint32_t p1, uint32_t p2) {
    Workload w;
    Action w1 = Action::wake(TaskId(2));
    w1.body = p1;
    Action w2 = Action::wake(TaskId(2));
    w2.body = p2;
    w.add_task(task("W1", {Action::run(Duration::us(50)), w1}));
    w.add_task(task("W2", {Action::run(Duration::us(10)), w2}));
    w.add_task(task("R", {Action::block(p1), Action::run(Duration::us(20)), Action::block(p2), Action::run(Duration::us(20))}));
    for (uint32_t k = 0; k < 3; ++k) w.tasks[k].initial_cpu = static_cast<int32_t>(k);
    return w;
  };
  SECTION("token matching: W2's wake releases the first block, W1's the second") {
    Workload w = work(0, 0);
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    SimSummary s = sim.run();
    CHECK(s.complete);
    CHECK(s.wakeups == 2);
    CHECK(s.tokens_banked == 0);
    CHECK(s.end == Instant::zero() + Duration::us(70));  // 10 + 20, asleep until 50, + 20
  }
  SECTION("recorded matching: W2's wake is held for the second block, W1's releases the first") {
    Workload w = work(1, 2);
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    Recorder rec;
    sim.add_observer(&rec);
    SimSummary s = sim.run();
    CHECK(s.complete);
    CHECK(s.wakeups == 1);
    CHECK(s.tokens_banked == 1);
    CHECK(rec.tokens_banked == 1);
    CHECK(s.tokens_left == 0);
    CHECK(s.end == Instant::zero() + Duration::us(90));  // asleep until 50, + 20 + 20
  }
  SECTION("a pair whose wake never comes leaves its task stuck, and a held one is counted as left") {
    Workload w = work(1, 2);
    w.tasks[0].program.pop_back();  // W1 never posts pair 1
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    SimSummary s = sim.run();
    CHECK_FALSE(s.complete);
    CHECK(s.tasks_stuck == 1);
    CHECK(s.tokens_left == 1);  // W2's wake, held for a block R never reached
    REQUIRE(s.unfinished.size() == 1);
    CHECK(s.unfinished[0].pc == 0);
    CHECK(s.unfinished[0].tokens == 1);
  }
}

TEST_CASE("wake latency includes IPI and idle exit", "[engine]") {
  // A on cpu0 wakes B (blocked, last ran on cpu1, idle): the placement picks idle prev cpu1,
  // so B is enqueued after ipi_same_package + idle_exit = 600 + 2000 ns.
  Workload w;
  w.add_task(task("A", {Action::run(Duration::us(10)), Action::wake(TaskId(1)), Action::run(Duration::us(10))}));
  w.add_task(task("B", {Action::run(Duration::us(5))}, StartState::kBlocked));
  w.tasks[0].initial_cpu = 0;
  w.tasks[1].initial_cpu = 1;
  Topology t = machine(2, 1);
  CostModel c = zero_costs();
  c.ipi_same_package = Duration::ns(600);
  c.idle_exit = Duration::ns(2000);
  Simulation sim(w, t, stack("prev"), c, SimConfig{});
  Recorder rec;
  sim.add_observer(&rec);
  sim.run();
  REQUIRE(rec.wakes.size() == 1);
  CHECK(rec.wakes[0].placement.cpu.value() == 1);
  CHECK(rec.wakes[0].delay == Duration::ns(2600));
  // B switches in on cpu1 at 10us + 2.6us.
  bool found = false;
  for (const auto& sw : rec.switches)
    if (sw.next == TaskId(1)) {
      CHECK(sw.cpu == 1);
      CHECK(sw.at == Instant::zero() + Duration::ns(12600));
      found = true;
    }
  CHECK(found);
}

TEST_CASE("same seed gives the same run, jitter changes it", "[engine]") {
  Workload w;
  for (uint32_t i = 0; i < 8; ++i)
    w.add_task(task("t", {Action::run(Duration::us(200)), Action::sleep(Duration::us(50)), Action::loop(2, 20)}));
  Topology t = machine(2, 2);
  SimConfig cfg;
  cfg.jitter_permille = 50;
  cfg.seed = 7;
  auto once = [&](uint64_t seed) {
    SimConfig c2 = cfg;
    c2.seed = seed;
    Simulation sim(w, t, stack(), CostModel{}, c2);
    Recorder rec;
    sim.add_observer(&rec);
    SimSummary s = sim.run();
    return std::make_pair(s.end, rec.switches.size());
  };
  CHECK(once(7) == once(7));
  CHECK(once(7).first != once(8).first);
}

TEST_CASE("a task that starts blocked runs its program from its first action once woken", "[engine]") {
  // docs/workload-format.md: "start": "blocked" waits for a token before its program. The trace
  // importer emits exactly this shape (a task asleep at trace start, first woken by a traced
  // task); the wake used to be taken as completing a block() at pc 0, skipping B's first run().
  Workload w;
  w.add_task(task("A", {Action::run(Duration::us(10)), Action::wake(TaskId(1))}));
  w.add_task(task("B", {Action::run(Duration::us(300)), Action::run(Duration::us(7))}, StartState::kBlocked));
  w.tasks[0].initial_cpu = 0;
  w.tasks[1].initial_cpu = 1;
  Topology t = machine(2, 1);
  Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
  SimSummary s = sim.run();
  CHECK(s.complete);
  CHECK(s.work_done == Duration::us(317));
  CHECK(s.work_done == w.total_work());
  CHECK(s.tasks_stuck == 0);
}

TEST_CASE("a task that starts blocked and begins with block() waits for two tokens", "[engine]") {
  Workload w;
  w.add_task(task("A", {Action::run(Duration::us(10)), Action::wake(TaskId(1)), Action::run(Duration::us(10)),
                        Action::wake(TaskId(1))}));
  w.add_task(task("B", {Action::block(), Action::run(Duration::us(30))}, StartState::kBlocked));
  w.tasks[0].initial_cpu = 0;
  w.tasks[1].initial_cpu = 1;
  Topology t = machine(2, 1);
  {
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    SimSummary s = sim.run();
    CHECK(s.complete);
    CHECK(s.work_done == Duration::us(50));
  }
  w.tasks[0].program.pop_back();  // only one wake: B is released, then waits in its block()
  Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
  SimSummary s = sim.run();
  CHECK(s.tasks_stuck == 1);
  CHECK(s.work_done == Duration::us(20));
}

TEST_CASE("a run that ends with tasks blocked forever is incomplete and says where they wait", "[engine]") {
  Workload w;
  w.add_task(task("A", {Action::run(Duration::us(10)), Action::block()}));
  w.add_task(task("B", {Action::block(), Action::run(Duration::us(10)), Action::wake(TaskId(0)), Action::loop(3, 4)}));
  Topology t = machine(2, 1);
  Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
  SimSummary s = sim.run();
  CHECK_FALSE(s.complete);
  CHECK(s.stop == StopReason::kNone);
  CHECK(s.tasks_stuck == 2);
  REQUIRE(s.unfinished.size() == 2);
  CHECK(s.unfinished[0].pc == 1);
  CHECK(s.unfinished[1].pc == 0);
  REQUIRE(s.incomplete.size() == 3);
  CHECK(s.incomplete[0] ==
        "the simulation ran out of events with 2 tasks blocked forever, waiting for a wake no task was left to post "
        "(deadlock)");
  CHECK(s.incomplete[1] == "task 0 ('A'): blocked at action 1 (block), never woken");
  CHECK(s.incomplete[2] == "task 1 ('B'): blocked at action 0 (block), never woken");
  CHECK(s.work_done == Duration::us(10));

  // Stuck in a later iteration of a loop: the message says which.
  w.tasks[0].program = {Action::run(Duration::us(10)), Action::wake(TaskId(1)), Action::block()};
  Simulation sim2(w, t, stack(), zero_costs(), SimConfig{});
  s = sim2.run();
  CHECK_FALSE(s.complete);
  REQUIRE(s.incomplete.size() == 2);
  CHECK(s.incomplete[0] ==
        "the simulation ran out of events with 1 task blocked forever, waiting for a wake no task was left to post");
  CHECK(s.incomplete[1] ==
        "task 1 ('B'): blocked at action 0 (block), never woken (in the loop closed at action 3, 3 more iterations "
        "after this one)");
}

TEST_CASE("unconsumed tokens, unforked tasks and empty workloads are incomplete", "[engine]") {
  Topology t = machine(2, 1);
  {
    Workload w;
    w.add_task(task("A", {Action::wake(TaskId(1)), Action::run(Duration::us(5))}));
    w.add_task(task("B", {Action::run(Duration::us(300))}));
    w.tasks[0].initial_cpu = 0;
    w.tasks[1].initial_cpu = 1;
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    SimSummary s = sim.run();
    CHECK_FALSE(s.complete);
    REQUIRE(s.incomplete.size() == 2);
    CHECK(s.incomplete[0] ==
          "the simulation ran out of events with 1 task ended with 1 wake token never consumed (woken more often "
          "than it blocked)");
    CHECK(s.incomplete[1] == "task 1 ('B'): exited with 1 wake token never consumed");
  }
  {
    Workload w;
    w.add_task(task("A", {Action::run(Duration::us(5))}));
    w.add_task(task("child", {Action::run(Duration::us(5))}, StartState::kForked));
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    SimSummary s = sim.run();
    CHECK_FALSE(s.complete);
    REQUIRE(s.incomplete.size() == 2);
    CHECK(s.incomplete[1] == "task 1 ('child'): never started: it is \"start\": \"forked\" and no task executed a fork of it");
  }
  {
    Workload w;
    Simulation sim(w, t, stack(), zero_costs(), SimConfig{});
    SimSummary s = sim.run();
    CHECK_FALSE(s.complete);
    CHECK(s.incomplete == std::vector<std::string>{"the workload has no tasks: nothing was simulated"});
  }
  {
    // stop_at: incomplete for a known reason, no task listed as stuck.
    Workload w;
    w.add_task(task("A", {Action::run(Duration::ms(50))}));
    SimConfig cfg;
    cfg.stop_at = Instant::zero() + Duration::ms(10);
    Simulation sim(w, t, stack(), zero_costs(), cfg);
    SimSummary s = sim.run();
    CHECK_FALSE(s.complete);
    CHECK(s.stop == StopReason::kStopAt);
    CHECK(s.unfinished.empty());
    CHECK(s.incomplete == std::vector<std::string>{"stopped at 0.010000 s (stop_at) with events still pending"});
  }
}

TEST_CASE("times near INT64_MAX and huge runs fail clearly instead of overflowing or hanging", "[engine]") {
  Topology t = machine(2, 1);
  auto run_one = [&](const Workload& w, SimConfig cfg = SimConfig{}) {
    Simulation sim(w, t, stack(), zero_costs(), cfg);
    return sim.run();
  };
  auto message = [&](const Workload& w) {
    try {
      run_one(w);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  {
    // run(2^62): a tick every 4 ms would take ~10^15 ticks; fails before the first one.
    Workload w;
    w.add_task(task("a", {Action::run(Duration::ns(int64_t{1} << 62))}));
    CHECK_THAT(message(w), Catch::Contains("task 0 ('a'): action 0 (run 4611686018427387904 ns) on cpu") &&
                               Catch::Contains("past the simulated-time limit of 86400 s"));
  }
  {
    // Near INT64_MAX: used to overflow into "time went backwards" (SIGABRT).
    Workload w;
    w.add_task(task("a", {Action::run(Duration::ms(1)), Action::run(Duration::ns(INT64_MAX - 10))}));
    CHECK_THAT(message(w), Catch::Contains("action 1 (run 9223372036854775797 ns)") &&
                               Catch::Contains("past the 64-bit clock"));
  }
  {
    Workload w;
    w.add_task(task("s", {Action::run(Duration::ms(1)), Action::sleep(Duration::ns(INT64_MAX))}));
    CHECK_THAT(message(w), Catch::Contains("task 0 ('s'): action 1 (sleep 9223372036854775807 ns) would end at"));
  }
  {
    Workload w;
    w.add_task(task("late", {Action::run(Duration::ms(1))}));
    w.tasks[0].start_time = Instant::max();
    CHECK_THAT(message(w), Catch::Contains("task 0 ('late'): its start_time would end at simulated time 9223372036.854775 s"));
  }
  {
    // Jitter on a huge run: the scaled double no longer fits int64 (was undefined behaviour).
    Workload w;
    w.add_task(task("j", {Action::run(Duration::ns(INT64_MAX))}));
    SimConfig cfg;
    cfg.jitter_permille = 500;
    cfg.seed = 7;
    CHECK_THROWS_AS(run_one(w, cfg), InputError);
  }
  {
    // Past the limit but also past stop_at: never processed, so no error.
    Workload w;
    w.add_task(task("a", {Action::run(Duration::ns(int64_t{1} << 62))}));
    SimConfig cfg;
    cfg.stop_at = Instant::zero() + Duration::ms(100);
    SimSummary s = run_one(w, cfg);
    CHECK(s.stop == StopReason::kStopAt);
    CHECK(s.work_done == Duration::ms(100));
  }
}

TEST_CASE("a pinned task bypasses the placement module", "[engine]") {
  // B may run only on CPU 3; A wakes it from CPU 0 ten times. core.c's select_task_rq() skips
  // the class hook for a single allowed CPU: every wake is placed on 3 with outcome "pinned" and
  // no search cost, whatever the module would have probed.
  Workload w;
  TaskId a(0), b(1);
  w.add_task(task("A", {Action::run(Duration::us(100)), Action::wake(b), Action::block(), Action::loop(3, 9)}));
  TaskSpec tb = task("B", {Action::block(), Action::run(Duration::us(100)), Action::wake(a), Action::loop(3, 9)});
  tb.affinity = CpuMask::of({3});
  w.add_task(tb);
  Topology t = machine(4, 1);
  Simulation sim(w, t, stack("sis-util"), zero_costs(), SimConfig{});
  Recorder rec;
  sim.add_observer(&rec);
  SimSummary s = sim.run();
  CHECK(s.complete);
  uint32_t to_b = 0;
  for (const WakeFact& f : rec.wakes) {
    if (f.wakee != b) continue;
    to_b += f.kind == WakeKind::kWakeup ? 1 : 0;  // the start placement is pinned as well
    CHECK(f.placement.cpu.value() == 3);
    CHECK(f.placement.outcome == PlaceOutcome::kPinned);
    CHECK(f.placement.probes_cpu + f.placement.probes_core == 0);
  }
  CHECK(to_b == 10);
}
