// compare_records on hand-built records: verdict rules (significance from both corrected tests,
// minimum effect, better direction), corrections, matching errors.
#include <map>

#include <catch2/catch.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/metrics/compare.hpp"

using namespace schedsim;

namespace {

RecordFile file(const std::string& placement, const std::vector<double>& makespan, const std::vector<double>& cs,
                const std::string& topology = "t") {
  RecordFile f;
  f.path = placement + ".jsonl";
  f.kind = "jsonl";
  f.version = kRecordVersion;
  for (size_t i = 0; i < makespan.size(); ++i) {
    Record r;
    r.params = {{"workload", "w"}, {"topology", topology}, {"module.placement", placement}, {"seed", "1"}};
    r.rep = static_cast<uint32_t>(i);
    r.seed = 1000 + i;  // each repetition its own seed, as run --repeat writes them
    r.metrics = {{"makespan", makespan[i]}, {"context_switches", cs[i]}};
    f.records.push_back(r);
    f.where.push_back(f.path + ":" + std::to_string(i + 1));
  }
  return f;
}

const std::vector<double> kBase = {100, 101, 99, 100, 102, 98, 100, 101, 99, 100};

std::vector<double> scaled(double f) {
  std::vector<double> v;
  v.reserve(kBase.size());
  for (double x : kBase) v.push_back(x * f);
  return v;
}

}  // namespace

TEST_CASE("verdicts honour significance, minimum effect and direction") {
  CompareOptions o;
  o.metrics = {"makespan", "context_switches"};
  // +20% on makespan and -20% on context switches: far outside the spread of kBase.
  RecordFile a = file("x", kBase, kBase);
  RecordFile b = file("y", scaled(1.2), scaled(0.8));
  CompareResult c = compare_records(a, b, o);
  REQUIRE(c.points.size() == 1);
  REQUIRE(c.points[0].rows.size() == 2);
  const CompareRow& mk = c.points[0].rows[0];
  CHECK(mk.metric == "makespan");
  CHECK(mk.change == Approx(0.2));
  CHECK(mk.verdict == "regressed");  // lower is better
  CHECK(mk.ci.lo < 0.2);
  CHECK(mk.ci.hi > 0.2);
  CHECK(c.points[0].rows[1].verdict == "changed");  // no better direction
  CHECK(c.tested == 2);
  CHECK(c.differs == std::vector<std::string>{"module.placement: x -> y"});

  // A real but tiny difference: base values 1000 +- 0.1, new ones 0.5% higher (no overlap, so
  // both tests are significant), stays below the default --min-effect of 1%.
  std::vector<double> tight, tiny;
  for (double x : kBase) {
    tight.push_back(1000 + (x - 100) / 20);
    tiny.push_back(1005 + (x - 100) / 20);
  }
  CompareResult t = compare_records(file("x", tight, kBase), file("y", tiny, kBase), o);
  CHECK(t.points[0].rows[0].significant);
  CHECK(t.points[0].rows[0].change == Approx(0.005));
  CHECK(t.points[0].rows[0].verdict == "no significant change");
  o.min_effect = 0.001;
  CompareResult t2 = compare_records(file("x", tight, kBase), file("y", tiny, kBase), o);
  CHECK(t2.points[0].rows[0].verdict == "regressed");
  // Overlapping samples (shift 0.5 within a spread of 4): neither test is significant.
  std::vector<double> shifted;
  shifted.reserve(kBase.size());
  for (double x : kBase) shifted.push_back(x + 0.5);
  CompareResult t3 = compare_records(file("x", kBase, kBase), file("y", shifted, kBase), o);
  CHECK_FALSE(t3.points[0].rows[0].significant);
  CHECK(t3.points[0].rows[0].verdict == "no significant change");
}

