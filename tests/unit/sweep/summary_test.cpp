// The sweep summary: a latency column of runs without samples is left out (not averaged in as 0),
// and the warnings name the points whose runs did not finish and why; an optional column (the
// benchmark time) is always a column (the column set never depends on the records), and a record
// without it is never a 0.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "schedsim/sweep/summary.hpp"

using namespace schedsim;
using namespace schedsim::sweep;

namespace {

std::string run_line(uint64_t point, uint32_t rep, uint64_t count, double mean, bool complete) {
  return fmt::format(
      R"({{"type":"run","point":{},"rep":{},"results":{{"summary":{{"makespan_ns":1000000,"complete":{},"incomplete":{}}},"latency_ns":{{"wakeup":{{"count":{},"mean":{}}}}}}}}})",
      point, rep, complete ? "true" : "false", complete ? "[]" : R"x(["stopped at 0.001000 s (stop_at)"])x", count, mean);
}

SummaryOptions options(const std::string& format) {
  SummaryOptions o;
  o.format = format;
  o.columns = {
      {"wakeup mean us", "/results/latency_ns/wakeup/mean", 0.001, 2, "/results/latency_ns/wakeup/count", false, ""},
      {"makespan ms", "/results/summary/makespan_ns", 1e-6, 3, "", false, ""},
      {"benchmark ms", "/results/summary/benchmark_time_ns", 1e-6, 3, "", true, "no benchmark timer"}};
  o.complete_pointer = "/results/summary/complete";
  o.incomplete_pointer = "/results/summary/incomplete";
  return o;
}

}  // namespace

TEST_CASE("sweep summary: a mean of no samples is '-', not 0, and incomplete points are named") {
  Spec s = spec_from_cli({"stop-at=1ms,10s"}, {});
  s.repeat = 2;
  // Point 0: both runs stopped before any wakeup. Point 1: one run with samples, one without.
  std::vector<std::string> recs = {run_line(0, 0, 0, 0, false), run_line(0, 1, 0, 0, false),
                                   run_line(1, 0, 10, 5000, true), run_line(1, 1, 0, 0, true)};
  std::vector<std::string> warnings;
  std::string table = render_summary(s, recs, options("table"), warnings);
  INFO(table);
  CHECK(table.find("1ms         2               -  1.000 ± 0.000") != std::string::npos);
  CHECK(table.find("5.00") != std::string::npos);   // point 1: the run without samples is left out
  CHECK(table.find("2.50") == std::string::npos);   // not (5 + 0) / 2
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == "2 run(s) did not finish (\"complete\": false); their figures cover only the simulated part: "
                       "stop-at=1ms (2 of 2: stopped at 0.001000 s (stop_at))");
  CHECK(warnings[1].find("stop-at=1ms (2 of 2 runs); stop-at=10s (1 of 2 runs)") != std::string::npos);
  std::vector<std::string> w2;
  std::string csv = render_summary(s, recs, options("csv"), w2);
  // CSV: an undefined cell is empty (missing to a CSV reader), not "-" (a string in a number column).
  CHECK(csv.find("\n1ms,2,,,1.0000,0.0000,,\n") != std::string::npos);
  REQUIRE(w2.size() == 2);
  CHECK(w2[1].find("left out of it (empty when no run") != std::string::npos);
}

TEST_CASE("sweep summary: runs that came with a warning are counted and their points named") {
  Spec s = spec_from_cli({"stop-at=1ms,10s"}, {});
  s.repeat = 2;
  auto with_notes = [](std::string line, const std::string& notes) {
    const std::string key = R"("incomplete":[])";
    return line.replace(line.find(key), key.size(), key + R"(,"notes":)" + notes);
  };
  // Point 1: one run with a warning after a note, one with a note only; point 0: none.
  std::vector<std::string> recs = {
      run_line(0, 0, 10, 5000, true), run_line(0, 1, 10, 5000, true),
      with_notes(run_line(1, 0, 10, 5000, true), R"(["note: a note", "warning: 9 of 10 wakes banked"])"),
      with_notes(run_line(1, 1, 10, 5000, true), R"(["note: a note"])")};
  SummaryOptions o = options("table");
  o.notes_pointer = "/results/summary/notes";
  std::vector<std::string> warnings;
  render_summary(s, recs, o, warnings);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "1 run(s) came with a warning (results.summary.notes of their records): their figures may not "
                       "mean what they seem: stop-at=10s (1 of 2: warning: 9 of 10 wakes banked)");
  // Without the pointer (or with records that have no notes) nothing is said.
  std::vector<std::string> w2;
  render_summary(s, recs, options("table"), w2);
  CHECK(w2.empty());
}

