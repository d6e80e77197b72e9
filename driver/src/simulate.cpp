#include "schedsim/driver/simulate.hpp"

#include <utility>

namespace schedsim::driver {

namespace {

ProgressReporter::Mode progress_mode(const std::string& p) {
  return p == "always" ? ProgressReporter::Mode::kAlways
         : p == "never" ? ProgressReporter::Mode::kNever
                        : ProgressReporter::Mode::kAuto;
}

}  // namespace

MeteredRun::MeteredRun(const Workload& w, const Topology& t, PolicyStack p, const CostModel& c, const SimConfig& s,
                       const std::string& progress, std::function<void(Instant)> poll)
    : sim_(w, t, std::move(p), c, s), metrics_(w), progress_(progress_mode(progress)), poll_(std::move(poll)) {
  sim_.add_observer(&metrics_);
  sim_.add_observer(&progress_);
  // The engine polls the progress reporter, which polls the caller (signals, memory budget).
  sim_.set_poll([this](Instant at, uint64_t events) { progress_.poll(at, events); });
  progress_.set_poll([this](Instant at) {
    if (poll_) poll_(at);
  });
  if (const auto total = static_cast<double>(w.total_work(/*measured_only=*/true).count()); total > 0)
    progress_.set_fraction([this, total] { return static_cast<double>(metrics_.work_done_ns()) / total; });
}

}  // namespace schedsim::driver