TEST_CASE("Holm and BH adjust the raw p-values of the family") {
  CompareOptions o;
  o.metrics = {"makespan", "context_switches"};
  CompareResult h = compare_records(file("x", kBase, kBase), file("y", scaled(1.02), scaled(1.01)), o);
  o.correction = "bh";
  CompareResult b = compare_records(file("x", kBase, kBase), file("y", scaled(1.02), scaled(1.01)), o);
  const auto& hr = h.points[0].rows;
  std::vector<double> raw = {hr[0].p_welch, hr[1].p_welch};
  std::vector<double> holm = stats::holm(raw), bh = stats::benjamini_hochberg(raw);
  CHECK(hr[0].p_welch_adj == Approx(holm[0]));
  CHECK(hr[1].p_welch_adj == Approx(holm[1]));
  CHECK(b.points[0].rows[0].p_welch_adj == Approx(bh[0]));
  CHECK(b.points[0].rows[1].p_welch_adj == Approx(bh[1]));
}

TEST_CASE("different machines are refused unless allowed") {
  CompareOptions o;
  o.metrics = {"makespan"};
  RecordFile a = file("x", kBase, kBase), b = file("y", kBase, kBase, "other");
  CHECK_THROWS_AS(compare_records(a, b, o), InputError);
  o.by = {"workload"};
  CHECK_THROWS_WITH(compare_records(a, b, o), Catch::Contains("topology: t -> other"));
  o.by.clear();
  o.allow_mismatch = true;
  CompareResult c = compare_records(a, b, o);
  REQUIRE(c.notes.size() == 1);
  CHECK(c.notes[0].find("topology: t -> other") != std::string::npos);
}

TEST_CASE("gates: syntax, threshold direction, significance") {
  CHECK_THROWS_AS(parse_gate("makespan"), InputError);
  CHECK_THROWS_AS(parse_gate("makespan>5"), InputError);
  CHECK_THROWS_AS(parse_gate("nosuch>+5%"), InputError);
  Gate g = parse_gate("makespan>+5%");
  CHECK(g.threshold == Approx(0.05));
  // Spaces, and the names the results JSON and run's table use, mean the same gate.
  const Gate spaced = parse_gate(" wakeup_latency.p99_ns > +5% ");
  CHECK(spaced.metric == "wakeup.p99");
  CHECK(spaced.op == '>');
  CHECK(spaced.threshold == Approx(0.05));
  CHECK(parse_gate("makespan_ns < -2%").metric == "makespan");
  CHECK(parse_gate("preempt_delay.mean_ns>+1%").metric == "preempt.mean");
  CHECK(catalog_metric_name("wakeup_latency.nosuch_ns") == "wakeup_latency.nosuch_ns");
  CHECK_THROWS_AS(parse_gate("wakeup_latency.nosuch_ns>+5%"), InputError);
  CompareOptions o;
  o.metrics = {"makespan"};
  CompareResult up = compare_records(file("x", kBase, kBase), file("y", scaled(1.2), kBase), o);
  CHECK(evaluate_gates(up, {g}).failures.size() == 1);
  CHECK(evaluate_gates(up, {parse_gate("makespan>+25%")}).failures.empty());
  CHECK(evaluate_gates(up, {parse_gate("makespan<-5%")}).failures.empty());
  CompareResult same = compare_records(file("x", kBase, kBase), file("y", kBase, kBase), o);
  CHECK(evaluate_gates(same, {g}).failures.empty());
}

TEST_CASE("a run that did not finish is named in a note, and a gate refuses to judge its point") {
  CompareOptions o;
  o.metrics = {"makespan"};
  RecordFile stopped = file("y", scaled(0.05), kBase);
  stopped.records[1].complete = false;
  stopped.records[1].incomplete = {"stopped at 0.000100 s (stop_at) with events still pending"};
  CompareResult c = compare_records(file("x", kBase, kBase), stopped, o);
  REQUIRE(c.points.size() == 1);
  REQUIRE(c.points[0].incomplete.size() == 1);
  CHECK(c.points[0].incomplete[0] == "NEW y.jsonl:2 (stopped at 0.000100 s (stop_at) with events still pending)");
  bool noted = false;
  for (const auto& n : c.notes) noted = noted || n.find("did not finish") != std::string::npos;
  CHECK(noted);
  GateOutcome g = evaluate_gates(c, {parse_gate("makespan>+5%")});
  CHECK(g.failures.empty());
  REQUIRE(g.untestable.size() == 1);
  CHECK(g.untestable[0].find("gate on complete runs only") != std::string::npos);
  // Complete runs: no note, the gate judges.
  CompareResult ok = compare_records(file("x", kBase, kBase), file("y", scaled(0.05), kBase), o);
  CHECK(ok.points[0].incomplete.empty());
  CHECK(evaluate_gates(ok, {parse_gate("makespan>+5%")}).untestable.empty());
}

