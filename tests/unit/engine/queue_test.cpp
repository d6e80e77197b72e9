// Queue and balance modules through the engine, on schedules small enough to compute by hand.
// Costs are zeroed so times are sums of run() durations; the tick is 4 ms (HZ=250).
#include <catch2/catch.hpp>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

using schedsim::testing::zero_costs;

Topology cpus(uint32_t n) {
  RegularMachine m;
  m.name = "t";
  m.cores_per_package = n;
  return Topology::build(make_regular_machine(m));
}

struct Switches : Observer {
  std::vector<std::pair<Instant, TaskId>> in;  // switch-ins on any CPU
  std::vector<std::pair<Instant, uint32_t>> exits;
  void on_switch(Instant at, CpuId, TaskId, SwitchReason, TaskId next) override {
    if (next.valid()) in.emplace_back(at, next);
  }
  void on_exit(Instant at, TaskId t, CpuId) override { exits.emplace_back(at, t.value()); }
};

SimSummary run(const Workload& w, const Topology& t, const std::string& queue, const std::string& balance,
               Observer* o = nullptr) {
  auto choice = default_modules();
  choice["queue"] = queue;
  choice["balance"] = balance;
  choice["placement"] = "prev";
  Simulation sim(w, t, builtin_registry().make(choice, FeatureSet{}), zero_costs(), SimConfig{});
  if (o) sim.add_observer(o);
  return sim.run();
}

Workload two_hogs(Duration each) {
  Workload w;
  for (int i = 0; i < 2; ++i) {
    TaskSpec t;
    t.name = i ? "B" : "A";
    t.initial_cpu = 0;
    t.program = {Action::run(each)};
    w.add_task(t);
  }
  return w;
}

}  // namespace

TEST_CASE("cfs: two CPU hogs on one CPU alternate at tick granularity", "[policies][queue]") {
  // One CPU: factor 1, sched_latency 6 ms, two tasks -> ideal slice 3 ms. Preemption is checked
  // at ticks (4 ms): A runs 0-4, B 4-8, A 8-12 (A's 8 ms done), B 12-16.
  Topology t = cpus(1);
  Switches sw;
  SimSummary s = run(two_hogs(Duration::ms(8)), t, "cfs", "none", &sw);
  CHECK(s.end == Instant::zero() + Duration::ms(16));
  REQUIRE(sw.exits.size() == 2);
  CHECK(sw.exits[0].first == Instant::zero() + Duration::ms(12));
  CHECK(sw.exits[0].second == 0);
  CHECK(sw.in.size() == 4);
}

TEST_CASE("eevdf: deadline expiry reschedules at the next tick", "[policies][queue]") {
  // base_slice 0.75 ms on 1 CPU. A (picked first) exhausts its request at 0.75 ms, but tick
  // preemption is only checked every 4 ms, so A runs 0-4; then B (earlier deadline, eligible)
  // runs 4-8, and so on: the same 4 ms alternation, total 16 ms.
  Topology t = cpus(1);
  Switches sw;
  SimSummary s = run(two_hogs(Duration::ms(8)), t, "eevdf", "none", &sw);
  CHECK(s.end == Instant::zero() + Duration::ms(16));
  CHECK(sw.in.size() == 4);
}

TEST_CASE("fifo: no preemption, a task runs to completion", "[policies][queue]") {
  Topology t = cpus(1);
  Switches sw;
  SimSummary s = run(two_hogs(Duration::ms(8)), t, "fifo", "none", &sw);
  CHECK(s.end == Instant::zero() + Duration::ms(16));
  REQUIRE(sw.exits.size() == 2);
  CHECK(sw.exits[0].first == Instant::zero() + Duration::ms(8));
  CHECK(sw.in.size() == 2);
}

TEST_CASE("cfs: wakeup preemption needs a vruntime lead above wakeup_gran", "[policies][queue]") {
  // A hog runs on CPU0; W sleeps 20 ms then wakes on CPU0 (pinned). Placed at
  // min_vruntime - latency/2 (sleeper credit 3 ms on 1 CPU... here 2 CPUs: factor 2, latency
  // 12 ms, credit 6 ms), W leads the hog by 6 ms > wakeup_gran (2 ms): it preempts at once.
  Topology t = cpus(2);
  Workload w;
  TaskSpec hog;
  hog.name = "hog";
  hog.initial_cpu = 0;
  hog.affinity = CpuMask::of({0});
  hog.program = {Action::run(Duration::ms(40))};
  w.add_task(hog);
  TaskSpec wk;
  wk.name = "W";
  wk.initial_cpu = 0;
  wk.affinity = CpuMask::of({0});
  wk.start = StartState::kSleeping;
  wk.start_time = Instant::zero() + Duration::ms(20);
  wk.program = {Action::run(Duration::ms(1))};
  w.add_task(wk);
  Switches sw;
  run(w, t, "cfs", "none", &sw);
  bool preempted_at_wake = false;
  for (const auto& [at, task] : sw.in)
    if (task == TaskId(1) && at == Instant::zero() + Duration::ms(20)) preempted_at_wake = true;
  CHECK(preempted_at_wake);
}

