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

/// Runs work(i) for i in [0, count) on threads_for(jobs, count) threads (fewer if the system
/// refuses to create more; none created is a ResourceError), delivering sink(i, result) in increasing
/// i on the calling thread. Units are started in order; at most 64 x jobs results wait for
/// an earlier one. If work(i) throws, no unit after i is started, units before i are still
/// delivered, and the exception is rethrown once they are.
void execute_ordered(size_t count, const ExecuteOptions& opts, const std::function<std::string(size_t)>& work,
                     const std::function<void(size_t, std::string&&)>& sink);

/// The number of CPUs this process may run on (sched_getaffinity), at least 1.
unsigned available_cpus();

/// More simulation threads than this per usable CPU only add memory (each holds a whole
/// simulation) and scheduling overhead: a simulation never blocks.
constexpr unsigned kMaxJobsPerCpu = 4;
/// The most threads --jobs may start: kMaxJobsPerCpu x available_cpus().
unsigned max_jobs();
/// The threads execute_ordered starts for `requested` jobs and `count` units: at least 1, at
/// most `requested`, `count` and max_jobs().
unsigned threads_for(unsigned requested, size_t count);
/// The note a command prints when --jobs asks for more than max_jobs(), "" otherwise.
std::string jobs_cap_note(unsigned requested);

}  // namespace schedsim::sweep