TEST_CASE("a run printed with a warning is named in a note per side, notes alone are not") {
  CompareOptions o;
  o.metrics = {"makespan"};
  RecordFile warned = file("y", kBase, kBase);
  warned.records[1].notes = {"note: 1 background task replayed as load", "warning: 9 of the trace's 10 wakeups (90%) were banked"};
  warned.records[0].notes = {"note: only a note"};
  CompareResult c = compare_records(file("x", kBase, kBase), warned, o);
  std::vector<std::string> hits;
  for (const auto& n : c.notes)
    if (n.find("came with a warning") != std::string::npos) hits.push_back(n);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0] == "point 1: 1 of the 10 NEW run(s) came with a warning, first y.jsonl:2 (warning: 9 of the trace's 10 "
                   "wakeups (90%) were banked)");
  // The point keeps it too (compare prints it on stderr, which every format needs: CSV has no notes).
  REQUIRE(c.points.size() == 1);
  CHECK(c.points[0].warned == std::vector<std::string>{hits[0].substr(std::string("point 1: ").size())});
  // Through JSON Lines and back: the notes are kept; a record without the member reads as none.
  RecordFile back = parse_record_text(render_jsonl(warned.records), "y.jsonl");
  CHECK(back.records[1].notes == warned.records[1].notes);
  CHECK(parse_record_text(R"({"schema":"schedsim-record","version":1,"params":{},"rep":0,"seed":1,"metrics":{}})" "\n",
                          "old.jsonl")
            .records[0]
            .notes.empty());
  CHECK_THROWS_AS(parse_record_text(R"({"schema":"schedsim-record","version":1,"params":{},"rep":0,"seed":1,"metrics":{},"notes":[1]})" "\n", "r.jsonl"), InputError);
  CompareResult none = compare_records(file("x", kBase, kBase), file("y", kBase, kBase), o);
  for (const auto& n : none.notes) CHECK(n.find("came with a warning") == std::string::npos);
}

TEST_CASE("records keep \"complete\": false and its reasons through JSON Lines") {
  Record r;
  r.params = {{"workload", "w"}};
  r.metrics = {{"makespan", 1.0}};
  std::string complete = render_jsonl({r});
  // Every record has both members (one shape for a script), true and [] when the run finished.
  CHECK(complete.find(R"("complete":true,"incomplete":[])") != std::string::npos);
  // A record written before they were always there (no member when complete) reads as complete.
  CHECK(parse_record_text(R"({"schema":"schedsim-record","version":1,"params":{},"rep":0,"seed":1,"metrics":{}})" "\n",
                          "old.jsonl")
            .records[0]
            .complete);
  r.complete = false;
  r.incomplete = {"stopped at 1 s"};
  RecordFile f = parse_record_text(render_jsonl({r}), "r.jsonl");
  REQUIRE(f.records.size() == 1);
  CHECK_FALSE(f.records[0].complete);
  CHECK(f.records[0].incomplete == std::vector<std::string>{"stopped at 1 s"});
  CHECK(parse_record_text(complete, "r.jsonl").records[0].complete);
  CHECK_THROWS_AS(parse_record_text(R"({"schema":"schedsim-record","version":1,"params":{},"rep":0,"seed":1,"metrics":{},"complete":"no"})" "\n", "r.jsonl"), InputError);
}

