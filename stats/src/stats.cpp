// The statistics of schedsim::stats (header: the formulas and their sources).
#include "schedsim/stats/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include "schedsim/base/random.hpp"
#include "schedsim/base/run_control.hpp"

namespace schedsim::stats {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double mean_of(std::span<const double> x) {
  double s = 0;
  for (double v : x) s += v;
  return s / static_cast<double>(x.size());
}

/// Sample variance (n - 1), two-pass.
double var_of(std::span<const double> x, double m) {
  if (x.size() < 2) return 0;
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  return s / static_cast<double>(x.size() - 1);
}

double normal_sf(double z) { return boost::math::cdf(boost::math::complement(boost::math::normal(), z)); }

/// Count of arrangements giving each U for sizes (m, n) without ties, as probabilities:
/// f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u) (Mann & Whitney 1947), divided by C(m+n, m).
std::vector<double> mw_exact_pmf(size_t m, size_t n) {
  // p[i][j] = distribution of U for sizes (i, j), built with the ratio form of the recurrence:
  // P_{i,j}(u) = i/(i+j) P_{i-1,j}(u - j) + j/(i+j) P_{i,j-1}(u).
  std::vector<std::vector<std::vector<double>>> p(m + 1, std::vector<std::vector<double>>(n + 1));
  for (size_t i = 0; i <= m; ++i)
    for (size_t j = 0; j <= n; ++j) {
      auto& cur = p[i][j];
      cur.assign(i * j + 1, 0.0);
      if (i == 0 || j == 0) {
        cur[0] = 1.0;
        continue;
      }
      double wi = static_cast<double>(i) / static_cast<double>(i + j), wj = 1.0 - wi;
      const auto& a = p[i - 1][j];
      const auto& b = p[i][j - 1];
      for (size_t u = 0; u < a.size(); ++u) cur[u + j] += wi * a[u];
      for (size_t u = 0; u < b.size(); ++u) cur[u] += wj * b[u];
    }
  return p[m][n];
}

}  // namespace

double percentile(std::span<const double> x, double q) {
  if (x.empty()) return kNaN;
  std::vector<double> s(x.begin(), x.end());
  std::sort(s.begin(), s.end());
  double rank = std::ceil(q / 100.0 * static_cast<double>(s.size()));
  size_t k = rank < 1 ? 1 : std::min(s.size(), static_cast<size_t>(rank));
  return s[k - 1];
}

Summary summarize(std::span<const double> x) {
  Summary r;
  r.count = x.size();
  if (x.empty()) {
    r.mean = r.std = r.min = r.p50 = r.p99 = r.max = kNaN;
    return r;
  }
  r.mean = mean_of(x);
  r.std = std::sqrt(var_of(x, r.mean));
  auto [mn, mx] = std::minmax_element(x.begin(), x.end());
  r.min = *mn;
  r.max = *mx;
  r.p50 = percentile(x, 50);
  r.p99 = percentile(x, 99);
  return r;
}

TestResult welch_t_test(std::span<const double> a, std::span<const double> b) {
  if (a.size() < 2 || b.size() < 2) return {kNaN, kNaN, false};
  double ma = mean_of(a), mb = mean_of(b);
  double va = var_of(a, ma) / static_cast<double>(a.size());
  double vb = var_of(b, mb) / static_cast<double>(b.size());
  if (va + vb == 0) return {ma == mb ? 0.0 : (mb > ma ? INFINITY : -INFINITY), ma == mb ? 1.0 : 0.0, true};
  double t = (mb - ma) / std::sqrt(va + vb);
  double df = (va + vb) * (va + vb) /
              (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  boost::math::students_t dist(df);
  double p = 2.0 * boost::math::cdf(boost::math::complement(dist, std::fabs(t)));
  return {t, std::min(1.0, p), false};
}

Interval mean_ci(std::span<const double> x, double conf) {
  if (x.size() < 2) return {kNaN, kNaN};
  const double m = mean_of(x);
  const double se = std::sqrt(var_of(x, m) / static_cast<double>(x.size()));
  if (se == 0) return {m, m};
  boost::math::students_t dist(static_cast<double>(x.size() - 1));
  const double t = boost::math::quantile(boost::math::complement(dist, (1.0 - conf) / 2.0));
  return {m - t * se, m + t * se};
}

TestResult mann_whitney_u(std::span<const double> a, std::span<const double> b) {
  size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return {kNaN, kNaN, false};
  size_t n = n1 + n2;
  std::vector<std::pair<double, int>> all;
  all.reserve(n);
  for (double v : a) all.emplace_back(v, 0);
  for (double v : b) all.emplace_back(v, 1);
  std::sort(all.begin(), all.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  double r1 = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    double t = static_cast<double>(j - i);
    double midrank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k < j; ++k)
      if (all[k].second == 0) r1 += midrank;
    if (j - i > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    i = j;
  }
  double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2), dn = static_cast<double>(n);
  double u1 = r1 - dn1 * (dn1 + 1) / 2.0;
  if (!ties && n1 <= 25 && n2 <= 25) {
    std::vector<double> pmf = mw_exact_pmf(n1, n2);
    // Two-sided: twice the smaller tail at U1 (the distribution is symmetric).
    size_t u = static_cast<size_t>(std::llround(u1));
    double lower = 0, upper = 0;
    for (size_t k = 0; k < pmf.size(); ++k) {
      if (k <= u) lower += pmf[k];
      if (k >= u) upper += pmf[k];
    }
    return {u1, std::min(1.0, 2.0 * std::min(lower, upper)), true};
  }
  double mu = dn1 * dn2 / 2.0;
  double var = dn1 * dn2 / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) return {u1, 1.0, false};
  double z = (std::fabs(u1 - mu) - 0.5) / std::sqrt(var);
  if (z < 0) z = 0;
  return {u1, std::min(1.0, 2.0 * normal_sf(z)), false};
}

