// The simulated schedule written as ftrace text (what Perfetto opens) must re-import through our
// own trace importer to the same schedule: the same tasks, each with the same on-CPU time, the
// same number of switches and wakeups, the same wakeup latencies (ns timestamps, so exact).
// Costs are zeroed so that on-CPU time equals the work the programs asked for.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "schedsim/driver/run.hpp"
#include "schedsim/traces/import.hpp"

using namespace schedsim;

namespace {

std::vector<std::string> zero_costs() {
  return {"context_switch=0", "ipi_same_package=0", "ipi_cross_package=0", "idle_exit=0",
          "probe_cpu=0",      "probe_core_cpu=0",   "refill_smt=0",        "refill_cluster=0",
          "refill_llc=0",     "refill_package=0",   "refill_numa=0"};
}

struct Roundtrip {
  driver::RunOutcome sim;
  Workload back;
  traces::ImportReport report;
};

Roundtrip roundtrip(driver::RunRequest req, const std::string& name) {
  req.costs = zero_costs();
  req.trace_out = (std::filesystem::temp_directory_path() / (name + ".ftrace.txt")).string();
  req.progress = "never";
  Roundtrip r;
  r.sim = driver::execute_run(req);
  REQUIRE(r.sim.trace_file);  // streamed to a file, complete but not yet renamed into place
  r.sim.trace_file->commit();
  r.back = traces::import_trace(req.trace_out, traces::ExtractOptions{}, &r.report);
  std::filesystem::remove(req.trace_out);
  return r;
}

void check_same_schedule(const Roundtrip& r) {
  const RunResults& res = r.sim.results;
  REQUIRE(r.back.observed.present);
  // Every simulated task comes back, with its on-CPU time as its run() total.
  std::map<std::string, int64_t> sim_runtime, back_runtime;
  for (const auto& t : res.tasks_detail) sim_runtime[t.name + "/" + std::to_string(t.id)] += t.runtime_ns;
  int64_t sim_total = 0;
  for (const auto& t : res.tasks_detail) sim_total += t.runtime_ns;
  CHECK(r.back.observed.total_runtime.count() == sim_total);
  CHECK(r.back.total_work().count() == sim_total);
  CHECK(r.back.tasks.size() == res.tasks);
  // Switch-ins and wakeups, and the wakeup latency distribution, exactly.
  CHECK(r.back.observed.context_switches == res.context_switches);
  CHECK(r.back.observed.wakeup_latency.count() == res.wakeup_latency.count);
  CHECK(r.back.observed.wakeup_latency.percentile(50) == res.wakeup_latency.p50);
  CHECK(r.back.observed.wakeup_latency.percentile(99) == res.wakeup_latency.p99);
  CHECK(r.back.observed.wakeup_latency.max() == res.wakeup_latency.max);
  // One definition of a migration on both sides: a task next runs on another CPU (what
  // sched_switch shows, like perf sched), so the replayed trace's count is the run's own.
  CHECK(r.back.observed.migrations == res.migrations_total);
  CHECK(r.report.repairs_total() == 0);
}

}  // namespace

TEST_CASE("a simulated ping-pong re-imports to the same schedule", "[cli][roundtrip]") {
  driver::RunRequest req;
  req.input = std::string(SCHEDSIM_SOURCE_DIR) + "/examples/pingpong.json";
  req.topology = "smt2x2";
  Roundtrip r = roundtrip(req, "schedsim-rt-pingpong");
  check_same_schedule(r);
}

TEST_CASE("a simulated hackbench re-imports to the same schedule", "[cli][roundtrip]") {
  driver::RunRequest req;
  req.workload_gen = "messaging --group 1 --nr_loops 5 --pipe --thread";
  req.topology = "llc2-smt2";
  req.kernel = "6.6";
  Roundtrip r = roundtrip(req, "schedsim-rt-messaging");
  check_same_schedule(r);
}
