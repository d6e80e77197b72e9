// The channel model (engine/src/channel.hpp) through the engine: hand-written workloads whose
// answers follow from the pipe and socket rules (docs/model.md "The pipe channel model").
#include <catch2/catch.hpp>

#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "zero_costs.hpp"

using namespace schedsim;

namespace {

struct Exits : Observer {
  std::vector<std::pair<TaskId, Instant>> at;
  void on_exit(Instant t, TaskId id, CpuId) override { at.emplace_back(id, t); }
  Instant of(uint32_t id) const {
    for (const auto& [t, i] : at)
      if (t.value() == id) return i;
    return Instant::from_ns(-1);
  }
};

SimSummary simulate(const Workload& w, Exits* exits = nullptr) {
  RegularMachine m;
  m.name = "test";
  m.packages = 1;
  m.cores_per_package = 2;
  m.threads = 1;
  Topology topo = Topology::build(make_regular_machine(m));
  PolicyStack pol = builtin_registry().make({{"placement", "first-idle"}, {"idle-cores", "kernel"}, {"util", "pelt"},
                                             {"queue", "cfs"}, {"balance", "kernel"}},
                                            FeatureSet{});
  Simulation sim(w, topo, std::move(pol), testing::zero_costs(), SimConfig{});
  if (exits) sim.add_observer(exits);
  return sim.run();
}

TaskSpec on_cpu(std::string name, int32_t cpu, std::vector<Action> prog) {
  TaskSpec t;
  t.name = std::move(name);
  t.program = std::move(prog);
  t.initial_cpu = cpu;
  return t;
}

std::vector<Action> times(size_t n, const Action& a) { return std::vector<Action>(n, a); }

}  // namespace

TEST_CASE("pipe: a write wakes the reader only when the pipe was empty", "[engine][channel]") {
  // The reader sleeps in its first read at 0; the writer's first write at 10us wakes it, the
  // next two find the pipe non-empty (or the reader not asleep) and wake nobody; the reader
  // then reads the other two messages without sleeping.
  Workload w;
  std::vector<Action> wp = {Action::run(Duration::us(10))};
  for (int i = 0; i < 3; ++i) wp.push_back(Action::write(0, 100));
  w.add_task(on_cpu("writer", 0, wp));
  w.add_task(on_cpu("reader", 1, {Action::read(0, 100), Action::run(Duration::us(100)), Action::read(0, 100),
                                  Action::read(0, 100)}));
  SimSummary s = simulate(w);
  CHECK(s.complete);
  CHECK(s.wakeups == 1);
  CHECK(s.channel_wakes == 1);
  CHECK(s.channel_sleeps == 1);
  CHECK(s.channel_writes == 3);
  CHECK(s.channel_reads == 3);
  CHECK(s.end == Instant::zero() + Duration::us(110));
}

TEST_CASE("pipe: a reader takes up to its read size", "[engine][channel]") {
  // Two 100-byte messages are read by one 4096-byte read: the second read finds the pipe empty
  // and sleeps until the writer's third message at 50us.
  Workload w;
  w.add_task(on_cpu("writer", 0, {Action::write(0, 100), Action::write(0, 100), Action::run(Duration::us(50)),
                                  Action::write(0, 100)}));
  w.add_task(on_cpu("reader", 1, {Action::run(Duration::us(20)), Action::read(0, 4096), Action::read(0, 4096)}));
  SimSummary s = simulate(w);
  CHECK(s.complete);
  CHECK(s.channel_reads == 2);
  CHECK(s.channel_sleeps == 1);
  CHECK(s.wakeups == 1);
  CHECK(s.end == Instant::zero() + Duration::us(50));
}

