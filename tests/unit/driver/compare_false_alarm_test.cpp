// Measured false alarms of `compare`: two sets of repetitions of the SAME configuration that
// differ only in their seeds must be flagged (any row improved / regressed / changed) in no more
// than the nominal share of comparisons, and a known large difference must be detected.
// Everything is seeded, so the counts below are deterministic; the bounds are the nominal rate
// plus two binomial standard deviations, so a correction that stops working (or tests that are
// anti-conservative) make the test fail.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>

#include "schedsim/driver/run.hpp"
#include "schedsim/metrics/compare.hpp"

using namespace schedsim;

namespace {

RecordFile repeated(const std::string& gen, const std::string& topo, uint64_t seed, uint32_t reps,
                    const std::string& kernel, const std::string& placement) {
  driver::RunRequest req;
  req.workload_gen = gen;
  req.topology = topo;
  req.kernel = kernel;
  if (!placement.empty()) req.modules["placement"] = placement;
  req.seed = seed;
  req.repeat = reps;
  req.format = "jsonl";
  req.progress = "never";
  driver::RunOutcome out = driver::execute_run(req);
  RecordFile f;
  f.path = "seed" + std::to_string(seed);
  f.kind = "jsonl";
  f.version = kRecordVersion;
  f.records = out.records;
  for (size_t i = 0; i < f.records.size(); ++i) f.where.push_back(f.path + ":" + std::to_string(i + 1));
  return f;
}

}  // namespace

TEST_CASE("same configuration, different seeds: false alarms at or below the nominal rate") {
  const int kTrials = 40;
  const uint32_t kReps = 8;
  CompareOptions o;  // defaults: 8 metrics, Holm at 0.05, both tests, 1% minimum effect
  o.metrics = {"all"};
  int flagged_trials = 0, rows = 0, raw_welch_below = 0, raw_mw_below = 0;
  for (int t = 0; t < kTrials; ++t) {
    RecordFile a = repeated("messaging --group 1 --nr_loops 5 --pipe --thread", "smt2x2", static_cast<uint64_t>(1000 + 2 * t), kReps, "6.12", "");
    RecordFile b = repeated("messaging --group 1 --nr_loops 5 --pipe --thread", "smt2x2", static_cast<uint64_t>(1001 + 2 * t), kReps, "6.12", "");
    o.seed = static_cast<uint64_t>(t);
    CompareResult c = compare_records(a, b, o);
    bool any = false;
    for (const auto& p : c.points)
      for (const auto& r : p.rows) {
        if (r.kind != RowKind::kRepetitions || std::isnan(r.p_welch)) continue;
        ++rows;
        raw_welch_below += r.p_welch < 0.05;
        raw_mw_below += r.p_mw < 0.05;
        if (r.significant && r.verdict != "no significant change") any = true;
      }
    flagged_trials += any;
  }
  double fwer = static_cast<double>(flagged_trials) / kTrials;
  double welch_rate = static_cast<double>(raw_welch_below) / rows;
  double mw_rate = static_cast<double>(raw_mw_below) / rows;
  std::printf("false alarms: %d of %d comparisons flagged a row (%.1f%%, Holm over each comparison's rows); "
              "uncorrected p < 0.05 in %.1f%% (Welch) and %.1f%% (Mann-Whitney) of %d rows\n",
              flagged_trials, kTrials, 100 * fwer, 100 * welch_rate, 100 * mw_rate, rows);
  // Nominal family-wise rate 5%: allow two binomial standard deviations over 40 trials.
  CHECK(fwer <= 0.05 + 2 * std::sqrt(0.05 * 0.95 / kTrials));
  // Each uncorrected test alone should be near 5% (rows are correlated, so the slack is wide).
  CHECK(welch_rate <= 0.10);
  CHECK(mw_rate <= 0.10);
  CHECK(rows > 500);
}

TEST_CASE("a known large difference is detected: prev placement vs the 6.12 search on messaging") {
  RecordFile base = repeated("messaging --group 2 --nr_loops 5 --pipe --thread", "xeon-e5-2690v2", 7, 8, "6.12", "");
  RecordFile next = repeated("messaging --group 2 --nr_loops 5 --pipe --thread", "xeon-e5-2690v2", 8, 8, "6.12", "prev");
  CompareResult c = compare_records(base, next, CompareOptions{});
  REQUIRE(c.points.size() == 1);
  int regressed = 0;
  for (const auto& r : c.points[0].rows) {
    if (r.metric == "makespan") CHECK(r.verdict == "regressed");
    regressed += r.verdict == "regressed";
  }
  CHECK(regressed >= 3);
  // The gate trips on it, and its reason names the metric.
  GateOutcome g = evaluate_gates(c, {parse_gate("makespan>+5%")});
  REQUIRE(g.failures.size() == 1);
  CHECK(g.failures[0].find("makespan") != std::string::npos);
  CHECK(g.untestable.empty());
}

TEST_CASE("repetition seeds are a hash of the seed and the index: a repetition does not depend on the count") {
  RecordFile three = repeated("messaging --group 1 --nr_loops 3 --pipe --thread", "smt2x2", 5, 3, "", "");
  RecordFile five = repeated("messaging --group 1 --nr_loops 3 --pipe --thread", "smt2x2", 5, 5, "", "");
  for (size_t i = 0; i < 3; ++i) {
    CHECK(three.records[i].seed == five.records[i].seed);
    CHECK(three.records[i].metrics == five.records[i].metrics);
  }
  CHECK(five.records[3].seed != five.records[4].seed);
  CHECK(five.records[0].metrics != five.records[1].metrics);  // the noise model does change runs
}