TEST_CASE("balance: newidle pulls a waiting task, none never does", "[policies][balance]") {
  // Three 10 ms hogs start on CPU0 of a 2-CPU machine. With newidle balance, CPU1 is idle but
  // nothing makes it go idle again... the periodic/nohz path of `kernel` moves one at its first
  // tick; with `none` everything stays on CPU0: 30 ms.
  Topology t = cpus(2);
  Workload w;
  for (int i = 0; i < 3; ++i) {
    TaskSpec h;
    h.name = "h" + std::to_string(i);
    h.initial_cpu = 0;
    h.program = {Action::run(Duration::ms(10))};
    w.add_task(h);
  }
  SimSummary none = run(w, t, "cfs", "none");
  CHECK(none.end == Instant::zero() + Duration::ms(30));
  CHECK(none.migrations == 0);
  SimSummary kernel = run(w, t, "cfs", "kernel");
  CHECK(kernel.migrations >= 1);
  CHECK(kernel.end < Instant::zero() + Duration::ms(30));
}

TEST_CASE("eevdf-6.15: the 0.70 ms base slice ends a request earlier than 0.75 ms", "[policies][queue]") {
  // One CPU (factor 1), tick 50 us, two hogs starting together. A is picked first with the
  // PLACE_DEADLINE_INITIAL half-slice request: 375 us with eevdf, 350 us with eevdf-6.15. The
  // deadline expiry is noticed at the first tick at or after it: 400 us vs 350 us.
  Topology t = cpus(1);
  for (const auto& [queue, first_switch_us] : {std::pair{std::string("eevdf"), 400}, std::pair{std::string("eevdf-6.15"), 350}}) {
    INFO(queue);
    auto choice = default_modules();
    choice["queue"] = queue;
    choice["balance"] = "none";
    choice["placement"] = "prev";
    CostModel c = zero_costs();
    c.tick = Duration::us(50);
    Workload w = two_hogs(Duration::ms(2));  // the simulation keeps a reference
    Simulation sim(w, t, builtin_registry().make(choice, FeatureSet{}), c, SimConfig{});
    Switches sw;
    sim.add_observer(&sw);
    sim.run();
    REQUIRE(sw.in.size() >= 2);
    CHECK(sw.in[1].first == Instant::zero() + Duration::us(first_switch_us));
  }
}

TEST_CASE("eevdf DELAY_DEQUEUE: a task that sleeps ineligible is woken in place, no placement", "[policies][queue]") {
  // 3 CPUs (base slice 0.75 ms x 2). A and B start on CPU0, A first; B is pinned there. A runs
  // 1 ms and blocks: it ran 1 ms, B none, so A is behind V (not eligible) and, with DELAY_DEQUEUE,
  // stays queued. C on CPU1 wakes A at 1.5 ms. Delayed: A is re-queued on CPU0 without
  // select_task_rq (outcome "delayed", no migration). Without: first-idle moves it to idle CPU2.
  Topology t = cpus(3);
  for (bool dd : {true, false}) {
    INFO("DELAY_DEQUEUE " << dd);
    Workload w;
    TaskSpec a, b, c;
    a.name = "A";
    a.initial_cpu = 0;
    a.program = {Action::run(Duration::ms(1)), Action::block(), Action::run(Duration::ms(1))};
    b.name = "B";
    b.initial_cpu = 0;
    b.affinity = CpuMask::of({0});
    b.program = {Action::run(Duration::ms(5))};
    c.name = "C";
    c.initial_cpu = 1;
    c.affinity = CpuMask::of({1});
    c.program = {Action::run(Duration::us(1500)), Action::wake(TaskId(0))};
    w.add_task(a);
    w.add_task(b);
    w.add_task(c);
    auto choice = default_modules();
    choice["queue"] = "eevdf";
    choice["balance"] = "none";
    choice["placement"] = "first-idle";
    FeatureSet f;
    f.set("DELAY_DEQUEUE", dd);
    f.set("DELAY_ZERO", dd);
    Simulation sim(w, t, builtin_registry().make(choice, f), zero_costs(), SimConfig{});
    struct Wakes : Observer {
      std::vector<WakeFact> v;
      void on_wake(const WakeFact& x) override { v.push_back(x); }
    } wakes;
    sim.add_observer(&wakes);
    SimSummary s = sim.run();
    CHECK(s.complete);
    REQUIRE(wakes.v.size() == 1);
    CHECK(wakes.v[0].at == Instant::zero() + Duration::us(1500));
    CHECK(wakes.v[0].placement.outcome == (dd ? PlaceOutcome::kDelayed : PlaceOutcome::kIdleCpu));
    CHECK(wakes.v[0].placement.cpu.value() == (dd ? 0u : 2u));
    CHECK(s.migrations == (dd ? 0u : 1u));
  }
}

