// schedsim::stats against reference values. Unless a line says otherwise, references were computed
// offline with SciPy 1.10.1 (Debian python3-scipy, not a project dependency):
//   scipy.stats.ttest_ind(a, b, equal_var=False), mannwhitneyu(a, b, alternative='two-sided',
//   method=...), ks_2samp(a, b, method='exact'), kstwobign.sf(x), bootstrap(..., 'percentile').
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "schedsim/stats/stats.hpp"

using namespace schedsim::stats;
using Catch::Detail::Approx;

namespace {
// Two small samples with a clear shift (hand-made; 8 and 10 values, no ties).
const std::vector<double> kA = {19.1, 20.3, 18.7, 21.0, 19.9, 20.5, 19.4, 20.8};
const std::vector<double> kB = {21.2, 22.0, 20.9, 21.7, 22.5, 21.1, 20.6, 22.3, 21.8, 21.4};
}  // namespace

TEST_CASE("summarize: mean, sample std, nearest-rank percentiles") {
  // python3 statistics.mean / statistics.stdev: 19.9625, 0.8314144574157948.
  Summary s = summarize(kA);
  CHECK(s.count == 8);
  CHECK(s.mean == Approx(19.9625).epsilon(1e-12));
  CHECK(s.std == Approx(0.8314144574157948).epsilon(1e-12));
  CHECK(s.min == 18.7);
  CHECK(s.max == 21.0);
  // Nearest rank: p50 = ceil(0.5 * 8) = 4th smallest of 18.7 19.1 19.4 19.9 20.3 20.5 20.8 21.0.
  CHECK(s.p50 == 19.9);
  CHECK(s.p99 == 21.0);  // ceil(7.92) = 8th
  Summary one = summarize(std::vector<double>{5.0});
  CHECK(one.std == 0);
  CHECK(std::isnan(summarize(std::vector<double>{}).mean));
}

TEST_CASE("welch t-test matches scipy") {
  // ttest_ind(kA, kB, equal_var=False): t = -4.499825634786197 (a - b), p = 0.0006423645954056287.
  TestResult r = welch_t_test(kA, kB);
  CHECK(r.statistic == Approx(4.499825634786197).epsilon(1e-9));  // ours is mean(b) - mean(a)
  CHECK(r.p == Approx(0.0006423645954056287).epsilon(1e-6));
  CHECK(std::isnan(welch_t_test(std::vector<double>{1.0}, kB).p));
  // Zero variance on both sides: equal means -> p = 1, different -> p = 0.
  std::vector<double> c(5, 3.0), d(4, 3.0), e(4, 4.0);
  CHECK(welch_t_test(c, d).p == 1.0);
  CHECK(welch_t_test(c, e).p == 0.0);
}

TEST_CASE("mann-whitney exact, and asymptotic with ties, match scipy") {
  // mannwhitneyu(kA, kB, method='exact'): U = 3.0, p = 0.00031994149641208463.
  TestResult r = mann_whitney_u(kA, kB);
  CHECK(r.exact);
  CHECK(r.statistic == 3.0);
  CHECK(r.p == Approx(0.00031994149641208463).epsilon(1e-9));
  // Ties force the normal approximation with tie correction and continuity:
  // mannwhitneyu(c, d, method='asymptotic', use_continuity=True): U = 7.5, p = 0.006340074742489072.
  std::vector<double> c = {1, 2, 2, 3, 3, 3, 4, 5}, d = {3, 4, 4, 5, 5, 6, 6, 7, 7};
  TestResult t = mann_whitney_u(c, d);
  CHECK_FALSE(t.exact);
  CHECK(t.statistic == 7.5);
  CHECK(t.p == Approx(0.006340074742489072).epsilon(1e-9));
  // Identical samples: every value tied, p = 1.
  CHECK(mann_whitney_u(std::vector<double>(6, 1.0), std::vector<double>(6, 1.0)).p == 1.0);
}

