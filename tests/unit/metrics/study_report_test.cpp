// The study report (`schedsim report` of repetitions and sweeps): points, the x parameter, series,
// the confidence intervals it prints, and its warnings.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "schedsim/metrics/html_report.hpp"
#include "schedsim/metrics/records.hpp"

using namespace schedsim;

namespace {
Record rec(const std::string& group, const std::string& placement, double makespan_ms) {
  Record r;
  r.params = {{"label", "group=" + group + ",placement=" + placement}};
  r.point_params = {{"gen.group", group}, {"placement", placement}, {"topology", "smp2"}};
  r.metrics = {{"makespan", makespan_ms * 1e6}, {"migrations", 3}};
  return r;
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("study report: a sweep's numeric parameter is the x axis, the others name the series") {
  RecordFile f;
  f.path = "sweep.jsonl";
  f.kind = "jsonl";
  // Two placements x three groups, three runs each; makespans 10, 11, 12 ms (mean 11) etc.
  for (const char* p : {"sis-util", "prev"})
    for (const char* g : {"1", "2", "4"})
      for (double d : {0.0, 1.0, 2.0})
        f.records.push_back(rec(g, p, 10.0 * std::stod(g) + d + (std::string(p) == "prev" ? 5 : 0)));
  std::vector<std::string> warnings;
  const std::string html = render_study_report({f}, "t", {"sweep.jsonl"}, warnings);
  CHECK(warnings.empty());
  CHECK(html.find("18 runs in 6 points") != std::string::npos);
  // makespan and migrations have values; no record has a benchmark time or a wakeup percentile.
  CHECK(html.find("id=\"study-0\"") != std::string::npos);
  CHECK(html.find("id=\"study-1\"") != std::string::npos);
  CHECK(html.find("id=\"study-2\"") == std::string::npos);
  CHECK(html.find("aria-label=\"makespan against gen.group\"") != std::string::npos);
  CHECK(html.find(">gen.group</text>") != std::string::npos);  // 1..4: a linear axis
  CHECK(count(html, "class=\"band\"") == 4);                    // 2 series x 2 metrics
  CHECK(html.find("placement=sis-util</text>") != std::string::npos);
  CHECK(count(html, "class=\"rep\"") == 36);                    // a dot per run and metric
  // Mean 11 ms of 10, 11, 12: s = 1, t(0.975, 2) = 4.302653 -> 11 -+ 4.302653 / sqrt(3) = [8.52, 13.5].
  CHECK(html.find("<tr><td>gen.group=1, placement=sis-util</td><td>3</td><td>-</td><td>11.0 "
                  "<span class=\"delta\">[8.52, 13.5]</span></td>") != std::string::npos);
}

TEST_CASE("study report: repetitions without a numeric parameter are rows of dots, one run has no interval") {
  RecordFile a, b;
  a.path = "a.jsonl";
  b.path = "b.jsonl";
  for (double d : {1.0, 2.0, 3.0}) {
    Record r;
    r.params = {{"label", "sis-util@smp2"}};
    r.metrics = {{"makespan", d * 1e6}};
    a.records.push_back(r);
  }
  Record one;
  one.params = {{"label", "prev@smp2"}};
  one.metrics = {{"makespan", 5e6}};
  one.notes = {"warning: 70% of the wakes replayed from the trace (7 of 10) were banked as tokens\n(detail)"};
  one.complete = false;
  b.records.push_back(one);
  std::vector<std::string> warnings;
  const std::string html = render_study_report({a, b}, "t", {"a.jsonl", "b.jsonl"}, warnings);
  REQUIRE(warnings.size() == 3);
  CHECK(warnings[0] == "1 of the 4 runs did not finish (\"complete\": false): their figures cover only the simulated part");
  // The warning is quoted by its headline.
  CHECK(warnings[1] == "1 of the 4 runs came with a warning, the first: warning: 70% of the wakes replayed from the "
                       "trace (7 of 10) were banked as tokens");
  CHECK(warnings[2].rfind("1 of the 2 points have one run", 0) == 0);
  CHECK(html.find("aria-label=\"makespan per point\"") != std::string::npos);
  CHECK(count(html, "class=\"ci\"") == 1);   // a's interval; b has one run
  CHECK(count(html, "class=\"mean\"") == 2);
  CHECK(html.find("file=a.jsonl, label=sis-util@smp2") != std::string::npos);
}
