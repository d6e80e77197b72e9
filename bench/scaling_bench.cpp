// Cost per wakeup against machine size and task count, and the memory of the per-CPU tables.
//
//   scaling_bench [--kernel 4.17] [--messages 400000] [--groups 1,2,5,10,20,40]
//                 [--presets smp2,smt2x2,...] [--memory-only]
//
// 1. `messaging --pipe --thread --group G` on presets from 2 to 1024 CPUs; nr_loops is chosen so
//    every point sends about the same number of messages (--messages), so rows compare the cost
//    of one wakeup, not the size of the run. CPU time of the thread in Simulation::run() alone
//    (setup is a separate column; CPU time, not wall, because the machine is shared), no
//    observers, one repetition. Per message: each message is one wake action; most find the
//    reader still runnable and bank a token, the rest are real wakeups (a blocked task made
//    runnable, one placement decision each). Columns: CPU ns per wake action (the cost per
//    message, comparable across rows), per real wakeup, and per event.
// 2. Heap bytes (glibc mallinfo2, exact, not RSS) and CPU time of Topology::build (the
//    sched-domain tables: one span mask per domain and one group list per domain, referenced
//    from every CPU) and of a Simulation's setup (SchedState and the engine's per-CPU state) for
//    regular 2-socket machines of 256 to 4096 CPUs.
#include <malloc.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "schedsim/driver/run.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/generators.hpp"

using namespace schedsim;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t c = s.find(',', pos);
    if (c == std::string::npos) c = s.size();
    if (c > pos) out.push_back(s.substr(pos, c - pos));
    pos = c + 1;
  }
  return out;
}

double cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

size_t heap_in_use() { return mallinfo2().uordblks; }

double mb(size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

void memory_table() {
  std::printf("\nheap of the per-CPU tables (mallinfo2 delta; 2 sockets x N/4 cores x 2 threads, 64-CPU LLCs)\n");
  std::printf("%-6s %8s %14s %14s %10s %16s %14s\n", "CPUs", "levels", "topology MB", "bytes/CPU", "build ms",
              "simulation MB", "bytes/CPU");
  Workload one = generate_workload_from_spec("messaging --group 1 --nr_loops 1 --pipe --thread");
  for (uint32_t cpus : {256u, 1024u, 2048u, 4096u}) {
    RegularMachine m;
    m.name = "scale-" + std::to_string(cpus);
    m.packages = 2;
    m.cores_per_package = cpus / 4;
    m.threads = 2;
    m.llcs_per_package = cpus / 128;
    m.remote_distance = 32;
    MachineSpec spec = make_regular_machine(m);
    size_t h0 = heap_in_use();
    double t0 = cpu_ms();
    auto topo = std::make_unique<Topology>(Topology::build(spec));
    double build_ms = cpu_ms() - t0;
    size_t h1 = heap_in_use();
    RunConfig rc;
    auto sim = std::make_unique<Simulation>(one, *topo, driver::build_policy_stack("6.12", {}, {}, rc), CostModel{},
                                            SimConfig{});
    size_t h2 = heap_in_use();
    std::printf("%-6u %8zu %14.1f %14.0f %10.1f %16.1f %14.0f\n", cpus, topo->levels().size(), mb(h1 - h0),
                static_cast<double>(h1 - h0) / cpus, build_ms, mb(h2 - h1), static_cast<double>(h2 - h1) / cpus);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string kernel = "4.17";
  std::string groups_arg = "1,2,5,10,20,40";
  std::string presets_arg = "smp2,smt2x2,numa2-smt2,xeon-e5-2690v2,xeon-gold-6248,epyc-milan-2s,dense-2s-1024";
  long messages = 400000;
  bool memory_only = false;
  for (int i = 1; i < argc; ++i) {
    auto val = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "scaling_bench: %s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--kernel")) kernel = val("--kernel");
    else if (!std::strcmp(argv[i], "--messages")) messages = std::atol(val("--messages"));
    else if (!std::strcmp(argv[i], "--groups")) groups_arg = val("--groups");
    else if (!std::strcmp(argv[i], "--presets")) presets_arg = val("--presets");
    else if (!std::strcmp(argv[i], "--memory-only")) memory_only = true;
    else {
      std::fprintf(stderr, "usage: scaling_bench [--kernel K] [--messages N] [--groups 1,2] [--presets a,b] "
                           "[--memory-only]\n");
      return 2;
    }
  }
  if (!memory_only) {
    std::printf("messaging --pipe --thread, ~%ld messages per point, --kernel %s; CPU time of Simulation::run()\n",
                messages, kernel.c_str());
    std::printf("%-15s %5s %6s %5s %6s %8s %8s %9s %8s %9s %8s %8s\n", "preset", "CPUs", "groups", "tasks", "loops",
                "setup ms", "run ms", "wake acts", "wakeups", "ns/wk act", "ns/wkup", "ns/event");
    for (const auto& preset : split(presets_arg)) {
      Topology topo = load_topology(preset);
      for (const auto& g : split(groups_arg)) {
        int groups = std::atoi(g.c_str());
        long loops = std::max(1L, messages / (groups * 400L));
        Workload w = generate_workload_from_spec("messaging --pipe --thread --group " + std::to_string(groups) +
                                                 " --nr_loops " + std::to_string(loops));
        const uint64_t wake_acts = w.expanded_action_counts()[static_cast<size_t>(ActionKind::kWake)];
        RunConfig rc;
        double t0 = cpu_ms();
        Simulation sim(w, topo, driver::build_policy_stack(kernel, {}, {}, rc), CostModel{}, SimConfig{});
        double t1 = cpu_ms();
        SimSummary sum = sim.run();
        double t2 = cpu_ms();
        double setup = t1 - t0, run = t2 - t1;
        std::printf("%-15s %5u %6d %5zu %6ld %8.2f %8.1f %9llu %8llu %9.1f %8.0f %8.1f%s\n", preset.c_str(),
                    topo.nr_cpus(), groups, w.tasks.size(), loops, setup, run,
                    static_cast<unsigned long long>(wake_acts), static_cast<unsigned long long>(sum.wakeups),
                    run * 1e6 / static_cast<double>(wake_acts), run * 1e6 / static_cast<double>(sum.wakeups),
                    run * 1e6 / static_cast<double>(sum.events), sum.complete ? "" : "  (incomplete!)");
        std::fflush(stdout);
      }
    }
  }
  memory_table();
  return 0;
}
