#pragma once
/// `compare`'s options as a request, checked in one place for the command and the Python module:
/// the CompareOptions of metrics/compare.hpp and the --fail-on gates, from the values as a user
/// writes them.
#include <cstdint>
#include <string>
#include <vector>

#include "schedsim/metrics/compare.hpp"

namespace schedsim::driver {

struct CompareRequest {
  std::vector<std::string> by, ignore;  ///< each entry may be comma-separated
  bool allow_mismatch = false;
  std::string metrics;                  ///< comma-separated, "all", "" = the default set
  std::string min_effect = "1%";
  double alpha = 0.05;
  std::string correction = "holm";
  double confidence = 0.95;
  uint64_t resamples = 2000;
  uint64_t seed = 1;
  std::vector<std::string> fail_on;     ///< "METRIC>+5%" conditions
};

struct CompareSetup {
  CompareOptions options;
  std::vector<Gate> gates;
};

/// The options and gates `req` asks for. Throws InputError naming the option (--confidence,
/// --resamples, --min-effect, --fail-on, --correction) for a value out of range or malformed.
CompareSetup compare_setup(const CompareRequest& req);

/// What a comparison decided, for a caller that gates on it.
struct CompareVerdict {
  GateOutcome gates;
  /// Warnings on the inputs ("point 2: 1 run(s) did not finish ..."), for stderr.
  std::vector<std::string> warnings;
};
CompareVerdict judge(const CompareResult& c, const std::vector<Gate>& gates);

}  // namespace schedsim::driver
