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
  req.max_evals = 200;
  cli::CalibrateResult r = cli::calibrate(req);  // default set on smp2: ipi_same_package, idle_exit
  REQUIRE(r.params.size() == 2);
  CHECK(r.params[0].name == "ipi_same_package");
  CHECK(r.params[0].start == 600);  // the defaults, far from the truth
  CHECK(r.params[1].start == 2000);
  CHECK(std::abs(r.params[0].fitted / 1200.0 - 1) < 0.10);
  CHECK(std::abs(r.params[1].fitted / 6000.0 - 1) < 0.10);
  CHECK(r.fitted_objective < r.start_objective / 10);
  CHECK(r.evals <= 200);
  // context_switch is not fitted on a trace: the recorded on-CPU time already contains it and a
  // replay does not charge it again (replay_overheads=recorded, docs/calibrate.md).
  req.fit = {"context_switch"};
  CHECK_THROWS_AS(cli::calibrate(req), InputError);
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

TEST_CASE("a replay does not charge the switch and refill costs its trace already contains", "[cli][calibrate]") {
  // The schedule simulated with a 3 us switch cost, replayed with the same costs: with
  // replay_overheads=recorded (the default) the replay reproduces the makespan; charging the
  // switch again (the former behaviour) adds one switch cost per switch-in.
  const std::string trace = simulated_trace("pipe -l 3000", "pipe-overheads.txt");
  auto replay = [&](const std::string& mode) {
    cli::RunRequest req;
    req.input = trace;
    req.topology = "smp2";
    req.costs = kTruth;
    req.costs.push_back("replay_overheads=" + mode);
    req.progress = "never";
    req.max_memory = "none";
    cli::RunOutcome out = cli::execute_run(req);
    REQUIRE(out.results.complete);
    const Comparison* mk = nullptr;
    for (const auto& c : out.results.observed)
      if (c.metric == "makespan_ns") mk = &c;
    REQUIRE(mk != nullptr);
    return std::pair{mk->simulated / mk->observed - 1, out.results.context_switches};
  };
  auto [recorded_err, switches] = replay("recorded");
  auto [charged_err, switches2] = replay("charged");
  CHECK(std::abs(recorded_err) < 0.01);
  CHECK(switches == switches2);
  CHECK(charged_err > 0.15);  // ~6000 switch-ins x 3 us on a ~60 ms ping-pong
}

TEST_CASE("calibrate fits a generator's per-operation costs to a benchmark time", "[cli][calibrate]") {
  // The "machine": messaging with per-message costs 2.5x the reference. Its benchmark time is the
  // observed figure; calibrate starts from the reference and must find the factor.
  const std::string spec = "messaging --pipe --thread --group 1 --nr_loops 200";
  cli::RunRequest run;
  run.workload_gen = spec;
  run.topology = "smp2";
  run.costs = {"msg_write_pipe_thread=1495ns", "msg_read_pipe_thread=1375ns"};
  run.progress = "never";
  run.max_memory = "none";
  cli::RunOutcome truth = cli::execute_run(run);
  REQUIRE(truth.results.benchmark_time_ns > 0);

  cli::CalibrateRequest req;
  req.workload_gen = spec;
  req.benchmark_time_ns = truth.results.benchmark_time_ns;
  req.topology = "smp2";
  req.max_evals = 60;
  cli::CalibrateResult r = cli::calibrate(req);
  REQUIRE(r.params.size() == 2);
  CHECK(r.params[0].name == "msg_write_pipe_thread");
  CHECK(r.params[0].start == 598);
  CHECK(std::abs(r.params[0].fitted / 1495.0 - 1) < 0.05);
  CHECK(std::abs(r.params[1].fitted / 1375.0 - 1) < 0.05);
  CHECK(r.fitted_objective < 0.001);
  // The cost file carries them, and a run with it reproduces the benchmark time.
  run.costs = {};
  CostModel back;
  back.load_json(cli::render_cost_file(r), "fitted.json");
  run.costs = {"msg_write_pipe_thread=" + back.get("msg_write_pipe_thread") + "ns",
               "msg_read_pipe_thread=" + back.get("msg_read_pipe_thread") + "ns"};
  cli::RunOutcome again = cli::execute_run(run);
  CHECK(std::abs(static_cast<double>(again.results.benchmark_time_ns) / static_cast<double>(truth.results.benchmark_time_ns) - 1) < 0.02);
  // A trace and a generator together, or a generator cost on a trace, are refused.
  req.traces = {"x.trace"};
  CHECK_THROWS_AS(cli::calibrate(req), InputError);
}