TEST_CASE("pipe: 16 pages of 100-byte messages hold 640, the 641st write blocks", "[engine][channel]") {
  Exits ex;
  SECTION("640 fit") {
    Workload w;
    w.add_task(on_cpu("writer", 0, times(640, Action::write(0, 100))));
    std::vector<Action> rp = {Action::run(Duration::ms(1))};
    auto reads = times(640, Action::read(0, 100));
    rp.insert(rp.end(), reads.begin(), reads.end());
    w.add_task(on_cpu("reader", 1, rp));
    SimSummary s = simulate(w, &ex);
    CHECK(s.complete);
    CHECK(s.channel_sleeps == 0);
    CHECK(ex.of(0) == Instant::zero());
  }
  SECTION("the 641st waits until the reader frees a page (40 messages)") {
    Workload w;
    w.add_task(on_cpu("writer", 0, times(641, Action::write(0, 100))));
    std::vector<Action> rp = {Action::run(Duration::ms(1))};
    for (int i = 0; i < 641; ++i) {
      rp.push_back(Action::read(0, 100));
      rp.push_back(Action::run(Duration::us(1)));
    }
    w.add_task(on_cpu("reader", 1, rp));
    SimSummary s = simulate(w, &ex);
    CHECK(s.complete);
    CHECK(s.channel_sleeps == 1);  // the writer; the reader never finds the pipe empty
    CHECK(s.channel_wakes == 1);
    // The 40th read frees the first page at 1ms + 39us (reads are instant, 1us runs between).
    CHECK(ex.of(0) == Instant::zero() + Duration::ms(1) + Duration::us(39));
  }
}

TEST_CASE("socket: the send buffer blocks a writer and a quarter-empty buffer wakes it", "[engine][channel]") {
  // 212992-byte send buffer, 100 + 668 bytes charged per write: 278 writes are queued (the
  // 278th starts below the limit), the 279th sleeps until reads bring the charge to a quarter
  // (at most 53248 bytes: 69 writes left, so after 209 reads).
  Exits ex;
  Workload w;
  w.add_task(on_cpu("writer", 0, times(279, Action::write(0, 100, kChanSocket))));
  std::vector<Action> rp = {Action::run(Duration::ms(1))};
  for (int i = 0; i < 279; ++i) {
    rp.push_back(Action::read(0, 100, kChanSocket));
    rp.push_back(Action::run(Duration::us(1)));
  }
  w.add_task(on_cpu("reader", 1, rp));
  SimSummary s = simulate(w, &ex);
  CHECK(s.complete);
  CHECK(s.channel_sleeps == 1);
  CHECK(ex.of(0) == Instant::zero() + Duration::ms(1) + Duration::us(208));
}

TEST_CASE("a plain wake does not release a task asleep in a channel", "[engine][channel]") {
  // task 0 wakes the reader while it sleeps in read(): the wake becomes a token, which the
  // reader's block() consumes after the message arrives at 30us.
  Workload w;
  w.add_task(on_cpu("waker", 0, {Action::run(Duration::us(10)), Action::wake(TaskId(1)), Action::run(Duration::us(20)),
                                 Action::write(0, 100)}));
  w.add_task(on_cpu("reader", 1, {Action::read(0, 100), Action::block(), Action::run(Duration::us(5))}));
  SimSummary s = simulate(w);
  CHECK(s.complete);
  CHECK(s.tokens_banked == 1);
  CHECK(s.tokens_left == 0);
  CHECK(s.end == Instant::zero() + Duration::us(35));
}

TEST_CASE("a reader left asleep in an empty channel makes the run incomplete", "[engine][channel]") {
  Workload w;
  // The writer reads its own message back at 0; the reader's read at 10us never gets one.
  w.add_task(on_cpu("reader", 0, {Action::run(Duration::us(10)), Action::read(3, 100)}));
  w.add_task(on_cpu("writer", 1, {Action::write(3, 100), Action::read(3, 100)}));
  SimSummary s = simulate(w);
  CHECK_FALSE(s.complete);
  size_t hits = 0;
  for (const auto& line : s.incomplete) hits += line.find("blocked at action 1 (read 100 bytes, channel 3)") != std::string::npos;
  INFO(s.incomplete.back());
  CHECK(hits == 1);
}
