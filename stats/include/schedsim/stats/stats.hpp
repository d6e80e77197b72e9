#pragma once
/// schedsim::stats: the statistics behind `schedsim run --repeat` and `schedsim compare`
/// (docs/compare.md explains each one as a user sees it).
///
/// Library versus hand-written (ARCHITECTURE.md "Choices and why"): the distribution functions
/// come from Boost.Math (Student's t, normal, beta); Boost 1.74 (Debian 12) has no Kolmogorov
/// distribution (added in 1.75), so the Kolmogorov series and the exact two-sample KS lattice-path
/// count are written here, as are the test statistics themselves (a few lines each), the exact
/// Mann-Whitney distribution, the bootstrap and the p-value corrections. Every function is
/// deterministic: randomness comes from base/random.hpp's splitmix64 with a caller's seed.
///
/// NaN means "not computable" (too few values, zero mean, ...); callers print it as "-".
#include <cstdint>
#include <span>
#include <vector>

namespace schedsim::stats {

/// Across a set of values: count, mean, sample standard deviation (n - 1; 0 for one value),
/// min, nearest-rank p50 and p99 (the ceil(q/100 * n)-th smallest, as the latency histograms),
/// max. All NaN (count 0) for an empty set.
struct Summary {
  size_t count = 0;
  double mean = 0, std = 0, min = 0, p50 = 0, p99 = 0, max = 0;
};
Summary summarize(std::span<const double> x);
/// Nearest-rank percentile of `x` (need not be sorted), q in [0, 100]; NaN when empty.
double percentile(std::span<const double> x, double q);

/// A test's statistic and its two-sided p-value.
struct TestResult {
  double statistic = 0;
  double p = 0;
  bool exact = false;  ///< p from the exact null distribution rather than an approximation
};

/// Welch's unequal-variance t-test of mean(b) - mean(a) (Welch 1947): t and the two-sided p from
/// Student's t with the Welch-Satterthwaite degrees of freedom. NaN with fewer than 2 values on a
/// side. When both sides have zero variance p is 1 if the means are equal, else 0.
TestResult welch_t_test(std::span<const double> a, std::span<const double> b);

/// Mann-Whitney U (Wilcoxon rank-sum), two-sided. statistic = U of `a` (midranks for ties).
/// Exact null distribution when there are no ties and both sides have at most 25 values; else
/// the normal approximation with the tie-corrected variance and a 0.5 continuity correction
/// (as scipy.stats.mannwhitneyu's method="asymptotic"). NaN when a side is empty.
TestResult mann_whitney_u(std::span<const double> a, std::span<const double> b);

/// Two-sample Kolmogorov-Smirnov: statistic = D = sup |F_a - F_b|. p exact (lattice-path count,
/// Hodges 1957) when n_a * n_b <= 10000, else the asymptotic Kolmogorov distribution at
/// sqrt(n_a n_b / (n_a + n_b)) * D.
TestResult ks_two_sample(std::span<const double> a, std::span<const double> b);

/// A histogram bin [lo, hi) seen `count` times (the results files' latency buckets).
struct Bin {
  double lo = 0, hi = 0;
  uint64_t count = 0;
};
/// KS between two binned distributions: D at the bin boundaries (both sides use the same
/// log-linear bins, so this is D of the binned data, a lower bound of the raw samples' D), p from
/// the asymptotic Kolmogorov distribution with the bins' total counts.
TestResult ks_binned(std::span<const Bin> a, std::span<const Bin> b);

/// P(K > x) for the Kolmogorov distribution K (limit of sqrt(n) D_n): 2 sum (-1)^(k-1) e^(-2k²x²),
/// and 1 - sqrt(2 pi)/x sum e^(-(2k-1)² pi² / (8x²)) for small x.
double kolmogorov_survival(double x);

/// A confidence interval; NaN bounds when not computable.
struct Interval {
  double lo = 0, hi = 0;
};

/// The `conf` (e.g. 0.95) confidence interval of the mean of `x` from Student's t with n - 1
/// degrees of freedom: mean -+ t * s / sqrt(n). NaN bounds with fewer than 2 values; the mean
/// itself at both ends when every value is equal.
Interval mean_ci(std::span<const double> x, double conf);

/// Percentile bootstrap (Efron & Tibshirani 1993, ch. 13) interval of mean(b) / mean(a) - 1:
/// `resamples` times, resample each side with replacement and take the ratio of means; the
/// (1-conf)/2 and (1+conf)/2 quantiles. Deterministic for a seed. NaN bounds when a side is empty
/// or a resampled base mean is 0.
Interval bootstrap_rel_change(std::span<const double> a, std::span<const double> b, double conf,
                              size_t resamples, uint64_t seed);

/// The same for one percentile q of two binned distributions (no repetitions: the runs' own
/// latency samples are resampled). The q-th nearest-rank percentile of a resample of n values is
/// the k-th order statistic, k = ceil(q n / 100), whose rank fraction is Beta(k, n - k + 1)
/// distributed (order statistics of uniforms), so each resample draws that Beta variate (Boost
/// quantile of a splitmix64 uniform) and maps it through the bins' inverse CDF (bin midpoints):
/// the exact bootstrap distribution without materialising n draws. Returns the interval of
/// p_q(b*) / p_q(a*) - 1.
Interval bootstrap_binned_percentile_change(std::span<const Bin> a, std::span<const Bin> b, double q,
                                            double conf, size_t resamples, uint64_t seed);
/// The nearest-rank percentile of binned data (the bin midpoint holding the rank); NaN if empty.
double binned_percentile(std::span<const Bin> bins, double q);

/// Multiple-comparison corrections of p-values (NaN entries are left NaN and not counted).
/// Holm 1979 step-down (controls the family-wise error rate):
///   sorted p_(1) <= ... <= p_(m): adj_(i) = max_{j<=i} min(1, (m - j + 1) p_(j)).
std::vector<double> holm(std::span<const double> p);
/// Benjamini-Hochberg 1995 step-up (controls the false discovery rate):
///   adj_(i) = min_{j>=i} min(1, m / j * p_(j)).
std::vector<double> benjamini_hochberg(std::span<const double> p);

}  // namespace schedsim::stats
