// RunResults reporters (table, JSON, CSV), the JSON reader's errors, histogram accuracy, and the
// results fixtures under tests/data/results/ (real runs of a workload imported from a real trace).
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "fixture.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/metrics/html_report.hpp"
#include "schedsim/metrics/records.hpp"
#include "schedsim/metrics/results.hpp"
#include "schedsim/engine/engine.hpp"
#include "schedsim/policies/registry.hpp"

using namespace metrics_test;

namespace {

std::string fixture_path(const char* name) {
  return std::string(SCHEDSIM_SOURCE_DIR) + "/tests/data/results/" + name;
}

/// The workload of a real trace (tests/data/traces/perf-bench-messaging.ftrace.gz, `perf bench
/// sched messaging -g 1 -l 20` on a 2-vCPU 6.18 VM) as `schedsim import` extracts it, with the
/// statistics the real kernel produced (Workload::observed). Regenerate with
///   schedsim import tests/data/traces/perf-bench-messaging.ftrace.gz -o tests/data/results/messaging.workload.cbor
const Workload& traced_workload() {
  static const Workload w = read_workload(fixture_path("messaging.workload.cbor"));
  return w;
}

/// A real run: the traced workload replayed on a machine of the recorded size (2 CPUs, here each
/// its own LLC, as a VM's vCPUs often are, so that every report section has content) by the
/// engine with the 6.12 modules, placement `sis-util` (the kernel's) or the `prev` baseline.
RunResults real_results(bool sis_util) {
  static Topology topo = machine(2, 2);
  const Workload& w = traced_workload();
  std::map<std::string, std::string> choice = default_modules();
  choice["placement"] = sis_util ? "sis-util" : "prev";
  PolicyStack st = builtin_registry().make(choice, FeatureSet{});
  RunConfig cfg;
  cfg.label = sis_util ? "sis-util" : "prev";
  cfg.workload = w.name;
  cfg.workload_source = "tests/data/results/messaging.workload.cbor";
  cfg.topology = topo.name();
  cfg.modules = st.names;
  cfg.features = st.features.all();
  cfg.seed = 1;
  Simulation sim(w, topo, std::move(st), CostModel{}, SimConfig{});
  MetricsCollector m(w);
  sim.add_observer(&m);
  SimSummary sum = sim.run();
  return m.results(cfg, &sum);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("histogram percentiles stay within 1/128 of exact sorted-array percentiles", "[metrics][histogram]") {
  // 10k samples, past the exact limit (4096): nearest-rank percentile of the sorted array vs
  // the histogram's bucket midpoint. Bound: |h - x| <= x / 128 + 1 (half a bucket, log-linear).
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(10.0, 1.5);
  Histogram h;
  std::vector<int64_t> xs;
  for (int i = 0; i < 10000; ++i) {
    int64_t v = static_cast<int64_t>(dist(rng));
    xs.push_back(v);
    h.record(v);
  }
  std::sort(xs.begin(), xs.end());
  REQUIRE_FALSE(h.exact());
  for (double q : {1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    size_t rank = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(xs.size())));
    int64_t exact = xs[std::max<size_t>(rank, 1) - 1];
    int64_t got = h.percentile(q);
    INFO("q=" << q << " exact=" << exact << " got=" << got);
    CHECK(std::abs(static_cast<double>(got - exact)) <= static_cast<double>(exact) / 128.0 + 1.0);
  }
  CHECK(h.min() == xs.front());
  CHECK(h.max() == xs.back());
  double mean = 0;
  for (int64_t x : xs) mean += static_cast<double>(x);
  CHECK(h.mean() == Approx(mean / 1e4));
  // Below the exact limit every percentile is a real sample.
  Histogram small;
  for (int64_t x : {5, 1, 9, 3, 7}) small.record(x);
  CHECK(small.percentile(50) == 5);   // ceil(0.5 * 5) = 3rd smallest
  CHECK(small.percentile(90) == 9);   // ceil(4.5) = 5th
  CHECK(small.percentile(0) == 1);
}

TEST_CASE("Distribution::from keeps the summary and the buckets", "[metrics]") {
  Histogram h;
  for (int64_t v : {100, 100, 200, 300}) h.record(v);
  Distribution d = Distribution::from(h);
  CHECK(d.count == 4);
  CHECK(d.mean == Approx(175));
  CHECK(d.min == 100);
  CHECK(d.p50 == 100);
  CHECK(d.max == 300);
  CHECK(d.exact);
  uint64_t n = 0;
  for (const auto& b : d.buckets) n += b.count;
  CHECK(n == 4);
}

TEST_CASE("results JSON round-trips byte for byte and is deterministic", "[metrics][json]") {
  RunResults a = real_results(true);
  RunResults b = real_results(true);
  std::string ja = render_json(a);
  CHECK(ja == render_json(b));
  CHECK(ja.rfind("{\n  \"schema\": \"schedsim-results\",\n  \"version\": 1,\n", 0) == 0);
  RunResults back = parse_results_json(ja, "mem.json");
  CHECK(render_json(back) == ja);
  CHECK(render_csv(back) == render_csv(a));
  CHECK(render_table(back) == render_table(a));
  CHECK(back.wakeup_latency.p99 == a.wakeup_latency.p99);
  CHECK(back.timeline.busy == a.timeline.busy);
}

TEST_CASE("results fixtures are reproducible from real runs", "[metrics][fixtures]") {
  // Regenerate with: SCHEDSIM_UPDATE_GOLDEN=1 metrics_tests "[fixtures]"
  const char* update = std::getenv("SCHEDSIM_UPDATE_GOLDEN");
  for (bool sis_util : {true, false}) {
    std::string path = fixture_path(sis_util ? "sis-util.json" : "prev.json");
    std::string json = render_json(real_results(sis_util));
    if (update && std::string(update) == "1") {
      std::ofstream(path, std::ios::binary) << json;
      continue;
    }
    INFO(path);
    CHECK(slurp(path) == json);
    RunResults r = load_results_json(path);
    CHECK(r.config.label == (sis_util ? "sis-util" : "prev"));
    CHECK(r.complete);
    CHECK(r.config.modules.at("placement") == (sis_util ? "sis-util" : "prev"));
    for (const auto& c : r.cpus) CHECK(c.busy_ns <= r.makespan_ns);  // the traced tasks begin asleep
  }
}

TEST_CASE("table and CSV carry every section", "[metrics]") {
  RunResults r = real_results(true);
  std::string t = render_table(r);
  for (const char* s : {"schedsim results: sis-util", "latency (us)", "wakeup", "run-queue wait", "placement",
                        "migrations by level", "per CPU", "per LLC", "tasks by max delay", "task groups",
                        "simulated vs observed"})
    CHECK(t.find(s) != std::string::npos);
  std::string csv = render_csv(r);
  CHECK(csv.rfind("run,section,key,stat,value\n", 0) == 0);
  CHECK(csv.find("\nsis-util,latency_ns,wakeup,p99,") != std::string::npos);
  CHECK(csv.find("\nsis-util,placement_outcome,idle_cpu,count,") != std::string::npos);
  CHECK(csv.find("\nsis-util,cpu,1,utilization,") != std::string::npos);
  CHECK(csv.find("\nsis-util,observed,wakeup_latency.p99_ns,rel_error,") != std::string::npos);
  // Every row has exactly 5 fields (no field here needs quoting).
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) CHECK(std::count(line.begin(), line.end(), ',') == 4);
}