TEST_CASE("kolmogorov-smirnov exact and asymptotic") {
  // ks_2samp(kA, kB, method='exact'): D = 0.8, p = 0.002422414187120069.
  TestResult r = ks_two_sample(kA, kB);
  CHECK(r.exact);
  CHECK(r.statistic == Approx(0.8));
  CHECK(r.p == Approx(0.002422414187120069).epsilon(1e-9));
  // 25 vs 20 overlapping values: D = 0.23, p = 0.5286364448145011; MW U = 182, p = 0.12394515648777485.
  std::vector<double> x = {0.61, 0.29, 0.06, 0.59, -1.73, -0.74, 0.51, -0.56, 0.39, 1.64, 0.05, -0.06, 0.64,
                           -0.82, 0.37, 1.77, 1.09, -1.28, 2.36, 1.31, 1.05, -0.32, -0.4, 1.06, -2.47};
  std::vector<double> y = {2.2, 1.66, 1.38, 0.2, 0.36, 0, 0.96, 1.56, 0.44, 1.5,
                           -0.3, 0.66, 2.31, 3.29, -0.27, -0.37, 0.38, 0.7, 0.52, -0.71};
  TestResult k2 = ks_two_sample(x, y);
  CHECK(k2.statistic == Approx(0.23));
  CHECK(k2.p == Approx(0.5286364448145011).epsilon(1e-9));
  TestResult m2 = mann_whitney_u(x, y);
  CHECK(m2.statistic == 182.0);
  CHECK(m2.p == Approx(0.12394515648777485).epsilon(1e-9));
  // kstwobign.sf: the Kolmogorov limit distribution, both branches of the series.
  CHECK(kolmogorov_survival(0.5) == Approx(0.9639452436648751).epsilon(1e-9));
  CHECK(kolmogorov_survival(1.0) == Approx(0.26999967167735456).epsilon(1e-9));
  CHECK(kolmogorov_survival(1.36) == Approx(0.049485876755377876).epsilon(1e-9));
  CHECK(kolmogorov_survival(2.0) == Approx(0.0006709252557796953).epsilon(1e-9));
  CHECK(kolmogorov_survival(std::sqrt(200.0 * 150.0 / 350.0) * 0.105) == Approx(0.3011019491597175).epsilon(1e-9));
}

TEST_CASE("binned KS and percentiles") {
  // Same bins, one side shifted by one bin: D = largest ECDF gap at a boundary, computed by hand:
  // a = 10,20,30,40 counts in [0,10) [10,20) [20,30) [30,40); b = 0,10,20,30,40 in [0,10)..[40,50).
  std::vector<Bin> a = {{0, 10, 10}, {10, 20, 20}, {20, 30, 30}, {30, 40, 40}};
  std::vector<Bin> b = {{0, 10, 0}, {10, 20, 10}, {20, 30, 20}, {30, 40, 30}, {40, 50, 40}};
  // ECDF a at 10,20,30,40: .1 .3 .6 1; b: 0 .1 .3 .6 (of 100): D = 0.4 at 40.
  TestResult r = ks_binned(a, b);
  CHECK(r.statistic == Approx(0.4));
  CHECK(r.p == Approx(kolmogorov_survival(std::sqrt(50.0) * 0.4)));
  // p50 of a: rank 50 lies in [20,30) -> midpoint 25; width-1 bins give their low value.
  CHECK(binned_percentile(a, 50) == 25.0);
  std::vector<Bin> unit = {{7, 8, 3}, {9, 10, 1}};
  CHECK(binned_percentile(unit, 99) == 9.0);
  CHECK(std::isnan(binned_percentile(std::vector<Bin>{}, 50)));
}