TEST_CASE("a latency statistic of runs with no sample is noted, and a gate refuses it") {
  CompareOptions o;
  o.metrics = {"preempt.mean"};
  auto with_preempt = [](RecordFile f, double count, double mean) {
    for (auto& r : f.records) {
      r.metrics["preempt.count"] = count;
      r.metrics["preempt.mean"] = mean;
    }
    return f;
  };
  // NEW recorded no preemption at all: its preempt.mean is stored as 0, which is not a latency.
  CompareResult c = compare_records(with_preempt(file("x", kBase, kBase), 5, 3000),
                                    with_preempt(file("y", kBase, kBase), 0, 0), o);
  REQUIRE(c.points.size() == 1);
  REQUIRE(c.points[0].rows.size() == 1);
  CHECK(c.points[0].rows[0].runs_without_samples == kBase.size());
  bool noted = false;
  for (const auto& n : c.notes)
    noted = noted || n.find("preempt.mean: 0 of 10 base and 10 of 10 new run(s) recorded no sample") != std::string::npos;
  CHECK(noted);
  GateOutcome g = evaluate_gates(c, {parse_gate("preempt.mean>+5%")});
  CHECK(g.failures.empty());
  REQUIRE(g.untestable.size() == 1);
  CHECK(g.untestable[0].find("gate on runs that measured it") != std::string::npos);
  // Both sides measured it: no note, the gate judges.
  CompareResult ok = compare_records(with_preempt(file("x", kBase, kBase), 5, 3000),
                                     with_preempt(file("y", kBase, kBase), 5, 4000), o);
  CHECK(ok.points[0].rows[0].runs_without_samples == 0);
  CHECK(evaluate_gates(ok, {parse_gate("preempt.mean>+5%")}).untestable.empty());
  CHECK(evaluate_gates(ok, {parse_gate("preempt.mean>+5%")}).failures.size() == 1);
}

TEST_CASE("records without a statistic's count (older files) are noted where they store 0", "[compare]") {
  auto with = [](RecordFile f, const std::map<std::string, double>& m) {
    for (auto& r : f.records)
      for (const auto& [k, v] : m) r.metrics[k] = v;
    return f;
  };
  CompareOptions o;
  o.metrics = {"fork.mean"};
  // BASE is an older file: fork.mean without fork.count. Its 0 may be "no fork at all".
  CompareResult c = compare_records(with(file("x", kBase, kBase), {{"fork.mean", 0}}),
                                    with(file("y", kBase, kBase), {{"fork.count", 3}, {"fork.mean", 2500}}), o);
  CHECK(c.points[0].rows[0].runs_maybe_without_samples == kBase.size());
  bool noted = false;
  for (const auto& n : c.notes) noted = noted || n.find("without fork.count (a file from an older schedsim)") != std::string::npos;
  CHECK(noted);
  GateOutcome g = evaluate_gates(c, {parse_gate("fork.mean>+5%")});
  REQUIRE(g.untestable.size() == 1);
  CHECK(g.untestable[0].find("may be undefined") != std::string::npos);
  // A nonzero value without a count is a measurement (a run with no sample stores 0): no note.
  CompareResult m = compare_records(with(file("x", kBase, kBase), {{"fork.mean", 2400}}),
                                    with(file("y", kBase, kBase), {{"fork.count", 3}, {"fork.mean", 2500}}), o);
  CHECK(m.points[0].rows[0].runs_maybe_without_samples == 0);
  // --metrics all leaves out what a file does not carry, with a note, instead of refusing.
  o.metrics = {"all"};
  CompareResult all = compare_records(file("x", kBase, kBase), with(file("y", kBase, kBase), {{"fork.count", 3}}), o);
  std::vector<std::string> names;
  for (const auto& r : all.points[0].rows) names.push_back(r.metric);
  CHECK(names == std::vector<std::string>{"makespan", "context_switches"});
  bool absent = false;
  for (const auto& n : all.notes) absent = absent || n.find("not compared (not recorded in every record") != std::string::npos;
  CHECK(absent);
  // A gate on a metric left out must not pass silently.
  GateOutcome left = evaluate_gates(all, {parse_gate("fork.count>+5%")});
  REQUIRE(left.untestable.size() == 1);
  CHECK(left.untestable[0].find("was not compared") != std::string::npos);
}