TEST_CASE("eevdf-6.17: without RUN_TO_PARITY the protection is a minimum quantum, and its end reschedules",
          "[policies][queue]") {
  // Two hogs pinned to CPU0 of a 2-CPU machine (slice 0.7 ms x 2 = 1.4 ms; unscaled 0.7 ms), tick
  // 50 us, NO_RUN_TO_PARITY. A runs 0-700 us (half-slice first request), B 700-1400 us; at 1400 us
  // both have v = 700 us and d = 2100 us and A (lower id) is picked. eevdf-6.15: nothing
  // reschedules before A's deadline (v = 2100 us), so B comes back at 2800 us. eevdf-6.17: A's
  // protection ends at v + 0.7 ms (74eec63661d4) and the update that sees it ends reschedules
  // (0b9ca2dcabc3): A is no longer eligible, B runs at 2100 us. With RUN_TO_PARITY and equal
  // slices the 6.17 protection ends at the deadline: 2800 us for both modules.
  RegularMachine m;
  m.name = "t";
  m.cores_per_package = 2;
  Topology t = Topology::build(make_regular_machine(m));
  struct Case {
    const char* queue;
    bool parity;
    int64_t fourth_us;
  };
  for (const Case& c : {Case{"eevdf-6.15", false, 2800}, Case{"eevdf-6.17", false, 2100},
                        Case{"eevdf-6.15", true, 2800}, Case{"eevdf-6.17", true, 2800}}) {
    INFO(c.queue << " RUN_TO_PARITY " << c.parity);
    auto choice = default_modules();
    choice["queue"] = c.queue;
    choice["balance"] = "none";
    choice["placement"] = "prev";
    CostModel cost = zero_costs();
    cost.tick = Duration::us(50);
    Workload w = two_hogs(Duration::ms(3));
    for (auto& task : w.tasks) task.affinity = CpuMask::of({0});
    FeatureSet f;
    f.set("RUN_TO_PARITY", c.parity);
    Simulation sim(w, t, builtin_registry().make(choice, f), cost, SimConfig{});
    Switches sw;
    sim.add_observer(&sw);
    sim.run();
    REQUIRE(sw.in.size() >= 4);
    CHECK(sw.in[1].first == Instant::zero() + Duration::us(700));
    CHECK(sw.in[2].first == Instant::zero() + Duration::us(1400));
    CHECK(sw.in[2].second == TaskId(0));
    CHECK(sw.in[3].first == Instant::zero() + Duration::us(c.fourth_us));
  }
}

TEST_CASE("eevdf: a remote wakee is placed after the running task's progress is charged", "[policies][queue]") {
  // 2 CPUs (slice 0.7 ms x 2 = 1.4 ms; a new task's first request is half of it). B and A start
  // on CPU0 (pinned), B first: B blocks at once with zero lag (both at V); A runs from 0 with
  // deadline (and 6.17 protection end) at v = 0.7 ms. C on CPU1 wakes B at 0.5 ms; no tick or
  // switch on CPU0 has charged A's 0.5 ms yet. enqueue_entity() runs update_curr() before
  // place_entity(), so B is placed at V = v_A = 0.5 ms: A stays eligible and protected and keeps
  // the CPU until it ends at 2 ms. Placed against A's stale vruntime (0), B would sit 0.5 ms left
  // of A once A is charged, A would be ineligible and B would preempt at 0.5 ms.
  for (const char* queue : {"eevdf", "eevdf-6.17"}) {
    INFO(queue);
    Workload w;
    TaskSpec a, b, c;
    b.name = "B";
    b.initial_cpu = 0;
    b.affinity = CpuMask::of({0});
    b.program = {Action::block(), Action::run(Duration::us(100))};
    a.name = "A";
    a.initial_cpu = 0;
    a.affinity = CpuMask::of({0});
    a.program = {Action::run(Duration::ms(2))};
    c.name = "C";
    c.initial_cpu = 1;
    c.affinity = CpuMask::of({1});
    c.program = {Action::run(Duration::us(500)), Action::wake(TaskId(0))};
    w.add_task(b);
    w.add_task(a);
    w.add_task(c);
    Switches sw;
    SimSummary s = run(w, cpus(2), queue, "none", &sw);
    CHECK(s.complete);
    std::vector<int64_t> b_in;
    for (const auto& [at, t] : sw.in)
      if (t == TaskId(0)) b_in.push_back((at - Instant::zero()).count());
    REQUIRE(b_in.size() == 2);
    CHECK(b_in[0] == 0);
    CHECK(b_in[1] == Duration::ms(2).count());
  }
}

