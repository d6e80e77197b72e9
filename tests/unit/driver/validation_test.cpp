// The validation corpus: reader (format, every refusal names the file and JSON path), the
// published and simulated judgements, curves, and the committed corpus itself.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/driver/validation.hpp"

using namespace schedsim;
using namespace schedsim::driver;
using Catch::Detail::Approx;
using Catch::Matchers::Contains;

namespace {

namespace fs = std::filesystem;

const char* kValid = R"({
  "schedsim_validation": 1,
  "title": "sched/fair: an example change",
  "commit": "2ae891b82695",
  "sources": ["https://lore.kernel.org/lkml/example/"],
  "machine": {"topology": "smp2", "family": "intel-1s"},
  "before": {"kernel": "6.12", "features": ["NO_SIS_UTIL"]},
  "after": {"kernel": "6.12", "queue": "eevdf-6.15", "label": "patched"},
  "benchmarks": {
    "hb": {"gen": "messaging --pipe --group {groups} --nr_loops {loops}", "params": {"loops": 1000},
           "sim_params": {"loops": 10}, "metric": "benchmark_time", "unit": "s", "better": "lower"},
    "rr": {"gen": "rr --pairs {clients} --loops {loops}", "params": {"loops": 50},
           "metric": "throughput", "unit": "trans/s", "better": "higher"}
  },
  "rows": [
    {"benchmark": "hb", "params": {"groups": 1}, "before": 2.0, "after": 1.8,
     "spread": {"kind": "std-pct", "before": 3, "after": 4}},
    {"benchmark": "hb", "params": {"groups": 2}, "before": 4.0, "after": 3.9},
    {"benchmark": "rr", "params": {"clients": 4, "loops": 20}, "before": 100, "after": 103,
     "spread": {"kind": "std", "before": 1}}
  ]
})";

/// Writes `text` to a fresh file under a per-test directory and returns its path.
std::string write_file(const std::string& name, const std::string& text) {
  const fs::path dir = fs::path(SCHEDSIM_BINARY_DIR) / "tests" / "validation_test";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

/// The valid entry with `from` replaced by `to` (once).
std::string variant(const std::string& from, const std::string& to) {
  std::string s = kValid;
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

std::string error_of(const std::string& text) {
  const std::string p = write_file("bad.json", text);
  try {
    read_entry(p);
  } catch (const InputError& e) {
    return e.render();
  }
  return "";
}

}  // namespace

TEST_CASE("a valid entry is read with every field", "[driver][validation]") {
  const Entry e = read_entry(write_file("ok-2ae891b82695.json", kValid));
  CHECK(e.name == "ok-2ae891b82695");
  CHECK(e.commit == "2ae891b82695");
  CHECK(e.development());  // '2' is even
  CHECK(e.topology == "smp2");
  CHECK(e.before.kernel == "6.12");
  CHECK(e.before.features == std::vector<std::string>{"NO_SIS_UTIL"});
  CHECK(e.before.label == "before");
  CHECK(e.after.modules.at("queue") == "eevdf-6.15");
  CHECK(e.after.label == "patched");
  REQUIRE(e.rows.size() == 3);
  CHECK(e.rows[0].spread.kind == "std-pct");
  CHECK(e.rows[1].spread.kind == "none");
  // The simulation override wins over the row and the default; the row over the default.
  CHECK(row_workload_spec(e, e.rows[0]) == "messaging --pipe --group 1 --nr_loops 10");
  CHECK(row_workload_spec(e, e.rows[2]) == "rr --pairs 4 --loops 20");
  CHECK(row_params_text(e.rows[2]) == "clients=4 loops=20");
}

TEST_CASE("the split follows the commit id's first hex digit", "[driver][validation]") {
  Entry e;
  for (const char* c : {"0a", "2b", "4c", "6d", "8e", "a0", "c1", "e2", "E3"}) {
    e.commit = c;
    CHECK(e.development());
  }
  for (const char* c : {"1a", "3b", "5c", "7d", "9e", "b0", "d1", "f2", "F3"}) {
    e.commit = c;
    CHECK_FALSE(e.development());
  }
}

TEST_CASE("bad entries are refused naming the file and the JSON path", "[driver][validation]") {
  CHECK_THAT(error_of(variant("\"schedsim_validation\": 1", "\"schedsim_validation\": 2")),
             Contains("/schedsim_validation: unsupported version 2"));
  CHECK_THAT(error_of(variant("\"commit\": \"2ae891b82695\"", "\"commit\": \"v6.15\"")),
             Contains("/commit: expected the change's commit id"));
  CHECK_THAT(error_of(variant("\"family\": \"intel-1s\"", "\"family\": \"vax\"")),
             Contains("/machine/family: unknown family 'vax'"));
  CHECK_THAT(error_of(variant("\"metric\": \"benchmark_time\"", "\"metric\": \"speed\"")),
             Contains("/benchmarks/hb/metric: unknown metric 'speed'"));
  CHECK_THAT(error_of(variant("\"better\": \"lower\"", "\"better\": \"less\"")),
             Contains("/benchmarks/hb/better: expected \"lower\" or \"higher\""));
  CHECK_THAT(error_of(variant("\"params\": {\"groups\": 2}", "\"params\": {\"fds\": 2}")),
             Contains("/rows/1/params: no value for {groups}"));
  CHECK_THAT(error_of(variant("\"benchmark\": \"rr\"", "\"benchmark\": \"tbench\"")),
             Contains("/rows/2/benchmark: no benchmark 'tbench'"));
  CHECK_THAT(error_of(variant("\"before\": 4.0", "\"before\": -4.0")), Contains("/rows/1/before: expected a positive mean"));
  CHECK_THAT(error_of(variant("\"kind\": \"std\"", "\"kind\": \"iqr\"")),
             Contains("/rows/2/spread/kind: expected std-pct, std, ci95 or none"));
  CHECK_THAT(error_of(variant("\"title\"", "\"titel\"")), Contains("/titel: unknown key"));
  CHECK_THAT(error_of(variant("--nr_loops {loops}", "--nr_loops {loops")), Contains("/benchmarks/hb/gen: unclosed '{'"));
  CHECK_THAT(error_of(variant("\"sources\": [\"https://lore.kernel.org/lkml/example/\"]", "\"sources\": []")),
             Contains("/sources: expected a non-empty array"));
  // A key repeated in one object, and malformed JSON with its line and column.
  CHECK_THAT(error_of(variant("\"title\": \"sched/fair: an example change\",",
                              "\"title\": \"a\", \"title\": \"b\",")),
             Contains("/title: key 'title' appears twice in one object"));
  const std::string malformed = error_of(variant("\"rows\": [", "\"rows\": [,"));
  CHECK_THAT(malformed, Contains("malformed JSON"));
  CHECK_THAT(malformed, Contains("bad.json:15:12: error: malformed JSON"));
}

TEST_CASE("a directory is read in name order, a missing path or an empty directory is refused", "[driver][validation]") {
  const fs::path dir = fs::path(SCHEDSIM_BINARY_DIR) / "tests" / "validation_test" / "corpus";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "b-2ae891b82695.json") << kValid;
  std::ofstream(dir / "a-2ae891b82695.json") << kValid;
  std::ofstream(dir / "README.md") << "not an entry";
  const auto corpus = read_corpus({dir.string()});
  REQUIRE(corpus.size() == 2);
  CHECK(corpus[0].name == "a-2ae891b82695");
  CHECK(corpus[1].name == "b-2ae891b82695");
  CHECK_THROWS_AS(read_corpus({(dir / "missing").string()}), InputError);
  fs::create_directories(dir / "empty");
  CHECK_THROWS_AS(read_corpus({(dir / "empty").string()}), InputError);
  // The same entry twice (by name) is one source counted twice.
  CHECK_THROWS_AS(read_corpus({dir.string(), (dir / "a-2ae891b82695.json").string()}), InputError);
}

