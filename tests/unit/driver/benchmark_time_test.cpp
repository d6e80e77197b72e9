// The benchmark-time metric: a generated messaging run reports the time hackbench / perf bench
// would print (start barrier's release to the last join), shorter than the makespan by the
// fork and start-up phase; pipe reports perf bench sched pipe's Total time and usecs/op; workloads
// without a timer report none (and no record metric); JSON keeps it.
#include <catch2/catch.hpp>

#include <filesystem>

#include <fmt/format.h>

#include "gen_request.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/metrics/results.hpp"
#include "schedsim/workload/generators.hpp"
#include "schedsim/workload/workload.hpp"

using namespace schedsim;

namespace {
driver::RunOutcome run_gen(const std::string& gen) { return driver::execute_run(cli_test::gen_request(gen)); }

/// Runs a workload built in the test, through a native workload file as `run FILE` reads it.
driver::RunOutcome run_workload(const Workload& w, const std::string& name) {
  const std::string path = (std::filesystem::temp_directory_path() / name).string();
  write_workload(w, path, WorkloadFormat::kJson);
  driver::RunRequest req = cli_test::gen_request("");
  req.workload_gen.clear();
  req.input = path;
  driver::RunOutcome out = driver::execute_run(req);
  std::filesystem::remove(path);
  return out;
}
}  // namespace

TEST_CASE("messaging reports its benchmark time beside the makespan", "[cli][benchmark-time]") {
  driver::RunOutcome a = run_gen("messaging -g 1 -l 10");
  REQUIRE(a.results.complete);
  const int64_t bt = a.results.benchmark_time_ns;
  CHECK(bt > 0);
  // Forking 40 children at 12-30 us each precedes the barrier: the benchmark time is shorter
  // by at least that.
  CHECK(bt < a.results.makespan_ns - 40 * 12000);
  // More loops lengthen the timed part; the fork phase does not change.
  driver::RunOutcome b = run_gen("messaging -g 1 -l 20");
  CHECK(b.results.benchmark_time_ns > bt);
  CHECK(b.results.makespan_ns - b.results.benchmark_time_ns ==
        Catch::Detail::Approx(a.results.makespan_ns - bt).epsilon(0.2));
  RunResults back = parse_results_json(a.rendered, "a.json");
  CHECK(back.benchmark_time_ns == bt);
}

TEST_CASE("workloads without a benchmark timer report none", "[cli][benchmark-time]") {
  driver::RunOutcome a = run_gen("messaging -g 1 -l 10 --no-main");
  CHECK(a.results.benchmark_time_ns == -1);
  CHECK(a.rendered.find("benchmark_time_ns") == std::string::npos);
  // No record metric either: a stored 0 would compare as an infinitely fast benchmark.
  REQUIRE(a.records.size() == 1);
  CHECK(a.records[0].metrics.count("benchmark_time") == 0);
  CHECK(a.records[0].metrics.count("makespan") == 1);
  // schbench and periodic (rt-app) report latencies, lat_proc a per-iteration time of its own
  // harness: no timer (docs/generators.md "Benchmark time").
  for (const char* gen : {"schbench -m 1 -t 2 --requests 3", "periodic -n 2 --count 3", "fork -n 3"}) {
    CAPTURE(gen);
    driver::RunOutcome p = run_gen(gen);
    CHECK(p.results.benchmark_time_ns == -1);
    RunResults back = parse_results_json(p.rendered, "p.json");
    CHECK(back.benchmark_time_ns == -1);
    CHECK(back.benchmark_ops == -1);
  }
}

TEST_CASE("pipe reports perf bench sched pipe's Total time and usecs/op", "[cli][benchmark-time]") {
  // perf's interval runs from before the workers' creation to the last join; the generator has
  // the workers from the start and pipe-1 (worker 1, perf's parent) exits last, after pipe-0's
  // final write: on its own the modelled interval is the whole run.
  for (const char* gen : {"pipe -l 100", "pipe -l 100 -T"}) {
    CAPTURE(gen);
    driver::RunOutcome p = run_gen(gen);
    REQUIRE(p.results.complete);
    CHECK(p.results.benchmark_time_ns > 0);
    CHECK(p.results.benchmark_time_ns == p.results.makespan_ns);
    CHECK(p.results.benchmark_ops == 100);
    REQUIRE(p.records.size() == 1);
    CHECK(p.records[0].metrics.at("benchmark_time") == static_cast<double>(p.results.benchmark_time_ns));
    RunResults back = parse_results_json(p.rendered, "p.json");
    CHECK(back.benchmark_time_ns == p.results.benchmark_time_ns);
    CHECK(back.benchmark_ops == 100);
    // The table prints it as perf does, per loop.
    std::string table = render_table(p.results, 10, 10);
    CHECK(table.find(fmt::format("{:.6f} usecs/op over 100 ops",
                                 static_cast<double>(p.results.benchmark_time_ns) / 1e3 / 100)) != std::string::npos);
  }
}

TEST_CASE("the pipe timer runs from pipe-1's start to its exit, not over the whole run", "[cli][benchmark-time]") {
  // pipe's two tasks start 1 ms late, after a task that runs 100 us from time 0: the makespan
  // covers that task, the benchmark time only the timed program, so they differ by the 1 ms.
  Workload w = generate_workload("pipe", {"-l", "50"});
  for (auto& t : w.tasks) t.start_time = Instant::from_ns(1'000'000);
  TaskSpec early;
  early.name = "early";
  early.pid = early.tgid = 2000;
  early.program = {Action::run(Duration::us(100)), Action::exit()};
  w.add_task(std::move(early));
  driver::RunOutcome out = run_workload(w, "schedsim-bench-timer-pipe.json");
  REQUIRE(out.results.complete);
  CHECK(out.results.benchmark_time_ns > 0);
  CHECK(out.results.makespan_ns - out.results.benchmark_time_ns == 1'000'000);
  // The same pipe run on its own takes as long from its start.
  driver::RunOutcome alone = run_gen("pipe -l 50");
  CHECK(alone.results.benchmark_time_ns == out.results.benchmark_time_ns);
}

TEST_CASE("a workload's benchmark_timer_from other than barrier or start leaves the metric out",
          "[cli][benchmark-time]") {
  Workload w = generate_workload("pipe", {"-l", "20"});
  w.meta["benchmark_timer_from"] = "sometime";
  driver::RunOutcome out = run_workload(w, "schedsim-bench-timer-bad.json");
  CHECK(out.results.benchmark_time_ns == -1);
  CHECK(out.results.benchmark_ops == -1);
}