namespace {

// One CPU, zero costs, tick `tick`: the switch-ins of `w` under `queue` with `features`.
Switches run_one_cpu(const Workload& w, const std::string& queue, const FeatureSet& features, Duration tick) {
  auto choice = default_modules();
  choice["queue"] = queue;
  choice["balance"] = "none";
  choice["placement"] = "prev";
  CostModel cost = zero_costs();
  cost.tick = tick;
  Topology t = cpus(1);  // the simulation keeps a reference
  Simulation sim(w, t, builtin_registry().make(choice, features), cost, SimConfig{});
  Switches sw;
  sim.add_observer(&sw);
  sim.run();
  return sw;
}

// H, a hog with the base slice, runs from 0; S, asleep until 200 us, then runs 50 us.
Workload hog_and_waker(Duration s_slice) {
  Workload w;
  TaskSpec h, s;
  h.name = "H";
  h.initial_cpu = 0;
  h.program = {Action::run(Duration::ms(10))};
  s.name = "S";
  s.initial_cpu = 0;
  s.start = StartState::kSleeping;
  s.start_time = Instant::zero() + Duration::us(200);
  s.slice = s_slice;
  s.program = {Action::run(Duration::us(50))};
  w.add_task(h);
  w.add_task(s);
  return w;
}

}  // namespace

TEST_CASE("eevdf PREEMPT_SHORT: a shorter-slice wakee preempts a protected task, only with the flag",
          "[policies][queue]") {
  // One CPU (factor 1), tick 4 ms. H is picked at 0 with a half-slice first request: deadline
  // 375 us (eevdf) / 350 us (eevdf-6.17), protected by RUN_TO_PARITY until then. S wakes at
  // 200 us, placed at V = 200 us: with a 100 us custom slice its deadline (<= 300 us) is earlier
  // than H's and it is eligible. PREEMPT_SHORT (6.12 do_preempt_short(); 6.17 the unprotected
  // pick) lets it preempt at once; NO_PREEMPT_SHORT keeps H protected, and S runs only when the
  // 4 ms tick finds H's request used up. With the base slice S's deadline is after H's: no
  // preemption whatever the flag.
  struct Case {
    const char* queue;
    bool flag;
    Duration slice;
    int64_t s_in_us;
  };
  for (const Case& c : {Case{"eevdf", true, Duration::us(100), 200}, Case{"eevdf", false, Duration::us(100), 4000},
                        Case{"eevdf", true, Duration::zero(), 4000}, Case{"eevdf-6.17", true, Duration::us(100), 200},
                        Case{"eevdf-6.17", false, Duration::us(100), 4000},
                        Case{"eevdf-6.17", true, Duration::zero(), 4000}}) {
    INFO(c.queue << " PREEMPT_SHORT " << c.flag << " slice " << c.slice.count());
    FeatureSet f;
    f.set("PREEMPT_SHORT", c.flag);
    Switches sw = run_one_cpu(hog_and_waker(c.slice), c.queue, f, Duration::ms(4));
    REQUIRE(sw.in.size() >= 2);
    CHECK(sw.in[1].second == TaskId(1));
    CHECK(sw.in[1].first == Instant::zero() + Duration::us(c.s_in_us));
  }
}