double kolmogorov_survival(double x) {
  if (!(x > 0)) return 1.0;
  if (x < 1.18) {
    // Small x: the Jacobi-theta form converges fast there (Marsaglia, Tsang & Wang 2003, eq. 2).
    double s = 0;
    for (int k = 1; k <= 20; ++k) {
      double t = static_cast<double>(2 * k - 1);
      s += std::exp(-t * t * M_PI * M_PI / (8.0 * x * x));
    }
    return std::clamp(1.0 - std::sqrt(2.0 * M_PI) / x * s, 0.0, 1.0);
  }
  double s = 0;
  for (int k = 1; k <= 100; ++k) {
    double term = std::exp(-2.0 * k * k * x * x);
    s += (k % 2 ? term : -term);
    if (term < 1e-17) break;
  }
  return std::clamp(2.0 * s, 0.0, 1.0);
}

TestResult ks_two_sample(std::span<const double> a, std::span<const double> b) {
  size_t n1 = a.size(), n2 = b.size();
  if (n1 == 0 || n2 == 0) return {kNaN, kNaN, false};
  std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  // D * n1 * n2 is the integer max |i n2 - j n1| over the merged steps.
  int64_t dint = 0;
  size_t i = 0, j = 0;
  while (i < n1 || j < n2) {
    double v = (j >= n2 || (i < n1 && x[i] <= y[j])) ? x[i] : y[j];
    while (i < n1 && x[i] == v) ++i;
    while (j < n2 && y[j] == v) ++j;
    int64_t diff = static_cast<int64_t>(i * n2) - static_cast<int64_t>(j * n1);
    dint = std::max(dint, diff < 0 ? -diff : diff);
  }
  double d = static_cast<double>(dint) / static_cast<double>(n1 * n2);
  if (n1 * n2 <= 10000) {
    // Fraction of monotone lattice paths (0,0) -> (n1,n2) that stay strictly inside
    // |i n2 - j n1| < dint: r(i,j) = (i r(i-1,j) + j r(i,j-1)) / (i+j) (Hodges 1957).
    std::vector<double> prev(n2 + 1), cur(n2 + 1);
    for (size_t ii = 0; ii <= n1; ++ii) {
      for (size_t jj = 0; jj <= n2; ++jj) {
        int64_t diff = static_cast<int64_t>(ii * n2) - static_cast<int64_t>(jj * n1);
        bool inside = (diff < 0 ? -diff : diff) < dint;
        if (!inside) cur[jj] = 0;
        else if (ii == 0 && jj == 0) cur[jj] = 1;
        else {
          double v = 0;
          if (ii > 0) v += static_cast<double>(ii) * prev[jj];
          if (jj > 0) v += static_cast<double>(jj) * cur[jj - 1];
          cur[jj] = v / static_cast<double>(ii + jj);
        }
      }
      std::swap(prev, cur);
    }
    return {d, std::clamp(1.0 - prev[n2], 0.0, 1.0), true};
  }
  double en = std::sqrt(static_cast<double>(n1) * static_cast<double>(n2) / static_cast<double>(n1 + n2));
  return {d, kolmogorov_survival(en * d), false};
}

TestResult ks_binned(std::span<const Bin> a, std::span<const Bin> b) {
  uint64_t na = 0, nb = 0;
  for (const auto& x : a) na += x.count;
  for (const auto& x : b) nb += x.count;
  if (na == 0 || nb == 0) return {kNaN, kNaN, false};
  // Walk both bin lists by upper bound; the ECDFs are compared after each boundary.
  size_t i = 0, j = 0;
  uint64_t ca = 0, cb = 0;
  double d = 0;
  while (i < a.size() || j < b.size()) {
    double edge = std::min(i < a.size() ? a[i].hi : INFINITY, j < b.size() ? b[j].hi : INFINITY);
    while (i < a.size() && a[i].hi <= edge) ca += a[i++].count;
    while (j < b.size() && b[j].hi <= edge) cb += b[j++].count;
    d = std::max(d, std::fabs(static_cast<double>(ca) / static_cast<double>(na) -
                              static_cast<double>(cb) / static_cast<double>(nb)));
  }
  double en = std::sqrt(static_cast<double>(na) * static_cast<double>(nb) / static_cast<double>(na + nb));
  return {d, kolmogorov_survival(en * d), false};
}

