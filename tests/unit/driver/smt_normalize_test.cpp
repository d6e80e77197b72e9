// SMT normalisation (run --smt-normalize): a schedule simulated on an SMT machine, exported as a
// trace and replayed on the same machine gains the co-run slowdown a second time unless the
// trace's co-run time is normalised; with it, the replay's on-CPU time and makespan come back
// close to the original.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/engine/cost_profile.hpp"

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
  driver::RunRequest sim;
  sim.workload_gen = "messaging --pipe --thread -g 1 -l 30";
  sim.topology = "smt2x2";
  sim.trace_out = "-";
  sim.progress = "never";
  sim.max_memory = "none";
  driver::RunOutcome orig = driver::execute_run(sim);
  REQUIRE(orig.results.complete);
  auto path = (std::filesystem::temp_directory_path() / "schedsim-smt-normalize-test.txt").string();
  std::ofstream(path) << orig.trace_text;

  driver::RunRequest rep;
  rep.input = path;
  rep.topology = "smt2x2";
  rep.progress = "never";
  rep.max_memory = "none";
  driver::RunOutcome plain = driver::execute_run(rep);
  rep.smt_normalize = true;
  driver::RunOutcome norm = driver::execute_run(rep);
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
  CHECK_THROWS_AS(driver::execute_run(rep), InputError);
}

namespace {
// A run on `topology` with no switch, refill and idle-scan probe costs: the recorded on-CPU time
// is then the reference work and the recording machine's co-run slowdown alone, which is what
// normalisation undoes. With them, a trace's time also holds the recording's switches, refills
// and probes (0.9% of the work here for the probes alone), which the replay charges again or not
// (docs/calibrate.md) and a direct run charges by its own schedule.
driver::RunRequest request(const std::string& topology, const std::vector<std::string>& costs) {
  driver::RunRequest r;
  r.topology = topology;
  r.progress = "never";
  r.max_memory = "none";
  r.costs = {"context_switch=0", "refill_smt=0",   "refill_cluster=0", "refill_llc=0",
             "refill_package=0", "refill_numa=0", "probe_cpu=0",      "probe_core_cpu=0"};
  r.costs.insert(r.costs.end(), costs.begin(), costs.end());
  return r;
}
double ratio(int64_t a, int64_t b) { return static_cast<double>(a) / static_cast<double>(b); }
}  // namespace