TEST_CASE("CSV quotes fields with commas and quotes", "[metrics]") {
  RunResults r;
  r.config.label = "a,b \"c\"";
  std::string csv = render_csv(r);
  CHECK(csv.find("\n\"a,b \"\"c\"\"\",config,workload,,\n") != std::string::npos);
}

TEST_CASE("results JSON reader errors", "[metrics][json]") {
  std::string good = render_json(RunResults{});
  auto message = [](const std::string& text) {
    try {
      parse_results_json(text, "r.json");
    } catch (const InputError& e) {
      return e.render();
    }
    return std::string("no error");
  };
  SECTION("malformed JSON gives line and column") {
    std::string bad = good;
    bad.insert(bad.find("\"summary\""), "oops ");
    std::string m = message(bad);
    CHECK(m.rfind("r.json:", 0) == 0);
    CHECK(m.find("error: malformed results JSON: syntax error") != std::string::npos);
    long line = 1 + std::count(good.begin(), good.begin() + static_cast<long>(good.find("\"summary\"")), '\n');
    CHECK(m.find("r.json:" + std::to_string(line) + ":") == 0);
  }
  SECTION("wrong schema") {
    std::string bad = good;
    bad.replace(bad.find("schedsim-results"), 16, "something-else!!");
    CHECK(message(bad).find("r.json:2: error: not a schedsim results file") == 0);
  }
  SECTION("wrong version") {
    std::string bad = good;
    bad.replace(bad.find("\"version\": 1"), 12, "\"version\": 2");
    CHECK(message(bad).find("r.json:3: error: unsupported results schema version 2; this schedsim reads version 1") ==
          0);
  }
  SECTION("missing and mistyped fields name a JSON pointer") {
    std::string bad = good;
    bad.replace(bad.find("\"makespan_ns\": 0"), 16, "\"makespan_ns\": \"x\"");
    CHECK(message(bad).find("error: results JSON /summary/makespan_ns: expected an integer, got string") !=
          std::string::npos);
    bad = good;
    bad.replace(bad.find("\"seed\": 0"), 9, "\"sed\": 0");
    CHECK(message(bad).find("error: results JSON /config/seed: missing field") != std::string::npos);
  }
  SECTION("missing file") {
    try {
      load_results_json("/nonexistent/r.json");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.render().find("/nonexistent/r.json: error: cannot open results file: No such file or directory") == 0);
    }
  }
}

