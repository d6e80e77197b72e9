// The benchmark-time metric: a generated messaging run reports the time hackbench / perf bench
// would print (start barrier's release to the last join), shorter than the makespan by the
// fork and start-up phase; workloads without a timer report none; JSON keeps it.
#include <catch2/catch.hpp>

#include "gen_request.hpp"
#include "run_request.hpp"
#include "schedsim/metrics/results.hpp"

using namespace schedsim;

namespace {
cli::RunOutcome run_gen(const std::string& gen) { return cli::execute_run(cli_test::gen_request(gen)); }
}  // namespace

TEST_CASE("messaging reports its benchmark time beside the makespan", "[cli][benchmark-time]") {
  cli::RunOutcome a = run_gen("messaging -g 1 -l 10");
  REQUIRE(a.results.complete);
  const int64_t bt = a.results.benchmark_time_ns;
  CHECK(bt > 0);
  // Forking 40 children at 12-30 us each precedes the barrier: the benchmark time is shorter
  // by at least that.
  CHECK(bt < a.results.makespan_ns - 40 * 12000);
  // More loops lengthen the timed part; the fork phase does not change.
  cli::RunOutcome b = run_gen("messaging -g 1 -l 20");
  CHECK(b.results.benchmark_time_ns > bt);
  CHECK(b.results.makespan_ns - b.results.benchmark_time_ns ==
        Catch::Detail::Approx(a.results.makespan_ns - bt).epsilon(0.2));
  RunResults back = parse_results_json(a.rendered, "a.json");
  CHECK(back.benchmark_time_ns == bt);
}

TEST_CASE("workloads without a benchmark timer report none", "[cli][benchmark-time]") {
  cli::RunOutcome a = run_gen("messaging -g 1 -l 10 --no-main");
  CHECK(a.results.benchmark_time_ns == -1);
  CHECK(a.rendered.find("benchmark_time_ns") == std::string::npos);
  cli::RunOutcome p = run_gen("pipe -l 100");
  CHECK(p.results.benchmark_time_ns == -1);
  RunResults back = parse_results_json(p.rendered, "p.json");
  CHECK(back.benchmark_time_ns == -1);
}
