#pragma once
/// A bounded, deterministic coordinate (pattern) search, for fitting a few model parameters to
/// observations where every evaluation is a whole simulation: no gradients, a piecewise-constant
/// objective (simulated percentiles move in steps), a small evaluation budget.
///
/// Each parameter lives in [lo, hi] (lo > 0) and is searched on a log scale: the search works
/// on u = ln(x / lo) / ln(hi / lo) in [0, 1]. From the start point it tries, for each parameter in
/// turn, u + step and u - step (clamped to [0, 1]), keeps the best point if it lowers the
/// objective, and halves the step after a full pass without improvement. It stops when the step
/// falls below `min_step` or the budget `max_evals` is spent. Same inputs, same result: no random
/// numbers, and ties keep the earlier point.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace schedsim::stats {

struct SearchParam {
  std::string name;
  double lo = 1, hi = 1;  ///< plausible range, lo > 0, hi >= lo
  double start = 1;       ///< clamped into [lo, hi]
};

struct SearchOptions {
  uint32_t max_evals = 100;  ///< objective evaluations, the start point included
  double initial_step = 0.25;  ///< in units of the log range
  double min_step = 1.0 / 1024;
};

struct SearchResult {
  std::vector<double> best;   ///< parameter values, in the order given
  double best_value = 0;
  double start_value = 0;     ///< the objective at the (clamped) start point
  uint32_t evals = 0;
  bool converged = false;     ///< the step fell below min_step (else the budget ran out)
};

/// `f` maps parameter values to the objective (lower is better). `progress` (optional) is called
/// after every evaluation with (evaluations so far, best value so far). Throws std::invalid_argument
/// for an empty parameter list, a bad range or max_evals 0. Exceptions from `f` propagate.
SearchResult coordinate_search(const std::vector<SearchParam>& params,
                               const std::function<double(const std::vector<double>&)>& f,
                               const SearchOptions& opt = {},
                               const std::function<void(uint32_t, double)>& progress = {});

}  // namespace schedsim::stats