TEST_CASE("eevdf: a forked task without a slice of its own inherits its parent's", "[policies][queue]") {
  // sched_fork() keeps the child's copy of the parent's se.custom_slice and se.slice (857b158dc5e8
  // dropped __sched_fork()'s reset; only SCHED_RESET_ON_FORK clears them). One CPU, tick 20 us.
  // P (custom 300 us) forks C at 0 and both run 2 ms. P's half-slice first request ends at
  // 150 us: switch to C (placed at V = 0) at the 160 us tick. C's first request is half its
  // slice: inherited, 150 us, renewed at the 320 us tick (then P, deadline tie, lower id);
  // with the base slice (750 us) it would run to the 540 us tick.
  Workload w;
  TaskSpec p, c;
  p.name = "P";
  p.initial_cpu = 0;
  p.slice = Duration::us(300);
  p.program = {Action::fork(TaskId(1)), Action::run(Duration::ms(2))};
  c.name = "C";
  c.start = StartState::kForked;
  c.program = {Action::run(Duration::ms(2))};
  w.add_task(p);
  w.add_task(c);
  Switches sw = run_one_cpu(w, "eevdf", FeatureSet{}, Duration::us(20));
  REQUIRE(sw.in.size() >= 3);
  CHECK(sw.in[1].second == TaskId(1));
  CHECK(sw.in[1].first == Instant::zero() + Duration::us(160));
  CHECK(sw.in[2].second == TaskId(0));
  CHECK(sw.in[2].first == Instant::zero() + Duration::us(320));
}

TEST_CASE("eevdf: a task's deadline uses its custom slice, clamped to 0.1..100 ms", "[policies][queue]") {
  // Two hogs on one CPU, tick 20 us. A is picked first with a half-slice first request; the
  // tick that finds it used up renews it and switches to B. Base slice 750 us: deadline 375 us,
  // switch at 380 us. Custom 300 us: 150 us -> 160 us. Custom 10 us is clamped to 100 us (as
  // __setscheduler_params() clamps sched_runtime): 50 us -> 60 us, not 5 us -> 20 us.
  for (const auto& [slice_us, switch_us] : {std::pair<int64_t, int64_t>{0, 380}, {300, 160}, {10, 60}}) {
    INFO("slice " << slice_us << " us");
    Workload w = two_hogs(Duration::ms(2));
    w.tasks[0].slice = Duration::us(slice_us);
    Switches sw = run_one_cpu(w, "eevdf", FeatureSet{}, Duration::us(20));
    REQUIRE(sw.in.size() >= 2);
    CHECK(sw.in[0].second == TaskId(0));
    CHECK(sw.in[1].first == Instant::zero() + Duration::us(switch_us));
  }
  // Above the range: 1 s is clamped to 100 ms, a 50 ms first request: with a 4 ms tick A keeps
  // the CPU until the tick at 52 ms (unclamped it would run its whole 200 ms). NO_PREEMPT_SHORT,
  // else B (the shorter base slice) would preempt A as soon as it is enqueued at 0.
  Workload w = two_hogs(Duration::ms(200));
  w.tasks[0].slice = Duration::s(1);
  FeatureSet no_short;
  no_short.set("PREEMPT_SHORT", false);
  Switches sw = run_one_cpu(w, "eevdf", no_short, Duration::ms(4));
  REQUIRE(sw.in.size() >= 2);
  CHECK(sw.in[1].first.ns() == Duration::ms(52).count());
}

namespace {

// A queue module on one CPU driven by hand (no engine): the calls the engine makes around a
// switch, a wakeup and an update, so a test can stop between them.
struct HandQueue {
  Topology topo = cpus(1);
  CostModel cost = zero_costs();
  SchedState s;
  PolicyStack stack;
  QueuePolicy* q = nullptr;
  HandQueue(const std::string& queue, bool preempt_short, size_t nr_tasks, FeatureSet f = {}) {
    auto choice = default_modules();
    choice["queue"] = queue;
    choice["balance"] = "none";
    choice["placement"] = "prev";
    f.set("PREEMPT_SHORT", preempt_short);
    stack = builtin_registry().make(choice, f);
    s.init(topo, cost, nr_tasks);
    q = stack.queue.get();
    q->attach(s);
  }
  void enqueue(uint32_t t, EnqueueKind k) { q->enqueue(s, CpuId(0), TaskId(t), k); }
  TaskId pick() { return q->pick_next(s, CpuId(0)); }
  void put_prev(uint32_t t) { q->put_prev(s, CpuId(0), TaskId(t)); }
  void run_us(int64_t us) { q->update_curr(s, CpuId(0), Duration::us(us)); }
  bool tick() { return q->check_preempt_tick(s, CpuId(0)); }
  bool wake_preempts(uint32_t t, WakeFlags f = {}) { return q->check_preempt_wakeup(s, CpuId(0), TaskId(t), f); }
  /// Task 0, new, is picked alone and runs 400 us: past its first (half-slice) deadline, which
  /// update_deadline() renews with nobody else queued (no reschedule).
  void first_renewal_alone() {
    enqueue(0, EnqueueKind::kNew);
    REQUIRE(pick() == TaskId(0));
    run_us(400);
    CHECK_FALSE(tick());
  }
};

}  // namespace