TEST_CASE("HTML report is self-contained and has every plot", "[metrics][html]") {
  std::vector<RunResults> runs = {real_results(true), real_results(false)};
  std::string html = render_html_report(runs, "A <title>", {"a.json", "b.json"});
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<title>A &lt;title&gt;</title>") != std::string::npos);
  for (const char* id : {"id=\"pct-wakeup\"", "id=\"provenance\"", "id=\"outcome-definitions\"",
                         "id=\"metric-definitions\"", "id=\"cdf-wakeup\"", "id=\"cdf-rqwait\"", "id=\"placement-bars\"", "id=\"heatmap-0\"",
                         "id=\"heatmap-1\"", "id=\"summary\"", "id=\"latency\"", "id=\"migrations\"", "id=\"cpus\""})
    CHECK(html.find(id) != std::string::npos);
  // No network: the only URL is the SVG namespace; no external scripts, styles or fonts.
  std::string stripped = html;
  for (size_t p; (p = stripped.find("http://www.w3.org/2000/svg")) != std::string::npos;) stripped.erase(p, 26);
  CHECK(stripped.find("http") == std::string::npos);
  CHECK(stripped.find("src=") == std::string::npos);
  CHECK(stripped.find("<link") == std::string::npos);
  CHECK(html.find("class=\"curve\" data-run=\"1\"") != std::string::npos);
  CHECK(render_html_report(runs, "A <title>", {"a.json", "b.json"}) == html);
}

TEST_CASE("provenance is written by every format and read back", "[metrics][provenance]") {
  RunResults r = real_results(true);
  r.config.provenance.version = "9.9.9";
  r.config.provenance.command = "schedsim run 'a b.json' --jitter 5%";
  r.config.provenance.noise = "jitter=5%";
  r.config.provenance.workload_hash = hash_hex(fnv1a64("w"));
  r.config.provenance.topology_hash = hash_hex(fnv1a64("t"));
  RunResults back = parse_results_json(render_json(r), "r.json");
  CHECK(back.config.provenance.fields() == r.config.provenance.fields());
  CHECK(render_table(r).find("  command          schedsim run 'a b.json' --jitter 5%\n") != std::string::npos);
  CHECK(render_csv(r).find(",provenance,noise,,jitter=5%\n") != std::string::npos);
  std::map<std::string, std::string> p = run_params(r.config, "jitter=5%");
  CHECK(p.at("workload_hash") == r.config.provenance.workload_hash);
  CHECK(p.at("provenance.version") == "9.9.9");
  CHECK(p.count("provenance.kernel") == 0);  // empty fields are left out
  // FNV-1a 64 reference values (the empty string is the offset basis; "a" from the FNV spec).
  CHECK(hash_hex(fnv1a64("")) == "cbf29ce484222325");
  CHECK(hash_hex(fnv1a64("a")) == "af63dc4c8601ec8c");
  // A file without provenance reads as empty provenance and writes none.
  RunResults old = real_results(true);
  CHECK(render_json(old).find("\"provenance\"") == std::string::npos);
}

TEST_CASE("provenance cost_profile is a key, why a preset ran on the reference costs is its own field",
          "[metrics][provenance]") {
  RunResults r = real_results(true);
  r.config.provenance.version = "9.9.9";
  r.config.provenance.cost_profile = "reference";
  r.config.provenance.cost_profile_note = "epyc-milan-2s has no measured costs";
  const std::string json = render_json(r);
  CHECK(json.find("\"cost_profile\": \"reference\",\n") != std::string::npos);
  CHECK(json.find("\"cost_profile_note\": \"epyc-milan-2s has no measured costs\",\n") != std::string::npos);
  RunResults back = parse_results_json(json, "r.json");
  CHECK(back.config.provenance.fields() == r.config.provenance.fields());
  // The text forms keep the one row they always had.
  CHECK(render_table(r).find("  cost_profile     reference (epyc-milan-2s has no measured costs)\n") != std::string::npos);
  CHECK(render_table(r).find("cost_profile_note") == std::string::npos);
  CHECK(render_table(r).find("defaults (epyc-milan-2s has no measured costs)") != std::string::npos);
  CHECK(render_html_report({r}, "t").find("<td>reference (epyc-milan-2s has no measured costs)</td>") !=
        std::string::npos);
  CHECK(render_csv(r).find(",provenance,cost_profile,,reference\n") != std::string::npos);
  CHECK(render_csv(r).find(",provenance,cost_profile_note,,epyc-milan-2s has no measured costs\n") != std::string::npos);
  // Every run writes the field, empty when there is no note: the JSON shape does not depend on
  // the machine.
  r.config.provenance.cost_profile = "xeon-e5-2690v2";
  r.config.provenance.cost_profile_note.clear();
  CHECK(render_json(r).find("\"cost_profile_note\": \"\",\n") != std::string::npos);
  // A file written before the note existed (the prose in cost_profile) reads as the two fields.
  std::string old = json;
  const std::string from = "\"cost_profile\": \"reference\",\n    \"cost_profile_note\": \"epyc-milan-2s has no measured costs\",\n";
  REQUIRE(old.find(from) != std::string::npos);
  old.replace(old.find(from), from.size(), "\"cost_profile\": \"reference (dense-2s-1024 is synthetic)\",\n");
  RunResults was = parse_results_json(old, "old.json");
  CHECK(was.config.provenance.cost_profile == "reference");
  CHECK(was.config.provenance.cost_profile_note == "dense-2s-1024 is synthetic");
}

