#include "schedsim/base/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace schedsim {

// Bucket layout: index v for v < 128; for v >= 128 with msb m (>= 7), shift s = m - 6 puts
// v >> s in [64, 127], and index = 128 + (s - 1) * 64 + ((v >> s) - 64).
size_t Histogram::bucket_index(uint64_t v) {
  if (v < 128) return static_cast<size_t>(v);
  unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(v));
  unsigned s = msb - 6;
  return 128 + (s - 1) * 64 + static_cast<size_t>((v >> s) - 64);
}

int64_t Histogram::bucket_low(size_t idx) {
  if (idx < 128) return static_cast<int64_t>(idx);
  size_t s = (idx - 128) / 64 + 1;
  uint64_t sub = (idx - 128) % 64 + 64;
  return static_cast<int64_t>(sub << s);
}

int64_t Histogram::bucket_width(size_t idx) {
  if (idx < 128) return 1;
  return int64_t{1} << ((idx - 128) / 64 + 1);
}

void Histogram::record(int64_t v) {
  if (v < 0) v = 0;
  size_t idx = bucket_index(static_cast<uint64_t>(v));
  if (idx >= buckets_.size()) buckets_.resize(idx + 1, 0);
  ++buckets_[idx];
  if (count_ < kExactLimit) samples_.push_back(v);
  if (count_ == 0 || v < min_) min_ = v;
  if (count_ == 0 || v > max_) max_ = v;
  ++count_;
  sum_ += v;
  sum_sq_ += static_cast<long double>(v) * static_cast<long double>(v);
}

void Histogram::merge(const Histogram& o) {
  if (o.count_ == 0) return;
  if (o.buckets_.size() > buckets_.size()) buckets_.resize(o.buckets_.size(), 0);
  for (size_t i = 0; i < o.buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
  if (count_ + o.count_ <= kExactLimit)
    samples_.insert(samples_.end(), o.samples_.begin(), o.samples_.end());
  else
    samples_.clear();
  min_ = count_ ? std::min(min_, o.min_) : o.min_;
  max_ = count_ ? std::max(max_, o.max_) : o.max_;
  count_ += o.count_;
  sum_ += o.sum_;
  sum_sq_ += o.sum_sq_;
}

double Histogram::mean() const {
  return count_ ? static_cast<double>(static_cast<long double>(sum_) / static_cast<long double>(count_)) : 0.0;
}

double Histogram::stddev() const {
  if (count_ == 0) return 0.0;
  long double n = static_cast<long double>(count_);
  long double m = static_cast<long double>(sum_) / n;
  long double var = sum_sq_ / n - m * m;
  return var > 0 ? static_cast<double>(std::sqrt(var)) : 0.0;
}

int64_t Histogram::percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 100.0);
  uint64_t rank = static_cast<uint64_t>(std::ceil(q / 100.0 * static_cast<double>(count_)));
  if (rank < 1) rank = 1;
  if (rank > count_) rank = count_;
  if (exact()) {
    std::vector<int64_t> s = samples_;
    std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(rank - 1), s.end());
    return s[rank - 1];
  }
  uint64_t seen = 0;
  for (size_t i = 0; i < buckets_.size(); ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      int64_t mid = bucket_low(i) + bucket_width(i) / 2;
      if (bucket_width(i) == 1) mid = bucket_low(i);
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

void Histogram::for_each_bucket(
    const std::function<void(int64_t lo, int64_t hi, uint64_t n)>& fn) const {
  for (size_t i = 0; i < buckets_.size(); ++i)
    if (buckets_[i]) fn(bucket_low(i), bucket_low(i) + bucket_width(i), buckets_[i]);
}

namespace {
std::string int128_to_string(Int128 v) {
  if (v == 0) return "0";
  bool neg = v < 0;
  std::string out;
  while (v != 0) {
    int digit = static_cast<int>(v % 10);
    out.push_back(static_cast<char>('0' + (digit < 0 ? -digit : digit)));
    v /= 10;
  }
  if (neg) out.push_back('-');
  return std::string(out.rbegin(), out.rend());
}

bool string_to_int128(const std::string& s, Int128* out) {
  if (s.empty()) return false;
  size_t i = 0;
  bool neg = false;
  if (s[0] == '-') {
    neg = true;
    i = 1;
  }
  if (i >= s.size()) return false;
  Int128 v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    if (v > (Int128{1} << 120)) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = neg ? -v : v;
  return true;
}
}  // namespace

Histogram::State Histogram::state() const {
  State s;
  s.count = count_;
  s.min = min();
  s.max = max();
  s.sum = int128_to_string(sum_);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.21Lg", sum_sq_);
  s.sum_sq = buf;
  if (exact()) {
    s.samples.assign(samples_.begin(), samples_.begin() + static_cast<std::ptrdiff_t>(count_));
  } else {
    for (size_t i = 0; i < buckets_.size(); ++i)
      if (buckets_[i]) s.buckets.emplace_back(bucket_low(i), buckets_[i]);
  }
  return s;
}

bool Histogram::from_state(const State& s, Histogram* out, std::string* error) {
  auto fail = [&](const std::string& msg) {
    if (error) *error = msg;
    return false;
  };
  Histogram h;
  if (!s.buckets.empty() && !s.samples.empty()) return fail("give either samples or buckets, not both");
  if (s.buckets.empty()) {
    if (s.samples.size() > kExactLimit && s.count != s.samples.size())
      return fail("count does not match the number of samples");
    for (int64_t v : s.samples) {
      if (v < 0) return fail("negative sample");
      h.record(v);
    }
    *out = std::move(h);
    return true;
  }
  uint64_t total = 0;
  for (const auto& [lo, n] : s.buckets) {
    if (lo < 0) return fail("negative bucket bound");
    size_t idx = bucket_index(static_cast<uint64_t>(lo));
    if (bucket_low(idx) != lo) return fail("bucket bound " + std::to_string(lo) + " is not a bucket boundary");
    if (n == 0) continue;
    if (idx >= h.buckets_.size()) h.buckets_.resize(idx + 1, 0);
    h.buckets_[idx] += n;
    total += n;
  }
  if (total != s.count) return fail("bucket counts add up to " + std::to_string(total) + ", not count " + std::to_string(s.count));
  if (s.count <= kExactLimit) return fail("a histogram of at most " + std::to_string(kExactLimit) + " samples must list them as samples");
  if (s.min < 0 || s.max < s.min) return fail("min/max out of order");
  if (!string_to_int128(s.sum, &h.sum_)) return fail("sum '" + s.sum + "' is not an integer");
  char* end = nullptr;
  h.sum_sq_ = std::strtold(s.sum_sq.c_str(), &end);
  if (s.sum_sq.empty() || end != s.sum_sq.c_str() + s.sum_sq.size() || h.sum_sq_ < 0)
    return fail("sum_sq '" + s.sum_sq + "' is not a non-negative number");
  h.count_ = s.count;
  h.min_ = s.min;
  h.max_ = s.max;
  *out = std::move(h);
  return true;
}

}  // namespace schedsim
