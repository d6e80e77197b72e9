// coordinate_search: finds known minima inside the bounds, respects bounds and the budget, and is
// deterministic.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "schedsim/stats/coordinate_search.hpp"

using namespace schedsim::stats;

namespace {
// Sum of squared log-ratios to a target point: the shape of calibrate's objective.
double log_dist(const std::vector<double>& x, const std::vector<double>& target) {
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += std::pow(std::log(x[i] / target[i]), 2);
  return s;
}
}  // namespace

TEST_CASE("coordinate_search recovers a known point inside the range", "[stats][search]") {
  const std::vector<double> target = {3000, 7.5, 640};
  std::vector<SearchParam> p = {{"a", 100, 20000, 1500}, {"b", 0.5, 50, 2}, {"c", 500, 1000, 999}};
  SearchOptions opt;
  opt.max_evals = 400;
  opt.min_step = 1.0 / 1024;
  SearchResult r = coordinate_search(p, [&](const std::vector<double>& x) { return log_dist(x, target); }, opt);
  REQUIRE(r.converged);
  for (size_t i = 0; i < target.size(); ++i) CHECK(std::abs(r.best[i] / target[i] - 1) < 0.01);
  CHECK(r.best_value < r.start_value);
  CHECK(r.evals <= opt.max_evals);
}

TEST_CASE("coordinate_search stays inside the bounds when the optimum is outside", "[stats][search]") {
  std::vector<SearchParam> p = {{"a", 10, 100, 50}};
  SearchResult r = coordinate_search(p, [](const std::vector<double>& x) { return std::pow(std::log(x[0] / 1000), 2); });
  CHECK(r.best[0] == Catch::Detail::Approx(100));
}

TEST_CASE("coordinate_search honours the evaluation budget and reports progress", "[stats][search]") {
  std::vector<SearchParam> p = {{"a", 1, 1e6, 1}, {"b", 1, 1e6, 1}};
  SearchOptions opt;
  opt.max_evals = 7;
  uint32_t calls = 0, last = 0;
  SearchResult r = coordinate_search(
      p, [&](const std::vector<double>& x) { ++calls; return log_dist(x, {5e5, 5e5}); }, opt,
      [&](uint32_t n, double) { last = n; });
  CHECK(calls == 7);
  CHECK(r.evals == 7);
  CHECK(last == 7);
  CHECK_FALSE(r.converged);
}

TEST_CASE("coordinate_search is deterministic and rejects bad input", "[stats][search]") {
  std::vector<SearchParam> p = {{"a", 1, 100, 3}, {"b", 2, 20, 19}};
  auto f = [](const std::vector<double>& x) { return std::floor(10 * std::abs(std::log(x[0] * x[1] / 42))); };
  SearchResult a = coordinate_search(p, f), b = coordinate_search(p, f);
  CHECK(a.best == b.best);
  CHECK(a.evals == b.evals);
  CHECK_THROWS_AS(coordinate_search({}, f), std::invalid_argument);
  CHECK_THROWS_AS(coordinate_search({{"a", 0, 1, 1}}, f), std::invalid_argument);
  CHECK_THROWS_AS(coordinate_search({{"a", 5, 1, 1}}, f), std::invalid_argument);
}