TEST_CASE("results keep the run's notes, report names a run that came with a warning", "[metrics][html]") {
  RunResults a = real_results(true), b = real_results(false);
  b.config.label = "other";
  a.notes = {"note: a note only"};
  b.notes = {"note: first a note", "warning: 9 of the trace's 10 wakeups (90%) were banked"};
  RunResults back = parse_results_json(render_json(b), "b.json");
  CHECK(back.notes == b.notes);
  CHECK(render_csv(b).find("summary,notes,1,warning: 9 of the trace's 10 wakeups (90%) were banked") != std::string::npos);
  std::vector<std::string> w = report_warnings({a, b}, {"a.json", "b.json"});
  REQUIRE(w.size() == 1);
  CHECK(w[0] == "b.json came with a warning: 9 of the trace's 10 wakeups (90%) were banked");
  // A file written before the member existed reads as no notes; a non-string is refused.
  std::string json = render_json(a);
  const size_t at = json.find("\"notes\": [");
  REQUIRE(at != std::string::npos);
  const size_t end = json.find("],\n", at) + 3;
  const std::string member = json.substr(at, end - at);
  CHECK(member.find("\"note: a note only\"") != std::string::npos);
  std::string old = json;
  old.erase(at, member.size());
  CHECK(parse_results_json(old, "old.json").notes.empty());
  std::string bad = json;
  bad.replace(at, member.size(), "\"notes\": [1],\n");
  CHECK_THROWS_AS(parse_results_json(bad, "bad.json"), InputError);
}

TEST_CASE("report warns on duplicate labels and on different workload or machine hashes", "[metrics][html]") {
  RunResults a = real_results(true), b = real_results(false);
  a.config.label = b.config.label = "same";
  CHECK(report_warnings({a, b}, {"a.json", "b.json"}).size() == 1);
  b.config.label = "other";
  CHECK(report_warnings({a, b}, {"a.json", "b.json"}).empty());
  a.config.provenance.workload_hash = "0000000000000001";
  CHECK(report_warnings({a, b}, {"a.json", "b.json"}).empty());  // b records none: nothing to compare
  b.config.provenance.workload_hash = "0000000000000002";
  b.config.provenance.topology_hash = "0000000000000003";
  a.config.provenance.topology_hash = "0000000000000003";
  std::vector<std::string> w = report_warnings({a, b}, {"a.json", "b.json"});
  REQUIRE(w.size() == 1);
  CHECK(w[0].find("b.json simulated a different workload than the first run a.json") == 0);
  std::string html = render_html_report({a, b}, "t", {"a.json", "b.json"});
  CHECK(html.find("<div id=\"warnings\"") != std::string::npos);
  CHECK(html.find("id=\"pct-wakeup\"") != std::string::npos);
}

TEST_CASE("an incomplete run keeps its reasons in every format", "[metrics][json]") {
  RunResults r = real_results(true);
  r.complete = false;
  r.work_expected_ns = r.work_done_ns + 5;
  r.incomplete = {"the simulation ran out of events with 1 task blocked forever",
                  "task 0 ('a'): blocked at action 1 (block), never woken"};
  std::string j = render_json(r);
  RunResults back = parse_results_json(j, "mem.json");
  CHECK_FALSE(back.complete);
  CHECK(back.incomplete == r.incomplete);
  CHECK(back.work_expected_ns == r.work_expected_ns);
  CHECK(render_json(back) == j);
  std::string csv = render_csv(r);
  CHECK(csv.find(",summary,incomplete,1,\"task 0 ('a'): blocked at action 1 (block), never woken\"\n") != std::string::npos);
  CHECK(csv.find(",summary,,complete,0\n") != std::string::npos);
  std::string t = render_table(r);
  CHECK(t.find("INCOMPLETE RUN (complete: false)\n  the simulation ran out of events") != std::string::npos);
  // Files written before these members existed still load.
  std::string old = j;
  old.erase(old.find("    \"work_expected_ns\""), old.find("    \"busy_ns\"") - old.find("    \"work_expected_ns\""));
  RunResults o = parse_results_json(old, "old.json");
  CHECK(o.work_expected_ns == -1);
  CHECK(o.incomplete.empty());
}

