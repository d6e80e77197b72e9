#pragma once
// A `run --workload-gen GEN -t smp2 --format json` request for the cli tests: quiet (no progress),
// no memory limit (the tests run in parallel).
#include <string>

#include "schedsim/driver/run.hpp"

namespace cli_test {

inline schedsim::driver::RunRequest gen_request(const std::string& gen) {
  schedsim::driver::RunRequest req;
  req.workload_gen = gen;
  req.topology = "smp2";
  req.progress = "never";
  req.max_memory = "none";
  req.format = "json";
  return req;
}

}  // namespace cli_test
