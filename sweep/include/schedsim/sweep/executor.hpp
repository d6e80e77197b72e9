#pragma once
/// Runs a sweep's units on a pool of threads and hands their results to a sink in unit order,
/// whatever order they complete in, so the output is byte-identical for any number of jobs.
/// Each unit runs on one thread (a simulation is single-threaded); `work` must be safe to call
/// from several threads at once (execute_run is: it shares only immutable registries and the
/// thread-safe loggers).
#include <cstddef>
#include <functional>
#include <string>

namespace schedsim::sweep {

struct ExecuteOptions {
  unsigned jobs = 1;
  /// Called on the calling thread after each delivered unit (progress display).
  std::function<void(size_t delivered)> on_progress;
};

/// Runs work(i) for i in [0, count) on `jobs` threads, delivering sink(i, result) in increasing
/// i on the calling thread. Units are started in order; at most 64 x jobs results wait for
/// an earlier one. If work(i) throws, no unit after i is started, units before i are still
/// delivered, and the exception is rethrown once they are.
void execute_ordered(size_t count, const ExecuteOptions& opts, const std::function<std::string(size_t)>& work,
                     const std::function<void(size_t, std::string&&)>& sink);

/// The number of CPUs this process may run on (sched_getaffinity), at least 1.
unsigned available_cpus();

}  // namespace schedsim::sweep
