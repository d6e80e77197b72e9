// SMT normalisation (run --smt-normalize): a schedule simulated on an SMT machine, exported as a
// trace and replayed on the same machine gains the co-run slowdown a second time unless the
// trace's co-run time is normalised; with it, the replay's on-CPU time and makespan come back
// close to the original.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "run_request.hpp"
#include "schedsim/base/error.hpp"

using namespace schedsim;

namespace {
double rel(const RunResults& r, const std::string& metric) {
  for (const auto& c : r.observed)
    if (c.metric == metric) return c.rel_error;
  FAIL("no metric " << metric);
  return 0;
}
}  // namespace

TEST_CASE("smt-normalize applies the co-run slowdown once on a re-imported schedule", "[cli][smt]") {
  cli::RunRequest sim;
  sim.workload_gen = "messaging --pipe --thread -g 1 -l 30";
  sim.topology = "smt2x2";
  sim.trace_out = "-";
  sim.progress = "never";
  sim.max_memory = "none";
  cli::RunOutcome orig = cli::execute_run(sim);
  REQUIRE(orig.results.complete);
  auto path = (std::filesystem::temp_directory_path() / "schedsim-smt-normalize-test.txt").string();
  std::ofstream(path) << orig.trace_text;

  cli::RunRequest rep;
  rep.input = path;
  rep.topology = "smt2x2";
  rep.progress = "never";
  rep.max_memory = "none";
  cli::RunOutcome plain = cli::execute_run(rep);
  rep.smt_normalize = true;
  cli::RunOutcome norm = cli::execute_run(rep);
  REQUIRE(norm.results.complete);
  // Without normalisation the co-run time is slowed down twice.
  CHECK(rel(plain.results, "total_runtime_ns") > 0.20);
  // With it, what is left is the switch and refill overhead the trace's on-CPU time already
  // contains (docs/calibrate.md) and the replay's different schedule.
  CHECK(std::abs(rel(norm.results, "total_runtime_ns")) < 0.5 * rel(plain.results, "total_runtime_ns"));
  CHECK(norm.results.work_expected_ns < plain.results.work_expected_ns);
  // The conservation check knows about the removed time: no warning.
  for (const auto& n : norm.notes) CHECK(n.find("differs from the trace's on-CPU time") == std::string::npos);

  rep.topology = "smp2";
  CHECK_THROWS_AS(cli::execute_run(rep), InputError);
}
