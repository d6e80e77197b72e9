// The collector and the trace writer on real engine runs: their figures must agree with the
// engine's own totals, and the output must be deterministic.
#include <catch2/catch.hpp>

#include "fixture.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/metrics/ftrace_writer.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/workload/generators.hpp"

using namespace metrics_test;

namespace {

struct Run {
  SimSummary sum;
  RunResults res;
  std::string json, trace;
};

Run simulate(const Workload& w, const Topology& topo, const std::string& kernel, const SimConfig& sim_cfg = SimConfig{}) {
  PolicyStack st = builtin_registry().make(kernel_profile(kernel).modules, FeatureSet{});
  Simulation sim(w, topo, std::move(st), CostModel{}, sim_cfg);
  MetricsCollector m(w);
  FtraceWriter fw(w);
  sim.add_observer(&m);
  sim.add_observer(&fw);
  Run r;
  r.sum = sim.run();
  RunConfig cfg;
  cfg.label = "engine";
  r.res = m.results(cfg, &r.sum);
  r.json = render_json(r.res);
  r.trace = fw.text();
  return r;
}

}  // namespace

TEST_CASE("collector agrees with the engine's totals on a messaging run", "[metrics][engine]") {
  Workload w = generate_workload_from_spec("messaging --group 2 --nr_loops 30 --pipe");
  Topology topo = machine(8, 2, 2);  // 16 CPUs: SMT2, two LLCs
  Run a = simulate(w, topo, "6.12");
  const RunResults& r = a.res;
  CHECK(r.complete);
  CHECK(r.placement.wakeups == a.sum.wakeups);
  // The engine counts fork actions; the collector counts fork-path placements, which include
  // the parentless main task's start.
  CHECK(r.placement.forks == a.sum.forks + 1);
  // The engine counts every set_task_cpu() (sched_migrate_task); the collector counts a task
  // running on another CPU than the last, which needs at least one such move.
  CHECK(r.migrations_total <= a.sum.migrations);
  CHECK(r.migrations_total > 0);
  uint64_t per_task = 0;
  for (const auto& t : r.tasks_detail) per_task += t.migrations;
  CHECK(per_task == r.migrations_total);
  CHECK(r.tasks_exited == w.tasks.size());
  CHECK(r.end_ns == a.sum.end.ns());
  CHECK(r.work_done_ns == a.sum.work_done.count());
  // Every switch-in ends one run-queue wait (tasks placed by fork or wakeup are enqueued first).
  CHECK(r.runqueue_wait.count == r.context_switches);
  // Every wakeup that reached the CPU produced one latency sample.
  CHECK(r.wakeup_latency.count == r.placement.wakeups);
  // Busy time per CPU adds up to the tasks' run time; busy + idle = makespan on every CPU.
  int64_t runtime = 0;
  for (const auto& t : r.tasks_detail) runtime += t.runtime_ns;
  CHECK(r.busy_ns == runtime);
  for (const auto& c : r.cpus) {
    CHECK(c.busy_ns + c.idle_ns == r.makespan_ns);
    CHECK(c.wasted_ns <= c.idle_ns);
  }
  // Same inputs, same bytes.
  Run b = simulate(w, topo, "6.12");
  CHECK(a.json == b.json);
  CHECK(a.trace == b.trace);
  CHECK(parse_results_json(a.json, "x") .context_switches == r.context_switches);
}

TEST_CASE("the makespan starts with the first task activity, also a wakeup of a task that began asleep",
          "[metrics][engine]") {
  // Task 0 begins asleep and wakes at 1 ms, runs 2 ms; task 1 starts at 2 ms and runs 1 ms. The
  // first on_task_start is at 2 ms, but CPU time is used from 1 ms: the makespan is 1 ms .. 3 ms.
  Workload w;
  w.name = "asleep-first";
  TaskSpec a;
  a.name = "a";
  a.start = StartState::kSleeping;
  a.start_time = Instant::from_ns(1000000);
  a.program = {Action::run(Duration::ms(2))};
  w.add_task(std::move(a));
  TaskSpec b;
  b.name = "b";
  b.start = StartState::kRunnable;
  b.start_time = Instant::from_ns(2000000);
  b.program = {Action::run(Duration::ms(1))};
  w.add_task(std::move(b));
  Topology topo = machine(2);
  PolicyStack st = builtin_registry().make(default_modules(), FeatureSet{});
  CostModel zero;
  zero.context_switch = zero.ipi_same_package = zero.ipi_cross_package = zero.idle_exit = Duration::ns(0);
  Simulation sim(w, topo, std::move(st), zero, SimConfig{});
  MetricsCollector m(w);
  sim.add_observer(&m);
  SimSummary sum = sim.run();
  RunResults r = m.results(RunConfig{}, &sum);
  CHECK(r.complete);
  CHECK(r.start_ns == 1000000);
  CHECK(r.makespan_ns == 2000000);
  for (const auto& c : r.cpus) {
    CHECK(c.busy_ns <= r.makespan_ns);
    CHECK(c.busy_ns + c.idle_ns == r.makespan_ns);
    CHECK(c.utilization <= 1.0);
  }
}

