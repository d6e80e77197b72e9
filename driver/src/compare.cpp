#include "schedsim/driver/compare.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/driver/inputs.hpp"

namespace schedsim::driver {

namespace {

std::vector<std::string> split_list(const std::vector<std::string>& in) {
  std::vector<std::string> out;
  for (const auto& s : in) {
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t c = s.find(',', pos);
      std::string part = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
      if (!part.empty()) out.push_back(part);
      if (c == std::string::npos) break;
      pos = c + 1;
    }
  }
  return out;
}

}  // namespace

CompareSetup compare_setup(const CompareRequest& req) {
  CompareSetup s;
  CompareOptions& o = s.options;
  o.by = split_list(req.by);
  o.ignore = split_list(req.ignore);
  o.allow_mismatch = req.allow_mismatch;
  if (!req.metrics.empty()) o.metrics = split_list({req.metrics});
  o.min_effect = parse_fraction(req.min_effect, "--min-effect");
  o.alpha = req.alpha;
  o.correction = req.correction;
  o.confidence = req.confidence;
  if (!(o.confidence > 0 && o.confidence < 1)) throw InputError(SourceLoc{"--confidence"}, "expected a level in (0, 1)");
  // The interval's ends settle long before 10^6 resamples; more would only hold 8 bytes each per
  // metric in memory (10^19 asked for 10^20 bytes and aborted).
  if (req.resamples < 100 || req.resamples > 1000000)
    throw InputError(SourceLoc{"--resamples"}, "expected 100 to 1000000, got " + std::to_string(req.resamples));
  o.resamples = req.resamples;
  o.seed = req.seed;
  for (const auto& text : req.fail_on) {
    s.gates.push_back(parse_gate(text));
    const std::string& metric = s.gates.back().metric;
    // A gated metric is always compared: named beside an explicit list, and with the default set
    // compared beside it (and, benchmark_time, must then be in every record: compare_records).
    if (!o.metrics.empty() && o.metrics != std::vector<std::string>{"all"} &&
        std::find(o.metrics.begin(), o.metrics.end(), metric) == o.metrics.end())
      o.metrics.push_back(metric);
    if (std::find(o.gated.begin(), o.gated.end(), metric) == o.gated.end()) o.gated.push_back(metric);
  }
  return s;
}

CompareVerdict judge(const CompareResult& c, const std::vector<Gate>& gates) {
  CompareVerdict v;
  // A point whose runs did not finish, or came with a warning, is said beside the verdict as well
  // as in the rendering: with -o the table goes to a file nobody reads before trusting the exit
  // code (and the CSV rendering has no notes at all).
  for (size_t pi = 0; pi < c.points.size(); ++pi)
    if (!c.points[pi].incomplete.empty())
      v.warnings.push_back(fmt::format("point {}: {} run(s) did not finish (\"complete\": false), first {}: their "
                                       "metrics cover only the simulated part",
                                       pi + 1, c.points[pi].incomplete.size(), c.points[pi].incomplete.front()));
  for (size_t pi = 0; pi < c.points.size(); ++pi)
    for (const auto& w : c.points[pi].warned) v.warnings.push_back(fmt::format("point {}: {}", pi + 1, log::brief(w)));
  v.gates = evaluate_gates(c, gates);
  return v;
}

}  // namespace schedsim::driver
