// calibrate recovers known cost parameters from simulated traces: simulate generated workloads
// with costs X, export each schedule as ftrace text (--trace-out), calibrate from the default
// costs, and compare the fitted values with X. Also: refusals of traces that cannot be fitted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "schedsim/driver/calibrate.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/workload/workload.hpp"

using namespace schedsim;

namespace {

const std::vector<std::string> kTruth = {"context_switch=3us", "ipi_same_package=1200ns", "idle_exit=6us"};

std::string simulated_trace(const std::string& gen, const std::string& name) {
  driver::RunRequest req;
  req.workload_gen = gen;
  req.topology = "smp2";
  req.costs = kTruth;
  req.trace_out = "-";
  req.progress = "never";
  req.max_memory = "none";
  driver::RunOutcome out = driver::execute_run(req);
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
  driver::CalibrateRequest req;
  req.traces = {simulated_trace("pipe -l 3000", "pipe.txt"),
                simulated_trace("periodic -n 3 --period 1ms --run 300us --count 300", "periodic.txt")};
  req.topology = "smp2";
  req.max_evals = 200;
  driver::CalibrateResult r = driver::calibrate(req);  // default set on smp2: ipi_same_package, idle_exit
  REQUIRE(r.params.size() == 2);
  CHECK(r.params[0].name == "ipi_same_package");
  CHECK(r.params[0].start == 600);  // the defaults, far from the truth
  // The idle exit starts inside the range its measured prior allows: the traces' remote wakes to
  // an idle CPU take 7.2 us (IPI + exit), so IPI 600 ns + exit is kept in 6.2-8.2 us.
  REQUIRE(r.params[1].prior.has_value());
  CHECK(r.params[1].prior->wake_value == 7200);
  CHECK(r.params[1].start == 5600);
  CHECK(std::abs(r.params[0].fitted / 1200.0 - 1) < 0.10);
  CHECK(std::abs(r.params[1].fitted / 6000.0 - 1) < 0.10);
  CHECK(r.fitted_objective < r.start_objective / 10);
  CHECK(r.evals <= 200);
  // context_switch is not fitted on a trace: the recorded on-CPU time already contains it and a
  // replay does not charge it again (replay_overheads=recorded, docs/calibrate.md).
  req.fit = {"context_switch"};
  CHECK_THROWS_AS(driver::calibrate(req), InputError);
  // The cost file is valid input for run.
  std::string file = driver::render_cost_file(r);
  CostModel back;
  back.load_json(file, "fitted.json");
  CHECK(back.get("idle_exit") == r.cost.get("idle_exit"));
  CHECK(back.get("ipi_same_package") == r.cost.get("ipi_same_package"));
}

TEST_CASE("calibrate is deterministic", "[cli][calibrate]") {
  driver::CalibrateRequest req;
  req.traces = {simulated_trace("pipe -l 500", "pipe-small.txt")};
  req.topology = "smp2";
  req.fit = {"idle_exit"};
  req.max_evals = 20;
  driver::CalibrateResult a = driver::calibrate(req), b = driver::calibrate(req);
  CHECK(driver::render_cost_file(a) == driver::render_cost_file(b));
  CHECK(driver::render_calibration_report(a) == driver::render_calibration_report(b));
}

TEST_CASE("calibrate refuses traces it cannot fit", "[cli][calibrate]") {
  driver::CalibrateRequest req;
  req.topology = "smp2";
  req.traces = {simulated_trace("pipe -l 20", "pipe-tiny.txt")};  // 40 wakeups, < 1 ms
  CHECK_THROWS_AS(driver::calibrate(req), InputError);
  req.traces = {std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/xeon-vm-16cpu/fork-2000.trace.gz"};
  req.fit = {"no_such_cost"};
  CHECK_THROWS_AS(driver::calibrate(req), InputError);
}

TEST_CASE("a replay does not charge the switch and refill costs its trace already contains", "[cli][calibrate]") {
  // The schedule simulated with a 3 us switch cost, replayed with the same costs: with
  // replay_overheads=recorded (the default) the replay reproduces the makespan; charging the
  // switch again (the former behaviour) adds one switch cost per switch-in.
  const std::string trace = simulated_trace("pipe -l 3000", "pipe-overheads.txt");
  auto replay = [&](const std::string& mode) {
    driver::RunRequest req;
    req.input = trace;
    req.topology = "smp2";
    req.costs = kTruth;
    req.costs.push_back("replay_overheads=" + mode);
    req.progress = "never";
    req.max_memory = "none";
    driver::RunOutcome out = driver::execute_run(req);
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

TEST_CASE("a workload imported from a trace is replayed like the trace: its switches are recorded too",
          "[cli][calibrate]") {
  // `import -o W && run W` must give what `run TRACE` gives: W's run() times are the trace's
  // on-CPU times, which already hold the 3 us switches. It charged them again before (+15%).
  const std::string trace = simulated_trace("pipe -l 3000", "pipe-imported.txt");
  const std::string file = (std::filesystem::temp_directory_path() / "pipe-imported.json").string();
  write_workload(traces::import_trace(trace, traces::ExtractOptions{}), file, WorkloadFormat::kJson);
  auto replay = [&](const std::string& input, const std::string& mode) {
    driver::RunRequest req;
    req.input = input;
    req.topology = "smp2";
    req.costs = kTruth;
    if (!mode.empty()) req.costs.push_back("replay_overheads=" + mode);
    req.progress = "never";
    req.max_memory = "none";
    return driver::execute_run(req);
  };
  const driver::RunOutcome from_trace = replay(trace, ""), from_file = replay(file, "");
  CHECK(from_file.results.makespan_ns == from_trace.results.makespan_ns);
  CHECK(from_file.results.context_switches == from_trace.results.context_switches);
  CHECK(from_file.results.config.cost_overrides.at("replay_overheads") == "recorded");
  CHECK(replay(file, "charged").results.makespan_ns > from_trace.results.makespan_ns * 115 / 100);
  // The file keeps no recorded CPUs: migration-delta needs the trace.
  CHECK_THROWS_WITH(replay(file, "migration-delta"), Catch::Contains("needs the trace itself"));
  std::filesystem::remove(file);
  // A generated workload holds no recorded switch: always charged, and a run asking otherwise is told.
  driver::RunRequest gen;
  gen.workload_gen = "pipe -l 20";
  gen.topology = "smp2";
  gen.costs = {"replay_overheads=recorded"};
  gen.progress = "never";
  const driver::RunOutcome g = driver::execute_run(gen);
  CHECK(g.results.config.cost_overrides.at("replay_overheads") == "charged");
  CHECK(std::any_of(g.notes.begin(), g.notes.end(),
                    [](const std::string& n) { return n.find("replay_overheads applies to kernel traces") != std::string::npos; }));
}

TEST_CASE("calibrate fits a generator's per-operation costs to a benchmark time", "[cli][calibrate]") {
  // The "machine": messaging with per-message costs 2.5x the reference. Its benchmark time is the
  // observed figure; calibrate starts from the reference and must find the factor.
  const std::string spec = "messaging --pipe --thread --group 1 --nr_loops 200";
  driver::RunRequest run;
  run.workload_gen = spec;
  run.topology = "smp2";
  run.costs = {"msg_write_pipe_thread=1495ns", "msg_read_pipe_thread=1375ns"};
  run.progress = "never";
  run.max_memory = "none";
  driver::RunOutcome truth = driver::execute_run(run);
  REQUIRE(truth.results.benchmark_time_ns > 0);

  driver::CalibrateRequest req;
  req.workload_gen = spec;
  req.benchmark_time_ns = truth.results.benchmark_time_ns;
  req.topology = "smp2";
  req.max_evals = 60;
  driver::CalibrateResult r = driver::calibrate(req);
  REQUIRE(r.params.size() == 2);
  CHECK(r.params[0].name == "msg_write_pipe_thread");
  CHECK(r.params[0].start == 598);
  CHECK(std::abs(r.params[0].fitted / 1495.0 - 1) < 0.05);
  CHECK(std::abs(r.params[1].fitted / 1375.0 - 1) < 0.05);
  CHECK(r.fitted_objective < 0.001);
  // The cost file carries them, and a run with it reproduces the benchmark time.
  run.costs = {};
  CostModel back;
  back.load_json(driver::render_cost_file(r), "fitted.json");
  run.costs = {"msg_write_pipe_thread=" + back.get("msg_write_pipe_thread") + "ns",
               "msg_read_pipe_thread=" + back.get("msg_read_pipe_thread") + "ns"};
  driver::RunOutcome again = driver::execute_run(run);
  CHECK(std::abs(static_cast<double>(again.results.benchmark_time_ns) / static_cast<double>(truth.results.benchmark_time_ns) - 1) < 0.02);
  // A trace and a generator together, or a generator cost on a trace, are refused.
  req.traces = {"x.trace"};
  CHECK_THROWS_AS(driver::calibrate(req), InputError);
}

TEST_CASE("measured_prior: the exit is the samples' median minus the IPI, kept in their interquartile range",
          "[cli][calibrate]") {
  std::vector<int64_t> s;
  for (int i = 1; i <= 40; ++i) s.push_back(i * 1000);  // 1..40 us, in reverse-free order
  std::reverse(s.begin(), s.end());                    // the input order does not matter
  auto p = driver::measured_prior(s, 600, 500, 30000, "wakes");
  REQUIRE(p.has_value());
  CHECK(p->samples == 40);
  CHECK(p->wake_value == 20000);  // nearest rank 20 of 40
  CHECK(p->wake_lo == 10000);     // p25: rank 10
  CHECK(p->wake_hi == 30000);     // p75: rank 30
  CHECK(p->value == 19400);
  CHECK(p->lo == 9400);
  CHECK(p->hi == 29400);
  // Intersected with the plausible range.
  auto q = driver::measured_prior(s, 600, 500, 20000, "wakes");
  REQUIRE(q.has_value());
  CHECK(q->hi == 20000);
  CHECK(q->value == 19400);
  // Identical samples (a 1 us clock): widened to one tick either side.
  auto flat = driver::measured_prior(std::vector<int64_t>(25, 5000), 600, 500, 30000, "wakes");
  REQUIRE(flat.has_value());
  CHECK(flat->lo == 3400);
  CHECK(flat->hi == 5400);
  // Too few samples, or a range outside the plausible one: no prior.
  CHECK_FALSE(driver::measured_prior(std::vector<int64_t>(19, 5000), 600, 500, 30000, "wakes").has_value());
  CHECK_FALSE(driver::measured_prior(std::vector<int64_t>(25, 5000), 600, 10000, 30000, "wakes").has_value());
}

TEST_CASE("prior_penalty is a weighted squared log-ratio, zero at the measurement", "[cli][calibrate]") {
  CHECK(driver::prior_penalty(5000, 5000, 1) == 0);
  CHECK(driver::prior_penalty(10000, 5000, 1) == Approx(std::log(2.0) * std::log(2.0)));
  CHECK(driver::prior_penalty(2500, 5000, 1) == Approx(driver::prior_penalty(10000, 5000, 1)));
  CHECK(driver::prior_penalty(10000, 5000, 3) == Approx(3 * driver::prior_penalty(10000, 5000, 1)));
  CHECK(driver::prior_penalty(10000, 5000, 0) == 0);
}

TEST_CASE("banked_weight: wake metrics count for the share of wakes replayed as wakes", "[cli][calibrate]") {
  CHECK(driver::banked_weight(0, 1000) == 1);
  CHECK(driver::banked_weight(99, 1000) == 1);          // under 10%: kept
  CHECK(driver::banked_weight(100, 1000) == Approx(0.9));
  CHECK(driver::banked_weight(400, 1000) == Approx(0.6));
  CHECK(driver::banked_weight(499, 1000) == Approx(0.501));
  CHECK(driver::banked_weight(500, 1000) == 0);         // half or more: excluded
  CHECK(driver::banked_weight(5000, 1000) == 0);
  CHECK(driver::banked_weight(5, 0) == 1);
}

TEST_CASE("calibrate keeps a parameter the traces cannot identify at its start", "[cli][calibrate]") {
  // smp2 has one package: the cross-package IPI changes nothing in a replay on it.
  driver::CalibrateRequest req;
  req.traces = {simulated_trace("pipe -l 500", "pipe-ident.txt")};
  req.topology = "smp2";
  req.fit = {"idle_exit", "ipi_cross_package"};
  req.costs = {"ipi_cross_package=700ns"};
  req.max_evals = 40;
  driver::CalibrateResult r = driver::calibrate(req);
  REQUIRE(r.params.size() == 2);
  CHECK(r.params[0].identifiable);
  CHECK(r.params[0].effect >= driver::kCalibrateMinEffect);
  CHECK_FALSE(r.params[1].identifiable);
  CHECK(r.params[1].effect < driver::kCalibrateMinEffect);
  CHECK(r.params[1].fitted == 700);
  CHECK(r.probes >= 4);  // two per parameter, and one per threshold check of a moved one
  const std::string report = driver::render_calibration_report(r);
  CHECK(report.find("ipi_cross_package: not identifiable from these traces: kept at 700ns") != std::string::npos);
}

TEST_CASE("a prior holds a parameter near its measurement, in proportion to its weight", "[cli][calibrate]") {
  // The ping-pong was simulated with idle_exit 6 us; a prior says 3 us.
  driver::CalibrateRequest req;
  req.traces = {simulated_trace("pipe -l 1000", "pipe-prior.txt")};
  req.topology = "smp2";
  req.fit = {"idle_exit"};
  req.costs = {"ipi_same_package=1200ns"};
  req.max_evals = 60;
  req.prior_weight = 0;  // a given prior has no hard range: weight 0 is the data alone
  req.priors = {"idle_exit=3us"};
  driver::CalibrateResult free_fit = driver::calibrate(req);
  REQUIRE(free_fit.params[0].prior.has_value());
  CHECK(free_fit.params[0].prior->value == 3000);
  CHECK(std::abs(free_fit.params[0].fitted / 6000.0 - 1) < 0.10);
  req.prior_weight = 100;
  driver::CalibrateResult held = driver::calibrate(req);
  CHECK(std::abs(held.params[0].fitted / 3000.0 - 1) < 0.15);
  CHECK(held.fitted_penalty < held.start_penalty);
  // A prior outside its plausible range, for a parameter calibrate does not fit, or a bad weight.
  req.priors = {"idle_exit=1s"};
  CHECK_THROWS_AS(driver::calibrate(req), InputError);
  req.priors = {"no_such_cost=1us"};
  CHECK_THROWS_AS(driver::calibrate(req), InputError);
  req.priors = {};
  req.prior_weight = -1;
  CHECK_THROWS_AS(driver::calibrate(req), InputError);
}

TEST_CASE("calibrate excludes the wake metrics of a trace whose replay banks most wakes as tokens",
          "[cli][calibrate]") {
  const std::string dir = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/xeon-vm-16cpu/";
  driver::CalibrateRequest req;
  req.traces = {dir + "msg-g1-l400.trace.gz"};
  req.topology = dir + "lscpu-p.txt";
  req.costs = {dir + "costs.json"};
  req.kernel = "6.18";
  req.extract.comm_regex = "loadgen";
  req.fit = {"idle_exit_polled"};
  req.max_evals = 3;
  driver::CalibrateResult r = driver::calibrate(req);
  REQUIRE(r.traces.size() == 1);
  const driver::TraceFit& t = r.traces[0];
  CHECK(t.banked_at_start * 2 >= t.observed_wakeups);  // 67% banked on the 16-CPU guest
  CHECK(t.wake_weight == 0);
  CHECK(t.weight_reason.find("excluded") != std::string::npos);
  for (const auto& m : t.metrics) {
    if (m.metric == "rq-wait (preempted) p50") CHECK(m.in_objective);
    else CHECK_FALSE(m.in_objective);
  }
  // The measured prior of the polled exit comes from the trace's own idle wakes.
  REQUIRE(r.params[0].prior.has_value());
  CHECK(r.params[0].prior->samples >= driver::kCalibrateMinPriorSamples);
  CHECK(r.params[0].fitted >= r.params[0].search_lo);
  CHECK(r.params[0].fitted <= r.params[0].search_hi);
}

TEST_CASE("robust_loss: quadratic for small misses, damped beyond a factor e", "[cli][calibrate]") {
  CHECK(driver::robust_loss(0) == 0);
  CHECK(driver::robust_loss(0.01) == Approx(0.01).epsilon(0.01));  // a 10% miss: about l^2
  const double l_small = 0.2, l_big = 3.4;                   // a 22% and a 30x miss
  // The pull on the costs (d loss / d l = 2l / (1 + l^2)): the 30x miss pulls less than the 22% one.
  auto pull = [](double l) { return (driver::robust_loss((l + 1e-6) * (l + 1e-6)) - driver::robust_loss(l * l)) / 1e-6; };
  CHECK(pull(l_small) == Approx(2 * l_small / (1 + l_small * l_small)).epsilon(1e-3));
  CHECK(pull(l_big) < pull(1.0));
  CHECK(pull(l_big) < 2 * l_big / 10);
}

TEST_CASE("calibrate --check-only lists every reason calibrate refuses a trace for, in calibrate's words",
          "[cli][calibrate]") {
  driver::CalibrateRequest req;
  req.topology = "smp2";
  const std::string tiny = simulated_trace("pipe -l 20", "pipe-tiny.txt");  // 40 wakeups, < 1 ms
  const std::string hb = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/hackbench-pipe-g2.ftrace.gz";
  req.traces = {tiny, hb};
  const driver::CalibrateCheck c = driver::check_calibrate(req);
  REQUIRE(c.traces.size() == 2);
  CHECK(c.used == 1);
  CHECK_FALSE(c.all_usable());
  CHECK(c.set_refusal.empty());
  const std::vector<driver::TraceRefusal>& r = c.traces[0].refusals;
  REQUIRE(r.size() == 2);  // both checks, where calibrate stops at the first
  CHECK(r[0].check == "too-short");
  CHECK(r[1].check == "too-few-wakeups");
  CHECK(r[1].brief == "40 wakeups, under 100");
  CHECK(c.traces[1].refusals.empty());
  CHECK(c.traces[1].wake_weight == 0);  // hackbench's replay banks 95% of its wakes as tokens
  // calibrate itself refuses the trace with the check's first message.
  req.traces = {tiny};
  try {
    driver::calibrate(req);
    FAIL("calibrate fitted a trace --check-only refuses");
  } catch (const InputError& e) {
    CHECK(e.message() == r[0].message);
  }
  // Every trace refused: the set is too.
  const driver::CalibrateCheck none = driver::check_calibrate(req);
  CHECK(none.used == 0);
  CHECK_FALSE(none.set_refusal.empty());
  // A generated workload has no trace to check.
  req.traces.clear();
  req.workload_gen = "pipe -l 20";
  CHECK_THROWS_AS(driver::check_calibrate(req), InputError);
}

TEST_CASE("calibrate replays under run's engine settings: --preempt none moves the start replay as run's does",
          "[cli][calibrate]") {
  // A trace recorded with syscall events: under --preempt none a wakeup preemption waits for the
  // waker's syscall to return (docs/model.md "Syscall marks in plain replays"), in calibrate's
  // replays as in run's.
  const std::string dir = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/smp2-quiet/";
  driver::CalibrateRequest req;
  req.traces = {dir + "syscalls/perf-msg-g1-l20.r2.ftrace.gz"};
  req.topology = "smp2";
  req.costs = {dir + "costs.json"};
  req.extract.background_comm_regex = "^schedsim$";
  req.fit = {"idle_exit_polled"};
  req.max_evals = 2;
  const driver::CalibrateResult full = driver::calibrate(req);
  req.model.preempt = "none";
  const driver::CalibrateResult none = driver::calibrate(req);
  REQUIRE(full.traces.size() == 1);
  REQUIRE(none.traces.size() == 1);
  CHECK(full.traces[0].banked_at_start != none.traces[0].banked_at_start);
  // The same replay as run's: run --preempt none on the trace banks as many wakes.
  driver::RunRequest run;
  run.input = req.traces[0];
  run.topology = "smp2";
  run.costs = req.costs;
  run.extract.background_comm_regex = "^schedsim$";
  run.preempt = "none";
  run.format = "json";
  run.progress = "never";
  const driver::RunOutcome out = driver::execute_run(run);
  CHECK(out.results.tokens_banked == none.traces[0].banked_at_start);
  bool noted = false;
  for (const auto& n : none.notes) noted = noted || n == "note: every replay of the fit runs with --preempt none, as run would";
  CHECK(noted);
  for (const auto& n : full.notes) CHECK(n.find("every replay of the fit runs with") == std::string::npos);
  req.model.preempt = "sometimes";
  CHECK_THROWS_WITH(driver::calibrate(req), Catch::Contains("unknown preemption model 'sometimes'"));
}