TEST_CASE("eevdf 6.12-6.16 did_preempt_short(): a deadline renewed alone leaves the marker stale",
          "[policies][queue]") {
  // One CPU (factor 1), equal slices. A is picked alone (marker = deadline, 375 us eevdf /
  // 350 us eevdf-6.15) and runs 400 us: update_deadline() renews its deadline (v + slice) with
  // nobody else queued, so no reschedule and no set_next_entity(): the marker keeps the old
  // deadline. A runs to v = 1 ms; B wakes at V = 1 ms with zero lag, its deadline after A's, so
  // the wakeup does not preempt. A runs 50 us more: V = 1.025 ms < v_A, A is no longer
  // eligible. With PREEMPT_SHORT, did_preempt_short() (marker != deadline, not eligible, two
  // queued) asks for a reschedule; NO_PREEMPT_SHORT does not (A keeps the CPU until its
  // deadline). Neither update reaches A's renewed deadline (1.15 ms / 1.1 ms).
  for (const char* queue : {"eevdf", "eevdf-6.15"}) {
    for (bool flag : {true, false}) {
      INFO(queue << " PREEMPT_SHORT " << flag);
      HandQueue h(queue, flag, 2);
      h.first_renewal_alone();
      h.run_us(600);
      CHECK_FALSE(h.tick());
      h.enqueue(1, EnqueueKind::kWakeup);
      CHECK_FALSE(h.wake_preempts(1));
      h.run_us(50);
      CHECK(h.tick() == flag);
    }
  }
}

TEST_CASE("eevdf: a re-pick of the task that was just running keeps its slice protection state",
          "[policies][queue]") {
  // One CPU. A is picked alone (protected up to its first deadline, 375 us / 350 us) and runs
  // 400 us: its deadline is renewed (1.15 ms / 1.1 ms) and the protection is over. A schedule()
  // then puts A back and picks it again: since 6.12 put_prev_set_next_task() returns early when
  // next == prev (436f3eed5c69), so set_next_entity() does not re-arm the RUN_TO_PARITY marker
  // (6.17: vprot). A runs 100 us more and new task B arrives at V = 500 us with a half-slice
  // deadline (875 us / 850 us), earlier than A's: A is not protected, so pick_eevdf() returns B
  // and B preempts. A re-armed marker would protect A until 1.15 ms. Equal slices, so
  // PREEMPT_SHORT plays no part (both settings give the same answer).
  for (const char* queue : {"eevdf", "eevdf-6.15", "eevdf-6.17"}) {
    for (bool flag : {true, false}) {
      INFO(queue << " PREEMPT_SHORT " << flag);
      HandQueue h(queue, flag, 2);
      h.first_renewal_alone();
      h.put_prev(0);
      REQUIRE(h.pick() == TaskId(0));
      h.run_us(100);
      h.enqueue(1, EnqueueKind::kNew);
      CHECK(h.wake_preempts(1));
    }
  }
}

TEST_CASE("eevdf-6.19: a fork wakeup never preempts, other wakeups are decided by the pick as in 6.17",
          "[policies][queue]") {
  // The re-pick case above: A (unprotected after its renewal alone and a re-pick) runs 100 us
  // more and new task B arrives with a half-slice deadline before A's, so pick_eevdf() returns B.
  // e837456fdca8 returns before the pick for WF_FORK; an arrival without it still preempts.
  for (bool fork : {true, false}) {
    INFO("WF_FORK " << fork);
    HandQueue h("eevdf-6.19", true, 2);
    h.first_renewal_alone();
    h.put_prev(0);
    REQUIRE(h.pick() == TaskId(0));
    h.run_us(100);
    h.enqueue(1, EnqueueKind::kNew);
    WakeFlags f;
    f.fork = fork;
    CHECK(h.wake_preempts(1, f) == !fork);
  }
}

