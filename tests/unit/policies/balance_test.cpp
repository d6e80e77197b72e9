// The balance module's later-kernel rules (balance/features.def) on a hand-built state: the 6.14
// runnable accounting (LB_RUNNABLE), the 6.17 newidle cost bump (NI_BUMP) and the 6.18.y
// proportional newidle balance (NI_RANDOM). Each test fails when its rule is removed or changed.
#include <catch2/catch.hpp>

#include <set>

#include "policy_fixture.hpp"
#include "schedsim/policies/registry.hpp"

using namespace schedsim;
using schedsim::test::Machine;

namespace {

/// A queue whose queued tasks the test lists per CPU; counts the balancer's walks (one per pass
/// that found a busiest CPU).
class FakeQueue final : public QueuePolicy {
 public:
  std::vector<std::vector<TaskId>> queued;
  std::set<uint32_t> delayed;
  mutable int walks = 0;
  explicit FakeQueue(size_t cpus) : queued(cpus) {}
  void enqueue(SchedState&, CpuId, TaskId, EnqueueKind) override {}
  void dequeue(SchedState&, CpuId, TaskId, DequeueKind) override {}
  TaskId pick_next(SchedState&, CpuId) override { return TaskId(); }
  void put_prev(const SchedState&, CpuId, TaskId) override {}
  void update_curr(const SchedState&, CpuId, Duration) override {}
  bool check_preempt_wakeup(const SchedState&, CpuId, TaskId, const WakeFlags&) override { return false; }
  bool check_preempt_tick(const SchedState&, CpuId) override { return false; }
  void for_each_queued(const SchedState&, CpuId cpu, const std::function<bool(TaskId)>& fn) const override {
    ++walks;
    for (TaskId p : queued[cpu.value()])
      if (!fn(p)) return;
  }
  bool is_delayed(TaskId p) const override { return delayed.count(p.value()) > 0; }
};

/// Records the pulls; `keep` leaves the source unchanged (every pass finds the same work).
struct FakeOps final : BalanceOps {
  std::vector<std::pair<uint32_t, uint32_t>> moved;  // task, dst
  Machine* m = nullptr;                              // the state placement_writes() writes
  bool migrate_queued(TaskId p, CpuId dst) override {
    moved.emplace_back(p.value(), dst.value());
    return true;
  }
  PlacementWrites placement_writes() override { return PlacementWrites(m->s, &m->util, &m->hint); }
};

std::unique_ptr<BalancePolicy> balance(std::initializer_list<std::pair<const char*, bool>> flags) {
  auto choice = default_modules();
  choice["balance"] = "kernel-6.14";
  FeatureSet f;
  for (const auto& [n, on] : flags) f.set(n, on);
  return builtin_registry().make(choice, f).balance;
}

/// Two CPUs of one LLC: CPU1 runs task 7 with tasks 1 and 2 queued; CPU0 is going idle.
struct TwoCpus {
  Machine m{1, 2, 1, 8};
  FakeQueue q{2};
  FakeOps ops;
  CpuMask only1 = CpuMask::of({1});
  TwoCpus() {
    ops.m = &m;
    m.s.queue = &q;
    m.busy(1);
    m.s.cpus[1].nr_running = 3;
    q.queued[1] = {TaskId(1), TaskId(2)};
    m.s.cpus[0].avg_idle = Duration::ms(10);
  }
  /// Pin the queued tasks to CPU1: every pass fails.
  void pin() {
    for (uint32_t t : {1u, 2u}) m.s.tasks[t].affinity = &only1;
  }
  void unpin() {
    for (uint32_t t : {1u, 2u}) m.s.tasks[t].affinity = &m.all;
  }
};

}  // namespace