TEST_CASE("simulated vs observed: a statistic of no samples is '-', not 0 and -100%") {
  RunResults r;
  r.has_observed = true;
  auto row = [](const std::string& m, double sim, double obs) {
    Comparison c;
    c.metric = m;
    c.simulated = sim;
    c.observed = obs;
    c.rel_error = obs != 0 ? (sim - obs) / obs : 0;
    return c;
  };
  r.observed = {row("preempt_delay.count", 0, 18), row("preempt_delay.p99_ns", 0, 12049000),
                row("wakeup_latency.count", 4, 0), row("wakeup_latency.mean_ns", 1000, 0),
                row("migrations", 0, 9)};
  CHECK(comparison_empty(r.observed, r.observed[1]).simulated);
  CHECK_FALSE(comparison_empty(r.observed, r.observed[1]).observed);
  CHECK(comparison_empty(r.observed, r.observed[3]).observed);
  CHECK_FALSE(comparison_empty(r.observed, r.observed[0]).simulated);  // a count is a count
  CHECK_FALSE(comparison_empty(r.observed, r.observed[4]).simulated);  // a scalar 0 is a 0
  std::string t = render_table(r, 20, 64);
  auto cells = [&t](const std::string& metric) {
    size_t at = t.find("  " + metric + " ");
    REQUIRE(at != std::string::npos);
    std::istringstream line(t.substr(at, t.find('\n', at) - at));
    std::vector<std::string> v;
    for (std::string w; line >> w;) v.push_back(w);
    return v;
  };
  // Catalog names and display units, as compare and sweep show them (the JSON keeps `_ns`).
  CHECK(cells("preempt.p99") == std::vector<std::string>{"preempt.p99", "(us)", "-", "12049.000", "-"});
  CHECK(cells("wakeup.mean") == std::vector<std::string>{"wakeup.mean", "(us)", "1.000", "-", "-"});
  CHECK(cells("migrations") == std::vector<std::string>{"migrations", "0", "9", "-100.0%"});  // a real -100%
}

TEST_CASE("observed figures from another machine are labelled so in every format", "[metrics][json][html]") {
  RunResults r;
  r.config.workload = "w";
  r.config.topology = "smt2x2";
  r.has_observed = true;
  Comparison c;
  c.metric = "makespan_ns";
  c.simulated = 90;
  c.observed = 100;
  c.rel_error = -0.1;
  r.observed = {c};
  // The same machine: the plain heading and column, no member in the JSON.
  CHECK(render_table(r, 20, 64).find("simulated vs observed (recorded trace)") != std::string::npos);
  CHECK(render_json(r).find("observed_elsewhere") == std::string::npos);
  r.config.observed_elsewhere = "recorded on 2 CPUs, replayed on smt2x2's 4";
  const std::string t = render_table(r, 20, 64);
  CHECK(t.find("simulated vs observed on another machine (recorded on 2 CPUs, replayed on smt2x2's 4)") != std::string::npos);
  CHECK(t.find("observed elsewhere") != std::string::npos);
  CHECK(render_csv(r).find("config,observed_elsewhere,,") != std::string::npos);
  const std::string json = render_json(r);
  CHECK(parse_results_json(json, "r.json").config.observed_elsewhere == r.config.observed_elsewhere);
  const std::string html = render_html_report({r}, "t");
  CHECK(html.find("Observed on another machine: recorded on 2 CPUs") != std::string::npos);
  CHECK(html.find("<th>observed elsewhere</th>") != std::string::npos);
}

TEST_CASE("sample_count_metric names the count behind a statistic, and nothing for counts and scalars") {
  CHECK(sample_count_metric("wakeup.p99") == "wakeup.count");
  CHECK(sample_count_metric("wakeup_latency.p99_ns") == "wakeup_latency.count");
  CHECK(sample_count_metric("preempt.count").empty());
  CHECK(sample_count_metric("makespan").empty());
}