TEST_CASE("sweep summary: an optional column is always there, '-' (empty in CSV) where a point has none") {
  Spec s = spec_from_cli({"stop-at=1ms,10s"}, {});
  s.repeat = 2;
  std::vector<std::string> recs(4);
  for (uint32_t i = 0; i < 4; ++i) recs[i] = run_line(i / 2, i % 2, 10, 5000, true);
  std::vector<std::string> warnings;
  std::string table = render_summary(s, recs, options("table"), warnings);
  INFO(table);
  // No record has a benchmark time: the column is there, "-" in every row, and no warning (no
  // point differs from the others).
  CHECK(table.find("benchmark ms") != std::string::npos);
  CHECK(table.find("1.000 ± 0.000             -\n") != std::string::npos);
  CHECK(warnings.empty());
  std::vector<std::string> w0;
  const std::string csv_none = render_summary(s, recs, options("csv"), w0);
  CHECK(w0.empty());
  // Point 1's runs carry a benchmark time (2 ms and 4 ms), point 0's do not: "-", not 0.
  auto with_bench = [](std::string line, int64_t ns) {
    line.insert(line.find("\"makespan_ns\""), fmt::format("\"benchmark_time_ns\":{},", ns));
    return line;
  };
  recs[2] = with_bench(recs[2], 2000000);
  recs[3] = with_bench(recs[3], 4000000);
  table = render_summary(s, recs, options("table"), warnings);
  INFO(table);
  CHECK(table.find("3.000 ± 1.414") != std::string::npos);
  CHECK(table.find("1.000 ± 0.000              -") != std::string::npos);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0] == "runs with no benchmark ms (no benchmark timer) are left out of that column (\"-\" when no "
                       "run of the point has one): stop-at=1ms (2 of 2 runs)");
  std::vector<std::string> w2;
  std::string csv = render_summary(s, recs, options("csv"), w2);
  CHECK(csv.find("benchmark ms mean,benchmark ms std") != std::string::npos);
  CHECK(csv.find("1ms,2,5.000,0.000,1.0000,0.0000,,\n") != std::string::npos);
  CHECK(csv.find("10s,2,5.000,0.000,1.0000,0.0000,3.0000,1.4142") != std::string::npos);
  // The same header with and without benchmark times: a script reading the columns by position
  // or name sees one shape for every sweep.
  auto header = [](const std::string& t) { return t.substr(0, t.find('\n')); };
  CHECK(header(csv_none) == header(csv));
  CHECK(header(csv) == "stop-at,runs,wakeup mean us mean,wakeup mean us std,makespan ms mean,makespan ms std,"
                       "benchmark ms mean,benchmark ms std");
  CHECK(csv_none.find("\n1ms,2,5.000,0.000,1.0000,0.0000,,\n") != std::string::npos);
}

TEST_CASE("sweep summary CSV: the std of a single run is an empty cell, not 0") {
  Spec s = spec_from_cli({"stop-at=1ms,10s"}, {});
  // One repetition per point: a sample standard deviation is undefined (n - 1 = 0).
  std::vector<std::string> recs = {run_line(0, 0, 10, 5000, true), run_line(1, 0, 10, 7000, true)};
  std::vector<std::string> warnings;
  std::string csv = render_summary(s, recs, options("csv"), warnings);
  CHECK(csv.find("\n1ms,1,5.000,,1.0000,,,\n") != std::string::npos);
  CHECK(csv.find("\n10s,1,7.000,,1.0000,,,\n") != std::string::npos);
  std::string table = render_summary(s, recs, options("table"), warnings);
  CHECK(table.find("±") == std::string::npos);
}