TEST_CASE("the published judgement: noise in quadrature, 5% without a spread, direction", "[driver][validation]") {
  RowSpec r;
  r.before = 2.0;
  r.after = 1.8;  // -10%
  r.spread = {"std-pct", 3, 4};
  PublishedJudgement j = judge_published(r, false);
  CHECK(j.change == Approx(-0.10));
  CHECK(j.noise == Approx(0.05));  // sqrt(3^2 + 4^2) %
  CHECK(j.noise_published);
  CHECK(j.beyond_noise);
  CHECK(j.verdict == Verdict::kImproved);  // lower is better
  CHECK(judge_published(r, true).verdict == Verdict::kRegressed);

  r.spread = {"std-pct", 8, 8};  // noise 11.3% > 10%
  CHECK_FALSE(judge_published(r, false).beyond_noise);
  CHECK(judge_published(r, false).verdict == Verdict::kWithinNoise);

  r.spread = {};  // none published: the 5% threshold
  j = judge_published(r, false);
  CHECK_FALSE(j.noise_published);
  CHECK(j.noise == Approx(kNoSpreadThreshold));
  CHECK(j.beyond_noise);
  r.after = 1.95;  // -2.5%
  CHECK_FALSE(judge_published(r, false).beyond_noise);

  // std in the row's unit, one side given: its relative size stands for both.
  r.before = 100;
  r.after = 103;
  r.spread = {"std", 1, kNaN};
  j = judge_published(r, true);
  CHECK(j.noise == Approx(std::sqrt(2) * 0.01));
  CHECK(j.verdict == Verdict::kImproved);
}

