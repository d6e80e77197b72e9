#pragma once
/// A log-linear latency histogram after HdrHistogram: values below 128 get exact buckets, above
/// that each power of two is split into 64 buckets, so a reported percentile is within 1/128
/// (0.78%) of the true sample. Memory is bounded (at most 3712 counters) whatever the sample
/// count. The first kExactLimit samples are also kept verbatim, so small runs report exact
/// percentiles. mean/std/min/max are always exact.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "schedsim/base/int128.hpp"

namespace schedsim {


class Histogram {
 public:
  static constexpr size_t kExactLimit = 4096;

  /// Records one non-negative value (negative values are clamped to 0).
  void record(int64_t v);
  void merge(const Histogram& o);

  uint64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  /// True while every sample is kept verbatim (percentiles are exact).
  bool exact() const { return count_ <= kExactLimit; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t max() const { return count_ ? max_ : 0; }
  double mean() const;
  /// Population standard deviation.
  double stddev() const;
  double sum() const { return static_cast<double>(sum_); }
  /// Nearest-rank percentile, q in [0, 100]: the ceil(q/100 * n)-th smallest sample (the
  /// smallest sample for q = 0). In histogram mode, the bucket midpoint clamped to [min, max].
  int64_t percentile(double q) const;

  /// Visits non-empty buckets in increasing order: [lo, hi) and count.
  void for_each_bucket(const std::function<void(int64_t lo, int64_t hi, uint64_t n)>& fn) const;

  /// The complete state in serialisable form (workload files keep observed histograms exactly).
  /// While exact(), `samples` holds every sample and the other fields are derived from them;
  /// otherwise `buckets` holds (bucket low value, count) for each non-empty bucket.
  struct State {
    uint64_t count = 0;
    int64_t min = 0, max = 0;
    std::string sum;     ///< exact sum, decimal (it may exceed int64)
    std::string sum_sq;  ///< sum of squares, decimal with enough digits to round-trip
    std::vector<int64_t> samples;
    std::vector<std::pair<int64_t, uint64_t>> buckets;
  };
  State state() const;
  /// Rebuilds a histogram from state(); returns false (leaving *out untouched) and sets *error
  /// when the state is inconsistent (counts that do not add up, unknown bucket bounds, ...).
  static bool from_state(const State& s, Histogram* out, std::string* error);

  static size_t bucket_index(uint64_t v);
  static int64_t bucket_low(size_t idx);
  static int64_t bucket_width(size_t idx);

 private:
  std::vector<uint64_t> buckets_;
  std::vector<int64_t> samples_;  // first kExactLimit samples, unsorted
  uint64_t count_ = 0;
  Int128 sum_ = 0;  // exact for any realistic sample count
  long double sum_sq_ = 0;
  int64_t min_ = 0, max_ = 0;
};

}  // namespace schedsim
