#include "schedsim/stats/coordinate_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace schedsim::stats {

SearchResult coordinate_search(const std::vector<SearchParam>& params,
                               const std::function<double(const std::vector<double>&)>& f,
                               const SearchOptions& opt, const std::function<void(uint32_t, double)>& progress) {
  if (params.empty()) throw std::invalid_argument("coordinate_search: no parameters");
  if (opt.max_evals == 0) throw std::invalid_argument("coordinate_search: max_evals is 0");
  for (const auto& p : params)
    if (!(p.lo > 0) || !(p.hi >= p.lo) || !std::isfinite(p.hi))
      throw std::invalid_argument("coordinate_search: bad range for " + p.name);
  const size_t n = params.size();
  auto to_x = [&](const std::vector<double>& u) {
    std::vector<double> x(n);
    for (size_t i = 0; i < n; ++i) {
      const auto& p = params[i];
      x[i] = p.hi == p.lo ? p.lo : std::clamp(p.lo * std::exp(u[i] * std::log(p.hi / p.lo)), p.lo, p.hi);
    }
    return x;
  };
  std::vector<double> u(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& p = params[i];
    double s = std::clamp(p.start, p.lo, p.hi);
    u[i] = p.hi == p.lo ? 0.0 : std::log(s / p.lo) / std::log(p.hi / p.lo);
  }
  SearchResult r;
  auto eval = [&](const std::vector<double>& uu) {
    double v = f(to_x(uu));
    ++r.evals;
    if (std::isnan(v)) v = std::numeric_limits<double>::infinity();
    return v;
  };
  double best = eval(u);
  r.start_value = best;
  if (progress) progress(r.evals, best);
  double step = opt.initial_step;
  while (r.evals < opt.max_evals) {
    if (step < opt.min_step) {
      r.converged = true;
      break;
    }
    bool improved = false;
    for (size_t i = 0; i < n && r.evals < opt.max_evals; ++i) {
      if (params[i].hi == params[i].lo) continue;
      for (double dir : {+1.0, -1.0}) {
        if (r.evals >= opt.max_evals) break;
        std::vector<double> cand = u;
        cand[i] = std::clamp(u[i] + dir * step, 0.0, 1.0);
        if (cand[i] == u[i]) continue;
        double v = eval(cand);
        if (progress) progress(r.evals, std::min(v, best));
        if (v < best) {
          best = v;
          u = std::move(cand);
          improved = true;
          break;  // keep moving this coordinate from the new point in the next pass
        }
      }
    }
    if (!improved) step /= 2;
  }
  if (!r.converged && step < opt.min_step) r.converged = true;
  r.best = to_x(u);
  r.best_value = best;
  return r;
}

}  // namespace schedsim::stats