TEST_CASE("the simulated judgement needs an interval that excludes 0 and a 1% change", "[driver][validation]") {
  const std::vector<double> base = {10.0, 10.1, 9.9, 10.05, 9.95};
  std::vector<double> slower, tiny;
  const std::vector<double>& same = base;
  for (double v : base) {
    slower.push_back(v * 1.2);
    tiny.push_back(v * 1.004);
  }
  SimulatedJudgement j = judge_simulated(base, slower, false, 1);
  CHECK(j.change == Approx(0.2));
  CHECK(j.ci_lo > 0);
  CHECK(j.verdict == Verdict::kRegressed);
  CHECK(judge_simulated(base, slower, true, 1).verdict == Verdict::kImproved);
  CHECK(judge_simulated(base, same, false, 1).verdict == Verdict::kWithinNoise);
  // Significant but under kMinEffect.
  CHECK(judge_simulated(base, tiny, false, 1).verdict == Verdict::kWithinNoise);
  // One repetition per side never makes a verdict.
  CHECK(judge_simulated({10.0}, {20.0}, false, 1).verdict == Verdict::kWithinNoise);
  // A side without a figure (NaN: a metric the workload cannot give) is not judged; the
  // t-test's degrees of freedom would be NaN (an internal error from Boost.Math before).
  const std::vector<double> none(5, std::numeric_limits<double>::quiet_NaN());
  const SimulatedJudgement n = judge_simulated(none, none, false, 1);
  CHECK(n.verdict == Verdict::kWithinNoise);
  CHECK(std::isnan(n.change));
  CHECK(judge_simulated(base, none, false, 1).verdict == Verdict::kWithinNoise);
  // The same seed, the same interval.
  const SimulatedJudgement k = judge_simulated(base, slower, false, 1);
  CHECK(k.ci_lo == j.ci_lo);
  CHECK(k.ci_hi == j.ci_hi);
}

TEST_CASE("agreement and size of a judged row", "[driver][validation]") {
  const Entry e = read_entry(write_file("size-2ae891b82695.json", kValid));
  // Published -10% (lower is better, beyond its 5% noise): improved.
  const std::vector<double> b = {2.0, 2.01, 1.99, 2.0, 2.0};
  auto scaled = [&](double f) {
    std::vector<double> a;
    a.reserve(b.size());
    for (double v : b) a.push_back(v * f);
    return a;
  };
  RowResult r = judge_row(e, e.rows[0], b, scaled(0.92), 1);  // -8%: within 30% of -10%
  CHECK(r.agrees());
  CHECK(r.size_ok());
  r = judge_row(e, e.rows[0], b, scaled(0.95), 1);  // -5%: 5 pp off, more than 30% of 10 and 2 pp
  CHECK(r.agrees());
  CHECK_FALSE(r.size_ok());
  r = judge_row(e, e.rows[0], b, scaled(1.1), 1);
  CHECK_FALSE(r.agrees());
  r = judge_row(e, e.rows[0], b, b, 1);
  CHECK_FALSE(r.agrees());
  r.failed = true;
  CHECK_FALSE(r.size_ok());
}

TEST_CASE("curves: scaled at the first point, errors of points and ratios", "[driver][validation]") {
  const Entry e = read_entry(write_file("curve-2ae891b82695.json", kValid));
  // Rows 0 and 1 vary groups 1 -> 2; published before 2 -> 4 (x2), simulated 1 -> 3 (x3).
  std::vector<RowResult> rows;
  rows.push_back(judge_row(e, e.rows[0], {1.0, 1.0}, {1.0, 1.0}, 1));
  rows.push_back(judge_row(e, e.rows[1], {3.0, 3.0}, {2.0, 2.0}, 1));
  rows.push_back(judge_row(e, e.rows[2], {1.0, 1.0}, {1.0, 1.0}, 1));  // a one-point benchmark: no curve
  const auto cs = curves(rows);
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].side == "before");
  CHECK(cs[0].param == "groups");
  CHECK(cs[0].max_point_error == Approx(0.5));  // 3 * 2 / 4 - 1
  CHECK(cs[0].max_ratio_error == Approx(0.5));  // (3/1) / (4/2) - 1
  CHECK(cs[1].side == "after");
  CHECK(cs[1].max_point_error == Approx(1 - 2 * 1.8 / 3.9));  // scale 1.8: |2 * 1.8 / 3.9 - 1|
}

TEST_CASE("the committed corpus reads, and covers what issue 27 asks of it", "[driver][validation][corpus]") {
  const auto corpus = read_corpus({std::string(SCHEDSIM_SOURCE_DIR) + "/validation"});
  std::set<std::string> commits, families, kinds;
  size_t rows = 0, dev = 0, val = 0;
  for (const auto& e : corpus) {
    commits.insert(e.commit.substr(0, 12));
    families.insert(e.family);
    for (const auto& [id, b] : e.benchmarks) kinds.insert(b.gen.substr(0, b.gen.find(' ')));
    rows += e.rows.size();
    (e.development() ? dev : val) += e.rows.size();
    // A machine file exists; every row expands to a spec without a placeholder left.
    if (e.topology.ends_with(".json")) CHECK(fs::exists(e.topology));
    for (const auto& r : e.rows) CHECK(row_workload_spec(e, r).find('{') == std::string::npos);
  }
  CHECK(commits.size() >= 12);  // distinct changes
  CHECK(rows >= 60);
  CHECK(dev > 0);
  CHECK(val > 0);
  CHECK(families.count("intel-2s-smt"));
  CHECK(families.count("amd-many-llc"));
  CHECK(families.size() >= 3);
  CHECK(kinds.count("messaging"));
  CHECK(kinds.count("schbench"));
  CHECK(kinds.count("rr"));
}
