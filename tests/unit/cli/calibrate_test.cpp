// calibrate recovers known cost parameters from simulated traces: simulate generated workloads
// with costs X, export each schedule as ftrace text (--trace-out), calibrate from the default
// costs, and compare the fitted values with X. Also: refusals of traces that cannot be fitted.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "calibrate.hpp"
#include "run_request.hpp"
#include "schedsim/base/error.hpp"

using namespace schedsim;

namespace {

const std::vector<std::string> kTruth = {"context_switch=3us", "ipi_same_package=1200ns", "idle_exit=6us"};

std::string simulated_trace(const std::string& gen, const std::string& name) {
  cli::RunRequest req;
  req.workload_gen = gen;
  req.topology = "smp2";
  req.costs = kTruth;
  req.trace_out = "-";
  req.progress = "never";
  req.max_memory = "none";
  cli::RunOutcome out = cli::execute_run(req);
  REQUIRE(out.results.complete);
  auto dir = std::filesystem::temp_directory_path() / "schedsim-calibrate-test";
  std::filesystem::create_directories(dir);
  std::string path = (dir / name).string();
  std::ofstream(path) << out.trace_text;
  return path;
}

}  // namespace

TEST_CASE("calibrate recovers the IPI and idle-exit costs a trace was simulated with", "[cli][calibrate]") {
  // pipe ping-pong: every wake goes to the other, idle CPU (IPI + idle exit); periodic threads:
  // timer wakes on their own idle CPU (idle exit only), which separates the two parameters.
  cli::CalibrateRequest req;
  req.traces = {simulated_trace("pipe -l 3000", "pipe.txt"),
                simulated_trace("periodic -n 3 --period 1ms --run 300us --count 300", "periodic.txt")};
  req.topology = "smp2";
  req.fit = {"context_switch", "ipi_same_package", "idle_exit"};
  req.max_evals = 200;
  cli::CalibrateResult r = cli::calibrate(req);
  REQUIRE(r.params.size() == 3);
  CHECK(r.params[0].start == 1500);  // the defaults, far from the truth
  CHECK(r.params[1].start == 600);
  CHECK(r.params[2].start == 2000);
  CHECK(std::abs(r.params[1].fitted / 1200.0 - 1) < 0.10);
  CHECK(std::abs(r.params[2].fitted / 6000.0 - 1) < 0.10);
  CHECK(r.fitted_objective < r.start_objective / 10);
  CHECK(r.evals <= 200);
  // context_switch is not recoverable from a replay: the recorded on-CPU time already contains
  // the switch cost the simulation charged, and the replay charges it again (docs/calibrate.md).
  // The cost file is valid input for run.
  std::string file = cli::render_cost_file(r);
  CostModel back;
  back.load_json(file, "fitted.json");
  CHECK(back.get("idle_exit") == r.cost.get("idle_exit"));
  CHECK(back.get("ipi_same_package") == r.cost.get("ipi_same_package"));
}

TEST_CASE("calibrate is deterministic", "[cli][calibrate]") {
  cli::CalibrateRequest req;
  req.traces = {simulated_trace("pipe -l 500", "pipe-small.txt")};
  req.topology = "smp2";
  req.fit = {"idle_exit"};
  req.max_evals = 20;
  cli::CalibrateResult a = cli::calibrate(req), b = cli::calibrate(req);
  CHECK(cli::render_cost_file(a) == cli::render_cost_file(b));
  CHECK(cli::render_calibration_report(a) == cli::render_calibration_report(b));
}

TEST_CASE("calibrate refuses traces it cannot fit", "[cli][calibrate]") {
  cli::CalibrateRequest req;
  req.topology = "smp2";
  req.traces = {simulated_trace("pipe -l 20", "pipe-tiny.txt")};  // 40 wakeups, < 1 ms
  CHECK_THROWS_AS(cli::calibrate(req), InputError);
  req.traces = {std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/xeon-vm-16cpu/fork-2000.trace.gz"};
  req.fit = {"no_such_cost"};
  CHECK_THROWS_AS(cli::calibrate(req), InputError);
}
