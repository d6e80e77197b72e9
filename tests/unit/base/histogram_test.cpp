// Histogram percentiles against the exact nearest-rank answer of a sorted array: exact up to
// kExactLimit samples, within 1% relative error (the bucket layout guarantees 1/128) beyond.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "schedsim/base/histogram.hpp"

using schedsim::Histogram;

namespace {

// Nearest rank: the ceil(q/100 * n)-th smallest, the smallest for q = 0.
int64_t exact_percentile(std::vector<int64_t> v, double q) {
  std::sort(v.begin(), v.end());
  auto rank = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(v.size())));
  rank = std::clamp<size_t>(rank, 1, v.size());
  return v[rank - 1];
}

std::vector<int64_t> samples(std::mt19937_64& rng, int kind, size_t n) {
  std::vector<int64_t> v;
  std::uniform_int_distribution<int64_t> uni(0, 5000000);
  std::exponential_distribution<double> expo(1.0 / 20000.0);
  std::lognormal_distribution<double> logn(9.0, 2.0);
  std::uniform_int_distribution<int64_t> tiny(0, 200);
  for (size_t i = 0; i < n; ++i) {
    switch (kind) {
      case 0: v.push_back(uni(rng)); break;
      case 1: v.push_back(static_cast<int64_t>(expo(rng))); break;
      case 2: v.push_back(std::min<int64_t>(static_cast<int64_t>(logn(rng)), int64_t{1} << 50)); break;
      default: v.push_back(tiny(rng)); break;
    }
  }
  return v;
}

const double kQuantiles[] = {0, 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100};

}  // namespace

TEST_CASE("Histogram is exact up to kExactLimit samples", "[base][histogram]") {
  auto seed = GENERATE(take(20, random(0u, 0xffffffffu)));
  std::mt19937_64 rng(seed);
  int kind = static_cast<int>(seed % 4);
  auto v = samples(rng, kind, 1 + seed % Histogram::kExactLimit);
  Histogram h;
  for (int64_t x : v) h.record(x);
  REQUIRE(h.exact());
  for (double q : kQuantiles) {
    INFO("kind " << kind << " n " << v.size() << " q " << q);
    CHECK(h.percentile(q) == exact_percentile(v, q));
  }
  CHECK(h.min() == *std::min_element(v.begin(), v.end()));
  CHECK(h.max() == *std::max_element(v.begin(), v.end()));
}

TEST_CASE("Histogram stays within 1% beyond kExactLimit samples", "[base][histogram][property]") {
  auto seed = GENERATE(take(12, random(0u, 0xffffffffu)));
  std::mt19937_64 rng(seed);
  int kind = static_cast<int>(seed % 4);
  size_t n = Histogram::kExactLimit + 1 + seed % 60000;
  auto v = samples(rng, kind, n);
  Histogram h;
  for (int64_t x : v) h.record(x);
  REQUIRE_FALSE(h.exact());
  CHECK(h.count() == n);
  for (double q : kQuantiles) {
    int64_t want = exact_percentile(v, q), got = h.percentile(q);
    INFO("kind " << kind << " n " << n << " q " << q << " exact " << want << " got " << got);
    CHECK(std::abs(static_cast<double>(got - want)) <= 0.01 * static_cast<double>(want));
  }
  // min, max, mean and stddev are exact whatever the count.
  CHECK(h.min() == *std::min_element(v.begin(), v.end()));
  CHECK(h.max() == *std::max_element(v.begin(), v.end()));
  long double sum = 0, sq = 0;
  for (int64_t x : v) {
    sum += static_cast<long double>(x);
    sq += static_cast<long double>(x) * static_cast<long double>(x);
  }
  long double mean = sum / static_cast<long double>(n);
  CHECK(h.mean() == Approx(static_cast<double>(mean)).epsilon(1e-12));
  CHECK(h.stddev() == Approx(static_cast<double>(std::sqrt(sq / static_cast<long double>(n) - mean * mean))).epsilon(1e-6));
}

TEST_CASE("Histogram merge equals recording everything in one", "[base][histogram]") {
  std::mt19937_64 rng(7);
  for (size_t split : {size_t{10}, size_t{3000}, size_t{9000}}) {
    auto a = samples(rng, 1, split), b = samples(rng, 2, 3000);
    Histogram ha, hb, all;
    for (int64_t x : a) {
      ha.record(x);
      all.record(x);
    }
    for (int64_t x : b) {
      hb.record(x);
      all.record(x);
    }
    ha.merge(hb);
    CHECK(ha.count() == all.count());
    CHECK(ha.exact() == all.exact());
    for (double q : kQuantiles) CHECK(ha.percentile(q) == all.percentile(q));
    CHECK(ha.mean() == Approx(all.mean()));
  }
}

TEST_CASE("Histogram edge cases", "[base][histogram]") {
  Histogram h;
  CHECK(h.empty());
  CHECK(h.percentile(50) == 0);
  CHECK(h.mean() == 0.0);
  h.record(-5);  // clamped to 0
  CHECK(h.min() == 0);
  CHECK(h.percentile(100) == 0);
  // Bucket layout: exact below 128, then 64 sub-buckets per power of two.
  CHECK(Histogram::bucket_index(127) == 127);
  CHECK(Histogram::bucket_index(128) == 128);
  CHECK(Histogram::bucket_low(Histogram::bucket_index(1000)) <= 1000);
  CHECK(Histogram::bucket_low(Histogram::bucket_index(1000)) + Histogram::bucket_width(Histogram::bucket_index(1000)) > 1000);
  uint64_t n = 0;
  h.for_each_bucket([&](int64_t lo, int64_t hi, uint64_t c) {
    CHECK(lo == 0);
    CHECK(hi == 1);
    n += c;
  });
  CHECK(n == 1);
}