TEST_CASE("LB_RUNNABLE: a delayed-dequeue task neither makes its CPU busy nor is pulled", "[policies][balance]") {
  for (bool rule : {false, true}) {
    INFO("LB_RUNNABLE " << rule);
    TwoCpus t;
    // CPU1: task 7 running, task 1 asleep in a delayed dequeue, nothing else.
    t.m.s.cpus[1].nr_running = 2;
    t.m.s.cpus[1].nr_delayed = 1;
    t.q.queued[1] = {TaskId(1)};
    t.q.delayed = {1};
    auto b = balance({{"LB_RUNNABLE", rule}});
    b->attach(t.m.s);
    // 6.12: nr_running 2 = overloaded, the delayed task is a candidate; 6.14: one runnable task.
    CHECK(b->newidle(t.m.s, t.ops, CpuId(0)) == !rule);
    // With a runnable task queued behind the delayed one, 6.14 pulls that one, never the delayed.
    t.m.s.cpus[1].nr_running = 3;
    t.q.queued[1] = {TaskId(1), TaskId(2)};
    t.ops.moved.clear();
    CHECK(b->newidle(t.m.s, t.ops, CpuId(0)));
    REQUIRE(t.ops.moved.size() == 1);
    CHECK(t.ops.moved[0].first == (rule ? 2u : 1u));
  }
}

TEST_CASE("NI_BUMP: failed newidle passes inflate the cost 1.5x until avg_idle stops them, capped", "[policies][balance]") {
  // The first pass succeeds and records the measured cost (2 CPUs x 40 ns = 80 ns). Then 20
  // failures: with NI_BUMP the cost becomes 80 x 1.5^k, above a 2 us avg_idle after 8 failures,
  // so the next newidle does not even try and a now-movable task stays put. Without: 80 ns
  // forever, the pull happens. With avg_idle 1 ms the cap (0.5 ms + 200 ns) keeps passes going.
  for (bool bump : {false, true})
    for (int64_t avg_idle_us : {2, 1000}) {
      INFO("NI_BUMP " << bump << " avg_idle " << avg_idle_us << " us");
      TwoCpus t;
      auto b = balance({{"NI_BUMP", bump}});
      b->attach(t.m.s);
      t.m.s.cpus[0].avg_idle = Duration::us(avg_idle_us);
      REQUIRE(b->newidle(t.m.s, t.ops, CpuId(0)));
      t.pin();
      for (int i = 0; i < 20; ++i) CHECK_FALSE(b->newidle(t.m.s, t.ops, CpuId(0)));
      t.unpin();
      int walks = t.q.walks;
      bool pulled = b->newidle(t.m.s, t.ops, CpuId(0));
      bool stopped = bump && avg_idle_us == 2;
      CHECK(pulled == !stopped);
      CHECK(t.q.walks == walks + (stopped ? 0 : 1));
    }
}

TEST_CASE("NI_BUMP: the cost stays 0 until a pass succeeds (1.5 x 0)", "[policies][balance]") {
  TwoCpus t;
  t.pin();
  auto b = balance({{"NI_BUMP", true}});
  b->attach(t.m.s);
  t.m.s.cpus[0].avg_idle = Duration::ns(1);
  for (int i = 0; i < 10; ++i) CHECK_FALSE(b->newidle(t.m.s, t.ops, CpuId(0)));
  CHECK(t.q.walks == 10);
}

TEST_CASE("NI_RANDOM: newidle passes run in proportion to their success rate, reproducibly", "[policies][balance]") {
  auto passes = [](bool ni_random, bool succeed, uint64_t seed) {
    TwoCpus t;
    t.m.s.seed = seed;
    if (!succeed) t.pin();
    auto b = balance({{"NI_RANDOM", ni_random}});
    b->attach(t.m.s);
    for (int i = 0; i < 4096; ++i) b->newidle(t.m.s, t.ops, CpuId(0));
    return t.q.walks;
  };
  // Without the rule every newidle runs its pass.
  CHECK(passes(false, false, 1) == 4096);
  // Always failing: the ratio falls from 512/1024 to ~0, so passes become rare (1 + ratio in
  // 1024: roughly one in 500 once the ratio is 1); an upper bound well below half of the calls.
  int failing = passes(true, false, 1);
  CHECK(failing > 0);
  CHECK(failing < 4096 / 4);
  // Always succeeding: a success counts round(1024/(1 + ratio)), which keeps the ratio rising
  // while it is below ~680 (weight 2 or more); above, the weight rounds to 1 and the ratio creeps
  // up by about half a unit per 512 calls, so about three passes in four run (not every one).
  int succeeding = passes(true, true, 1);
  CHECK(succeeding > 4096 * 6 / 10);
  CHECK(succeeding < 4096 * 85 / 100);
  // The same seed gives the same draws.
  CHECK(passes(true, false, 7) == passes(true, false, 7));
}