Interval bootstrap_rel_change(std::span<const double> a, std::span<const double> b, double conf,
                              size_t resamples, uint64_t seed) {
  if (a.empty() || b.empty() || resamples == 0) return {kNaN, kNaN};
  SplitMix64 rng{seed};
  std::vector<double> ratios;
  ratios.reserve(resamples);
  for (size_t r = 0; r < resamples; ++r) {
    poll_resources();  // 10^6 resamples of 10^5 records: minutes, interruptible throughout
    double sa = 0, sb = 0;
    for (size_t k = 0; k < a.size(); ++k) sa += a[rng.below(a.size())];
    for (size_t k = 0; k < b.size(); ++k) sb += b[rng.below(b.size())];
    double ma = sa / static_cast<double>(a.size()), mb = sb / static_cast<double>(b.size());
    if (ma == 0) return {kNaN, kNaN};
    ratios.push_back(mb / ma - 1.0);
  }
  double alpha = (1.0 - conf) / 2.0;
  return {percentile(ratios, 100.0 * alpha), percentile(ratios, 100.0 * (1.0 - alpha))};
}

namespace {

/// The value of rank `k` (1-based) in binned data: the midpoint of the bin holding it.
double binned_rank_value(std::span<const Bin> bins, uint64_t k) {
  uint64_t c = 0;
  for (const auto& x : bins) {
    c += x.count;
    if (c >= k) return x.hi - x.lo <= 1 ? x.lo : (x.lo + x.hi) / 2.0;
  }
  return bins.empty() ? kNaN : bins.back().lo;
}

uint64_t total(std::span<const Bin> bins) {
  uint64_t n = 0;
  for (const auto& x : bins) n += x.count;
  return n;
}

uint64_t nearest_rank(double q, uint64_t n) {
  double r = std::ceil(q / 100.0 * static_cast<double>(n));
  return r < 1 ? 1 : std::min<uint64_t>(n, static_cast<uint64_t>(r));
}

}  // namespace

double binned_percentile(std::span<const Bin> bins, double q) {
  uint64_t n = total(bins);
  if (n == 0) return kNaN;
  return binned_rank_value(bins, nearest_rank(q, n));
}

Interval bootstrap_binned_percentile_change(std::span<const Bin> a, std::span<const Bin> b, double q,
                                            double conf, size_t resamples, uint64_t seed) {
  uint64_t na = total(a), nb = total(b);
  if (na == 0 || nb == 0 || resamples == 0) return {kNaN, kNaN};
  SplitMix64 rng{seed};
  auto draw = [&rng, q](std::span<const Bin> bins, uint64_t n) {
    uint64_t k = nearest_rank(q, n);
    boost::math::beta_distribution<double> dist(static_cast<double>(k), static_cast<double>(n - k + 1));
    double u = rng.uniform();
    if (u <= 0) u = 0x1p-53;
    double frac = boost::math::quantile(dist, u);
    // The resample's k-th smallest value is the original value at rank ceil(frac * n).
    uint64_t rank = nearest_rank(100.0 * frac, n);
    return binned_rank_value(bins, rank);
  };
  std::vector<double> ratios;
  ratios.reserve(resamples);
  for (size_t r = 0; r < resamples; ++r) {
    poll_resources();
    double va = draw(a, na), vb = draw(b, nb);
    if (va == 0) return {kNaN, kNaN};
    ratios.push_back(vb / va - 1.0);
  }
  double alpha = (1.0 - conf) / 2.0;
  return {percentile(ratios, 100.0 * alpha), percentile(ratios, 100.0 * (1.0 - alpha))};
}

namespace {

std::vector<size_t> finite_order(std::span<const double> p) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < p.size(); ++i)
    if (std::isfinite(p[i])) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&p](size_t x, size_t y) { return p[x] < p[y]; });
  return idx;
}

}  // namespace

std::vector<double> holm(std::span<const double> p) {
  std::vector<double> out(p.size(), kNaN);
  std::vector<size_t> idx = finite_order(p);
  double m = static_cast<double>(idx.size()), run = 0;
  for (size_t r = 0; r < idx.size(); ++r) {
    run = std::max(run, std::min(1.0, (m - static_cast<double>(r)) * p[idx[r]]));
    out[idx[r]] = run;
  }
  return out;
}

std::vector<double> benjamini_hochberg(std::span<const double> p) {
  std::vector<double> out(p.size(), kNaN);
  std::vector<size_t> idx = finite_order(p);
  double m = static_cast<double>(idx.size()), run = 1.0;
  for (size_t r = idx.size(); r-- > 0;) {
    run = std::min(run, std::min(1.0, m / static_cast<double>(r + 1) * p[idx[r]]));
    out[idx[r]] = run;
  }
  return out;
}

}  // namespace schedsim::stats