TEST_CASE("eevdf-6.19 NEXT_BUDDY: a sync wakee becomes the buddy and is picked next, without preempting",
          "[policies][queue]") {
  // A (unprotected, as above) is at v = V = 500 us with its deadline at 1150 us. New task C is
  // queued with no wakeup check (deadline 875 us); then B wakes with zero lag and a full slice
  // (deadline 1250 us, after C's). With NEXT_BUDDY, B becomes the next buddy: a WF_SYNC wakeup
  // then preempts only if curr ran 0.5 ms (0.125 ms with WF_RQ_SELECTED) since its exec_start,
  // which the wakeup's own update_curr() has just set, so it does not preempt; the next pick
  // returns the eligible buddy B ahead of C's earlier deadline (PICK_BUDDY). Without WF_SYNC the
  // pick decides at once: the buddy, so B preempts. Without NEXT_BUDDY the pick is C: B neither
  // preempts nor runs next.
  struct Case {
    bool buddy, sync, preempts;
    uint32_t next;
  };
  for (const Case& c : {Case{true, true, false, 2}, Case{true, false, true, 2}, Case{false, true, false, 1}}) {
    INFO("NEXT_BUDDY " << c.buddy << " WF_SYNC " << c.sync);
    FeatureSet fs;
    fs.set("NEXT_BUDDY", c.buddy);
    HandQueue h("eevdf-6.19", true, 3, fs);
    h.first_renewal_alone();
    h.put_prev(0);
    REQUIRE(h.pick() == TaskId(0));
    h.run_us(100);
    h.enqueue(1, EnqueueKind::kNew);
    h.enqueue(2, EnqueueKind::kWakeup);
    WakeFlags f;
    f.sync = c.sync;
    f.rq_selected = true;
    f.in_task = true;
    CHECK(h.wake_preempts(2, f) == c.preempts);
    h.put_prev(0);
    CHECK(h.pick() == TaskId(c.next));
  }
}

TEST_CASE("eevdf-6.19 RESCHED_INELIGIBLE: a wakeup in task context reschedules an ineligible curr",
          "[policies][queue]") {
  // A and B arrive at V = 0 (half-slice deadlines, equal: A is picked by id); A runs 100 us, so
  // v_A = 100 us > V = 50 us: A is no longer eligible, though still protected by RUN_TO_PARITY.
  // C wakes with zero lag and a full slice: its deadline is after B's, so the pick (A
  // ineligible) is B, not C, and 6.17's rule does not preempt. With RESCHED_INELIGIBLE
  // (e837456fdca8 as merged) a check in task context reschedules A at once; from a wake list
  // (not in task context) it does not.
  struct Case {
    bool flag, in_task, preempts;
  };
  for (const Case& c : {Case{true, true, true}, Case{true, false, false}, Case{false, true, false}}) {
    INFO("RESCHED_INELIGIBLE " << c.flag << " in_task " << c.in_task);
    FeatureSet fs;
    fs.set("RESCHED_INELIGIBLE", c.flag);
    HandQueue h("eevdf-6.19", true, 3, fs);
    h.enqueue(0, EnqueueKind::kNew);
    h.enqueue(1, EnqueueKind::kNew);
    REQUIRE(h.pick() == TaskId(0));
    h.run_us(100);
    h.enqueue(2, EnqueueKind::kWakeup);
    WakeFlags f;
    f.in_task = c.in_task;
    CHECK(h.wake_preempts(2, f) == c.preempts);
  }
}

TEST_CASE("eevdf-6.19 NEXT_BUDDY in the engine: WF_SYNC reaches the wakeup check", "[policies][queue]") {
  // One CPU, 1 ms tick. W runs 300 us, wakes R (blocked since the start) and runs on. R is
  // placed at V with zero lag and is eligible; W is within its slice protection. A plain wakeup
  // with NEXT_BUDDY makes R the buddy and the pick returns it: R runs at 300 us. A WF_SYNC one
  // does not preempt (W's exec_start is now): R waits for the tick at 1 ms, as it does without
  // NEXT_BUDDY (W protected).
  struct Case {
    bool buddy;
    uint8_t flag;
    int64_t r_in_us;
  };
  for (const Case& c : {Case{true, 0, 300}, Case{true, kWakeSync, 1000}, Case{false, 0, 1000}}) {
    INFO("NEXT_BUDDY " << c.buddy << " WF_SYNC " << int(c.flag));
    Workload w;
    TaskSpec wt, rt;
    wt.name = "W";
    wt.initial_cpu = 0;
    wt.program = {Action::run(Duration::us(300)), Action::wake(TaskId(1), c.flag), Action::run(Duration::ms(2))};
    rt.name = "R";
    rt.initial_cpu = 0;
    rt.start = StartState::kBlocked;
    rt.program = {Action::run(Duration::us(50))};
    w.add_task(wt);
    w.add_task(rt);
    FeatureSet fs;
    fs.set("NEXT_BUDDY", c.buddy);
    Switches sw = run_one_cpu(w, "eevdf-6.19", fs, Duration::ms(1));
    auto r = std::find_if(sw.in.begin(), sw.in.end(), [](const auto& e) { return e.second == TaskId(1); });
    REQUIRE(r != sw.in.end());
    CHECK(r->first.ns() == Duration::us(c.r_in_us).count());
  }
}

