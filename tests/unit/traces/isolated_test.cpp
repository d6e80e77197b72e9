// run_isolated(): what the trace.dat reader runs libtracecmd in. A crash, an endless loop or an
// InputError in the child must each reach the parent as what it was, never as a crash or a hang.
#include <catch2/catch.hpp>

#include <csignal>
#include <string>

#include "schedsim/base/error.hpp"
#include "tracedat.hpp"

using namespace schedsim;
using namespace schedsim::traces;

TEST_CASE("run_isolated: the child's text, its InputError, its crash and its endless loop", "[traces]") {
  IsolatedResult ok = run_isolated([] { return std::string("rendered"); }, 10);
  CHECK(ok.kind == IsolatedResult::kOk);
  CHECK(ok.text == "rendered");

  IsolatedResult err = run_isolated([]() -> std::string { throw InputError("bad section"); }, 10);
  CHECK(err.kind == IsolatedResult::kInputError);
  CHECK(err.text == "bad section");

  IsolatedResult crash = run_isolated([]() -> std::string {
    std::raise(SIGSEGV);
    return "";
  }, 10);
  CHECK(crash.kind == IsolatedResult::kCrashed);
  CHECK(crash.signal == SIGSEGV);

  // A loop that never ends (as a damaged file can make a trusting library spin) is stopped by
  // the child's 1 s CPU-time limit: about one second of CPU, then SIGXCPU.
  IsolatedResult loop = run_isolated([]() -> std::string {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;
  }, 1);
  CHECK(loop.kind == IsolatedResult::kCpuLimit);
  CHECK(loop.signal == SIGXCPU);
}

TEST_CASE("tracedat_cpu_limit_seconds: 60 s plus 30 s per started MiB", "[traces]") {
  CHECK(tracedat_cpu_limit_seconds(0) == 60);
  CHECK(tracedat_cpu_limit_seconds(152 * 1024) == 90);
  CHECK(tracedat_cpu_limit_seconds(uint64_t{1} << 20) == 90);
  CHECK(tracedat_cpu_limit_seconds((uint64_t{1} << 20) + 1) == 120);
  CHECK(tracedat_cpu_limit_seconds(UINT64_MAX) == 60 + 30 * (int64_t{1} << 30));  // capped, no overflow
}
