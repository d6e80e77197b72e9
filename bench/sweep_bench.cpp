// Sweep throughput: points (simulations) per second with 1 and 2 jobs, through the same path as
// `schedsim sweep` (expand, run_unit on worker threads, ordered delivery), and the speedup. Also
// the process CPU time per point, so a slowdown from sharing (locks, allocator) would show as more
// CPU per point, not only as less speedup; and the load average, since other processes share the
// CPUs.
//
//   build-rel/bench/sweep_bench [--loops L] [--repeat R] [--rounds N] [--jobs J]
//
// The grid is the classic study (sis-fold-2018 / sis-fold-opt x messaging --pipe --thread at
// 1, 2, 5, 10, 20, 40 groups on xeon-e5-2690v2, jitter 5%). Each round runs the sweep with 1 job,
// then with J (default 2); the best wall time of --rounds per job count is reported.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "schedsim/sweep/executor.hpp"
#include "schedsim/sweep/spec.hpp"
#include "schedsim/driver/sweep_params.hpp"

using namespace schedsim;

namespace {

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

double loadavg() {
  double l = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &l) != 1) l = 0;
    std::fclose(f);
  }
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  int loops = 10, repeat = 2, rounds = 3;
  unsigned jobs = 2;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--loops")) loops = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--jobs")) jobs = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  sweep::Spec spec = sweep::spec_from_cli({"workload-gen=messaging --pipe --thread", "gen.loops=" + std::to_string(loops),
                                           "topology=xeon-e5-2690v2", "placement=sis-fold-2018,sis-fold-opt",
                                           "gen.group=1,2,5,10,20,40", "jitter=5%"},
                                          {});
  spec.repeat = static_cast<uint32_t>(repeat);
  std::vector<sweep::Point> points = sweep::expand(spec);
  size_t units = points.size() * spec.repeat;
  std::printf("sweep: 12 points x %d repetitions = %zu simulations per measurement, nr_loops %d, %u CPUs usable\n",
              repeat, units, loops, sweep::available_cpus());
  std::printf("load average at start: %.2f\n", loadavg());
  double best[2] = {1e30, 1e30}, cpu[2] = {0, 0};
  std::string out[2];
  for (int r = 0; r < rounds; ++r) {
    for (int k = 0; k < 2; ++k) {
      sweep::ExecuteOptions eo;
      eo.jobs = k == 0 ? 1 : jobs;
      std::string all;
      double c0 = cpu_seconds();
      auto t0 = std::chrono::steady_clock::now();
      sweep::execute_ordered(units, eo,
                             [&](size_t u) { return driver::run_unit(points[u / spec.repeat], static_cast<uint32_t>(u % spec.repeat), spec.repeat); },
                             [&](size_t, std::string&& line) { all += line; });
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      double c = cpu_seconds() - c0;
      if (secs < best[k]) {
        best[k] = secs;
        cpu[k] = c;
      }
      out[k] = std::move(all);
      std::printf("  round %d, jobs %u: %.3f s, %.2f points/s, %.1f ms CPU per point, load %.2f\n", r + 1, eo.jobs, secs,
                  static_cast<double>(units) / secs, 1000 * c / static_cast<double>(units), loadavg());
    }
  }
  std::printf("\njobs  best s   points/s  CPU ms/point\n");
  for (int k = 0; k < 2; ++k)
    std::printf("%4u  %6.3f  %9.2f  %12.1f\n", k == 0 ? 1u : jobs, best[k], static_cast<double>(units) / best[k],
                1000 * cpu[k] / static_cast<double>(units));
  std::printf("speedup with %u jobs: %.2fx; records identical: %s\n", jobs, best[0] / best[1], out[0] == out[1] ? "yes" : "NO");
  std::printf("load average at end: %.2f\n", loadavg());
  return out[0] == out[1] ? 0 : 1;
}
