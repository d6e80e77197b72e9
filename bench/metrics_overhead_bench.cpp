// Metrics overhead: the same simulation with no observer, with the MetricsCollector (every
// metric on) plus the ProgressReporter as `schedsim run` attaches them, and additionally with the
// FtraceWriter (for information: the trace is optional output). Issue 7 target: the collector
// adds at most 15% to the run time.
//
//   build-rel/bench/metrics_overhead_bench [--groups G] [--loops L] [--reps N] [--kernel V]
//
// Each configuration runs --reps times, interleaved, and the median wall time is reported.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "schedsim/driver/run.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/metrics/ftrace_writer.hpp"
#include "schedsim/metrics/progress.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/generators.hpp"

using namespace schedsim;

int main(int argc, char** argv) {
  int groups = 10, loops = 500, reps = 5;
  std::string kernel = "6.12";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--groups")) groups = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--loops")) loops = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--kernel")) kernel = argv[i + 1];
  }
  Workload w = generate_workload_from_spec("messaging --group " + std::to_string(groups) + " --nr_loops " +
                                           std::to_string(loops) + " --pipe");
  Topology topo = load_topology("xeon-e5-2690v2");

  enum Mode { kNone, kMetrics, kMetricsTrace };
  const char* names[] = {"no observer", "metrics + progress (as `run`)", "metrics + progress + ftrace"};
  std::vector<std::vector<double>> walls(3);
  SimSummary sum;
  size_t trace_bytes = 0;
  for (int r = 0; r < reps; ++r) {
    for (int m = kNone; m <= kMetricsTrace; ++m) {
      RunConfig rc;
      PolicyStack st = driver::build_policy_stack(kernel, {}, {}, rc);
      Simulation sim(w, topo, std::move(st), CostModel{}, SimConfig{});
      MetricsCollector metrics(w);
      ProgressReporter progress;  // auto: silent when stderr is not a terminal, as in `run`
      FtraceWriter trace(w);
      if (m >= kMetrics) {
        sim.add_observer(&metrics);
        sim.add_observer(&progress);
        sim.set_poll([&progress](Instant at, uint64_t events) { progress.poll(at, events); });
      }
      if (m == kMetricsTrace) sim.add_observer(&trace);
      auto t0 = std::chrono::steady_clock::now();
      sum = sim.run();
      if (m >= kMetrics) {
        RunResults res = metrics.results(rc, &sum);  // building the results is part of the cost
        if (res.placement.wakeups != sum.wakeups) std::fprintf(stderr, "warning: wakeup counts differ\n");
      }
      auto t1 = std::chrono::steady_clock::now();
      if (m == kMetricsTrace) trace_bytes = trace.text().size();
      walls[static_cast<size_t>(m)].push_back(std::chrono::duration<double>(t1 - t0).count());
    }
  }
  std::printf("workload: messaging --group %d --nr_loops %d --pipe (%zu tasks) on xeon-e5-2690v2, kernel %s profile\n",
              groups, loops, w.tasks.size(), kernel.c_str());
  std::printf("%llu events, %llu wakeups per run; median of %d interleaved runs\n\n",
              static_cast<unsigned long long>(sum.events), static_cast<unsigned long long>(sum.wakeups), reps);
  std::printf("%-34s %10s %14s %10s\n", "configuration", "wall ms", "events/s", "overhead");
  double base = 0;
  for (int m = kNone; m <= kMetricsTrace; ++m) {
    auto& v = walls[static_cast<size_t>(m)];
    std::sort(v.begin(), v.end());
    double wall = v[v.size() / 2];
    if (m == kNone) base = wall;
    std::printf("%-34s %10.1f %14.0f %9.1f%%\n", names[m], wall * 1e3, static_cast<double>(sum.events) / wall,
                100.0 * (wall - base) / base);
  }
  std::printf("\nftrace text: %zu bytes (%.1f per event)\n", trace_bytes,
              static_cast<double>(trace_bytes) / static_cast<double>(sum.events));
  return 0;
}