TEST_CASE("bootstrap interval of the relative change is deterministic and covers the truth") {
  // scipy.stats.bootstrap((a, b), mean(b)/mean(a) - 1, method='percentile', 20000 resamples):
  // point 0.0795241, 95% interval [0.0472, 0.1155]. Resampling noise of either implementation is
  // about 0.002, so the bounds are checked to 0.004.
  Interval i1 = bootstrap_rel_change(kA, kB, 0.95, 20000, 42);
  Interval i2 = bootstrap_rel_change(kA, kB, 0.95, 20000, 42);
  CHECK(i1.lo == i2.lo);
  CHECK(i1.hi == i2.hi);
  CHECK(i1.lo == Approx(0.0472).margin(0.004));
  CHECK(i1.hi == Approx(0.1155).margin(0.004));
  Interval other = bootstrap_rel_change(kA, kB, 0.95, 20000, 43);
  CHECK(other.lo != i1.lo);
  CHECK(std::isnan(bootstrap_rel_change(std::vector<double>{}, kB, 0.95, 100, 1).lo));
}

TEST_CASE("binned percentile bootstrap brackets the observed change") {
  // 1000 samples per side, b is a scaled copy of a (x1.1), so the p50 change is +10% up to bins.
  std::vector<Bin> a, b;
  for (int i = 0; i < 100; ++i) {
    a.push_back({100.0 + 10 * i, 110.0 + 10 * i, 10});
    b.push_back({110.0 + 11 * i, 121.0 + 11 * i, 10});
  }
  Interval iv = bootstrap_binned_percentile_change(a, b, 50, 0.95, 2000, 7);
  double point = binned_percentile(b, 50) / binned_percentile(a, 50) - 1;
  CHECK(point == Approx(0.1));
  CHECK(iv.lo < point);
  CHECK(iv.hi > point);
  CHECK(iv.hi - iv.lo < 0.2);
  Interval again = bootstrap_binned_percentile_change(a, b, 50, 0.95, 2000, 7);
  CHECK(again.lo == iv.lo);
}

TEST_CASE("holm and benjamini-hochberg by hand") {
  // m = 5, sorted p: .005 .01 .03 .04 .2
  // Holm: 5*.005=.025, 4*.01=.04, 3*.03=.09, max(.09, 2*.04=.08)=.09, 1*.2=.2
  // BH from the top: .2, 5/4*.04=.05, min(.05, 5/3*.03=.05)=.05, 5/2*.01=.025, min(.025, 5*.005)=.025
  std::vector<double> p = {0.01, 0.04, 0.03, 0.005, 0.2};
  std::vector<double> h = holm(p), bh = benjamini_hochberg(p);
  std::vector<double> he = {0.04, 0.09, 0.09, 0.025, 0.2}, be = {0.025, 0.05, 0.05, 0.025, 0.2};
  for (size_t i = 0; i < p.size(); ++i) {
    CHECK(h[i] == Approx(he[i]));
    CHECK(bh[i] == Approx(be[i]));
  }
  // NaN entries are skipped and not counted in m.
  std::vector<double> q = {0.01, NAN, 0.02};
  std::vector<double> hq = holm(q);
  CHECK(hq[0] == Approx(0.02));
  CHECK(std::isnan(hq[1]));
  CHECK(hq[2] == Approx(0.02));
}

TEST_CASE("mean_ci: Student t interval of the mean") {
  // x = 1..5: mean 3, s = sqrt(2.5), se = sqrt(0.5); t(0.975, 4) = 2.776445 (tables).
  const std::vector<double> x = {1, 2, 3, 4, 5};
  const auto ci = schedsim::stats::mean_ci(x, 0.95);
  CHECK(ci.lo == Approx(3 - 2.776445 * std::sqrt(0.5)).epsilon(1e-6));
  CHECK(ci.hi == Approx(3 + 2.776445 * std::sqrt(0.5)).epsilon(1e-6));
  // Two values: t(0.975, 1) = 12.7062.
  const std::vector<double> two = {10, 12};
  CHECK(schedsim::stats::mean_ci(two, 0.95).hi == Approx(11 + 12.7062).epsilon(1e-5));
  const std::vector<double> same = {7, 7, 7};
  CHECK(schedsim::stats::mean_ci(same, 0.95).lo == 7);
  CHECK(schedsim::stats::mean_ci(same, 0.95).hi == 7);
  const std::vector<double> one = {7};
  CHECK(std::isnan(schedsim::stats::mean_ci(one, 0.95).lo));
}
