// Ordered parallel execution: a shared "next unit" counter, results parked in a map until their
// turn, the calling thread writing them out in order.
#include "schedsim/sweep/executor.hpp"

#include <sched.h>

#include "schedsim/base/run_control.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace schedsim::sweep {

unsigned available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return static_cast<unsigned>(n);
  }
  unsigned hc = std::thread::hardware_concurrency();
  return hc ? hc : 1;
}

unsigned max_jobs() { return kMaxJobsPerCpu * available_cpus(); }

unsigned threads_for(unsigned requested, size_t count) {
  size_t n = std::min<size_t>({std::max(requested, 1u), count, max_jobs()});
  return static_cast<unsigned>(std::max<size_t>(n, 1));
}

std::string jobs_cap_note(unsigned requested) {
  if (requested <= max_jobs()) return "";
  return "schedsim: note: --jobs " + std::to_string(requested) + ": at most " + std::to_string(max_jobs()) +
         " simulations run at once (" + std::to_string(kMaxJobsPerCpu) + " per CPU this process may use)\n";
}

void execute_ordered(size_t count, const ExecuteOptions& opts, const std::function<std::string(size_t)>& work,
                     const std::function<void(size_t, std::string&&)>& sink) {
  std::mutex mu;
  std::condition_variable cv_done;   // a result arrived
  std::condition_variable cv_room;   // the window moved
  std::map<size_t, std::string> ready;
  size_t next_start = 0;             // next unit to start
  size_t delivered = 0;              // units handed to the sink
  size_t failed_at = count;          // first unit that threw
  std::exception_ptr error;
  bool abort = false;                // the sink threw: stop everything
  const unsigned jobs = threads_for(opts.jobs, count);
  // Bounds the parked results (a record is ~10 kB) while letting the other workers run ahead of
  // one slow unit (a 40-group point takes ~10x a 1-group one).
  const size_t window = 64 * static_cast<size_t>(jobs);

  auto worker = [&] {
    for (;;) {
      size_t i;
      {
        std::unique_lock lk(mu);
        cv_room.wait(lk, [&] { return abort || next_start >= count || next_start >= failed_at || next_start < delivered + window; });
        if (abort || next_start >= count || next_start >= failed_at) return;
        i = next_start++;
      }
      std::string out;
      std::exception_ptr ep;
      try {
        out = work(i);
      } catch (...) {
        ep = std::current_exception();
      }
      std::lock_guard lk(mu);
      if (ep) {
        if (i < failed_at) {
          failed_at = i;
          error = ep;
        }
      } else {
        ready.emplace(i, std::move(out));
      }
      cv_done.notify_all();
      cv_room.notify_all();
    }
  };

  std::vector<std::thread> threads;
  threads.reserve(jobs);
  // The system may refuse a thread (RLIMIT_NPROC, memory for stacks): run on those created.
  for (unsigned t = 0; t < jobs; ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error& e) {
      if (threads.empty()) throw ResourceError(std::string("cannot start a simulation thread: ") + e.what());
      break;
    }
  }
  try {
    for (;;) {
      std::string out;
      size_t i;
      {
        std::unique_lock lk(mu);
        cv_done.wait(lk, [&] { return delivered >= count || delivered >= failed_at || ready.count(delivered); });
        if (delivered >= count || delivered >= failed_at) break;
        auto it = ready.find(delivered);
        out = std::move(it->second);
        ready.erase(it);
        i = delivered;
      }
      sink(i, std::move(out));
      {
        std::lock_guard lk(mu);
        ++delivered;
      }
      cv_room.notify_all();
      if (opts.on_progress) opts.on_progress(i + 1);
    }
  } catch (...) {
    {
      std::lock_guard lk(mu);
      abort = true;
    }
    cv_room.notify_all();
    for (auto& t : threads) t.join();
    throw;
  }
  for (auto& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace schedsim::sweep