TEST_CASE("every statistic of a distribution in the records has its sample count in the records") {
  CHECK(sample_count_metric("runqueue_wait.p99") == "runqueue_wait.count");
  CHECK(sample_count_metric("fork.mean") == "fork.count");
  CHECK(sample_count_metric("probes.mean") == "wakeups");
  CHECK(sample_count_metric("wake_delay.mean") == "wakeups");
  // A run with no sample stores 0 for the statistic: without its count in the record, compare
  // and run --repeat could not tell it from a measured 0.
  for (const auto& d : metric_catalog()) {
    const std::string name = d.name;
    RunResults r;
    if (metric_distribution(r, name) == nullptr) continue;
    const std::string count = sample_count_metric(name);
    INFO(name << " -> " << count);
    if (count.empty()) continue;  // the count itself
    REQUIRE(find_metric(count) != nullptr);
  }
}

namespace {
Record repeat_rec(uint32_t rep, double fork_count, double fork_mean) {
  Record r;
  r.params["noise"] = "none";
  r.rep = rep;
  for (const auto& d : metric_catalog()) r.metrics[d.name] = 1000;
  r.metrics["fork.count"] = fork_count;
  r.metrics["fork.mean"] = fork_mean;
  r.metrics["fork.p99"] = fork_mean;
  return r;
}
}  // namespace

TEST_CASE("run --repeat leaves repetitions without samples out of a statistic's row") {
  std::vector<Record> recs = {repeat_rec(0, 5, 4000), repeat_rec(1, 0, 0), repeat_rec(2, 5, 6000)};
  const std::string table = render_repeat_table(recs, "x");
  // fork.mean over the two repetitions that measured it: 5 us, not 3.333 us; "-" for the other.
  auto cells = [&](const std::string& metric, size_t nth) {
    std::istringstream in(table);
    std::string line;
    for (size_t seen = 0; std::getline(in, line);) {
      std::istringstream words(line);
      std::vector<std::string> v;
      for (std::string w; words >> w;) v.push_back(w);
      if (!v.empty() && v[0] == metric && seen++ == nth) return v;
    }
    return std::vector<std::string>{};
  };
  CHECK(cells("fork.mean", 0) == std::vector<std::string>{"fork.mean", "2", "5.000", "1.414", "4.000", "6.000",
                                                          "6.000", "28.28%"});
  CHECK(cells("fork.mean", 1) == std::vector<std::string>{"fork.mean", "4.000", "-", "6.000"});
  CHECK(table.find("left out of its row") != std::string::npos);
  const std::string csv = render_repeat_csv(recs, "x");
  CHECK(csv.rfind("run,metric,unit,rep,stat,value\n", 0) == 0);
  CHECK(csv.find("x,fork.mean,ns,1,value,\n") != std::string::npos);  // undefined: empty
  CHECK(csv.find("x,fork.mean,,,count,2\n") != std::string::npos);
  CHECK(csv.find("x,fork.mean,ns,,mean,5000\n") != std::string::npos);
  CHECK(csv.find("x,wakeups,,0,value,1000\n") != std::string::npos);
}

TEST_CASE("the report and the text table print '-' for statistics of no sample", "[metrics][html]") {
  RunResults a = real_results(true), b = real_results(false);
  a.config.label = "a";
  b.config.label = "b";
  b.fork_latency = Distribution{};         // no fork
  b.runqueue_wait = Distribution{};        // no run-queue wait
  b.placement.probes = Distribution{};     // no wakeup placed
  b.placement.search_ns = Distribution{};
  const std::string html = render_html_report({a, b}, "t", {"a.json", "b.json"});
  CHECK(html.find("<tr><td>b</td><td>fork latency</td><td>0</td><td>-</td><td>-</td>") != std::string::npos);
  CHECK(html.find("<tr><td>b</td><td>run-queue wait</td><td>0</td><td>-</td>") != std::string::npos);
  CHECK(html.find("<tr><td>b</td><td>" + std::to_string(b.placement.wakeups) + "</td><td>-</td><td>-</td>") !=
        std::string::npos);
  const std::string table = render_table(b);
  const size_t at = table.find("  CPUs probed ");
  REQUIRE(at != std::string::npos);
  std::istringstream row(table.substr(at, table.find('\n', at) - at));
  std::vector<std::string> cells;
  for (std::string w; row >> w;) cells.push_back(w);
  CHECK(cells == std::vector<std::string>{"CPUs", "probed", "-", "-", "-", "-"});
  const std::string csv = render_csv(b);
  CHECK(csv.find(",latency_ns,fork,count,0\n") != std::string::npos);
  CHECK(csv.find(",latency_ns,fork,mean,\n") != std::string::npos);
}