TEST_CASE("smt-normalize --recorded-on: a trace from an SMT machine replayed on another gives that machine's own "
          "figures",
          "[cli][smt]") {
  const std::string gen = "messaging --pipe --thread -g 4 -l 100";
  const std::string a = "xeon-e5-2690v2";  // the recording machine: SMT2, co-run 650 permille
  driver::RunRequest sim = request(a, {});
  sim.workload_gen = gen;
  sim.trace_out = "-";
  driver::RunOutcome orig = driver::execute_run(sim);
  REQUIRE(orig.results.complete);
  auto path = (std::filesystem::temp_directory_path() / "schedsim-smt-recorded-on-test.txt").string();
  std::ofstream(path) << orig.trace_text;
  // The messaging work the trace recorded is at the xeon profile's per-operation costs: the
  // direct runs on the other machines generate with the same, so both sides hold the same work.
  std::vector<std::string> msg;
  for (const auto& e : cost_profile_for(a).entries)
    if (e.param.rfind("msg_", 0) == 0) msg.push_back(e.param + "=" + e.value);
  REQUIRE(msg.size() == 2);

  // The replay machines: one without SMT (the 16-vCPU KVM guest's lscpu -p), and an SMT machine
  // with another co-run rate (xeon-gold-6248 at smt_corun_permille=800).
  const std::string nosmt = std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/traces/xeon-vm-16cpu/lscpu-p.txt";
  for (const auto& [b, extra] : std::vector<std::pair<std::string, std::vector<std::string>>>{
           {nosmt, {}}, {"xeon-gold-6248", {"smt_corun_permille=800"}}}) {
    INFO("replayed on " << b);
    std::vector<std::string> direct_costs = msg;
    direct_costs.insert(direct_costs.end(), extra.begin(), extra.end());
    driver::RunRequest req = request(b, direct_costs);
    req.workload_gen = gen;
    const RunResults direct = driver::execute_run(req).results;
    req = request(b, extra);
    req.input = path;
    const RunResults plain = driver::execute_run(req).results;
    req.smt_normalize = true;
    req.recorded_on = a;
    const driver::RunOutcome norm_out = driver::execute_run(req);
    const RunResults& norm = norm_out.results;
    // The recording machine's profile has no measured co-run rate: a note says the reference
    // rate was used.
    CHECK(std::any_of(norm_out.notes.begin(), norm_out.notes.end(), [](const std::string& n) {
      return n.find("which has none measured: the reference 650 permille") != std::string::npos;
    }));
    REQUIRE(direct.complete);
    REQUIRE(norm.complete);
    // The normalised trace holds the generated work: what is left (+0.02%) is the trace's
    // nanosecond timestamps, rounded at each of the ~320000 runs' ends.
    CHECK(std::abs(ratio(norm.work_expected_ns, direct.work_expected_ns) - 1) < 0.002);
    // Total on-CPU time: B's own co-run slowdown (none, or at 800 permille) applied once. On B
    // with SMT it depends on how much the schedule co-runs, which differs (-1.2% measured).
    CHECK(std::abs(ratio(norm.busy_ns, direct.busy_ns) - 1) < 0.03);
    // Makespan: the replay wakes in the recorded order (A's schedule), not as B's generator run
    // does: +2.7% and +5.1% measured; 8% bounds that, far below plain's error.
    CHECK(std::abs(ratio(norm.makespan_ns, direct.makespan_ns) - 1) < 0.08);
    // Without normalisation A's co-run slowdown stays in the work: on B without SMT it is a
    // slowdown B does not have, on B with SMT it is counted twice (+51% and +55% measured).
    CHECK(ratio(plain.busy_ns, direct.busy_ns) - 1 > 0.35);
    CHECK(ratio(plain.makespan_ns, direct.makespan_ns) - 1 > 0.35);
    // The results say which machine, and which co-run rate, the normalisation used.
    CHECK(norm.config.cost_overrides.at("smt_normalize") ==
          "recorded on xeon-e5-2690v2 (--recorded-on), co-run 650 permille (cost profile xeon-e5-2690v2)");
  }

  // -t alone, naming a machine with twice the CPUs: its siblings (c and c+40) are not the
  // recording's, nothing is normalised, and a note says so.
  driver::RunRequest wrong = request("xeon-gold-6248", {});
  wrong.input = path;
  wrong.smt_normalize = true;
  const driver::RunOutcome w = driver::execute_run(wrong);
  CHECK(std::any_of(w.notes.begin(), w.notes.end(),
                    [](const std::string& n) { return n.find("nothing was normalised") != std::string::npos; }));
  CHECK(std::any_of(w.notes.begin(), w.notes.end(),
                    [](const std::string& n) { return n.find("header says 40 CPUs were online") != std::string::npos; }));

  driver::RunRequest bad = request(nosmt, {});
  bad.input = path;
  // Without --recorded-on the recording machine is -t, which has no SMT: refused.
  bad.smt_normalize = true;
  CHECK_THROWS_WITH(driver::execute_run(bad), Catch::Contains("has no SMT siblings"));
  // A recording machine with fewer CPUs than the trace uses: refused, not half normalised.
  bad.recorded_on = "smt2x2";
  CHECK_THROWS_WITH(driver::execute_run(bad), Catch::Contains("has 4 CPUs"));
  // --recorded-on alone would change nothing: refused.
  bad.smt_normalize = false;
  bad.recorded_on = a;
  CHECK_THROWS_WITH(driver::execute_run(bad), Catch::Contains("add --smt-normalize"));
}