namespace {

/// Records the LLC passes that reach the placement module (where SIS_UTIL is refreshed).
struct RefreshLog final : PlacementPolicy {
  std::vector<uint32_t> cpus;
  PlacementResult select_task_rq(const SchedState&, PlacementWrites&, const WakeContext&) override { return {}; }
  void on_periodic_balance(const SchedState&, PlacementWrites&, CpuId cpu, int) override { cpus.push_back(cpu.value()); }
};

/// One 8-CPU LLC with CPUs 0 and 1 busy (one task each), the others idle, 4 ms into the run.
struct EightCpus {
  Machine m{1, 8, 1, 8};
  FakeQueue q{8};
  FakeOps ops;
  RefreshLog log;
  EightCpus() {
    ops.m = &m;
    m.s.queue = &q;
    m.busy(0, 6);
    m.busy(1, 7);
    m.s.now = Instant::zero() + Duration::ms(4);
  }
};

}  // namespace

TEST_CASE("ILB_SIS_UTIL: a busy tick kicks the idle CPUs' LLC pass, which refreshes SIS_UTIL", "[policies][balance]") {
  for (bool rule : {false, true}) {
    INFO("ILB_SIS_UTIL " << rule);
    EightCpus t;
    auto b = balance({{"ILB_SIS_UTIL", rule}});
    b->attach(t.m.s);
    // The busy CPU's own LLC pass is not due (8 ms x busy_factor 16); two CPUs of the LLC are
    // busy, so nohz_balancer_kick() kicks and every idle CPU (never balanced) runs its pass.
    b->periodic(t.m.s, t.ops, t.log, CpuId(0));
    if (!rule) {
      CHECK(t.log.cpus.empty());
      continue;
    }
    CHECK(t.log.cpus == std::vector<uint32_t>{2, 3, 4, 5, 6, 7});
    // The next tick: nohz.next_balance is the idle CPUs' next pass (8 ms on), no kick.
    t.log.cpus.clear();
    t.m.s.now = t.m.s.now + Duration::ms(4);
    b->periodic(t.m.s, t.ops, t.log, CpuId(1));
    CHECK(t.log.cpus.empty());
    // 8 ms after their pass the idle CPUs are due again; CPU 5 has become busy meanwhile.
    t.m.busy(5, 5);
    t.m.s.now = t.m.s.now + Duration::ms(4);
    b->periodic(t.m.s, t.ops, t.log, CpuId(1));
    CHECK(t.log.cpus == std::vector<uint32_t>{2, 3, 4, 6, 7});
  }
}

TEST_CASE("ILB_SIS_UTIL: no kick while a single CPU of the LLC is busy with one task", "[policies][balance]") {
  EightCpus t;
  t.m.idle(1);
  auto b = balance({{"ILB_SIS_UTIL", true}});
  b->attach(t.m.s);
  b->periodic(t.m.s, t.ops, t.log, CpuId(0));
  CHECK(t.log.cpus.empty());
  // Two runnable tasks on the ticking CPU also kick (rq->nr_running >= 2).
  t.m.s.cpus[0].nr_running = 2;
  b->periodic(t.m.s, t.ops, t.log, CpuId(0));
  CHECK(t.log.cpus == std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7});
}