TEST_CASE("sample_state tells a statistic with samples, without, and a stored 0 with no count") {
  const std::map<std::string, double> m = {{"fork.count", 0},   {"fork.mean", 0},     {"wakeup.count", 3},
                                           {"wakeup.mean", 0},  {"runqueue_wait.mean", 0}, {"preempt.mean", 5},
                                           {"makespan", 0}};
  CHECK(sample_state(m, "fork.mean") == SampleState::kNone);
  CHECK(sample_state(m, "wakeup.mean") == SampleState::kSampled);      // a measured 0 with 3 samples
  CHECK(sample_state(m, "runqueue_wait.mean") == SampleState::kUnknown);  // an old record: 0, no count
  CHECK(sample_state(m, "preempt.mean") == SampleState::kSampled);     // no count, but not 0
  CHECK(sample_state(m, "makespan") == SampleState::kSampled);         // a scalar
  CHECK(sample_state(m, "fork.count") == SampleState::kSampled);       // a count itself
}

TEST_CASE("the report shows the benchmark time where a run has one, '-' where not", "[metrics][html]") {
  RunResults a = real_results(true), b = real_results(false);
  a.config.label = "a";
  b.config.label = "b";
  // Neither has a timer: no column, no row in the comparison.
  std::string html = render_html_report({a, b}, "t", {"a.json", "b.json"});
  CHECK(html.find("benchmark ms") == std::string::npos);
  CHECK(html.find("benchmark_time") == std::string::npos);
  a.benchmark_time_ns = 2'000'000;
  html = render_html_report({a, b}, "t", {"a.json", "b.json"});
  CHECK(html.find("benchmark ms</th>") != std::string::npos);
  CHECK(html.find("<td>2.000</td>") != std::string::npos);  // a: no change against itself
  CHECK(html.find("<td>-</td><td>") != std::string::npos);   // b: none, not 0
  CHECK(html.find("benchmark_time") == std::string::npos);  // compared only where both have one
  b.benchmark_time_ns = 3'000'000;
  html = render_html_report({a, b}, "t", {"a.json", "b.json"});
  CHECK(html.find("<td>3.000 <span class=\"delta up\">(+50.0%)</span></td>") != std::string::npos);
  CHECK(html.find("benchmark_time (ms)") != std::string::npos);
}

namespace {

// Every member path of a JSON text, e.g. "/summary/channel_writes". Arrays and the maps whose
// keys are data (modules, flags, outcomes, migration levels) count as one leaf.
void member_paths(const nlohmann::json& j, const std::string& at, std::set<std::string>& out) {
  if (!j.is_object()) return;
  for (const char* map : {"/config/modules", "/config/features", "/config/cost_overrides", "/placement/outcomes",
                          "/migrations/by_level"})
    if (at == map) return;
  for (const auto& [k, v] : j.items()) {
    out.insert(at + "/" + k);
    member_paths(v, at + "/" + k, out);
  }
}

std::set<std::string> member_paths(const std::string& text) {
  std::set<std::string> out;
  member_paths(nlohmann::json::parse(text), "", out);
  return out;
}

}  // namespace

TEST_CASE("results JSON has one shape: every run writes the same members, with no NaN", "[metrics][json]") {
  // A run that used channels, held back a preemption and sent a reschedule IPI against one that
  // did none of it (and has no sample in any distribution): the same members, the counts 0 in
  // the second. Only the benchmark time is absent where there is none (never a 0).
  RunResults busy = real_results(true);
  busy.channel_writes = busy.channel_reads = busy.channel_wakes = busy.channel_sleeps = 3;
  busy.preempt_deferred = busy.preempt_deferred_slept = 1;
  busy.resched_ipi = busy.resched_ipi_superseded = 2;
  RunResults none;  // no task ran: every distribution is empty
  none.config.label = "empty";
  const std::string jb = render_json(busy), jn = render_json(none);
  CHECK(member_paths(jb) == member_paths(jn));
  CHECK(jn.find("\"channel_writes\": 0,") != std::string::npos);
  CHECK(jn.find("\"resched_ipi\": 0,") != std::string::npos);
  busy.benchmark_time_ns = 5;
  std::set<std::string> with_bench = member_paths(render_json(busy));
  with_bench.erase("/summary/benchmark_time_ns");
  CHECK(with_bench == member_paths(jn));
  // Empty distributions: numbers (0, with count 0 saying they are undefined), never NaN/Infinity
  // (not JSON) nor null (the reader wants numbers); the file reads back.
  for (const char* bad : {"nan", "NaN", "inf", "Infinity"}) CHECK(jn.find(bad) == std::string::npos);
  // The one null: `observed` of a run without a trace to compare with.
  CHECK(jn.find("null") == jn.find("\"observed\": null") + std::string("\"observed\": ").size());
  CHECK(jn.find("null", jn.find("null") + 1) == std::string::npos);
  CHECK(render_json(parse_results_json(jn, "empty.json")) == jn);
  // The CSV has the same rows for both (long format: per-item rows aside).
  auto summary_rows = [](const std::string& csv) {
    std::set<std::string> rows;
    std::istringstream in(csv);
    for (std::string l; std::getline(in, l);) {
      size_t a = l.find(','), b = l.find(',', a + 1);
      if (l.compare(a + 1, b - a - 1, "summary") != 0 && l.compare(a + 1, b - a - 1, "latency_ns") != 0) continue;
      size_t c = l.find(',', b + 1), d = l.find(',', c + 1);
      if (l.compare(b + 1, c - b - 1, "incomplete") == 0) continue;
      rows.insert(l.substr(b + 1, d - b - 1));
    }
    return rows;
  };
  busy.benchmark_time_ns = -1;
  CHECK(summary_rows(render_csv(busy)) == summary_rows(render_csv(none)));
  CHECK(render_csv(none).find(",summary,,channel_writes,0\n") != std::string::npos);
  // Records of the empty run: no NaN either, and `run --repeat`'s statistics leave out a metric
  // no repetition measured (absent, not 0).
  std::vector<Record> recs = {make_record(none, "none", 0, 1), make_record(none, "none", 1, 2)};
  const std::string jl = render_jsonl(recs), rj = render_repeat_json(recs);
  for (const char* bad : {"nan", "NaN", "inf", "Infinity", "null"}) {
    CHECK(jl.find(bad) == std::string::npos);
    CHECK(rj.find(bad) == std::string::npos);
  }
  const nlohmann::json stats = nlohmann::json::parse(rj).at("stats");
  CHECK(!stats.contains("wakeup.mean"));
  CHECK(stats.contains("makespan"));
}