// Background tasks (TaskSpec::background): load the engine simulates but the metrics leave out.
namespace {

// Two measured tasks ping-ponging on a 2-CPU machine, plus a CPU hog that is background: it
// runs far longer than the measured pair and ends blocked, waiting for a wake nobody posts.
Workload with_background_hog(bool hog_background) {
  Workload w;
  w.name = "bg";
  TaskSpec ping, pong, hog;
  ping.name = "ping";
  pong.name = "pong";
  hog.name = "hog";
  hog.background = hog_background;
  for (int i = 0; i < 20; ++i) {
    ping.program.push_back(Action::run(Duration::us(50)));
    ping.program.push_back(Action::wake(TaskId(1)));
    ping.program.push_back(Action::block());
    pong.program.push_back(Action::block());
    pong.program.push_back(Action::run(Duration::us(50)));
    pong.program.push_back(Action::wake(TaskId(0)));
  }
  ping.program.push_back(Action::exit());
  pong.program.push_back(Action::exit());
  // Busy for 50 ms with short timer sleeps (wakeups of its own), so still running when the
  // pair ends; then blocked, never woken.
  for (int i = 0; i < 25; ++i) {
    hog.program.push_back(Action::run(Duration::ms(2)));
    hog.program.push_back(Action::sleep(Duration::us(100)));
  }
  hog.program.push_back(Action::block());
  w.add_task(ping);
  w.add_task(pong);
  w.add_task(hog);
  return w;
}

}  // namespace