TEST_CASE("eevdf-6.6: a forked child's first request is a full slice, eevdf's half of one",
          "[policies][queue]") {
  // One CPU (slice 0.75 ms), tick 50 us, the 6.6 flags. P runs 1 ms, wakes X (blocked since the
  // start: zero lag, a full request), runs 100 us more and forks C. X is placed at V = 1 ms with
  // d = 1.75 ms; P's marker is stale (its deadline was renewed while it ran alone), so it is not
  // protected. At the fork V = (1.1 + 1.0) / 2 = 1.05 ms and C gets v = 1.05 ms; P (v = 1.1 ms)
  // is no longer eligible. The wakeup check preempts only if the pick is the wakee.
  //   eevdf (6.12+, ENQUEUE_INITIAL at the first enqueue, c40dd90ac045): d_C = 1.05 + 0.375 =
  //     1.425 ms, the earliest eligible deadline: C preempts P at 1.1 ms.
  //   eevdf-6.6 (6.6-6.11: the half-slice fork placement is overwritten at the first enqueue):
  //     d_C = 1.05 + 0.75 = 1.8 ms; X's 1.75 ms is earlier, so the pick is X, not the wakee: P
  //     keeps the CPU to its deadline, 1.5 ms (0.75 + 0.75: its own first request was full too),
  //     then X runs (to 2 ms), then C.
  Workload w;
  auto add = [&w](const char* name, StartState start, std::vector<Action> program) {
    TaskSpec spec;
    spec.name = name;
    spec.start = start;
    if (start != StartState::kForked) spec.initial_cpu = 0;
    spec.program = std::move(program);
    w.add_task(spec);
  };
  add("P", StartState::kRunnable,
      {Action::run(Duration::ms(1)), Action::wake(TaskId(1)), Action::run(Duration::us(100)), Action::fork(TaskId(2)),
       Action::run(Duration::ms(1))});
  add("X", StartState::kBlocked, {Action::run(Duration::us(500))});
  add("C", StartState::kForked, {Action::run(Duration::us(500))});
  // The 6.6 flags for both (no PREEMPT_SHORT: its 6.12-6.16 reschedule of an ineligible curr
  // would preempt P at the 1.05 ms tick; no DELAY_DEQUEUE): only the fork rule differs.
  FeatureSet f;
  for (const char* flag : {"PREEMPT_SHORT", "DELAY_DEQUEUE", "DELAY_ZERO"}) f.set(flag, false);
  struct Case {
    const char* queue;
    std::vector<std::pair<int64_t, uint32_t>> switches;  // the first switch-ins after P's: us, task
  };
  for (const Case& k : {Case{"eevdf", {{1100, 2}}}, Case{"eevdf-6.6", {{1500, 1}, {2000, 2}}}}) {
    INFO(k.queue);
    Switches sw = run_one_cpu(w, k.queue, f, Duration::us(50));
    CHECK(sw.exits.size() == 3);
    REQUIRE(sw.in.size() > k.switches.size());
    for (size_t i = 0; i < k.switches.size(); ++i) {
      CHECK(sw.in[i + 1].first == Instant::zero() + Duration::us(k.switches[i].first));
      CHECK(sw.in[i + 1].second == TaskId(k.switches[i].second));
    }
  }
}

TEST_CASE("eevdf-6.6 reads the parent's queue at a fork (task_fork_fair's update_curr), eevdf does not",
          "[policies][queue]") {
  // Under UpdateCurr::kEvents the engine charges the parent's CPU at a fork only for a queue
  // that reads it there (engine.cpp do_fork()); 6.6-6.11 did, 6.12+ (c40dd90ac045) does not.
  auto choice = default_modules();
  choice["queue"] = "eevdf-6.6";
  CHECK(builtin_registry().make(choice, FeatureSet{}).queue->task_fork_reads_queue());
  choice["queue"] = "eevdf";
  CHECK_FALSE(builtin_registry().make(choice, FeatureSet{}).queue->task_fork_reads_queue());
  CHECK(kernel_profile("6.6").modules.at("queue") == "eevdf-6.6");
}
