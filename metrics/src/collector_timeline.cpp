// MetricsCollector's per-CPU utilization timeline: busy time in at most kTimelineBuckets
// buckets whose width doubles as the run grows (collector.hpp, "utilization tl").
#include "schedsim/metrics/collector.hpp"

#include <algorithm>

namespace schedsim {

void MetricsCollector::grow_timeline(Instant to) {
  // Doubling the bucket width merges bucket pairs: memory stays kTimelineBuckets per CPU.
  while ((to - tl_start_).count() > tl_width_ * static_cast<int64_t>(kTimelineBuckets)) {
    for (auto& row : tl_busy_) {
      for (size_t b = 0; b < kTimelineBuckets / 2; ++b) row[b] = row[2 * b] + row[2 * b + 1];
      std::fill(row.begin() + kTimelineBuckets / 2, row.end(), 0);
    }
    tl_width_ *= 2;
  }
}

void MetricsCollector::account_busy(uint32_t cpu, Instant from, Instant to) {
  if (from < tl_start_) from = tl_start_;
  if (to <= from) return;
  grow_timeline(to);
  std::vector<int64_t>& row = tl_busy_[cpu];
  int64_t a = (from - tl_start_).count(), b = (to - tl_start_).count();
  while (a < b) {
    int64_t bucket = a / tl_width_;
    int64_t edge = std::min(b, (bucket + 1) * tl_width_);
    row[static_cast<size_t>(std::min<int64_t>(bucket, kTimelineBuckets - 1))] += edge - a;
    a = edge;
  }
}

}  // namespace schedsim