TEST_CASE("background tasks are simulated but left out of every metric and the makespan", "[metrics][engine]") {
  Topology topo = machine(2, 1, 1);
  Run bg = simulate(with_background_hog(true), topo, "6.12");
  // The run ends when the measured pair has exited: the hog, mid-run, is cut off without error.
  CHECK(bg.res.complete);
  CHECK(bg.sum.complete);
  CHECK(bg.sum.incomplete.empty());
  CHECK(bg.sum.unfinished.empty());
  CHECK(bg.sum.background_cut == 1);
  CHECK(bg.res.makespan_ns < 10'000'000);  // the hog's 50 ms are not in the makespan
  // The run stopped there: no CPU was busy longer than the makespan (the hog was cut off).
  for (const CpuRow& c : bg.res.cpus) CHECK(c.busy_ns <= bg.res.makespan_ns);
  CHECK(bg.res.tasks == 2);
  CHECK(bg.res.tasks_exited == 2);
  CHECK(bg.res.tasks_detail.size() == 2);
  for (const TaskRow& t : bg.res.tasks_detail) CHECK(t.name != "hog");
  // Every measured switch-in is one of the pair's; the work is theirs (40 x 50 us).
  CHECK(bg.res.work_done_ns == bg.res.work_expected_ns);
  CHECK(bg.res.work_expected_ns == 40 * 50'000);
  CHECK(bg.res.placement.wakeups + bg.res.tokens_banked == 40);  // the pair's 40 wakes, not the hog's
  uint64_t switches = 0;
  for (const TaskRow& t : bg.res.tasks_detail) switches += t.switches;
  CHECK(bg.res.context_switches == switches);  // the hog's switch-ins are not counted
  CHECK(bg.res.wakeup_latency.count == bg.res.placement.wakeups);
  // The hog was simulated: it competed for a CPU, so the pair's run-queue waits or their
  // placement differ from a run without it, and the machine was busier.
  Workload alone = with_background_hog(true);
  alone.tasks.pop_back();
  Run solo = simulate(alone, topo, "6.12");
  CHECK(solo.res.complete);
  CHECK(bg.res.busy_ns > solo.res.busy_ns);
  // Measured as an ordinary task, the same hog stays blocked forever: an incomplete run.
  Run fg = simulate(with_background_hog(false), topo, "6.12");
  CHECK_FALSE(fg.sum.complete);
  CHECK(fg.sum.tasks_stuck == 1);
  CHECK(fg.res.tasks_detail.size() == 3);
}

TEST_CASE("a measured task stuck beside background tasks is still reported", "[metrics][engine]") {
  Workload w = with_background_hog(true);
  w.tasks[1].program.pop_back();                      // pong: drop its exit ...
  w.tasks[1].program.push_back(Action::block());      // ... and block forever instead
  Topology topo = machine(2, 1, 1);
  Run r = simulate(w, topo, "6.12");
  CHECK_FALSE(r.sum.complete);
  CHECK(r.sum.tasks_stuck == 1);
  REQUIRE(r.sum.unfinished.size() == 1);
  CHECK(r.sum.unfinished[0].task == TaskId(1));
  CHECK(r.sum.background_cut == 1);  // the hog, blocked at the end, is not among the stuck
}

TEST_CASE("the simulated-time limit: a background task's plans past it are no error if the run ends first",
          "[metrics][engine]") {
  Topology topo = machine(2, 1, 1);
  auto run_with_limit = [&](const Workload& w) {
    SimConfig cfg;
    cfg.max_time = Instant::zero() + Duration::ms(10);
    Simulation sim(w, topo, builtin_registry().make(kernel_profile("6.12").modules, FeatureSet{}), CostModel{}, cfg);
    return sim.run();
  };
  // The hog plans one 30 ms run at the start, past the 10 ms limit; the measured pair ends in
  // a few ms, and the run with it.
  Workload w = with_background_hog(true);
  w.tasks[2].program = {Action::run(Duration::ms(30)), Action::block()};
  SimSummary s = run_with_limit(w);
  CHECK(s.complete);
  CHECK(s.background_cut == 1);
  CHECK(s.end < Instant::zero() + Duration::ms(10));
  // Measured, the same hog needs the 30 ms: an error at once, the limit given exactly.
  Workload fg = w;
  fg.tasks[2].background = false;
  CHECK_THROWS_WITH(run_with_limit(fg), Catch::Contains("('hog'): action 0 (run 30000000 ns)") &&
                                            Catch::Contains("past the simulated-time limit of 0.010000 s"));
  // A measured task still alive at the limit: the run does need the time past it, an error
  // naming the earliest event planned past it (pong's sleep ends at ~22 ms, the hog's run at 30).
  Workload late = w;
  late.tasks[1].program.insert(late.tasks[1].program.end() - 1, Action::sleep(Duration::ms(20)));
  CHECK_THROWS_WITH(run_with_limit(late), Catch::Contains("task 1 ('pong'): action") &&
                                              Catch::Contains("(sleep 20000000 ns)") &&
                                              Catch::Contains("past the simulated-time limit of 0.010000 s"));
}

TEST_CASE("per-CPU time stays within the makespan when background tasks run outside it", "[metrics][engine]") {
  Topology topo = machine(2, 1, 1);
  auto within = [](const Run& r) {
    REQUIRE(r.res.makespan_ns > 0);
    for (const CpuRow& c : r.res.cpus) {
      CHECK(c.busy_ns <= r.res.makespan_ns);
      CHECK(c.wasted_ns <= r.res.makespan_ns);
      CHECK(c.utilization <= 1.0);
    }
    CHECK(r.res.busy_ns <= r.res.makespan_ns * static_cast<int64_t>(r.res.cpus.size()));
  };
  SECTION("a measured task stuck while the background hog runs on for 50 ms") {
    Workload w = with_background_hog(true);
    w.tasks[1].program.pop_back();
    w.tasks[1].program.push_back(Action::block());
    Run r = simulate(w, topo, "6.12");
    CHECK(r.res.makespan_ns < 10'000'000);
    within(r);  // was 51 ms busy on one CPU in a 4 ms makespan (1256%)
  }
  SECTION("the background hog runs alone for 5 ms before the measured tasks start") {
    Workload w = with_background_hog(true);
    for (size_t i = 0; i < 2; ++i) w.tasks[i].start_time = Instant::zero() + Duration::ms(5);
    Run r = simulate(w, topo, "6.12");
    CHECK(r.res.complete);
    within(r);
  }
}

TEST_CASE("a run stopped by stop_at ends at the stop time, with or without background tasks", "[metrics][engine]") {
  Topology topo = machine(2, 1, 1);
  SimConfig cfg;
  cfg.stop_at = Instant::zero() + Duration::us(1525);  // mid-run of one of the pair's 50 us runs
  for (bool with_hog : {false, true}) {
    Workload w = with_background_hog(true);
    if (!with_hog) w.tasks.pop_back();
    Run r = simulate(w, topo, "6.12", cfg);
    CHECK(r.sum.stop == StopReason::kStopAt);
    CHECK_FALSE(r.res.complete);
    // The span is [first measured event, stop_at]: not the last switch before the stop (which
    // with the hog was a measured task's, without it any task's).
    CHECK(r.sum.end == cfg.stop_at);
    CHECK(r.res.end_ns == 1'525'000);
    CHECK(r.res.makespan_ns == 1'525'000 - r.res.start_ns);
    // The task running at the stop has its CPU time and work counted up to the stop, so the
    // pair's runtime and the work done agree (no cost model charge here is work).
    int64_t runtime = 0;
    for (const TaskRow& t : r.res.tasks_detail) runtime += t.runtime_ns;
    CHECK(r.res.work_done_ns <= runtime);
    CHECK(runtime - r.res.work_done_ns < 50'000);
    for (const CpuRow& c : r.res.cpus) CHECK(c.busy_ns <= r.res.makespan_ns);
    CHECK(r.sum.incomplete.size() == 1);  // the pair was still at work at the stop
  }
  // pong stuck at ~4 ms while the hog runs on: stopped at 30 ms, the span ends at the measured
  // tasks' last event as in the run without the stop (not at the stop: the 26 ms after it hold
  // no measured work), and the reasons say that only the hog's events were left.
  Workload w = with_background_hog(true);
  w.tasks[1].program.pop_back();
  w.tasks[1].program.push_back(Action::block());
  cfg.stop_at = Instant::zero() + Duration::ms(30);
  Run r = simulate(w, topo, "6.12", cfg);
  SimConfig no_stop = cfg;
  no_stop.stop_at = Instant::max();
  Run unstopped = simulate(w, topo, "6.12", no_stop);
  CHECK(r.res.end_ns < 30'000'000);
  CHECK(r.res.end_ns == unstopped.res.end_ns);
  CHECK(r.res.makespan_ns == unstopped.res.makespan_ns);
  REQUIRE(r.sum.incomplete.size() == 2);
  CHECK_THAT(r.sum.incomplete[1], Catch::StartsWith("at the stop no measured task could run (1 blocked"));
}

TEST_CASE("the trace ends where the run's span ends when background tasks run on", "[metrics][engine]") {
  // pong is stuck; the hog (background) runs on for ~50 ms after the pair's last switch.
  Workload w = with_background_hog(true);
  w.tasks[1].program.pop_back();
  w.tasks[1].program.push_back(Action::block());
  Topology topo = machine(2, 1, 1);
  auto last_time = [](const std::string& trace) {
    // "... [000] d..2.     0.004069000: sched_switch: ..." -> the timestamp of the last line.
    size_t eol = trace.rfind('\n', trace.size() - 2);
    std::string line = trace.substr(eol + 1);
    size_t colon = line.find(": sched_");
    size_t sp = line.rfind(' ', colon);
    double secs = std::stod(line.substr(sp + 1, colon - sp - 1));
    return static_cast<int64_t>(std::llround(secs * 1e9));
  };
  auto entries = [](const std::string& trace) {
    size_t at = trace.find("entries-written: ");
    return std::stoull(trace.substr(at + 17));
  };
  auto lines = [](const std::string& trace) {
    uint64_t n = 0;
    for (size_t at = 0; (at = trace.find('\n', at)) != std::string::npos; ++at)
      if (at + 1 < trace.size() && trace[at + 1] != '#') ++n;
    return n;
  };
  Run r = simulate(w, topo, "6.12");
  REQUIRE_FALSE(r.sum.complete);
  REQUIRE(r.res.makespan_ns < 10'000'000);
  CHECK(last_time(r.trace) <= r.res.end_ns);  // was the hog's last switch, ~52 ms
  CHECK(entries(r.trace) == lines(r.trace));

  // Streamed in small pieces: the lines past the end reached the sink, the kept prefix is exact.
  PolicyStack st = builtin_registry().make(kernel_profile("6.12").modules, FeatureSet{});
  Simulation sim(w, topo, std::move(st), CostModel{}, SimConfig{});
  FtraceWriter fw(w);
  std::string streamed;
  fw.stream_body([&](std::string_view chunk) { streamed += chunk; });
  sim.add_observer(&fw);
  SimSummary sum = sim.run();
  fw.flush_body();
  CHECK(sum.end.ns() == r.res.end_ns);
  CHECK(fw.lines_cut() > 0);
  REQUIRE(fw.body_bytes() < streamed.size());
  CHECK(fw.header() + streamed.substr(0, fw.body_bytes()) == r.trace);

  // A complete run with the hog cut off, or a run without background tasks, loses nothing.
  Run done = simulate(with_background_hog(true), topo, "6.12");
  CHECK(entries(done.trace) == lines(done.trace));
  CHECK(last_time(done.trace) == done.res.end_ns);
}
