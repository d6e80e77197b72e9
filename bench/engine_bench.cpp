// Engine throughput: simulated events and wakeups per second of wall time on one core, for a
// hackbench-sized workload on the 40-CPU preset, with baseline modules and with the 6.12 kernel
// profile; the heap bytes each workload holds per stored action (mallinfo2 around its
// construction), and the process's peak RSS.
//
//   build-rel/bench/engine_bench [--groups G] [--loops L] [--reps N]
//
// Each configuration runs --reps times; the median CPU time of run() is reported. Results are printed as
// a table; bench/README.md records them with the command.
#include <malloc.h>
#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "schedsim/driver/run.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/generators.hpp"

using namespace schedsim;

namespace {
// The thread's CPU time: the machine is shared, so wall time would count other processes' turns.
double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}
long peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}
}  // namespace

int main(int argc, char** argv) {
  int groups = 10, loops = 1000, reps = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--groups")) groups = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--loops")) loops = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reps")) reps = std::atoi(argv[i + 1]);
  }
  long rss0 = peak_rss_kb();
  // Heap bytes each workload holds (glibc mallinfo2: bytes in use, exact), measured around its
  // construction alone: the "bytes per stored action" figure divides only its own memory.
  const size_t heap0 = mallinfo2().uordblks;
  Workload w = generate_workload_from_spec("messaging --group " + std::to_string(groups) + " --nr_loops " +
                                           std::to_string(loops) + " --pipe");
  const size_t heap_w = mallinfo2().uordblks - heap0;
  // 200 ping-pong pairs (400 tasks, like the messaging run): every wake is a real wakeup.
  const size_t heap1 = mallinfo2().uordblks;
  Workload pairs;
  pairs.name = "pingpong-pairs";
  for (uint32_t i = 0; i < 200; ++i) {
    TaskId a(2 * i), b(2 * i + 1);
    TaskSpec ta, tb;
    ta.name = "ping";
    tb.name = "pong";
    ta.program = {Action::run(Duration::us(2)), Action::wake(b, kWakeSync), Action::block(),
                  Action::loop(3, loops * 10 - 1)};
    tb.program = {Action::block(), Action::run(Duration::us(2)), Action::wake(a, kWakeSync),
                  Action::loop(3, loops * 10 - 1)};
    pairs.add_task(ta);
    pairs.add_task(tb);
  }
  const size_t heap_pairs = mallinfo2().uordblks - heap1;
  uint64_t actions = 0;
  for (uint64_t c : w.expanded_action_counts()) actions += c;
  size_t stored = 0;
  for (const auto& t : w.tasks) stored += t.program.size();
  Topology topo = load_topology("xeon-e5-2690v2");

  struct Config {
    const char* name;
    std::string kernel;
    std::map<std::string, std::string> modules;
  };
  std::vector<Config> configs = {
      {"baseline (first-idle, off, none, fifo, none)", "",
       {{"placement", "first-idle"}, {"idle-cores", "off"}, {"util", "none"}, {"queue", "fifo"}, {"balance", "none"}}},
      {"baseline + cfs + newidle", "",
       {{"placement", "first-idle"}, {"idle-cores", "off"}, {"util", "none"}, {"queue", "cfs"}, {"balance", "newidle"}}},
      {"kernel 6.12 profile", "6.12", {}},
  };
  std::printf("workload: messaging --group %d --nr_loops %d --pipe: %zu tasks, %llu actions expanded, %zu stored\n",
              groups, loops, w.tasks.size(), static_cast<unsigned long long>(actions), stored);
  std::printf("topology: xeon-e5-2690v2 (40 CPUs); median CPU time of run() over %d runs\n\n", reps);
  std::printf("%-46s %10s %12s %14s %14s %14s\n", "configuration", "CPU ms", "events", "events/s", "wakeups/s",
              "wake acts/s");
  for (const Workload* wl : {&w, &pairs}) {
  uint64_t wake_actions = wl->expanded_action_counts()[static_cast<size_t>(ActionKind::kWake)];
  std::printf("%s\n", wl == &w ? "-- messaging (most wakes bank a token: the receiver has not blocked yet)"
                               : "-- 200 ping-pong pairs, 400 tasks (every wake wakes a blocked task)");
  for (const auto& c : configs) {
    std::vector<double> walls;
    SimSummary sum;
    for (int r = 0; r < reps; ++r) {
      RunConfig rc;
      PolicyStack st = driver::build_policy_stack(c.kernel, c.modules, {}, rc);
      Simulation sim(*wl, topo, std::move(st), CostModel{}, SimConfig{});
      double t0 = cpu_seconds();
      sum = sim.run();
      walls.push_back(cpu_seconds() - t0);
    }
    std::sort(walls.begin(), walls.end());
    double wall = walls[walls.size() / 2];
    std::printf("%-46s %10.1f %12llu %14.0f %14.0f %14.0f\n", c.name, wall * 1e3,
                static_cast<unsigned long long>(sum.events), static_cast<double>(sum.events) / wall,
                static_cast<double>(sum.wakeups) / wall, static_cast<double>(wake_actions) / wall);
  }
  }
  long rss = peak_rss_kb();
  size_t stored_pairs = 0;
  for (const auto& t : pairs.tasks) stored_pairs += t.program.size();
  std::printf("\nworkload heap: messaging %zu bytes for %zu tasks, %zu stored actions (%.1f bytes per stored action, "
              "%.1f per task; %.4f per executed action); ping-pong %zu bytes, %zu stored actions (%.1f per stored "
              "action)\n",
              heap_w, w.tasks.size(), stored, static_cast<double>(heap_w) / static_cast<double>(stored),
              static_cast<double>(heap_w) / static_cast<double>(w.tasks.size()),
              static_cast<double>(heap_w) / static_cast<double>(actions), heap_pairs, stored_pairs,
              static_cast<double>(heap_pairs) / static_cast<double>(stored_pairs));
  std::printf("peak RSS %ld KB (%ld KB before loading): the whole process (both workloads, the topology and the "
              "largest simulation state), not per action\n",
              rss, rss0);
  return 0;
}