namespace {
/// The <svg ...>...</svg> element of `id` in `html` ("" when absent).
std::string svg_of(const std::string& html, const std::string& id) {
  const size_t at = html.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const size_t open = html.rfind("<svg", at);
  return html.substr(open, html.find("</svg>", at) + 6 - open);
}
}  // namespace

TEST_CASE("report layout: own time axis per heatmap, zeros apart from the log axes, counts as integers",
          "[metrics][html]") {
  RunResults a = real_results(true), b = real_results(false);
  a.config.label = "a";
  b.config.label = "b";
  // b's timeline spans 5 times a's: each heatmap keeps the full width on its own axis.
  b.timeline.bucket_ns = a.timeline.bucket_ns * 5;
  // Six of ten wakeups at 0 ns: the p50 is 0, which no log axis holds.
  Distribution zeros;
  zeros.count = 10;
  zeros.mean = 400;
  zeros.p90 = zeros.p99 = zeros.p999 = zeros.max = 1000;
  zeros.buckets = {{0, 1, 6}, {1000, 1008, 4}};
  b.wakeup_latency = zeros;
  const std::string html = render_html_report({a, b}, "t", {"a.json", "b.json"});
  const std::string h0 = svg_of(html, "heatmap-0"), h1 = svg_of(html, "heatmap-1");
  REQUIRE(!h0.empty());
  REQUIRE(!h1.empty());
  auto span_text = [](const RunResults& r) {
    return fmt::format("span {:.3f} ms", static_cast<double>(r.timeline.bucket_ns) * r.timeline.buckets / 1e6);
  };
  CHECK(h0.find(span_text(a)) != std::string::npos);
  CHECK(h1.find(span_text(b)) != std::string::npos);
  CHECK(h0.find("class=\"ended\"") == std::string::npos);  // no hatched "after the run ended" area
  // Cells take the whole plot width (L = 64 to 960 - 90) in both: the last cell of a busy row ends there.
  CHECK(html.find("x1=\"24\"") == std::string::npos);       // separators start at the cells, not over the labels
  // The CDF's zero strip is marked 0; no axis tick claims 1 ns.
  const std::string cdf = svg_of(html, "cdf-wakeup");
  CHECK(cdf.find("class=\"xtick\">0</text>") != std::string::npos);
  CHECK(cdf.find(">1ns<") == std::string::npos);
  CHECK(cdf.find("60.0% zero") != std::string::npos);
  const std::string pct = svg_of(html, "pct-wakeup");
  CHECK(pct.find("class=\"ytick\">0</text>") != std::string::npos);
  CHECK(pct.find(">1ns<") == std::string::npos);
  CHECK(pct.find("p50 0,") != std::string::npos);
  // The observed table prints a count as the text table does.
  REQUIRE(a.has_observed);
  const std::string count_row = "<td>wakeup.count</td><td>" + std::to_string(a.placement.wakeups) + "</td>";
  CHECK(html.find(count_row) != std::string::npos);
  const size_t obs = html.find("<table class=\"observed\">");
  REQUIRE(obs != std::string::npos);
  const std::string table = html.substr(obs, html.find("</table>", obs) - obs);
  CHECK(table.find("<td>migrations</td><td>" + std::to_string(a.migrations_total) + "</td>") != std::string::npos);
  CHECK(table.find("<td>wakeup.p50 (us)</td>") != std::string::npos);
}
