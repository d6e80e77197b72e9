// Records (metrics/records.hpp): the metric catalog, JSON Lines and repeat renderings, and the
// reader that accepts results JSON, repeat JSON and JSON Lines.
#include "schedsim/base/gzip.hpp"
#include "schedsim/metrics/records.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report_util.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/stats/stats.hpp"

namespace schedsim {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

constexpr double kMaxMetricMagnitude = 1e18;

const std::vector<MetricDef> kCatalog = {
    {"makespan", Better::kLower, "ns", true, "first task start to the last exit (or to --stop-at)"},
    {"benchmark_time", Better::kLower, "ns", true,
     "the time the benchmark program reports (its own timer); absent for a workload without one"},
    {"wakeup.count", Better::kNone, "", false, "wakeups measured"},
    {"wakeup.mean", Better::kLower, "ns", true, "wakeup latency, mean"},
    {"wakeup.p50", Better::kLower, "ns", true, "wakeup latency, median"},
    {"wakeup.p90", Better::kLower, "ns", false, "wakeup latency, 90th percentile"},
    {"wakeup.p99", Better::kLower, "ns", true, "wakeup latency, 99th percentile"},
    {"wakeup.p99_9", Better::kLower, "ns", false, "wakeup latency, 99.9th percentile"},
    {"wakeup.max", Better::kLower, "ns", false, "wakeup latency, maximum"},
    {"runqueue_wait.count", Better::kNone, "", false, "run-queue waits measured"},
    {"runqueue_wait.mean", Better::kLower, "ns", true, "run-queue wait, mean"},
    {"runqueue_wait.p50", Better::kLower, "ns", false, "run-queue wait, median"},
    {"runqueue_wait.p99", Better::kLower, "ns", true, "run-queue wait, 99th percentile"},
    {"runqueue_wait.max", Better::kLower, "ns", false, "run-queue wait, maximum"},
    {"preempt.count", Better::kNone, "", false, "preemptions"},
    {"preempt.mean", Better::kLower, "ns", false, "preemption delay, mean"},
    {"preempt.p99", Better::kLower, "ns", false, "preemption delay, 99th percentile"},
    {"fork.count", Better::kNone, "", false, "fork latencies measured (forked tasks that ran)"},
    {"fork.mean", Better::kLower, "ns", false, "fork latency, mean"},
    {"fork.p99", Better::kLower, "ns", false, "fork latency, 99th percentile"},
    {"probes.mean", Better::kLower, "", true, "CPUs examined per wakeup, mean"},
    {"search.mean", Better::kLower, "ns", false, "simulated search time per wakeup, mean"},
    {"wake_delay.mean", Better::kLower, "ns", false, "search + IPI + idle exit per wakeup, mean"},
    {"migrations", Better::kLower, "", true, "task migrations, all levels"},
    {"context_switches", Better::kNone, "", false, "switch-ins of a task"},
    {"wakeups", Better::kNone, "", false, "wakeup placements"},
    {"events", Better::kNone, "", false, "engine events"},
    {"wasted", Better::kLower, "ns", false, "CPU time idle while a task waited elsewhere"},
    {"to_idle_cpu", Better::kNone, "", false, "wakeups placed on an idle CPU"},
    {"cross_llc_waker", Better::kNone, "", false, "wakees placed outside the waker's LLC"},
    {"cross_llc_prev", Better::kNone, "", false, "wakees placed outside their previous LLC"},
    {"hint_stale_yes", Better::kLower, "", false, "has_idle_cores said yes, no idle core"},
    {"hint_stale_no", Better::kLower, "", false, "has_idle_cores said no, an idle core existed"},
};

std::string prefix_of(const std::string& metric) {
  size_t dot = metric.find('.');
  return dot == std::string::npos ? std::string() : metric.substr(0, dot);
}
std::string stat_of(const std::string& metric) {
  size_t dot = metric.find('.');
  return dot == std::string::npos ? std::string() : metric.substr(dot + 1);
}

double dist_stat(const Distribution& d, const std::string& stat) {
  if (stat == "count") return static_cast<double>(d.count);
  if (stat == "mean") return d.mean;
  if (stat == "p50") return static_cast<double>(d.p50);
  if (stat == "p90") return static_cast<double>(d.p90);
  if (stat == "p99") return static_cast<double>(d.p99);
  if (stat == "p99_9") return static_cast<double>(d.p999);
  if (stat == "max") return static_cast<double>(d.max);
  return 0;
}

[[noreturn]] void fail(const std::string& where, const std::string& msg, long line = 0, const std::string& ctx = {}) {
  throw InputError(SourceLoc{where, line, 0}, msg, ctx);
}

/// A parse error's line and column from nlohmann's byte offset.
std::pair<long, long> line_col(const std::string& text, size_t byte) {
  long line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

std::string reason_of(const json::parse_error& e) {
  std::string what = e.what();
  size_t colon = what.find(": ", what.find("parse error"));
  return colon == std::string::npos ? what : what.substr(colon + 2);
}

// nlohmann's own parse reports a number beyond double's range as out_of_range (error 406), not
// parse_error: "number overflow parsing '1e999'" without its "[json.exception...] " prefix.
std::string reason_of(const json::out_of_range& e) {
  std::string what = e.what();
  size_t at = what.find("] ");
  return at == std::string::npos ? what : what.substr(at + 2);
}

/// Reads the members shared by a JSON Lines record and a repeat document's repetition.
void read_rep(const json& j, const std::string& path, const std::string& ptr, long line, Record& r) {
  auto where = [&](const std::string& member) { return "JSON " + ptr + "/" + member; };
  if (!j.is_object()) fail(path, "JSON " + (ptr.empty() ? std::string("/") : ptr) + ": expected an object", line);
  auto rep = j.find("rep");
  if (rep == j.end() || !rep->is_number_unsigned()) fail(path, where("rep") + ": expected a non-negative integer", line);
  r.rep = rep->get<uint32_t>();
  auto seed = j.find("seed");
  if (seed == j.end() || !seed->is_number_unsigned()) fail(path, where("seed") + ": expected a non-negative integer", line);
  r.seed = seed->get<uint64_t>();
  auto m = j.find("metrics");
  if (m == j.end() || !m->is_object()) fail(path, where("metrics") + ": expected an object of numbers", line);
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (!it.value().is_number()) fail(path, where("metrics/" + it.key()) + ": expected a number", line);
    const double v = it.value().get<double>();
    // No metric schedsim writes comes near this (times are bounded by 10^17 ns, counts by far
    // less); past it the squares behind a variance overflow and the tests' degrees of freedom
    // become NaN, which Boost.Math refuses with an exception.
    if (!(std::fabs(v) <= kMaxMetricMagnitude))
      fail(path, where("metrics/" + it.key()) + ": " + fmt::format("{:g}", v) +
                     " is beyond any value schedsim writes (at most 1e18 in magnitude)", line);
    r.metrics[it.key()] = v;
  }
  // Optional: present (false) only for a run that did not finish.
  if (auto c = j.find("complete"); c != j.end()) {
    if (!c->is_boolean()) fail(path, where("complete") + ": expected true or false", line);
    r.complete = c->get<bool>();
  }
  // Lists of lines: `incomplete`, and `notes` (added within version 1; older records have none).
  auto lines = [&](const char* key, std::vector<std::string>& out) {
    auto arr = j.find(key);
    if (arr == j.end()) return;
    if (!arr->is_array()) fail(path, where(key) + ": expected an array of strings", line);
    for (size_t i = 0; i < arr->size(); ++i) {
      if (!(*arr)[i].is_string()) fail(path, where(std::string(key) + "/" + std::to_string(i)) + ": expected a string", line);
      out.push_back((*arr)[i].get<std::string>());
    }
  };
  lines("incomplete", r.incomplete);
  lines("notes", r.notes);
}

void read_params(const json& j, const std::string& path, const std::string& ptr, long line, Record& r) {
  auto p = j.find("params");
  if (p == j.end() || !p->is_object()) fail(path, "JSON " + ptr + "/params: expected an object of strings", line);
  for (auto it = p->begin(); it != p->end(); ++it) {
    if (!it.value().is_string()) fail(path, "JSON " + ptr + "/params/" + it.key() + ": expected a string", line);
    r.params[it.key()] = it.value().get<std::string>();
  }
}

int read_identity(const json& j, const std::string& path, const char* want, long line) {
  auto v = j.find("version");
  if (v == j.end() || !v->is_number_integer())
    fail(path, std::string("JSON /version: expected an integer (") + want + " schema version)", line);
  int version = v->get<int>();
  if (version != kRecordVersion)
    fail(path, "unsupported " + std::string(want) + " schema version " + std::to_string(version) +
                   "; this schedsim reads version " + std::to_string(kRecordVersion), line);
  return version;
}

ojson rep_json(const Record& r) {
  ojson j;
  j["rep"] = r.rep;
  j["seed"] = r.seed;
  ojson m = ojson::object();
  for (const auto& d : kCatalog)
    if (auto it = r.metrics.find(d.name); it != r.metrics.end()) m[d.name] = it->second;
  j["metrics"] = std::move(m);
  // Written for every run, so a record has one shape ("complete": true and [] when it finished):
  // a script testing `.complete` must not read a missing member as false.
  j["complete"] = r.complete;
  j["incomplete"] = r.incomplete;
  j["notes"] = r.notes;
  return j;
}

/// Whether a record's statistic is undefined: its sample count (sample_count_metric) is 0, so
/// the 0 it stores is no measurement.
bool no_samples(const Record& r, const std::string& metric) {
  return sample_state(r.metrics, metric) == SampleState::kNone;
}

/// The metric's values across repetitions, leaving out the repetitions where it is undefined
/// (averaged in, their stored 0 would read as a faster run).
std::vector<double> values_of(const std::vector<Record>& recs, const std::string& metric) {
  std::vector<double> v;
  for (const auto& r : recs)
    if (auto it = r.metrics.find(metric); it != r.metrics.end() && !no_samples(r, metric)) v.push_back(it->second);
  return v;
}

/// A metric value for tables: ns shown in us with 3 decimals, counts and ratios with up to 3.
std::string show(double v, const MetricDef& d) {
  if (std::isnan(v)) return "-";
  if (std::string(d.unit) == "ns") return fmt::format("{:.3f}", v / 1e3);
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3f}", v);
}

}  // namespace

const std::vector<MetricDef>& metric_catalog() { return kCatalog; }

const MetricDef* find_metric(const std::string& name) {
  for (const auto& d : kCatalog)
    if (name == d.name) return &d;
  return nullptr;
}

namespace {
// The span of a whole run (makespan, benchmark time; the results' total_runtime and span) reads
// in milliseconds, a latency or a search in microseconds: each metric has one of them wherever it
// shows.
bool whole_run_name(std::string_view name) {
  return name == "makespan" || name == kBenchmarkTimeMetric || name == "total_runtime" || name == "span";
}
}  // namespace
bool whole_run_time(const MetricDef& d) { return whole_run_name(d.name); }
const char* display_unit(const MetricDef& d) {
  if (std::string_view(d.unit) != "ns") return "";
  return whole_run_time(d) ? "ms" : "us";
}
double display_scale(const MetricDef& d) {
  if (std::string_view(d.unit) != "ns") return 1.0;
  return whole_run_time(d) ? 1e-6 : 1e-3;
}
double display_value(const MetricDef& d, double v) {
  if (std::string_view(d.unit) != "ns") return v;
  return whole_run_time(d) ? v / 1e6 : v / 1e3;
}
std::string metric_label(const MetricDef& d) {
  return *display_unit(d) ? fmt::format("{} ({})", d.name, display_unit(d)) : std::string(d.name);
}

namespace {
// A results-JSON name in the catalog's style: the unit suffix `_ns` dropped, `wakeup_latency.` and
// `preempt_delay.` as `wakeup.` and `preempt.`.
std::string catalog_style(const std::string& name) {
  std::string n = name;
  if (n.size() > 3 && n.ends_with("_ns")) n.resize(n.size() - 3);
  for (const auto& [from, to] : {std::pair<std::string_view, std::string_view>{"wakeup_latency.", "wakeup."},
                                 {"preempt_delay.", "preempt."}})
    if (n.starts_with(from)) n = std::string(to) + n.substr(from.size());
  return n;
}
}  // namespace

std::string catalog_metric_name(const std::string& name) {
  if (find_metric(name)) return name;
  const std::string n = catalog_style(name);
  return find_metric(n) ? n : name;
}

std::pair<std::string, double> display_of_results_name(const std::string& name) {
  const std::string n = catalog_style(name);
  if (const MetricDef* d = find_metric(n)) return {metric_label(*d), display_scale(*d)};
  if (name.size() <= 3 || !name.ends_with("_ns")) return {name, 1.0};
  const bool whole_run = whole_run_name(n);
  return {fmt::format("{} ({})", n, whole_run ? "ms" : "us"), whole_run ? 1e-6 : 1e-3};
}

const Distribution* metric_distribution(const RunResults& r, const std::string& metric) {
  std::string p = prefix_of(metric);
  if (p == "wakeup") return &r.wakeup_latency;
  if (p == "runqueue_wait") return &r.runqueue_wait;
  if (p == "preempt") return &r.preempt_delay;
  if (p == "fork") return &r.fork_latency;
  if (p == "probes") return &r.placement.probes;
  if (p == "search") return &r.placement.search_ns;
  if (p == "wake_delay") return &r.placement.wake_delay_ns;
  return nullptr;
}

double metric_percentile(const std::string& metric) {
  std::string s = stat_of(metric);
  if (s == "p50") return 50;
  if (s == "p90") return 90;
  if (s == "p99") return 99;
  if (s == "p99_9") return 99.9;
  if (s == "max") return 100;
  return -1;
}

std::map<std::string, std::string> run_params(const RunConfig& c, const std::string& noise) {
  std::map<std::string, std::string> p;
  p["workload"] = c.workload;
  p["workload_source"] = c.workload_source;
  p["topology"] = c.topology;
  p["nr_cpus"] = std::to_string(c.nr_cpus);
  p["seed"] = std::to_string(c.seed);
  p["label"] = c.display_label();
  p["noise"] = noise;
  for (const auto& [slot, m] : c.modules) p["module." + slot] = m;
  for (const auto& [f, on] : c.features) p["feature." + f] = on ? "on" : "off";
  for (const auto& [k, v] : c.cost_overrides) p["cost." + k] = v;
  // The two hashes say what was simulated on what (compare refuses when they differ); the other
  // provenance fields are recorded but never part of a comparison's key.
  for (const auto& [k, v] : c.provenance.fields()) {
    if (v.empty()) continue;
    if (k == "workload_hash" || k == "topology_hash") p[k] = v;
    else p["provenance." + k] = v;
  }
  return p;
}

std::map<std::string, double> scalar_metrics(const RunResults& r) {
  std::map<std::string, double> m;
  for (const auto& d : kCatalog) {
    std::string name = d.name;
    double v = 0;
    if (const Distribution* dist = metric_distribution(r, name)) v = dist_stat(*dist, stat_of(name));
    else if (name == "makespan") v = static_cast<double>(r.makespan_ns);
    else if (name == kBenchmarkTimeMetric) {
      // No timer, no value: a stored 0 would read as an infinitely fast benchmark.
      if (r.benchmark_time_ns < 0) continue;
      v = static_cast<double>(r.benchmark_time_ns);
    }
    else if (name == "migrations") v = static_cast<double>(r.migrations_total);
    else if (name == "context_switches") v = static_cast<double>(r.context_switches);
    else if (name == "wakeups") v = static_cast<double>(r.placement.wakeups);
    else if (name == "events") v = static_cast<double>(r.events);
    else if (name == "wasted") v = static_cast<double>(r.wasted_ns);
    else if (name == "to_idle_cpu") v = static_cast<double>(r.placement.to_idle_cpu);
    else if (name == "cross_llc_waker") v = static_cast<double>(r.placement.cross_llc_waker);
    else if (name == "cross_llc_prev") v = static_cast<double>(r.placement.cross_llc_prev);
    else if (name == "hint_stale_yes") v = static_cast<double>(r.placement.hint_stale_yes);
    else if (name == "hint_stale_no") v = static_cast<double>(r.placement.hint_stale_no);
    m[name] = v;
  }
  return m;
}

Record make_record(const RunResults& r, const std::string& noise, uint32_t rep, uint64_t seed) {
  Record rec;
  rec.params = run_params(r.config, noise);
  rec.rep = rep;
  rec.seed = seed;
  rec.metrics = scalar_metrics(r);
  rec.complete = r.complete;
  rec.incomplete = r.incomplete;
  rec.notes = r.notes;
  return rec;
}

std::string render_jsonl(const std::vector<Record>& recs) {
  std::string out;
  for (const auto& r : recs) {
    ojson j;
    j["schema"] = kRecordSchema;
    j["version"] = kRecordVersion;
    j["params"] = r.params;
    ojson rj = rep_json(r);
    for (auto it = rj.begin(); it != rj.end(); ++it) j[it.key()] = it.value();
    out += j.dump() + "\n";
  }
  return out;
}

std::string render_repeat_json(const std::vector<Record>& recs) {
  ojson j;
  j["schema"] = kRepeatSchema;
  j["version"] = kRecordVersion;
  j["params"] = recs.empty() ? ojson::object() : ojson(recs.front().params);
  j["repeat"] = recs.size();
  ojson reps = ojson::array();
  for (const auto& r : recs) reps.push_back(rep_json(r));
  j["repetitions"] = std::move(reps);
  ojson st = ojson::object();
  for (const auto& d : kCatalog) {
    stats::Summary s = stats::summarize(values_of(recs, d.name));
    if (s.count == 0) continue;
    st[d.name] = {{"count", s.count}, {"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"p99", s.p99}, {"max", s.max}};
  }
  j["stats"] = std::move(st);
  return j.dump(1) + "\n";
}

std::string render_repeat_csv(const std::vector<Record>& recs, const std::string& label) {
  using report_util::csv_field;
  using report_util::num;
  // `unit` is the unit of the row's value: "ns" for a time (every time is in ns, unconverted;
  // the table shows us), "" for counts and ratios, and for the number of repetitions a
  // statistic row's `count` is.
  std::string out = "run,metric,unit,rep,stat,value\n";
  std::string run = csv_field(label);
  for (const auto& d : kCatalog) {
    const std::string unit = d.unit;
    std::vector<double> v = values_of(recs, d.name);
    for (const auto& r : recs)
      if (auto it = r.metrics.find(d.name); it != r.metrics.end())
        out += run + "," + d.name + "," + unit + "," + std::to_string(r.rep) + ",value," +
               (no_samples(r, d.name) ? std::string() : num(it->second)) + "\n";
    stats::Summary s = stats::summarize(v);
    if (s.count == 0) continue;
    out += run + "," + d.name + ",,,count," + std::to_string(s.count) + "\n";
    for (auto [name, x] : {std::pair{"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"p99", s.p99}, {"max", s.max}})
      out += run + "," + d.name + "," + unit + ",," + name + "," + num(x) + "\n";
  }
  return out;
}

std::string render_repeat_table(const std::vector<Record>& recs, const std::string& label) {
  using report_util::TextTable;
  std::string out = fmt::format("{}: {} repetitions", label, recs.size());
  if (!recs.empty()) out += " (noise: " + recs.front().params.at("noise") + ")";
  out += "\n\nacross repetitions (times in us; std is the sample std, n-1; p99 is nearest-rank)\n";
  TextTable t({"metric", "count", "mean", "std", "min", "p99", "max", "cv"});
  std::vector<std::string> left_out;
  for (const auto& d : kCatalog) {
    stats::Summary s = stats::summarize(values_of(recs, d.name));
    size_t undefined = static_cast<size_t>(
        std::count_if(recs.begin(), recs.end(), [&](const Record& r) { return no_samples(r, d.name); }));
    if (undefined > 0) left_out.push_back(fmt::format("{} ({} of {})", d.name, undefined, recs.size()));
    if (s.count == 0) {
      if (undefined > 0) t.add({d.name, "0", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    std::string cv = s.mean != 0 ? fmt::format("{:.2f}%", 100.0 * s.std / std::fabs(s.mean)) : "-";
    t.add({d.name, std::to_string(s.count), show(s.mean, d), show(s.std, d), show(s.min, d), show(s.p99, d),
           show(s.max, d), cv});
  }
  out += t.render();
  if (!left_out.empty())
    out += "  repetitions with no sample of a statistic (its count is 0) are left out of its row and shown as "
           "'-' below: " + join(left_out, ", ") + "\n";
  // Per-repetition values, ten repetitions per block.
  for (size_t first = 0; first < recs.size(); first += 10) {
    size_t last = std::min(recs.size(), first + 10);
    out += fmt::format("\nper repetition {}-{} (their seeds are in --format json, csv and jsonl)\n", first, last - 1);
    std::vector<std::string> head = {"metric"};
    for (size_t i = first; i < last; ++i) head.push_back("#" + std::to_string(recs[i].rep));
    TextTable p(head);
    for (const auto& d : kCatalog) {
      // A metric only some workloads have (benchmark_time) is no row when no repetition has it.
      if (std::none_of(recs.begin(), recs.end(), [&](const Record& r) { return r.metrics.count(d.name) > 0; }))
        continue;
      std::vector<std::string> row = {d.name};
      for (size_t i = first; i < last; ++i) {
        auto it = recs[i].metrics.find(d.name);
        row.push_back(it == recs[i].metrics.end() || no_samples(recs[i], d.name) ? "-" : show(it->second, d));
      }
      p.add(row);
    }
    out += p.render();
  }
  return out;
}

RecordFile parse_record_text(const std::string& text, const std::string& path) {
  RecordFile f;
  f.path = path;
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) fail(path, "empty file: expected results JSON, repeat JSON or JSON Lines records");
  // A whole-document parse first: results JSON and repeat JSON are one (multi-line) object.
  json doc;
  bool whole = false;
  try {
    doc = json::parse(text);
    whole = true;
  } catch (const json::parse_error& e) {
    // One object per line is JSON Lines; a document that fails on its first line is malformed.
    size_t nl = text.find('\n', first);
    bool one_line_first = nl != std::string::npos && text.find_first_not_of(" \t\r\n", nl) != std::string::npos;
    json head;
    bool head_ok = false;
    if (one_line_first) {
      try {
        head = json::parse(text.substr(first, nl - first));
        head_ok = head.is_object();
      } catch (const json::exception&) {  // parse_error, or out_of_range for a huge number
      }
    }
    if (!head_ok) {
      auto [line, col] = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
      std::string why = e.byte >= text.size() ? " (the file ends early: truncated?)" : "";
      throw InputError(SourceLoc{path, line, col}, "malformed JSON: " + reason_of(e) + why);
    }
  } catch (const json::out_of_range& e) {
    throw InputError(SourceLoc{path}, "malformed JSON: " + reason_of(e));
  }
  if (whole) {
    if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string())
      fail(path, "JSON /schema: expected \"schedsim-results\", \"schedsim-repeat\" or \"schedsim-record\"");
    std::string schema = doc["schema"].get<std::string>();
    if (schema == kResultsSchema) return record_file_of(parse_results_json(text, path), path);
    if (schema == kRepeatSchema) {
      f.kind = "repeat";
      f.version = read_identity(doc, path, kRepeatSchema, 0);
      Record proto;
      read_params(doc, path, "", 0, proto);
      auto reps = doc.find("repetitions");
      if (reps == doc.end() || !reps->is_array() || reps->empty())
        fail(path, "JSON /repetitions: expected a non-empty array");
      for (size_t i = 0; i < reps->size(); ++i) {
        Record r = proto;
        std::string ptr = "/repetitions/" + std::to_string(i);
        read_rep((*reps)[i], path, ptr, 0, r);
        f.records.push_back(std::move(r));
        f.where.push_back(path + " " + ptr);
      }
      return f;
    }
    if (schema != kRecordSchema)
      fail(path, "JSON /schema: unknown schema \"" + schema +
                     "\"; expected \"schedsim-results\", \"schedsim-repeat\" or \"schedsim-record\"");
  }
  // JSON Lines (or a single record).
  f.kind = "jsonl";
  std::istringstream in(text);
  std::string l;
  for (long line = 1; std::getline(in, l); ++line) {
    if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
    json j;
    try {
      j = json::parse(l);
    } catch (const json::parse_error& e) {
      bool last = in.peek() == EOF;
      throw InputError(SourceLoc{path, line, static_cast<long>(e.byte)},
                       "malformed JSON Lines record: " + reason_of(e) +
                           (last ? " (the last line is incomplete: truncated file?)" : ""),
                       l.size() > 120 ? l.substr(0, 120) + "..." : l);
    } catch (const json::out_of_range& e) {
      throw InputError(SourceLoc{path, line}, "malformed JSON Lines record: " + reason_of(e),
                       l.size() > 120 ? l.substr(0, 120) + "..." : l);
    }
    // A sweep's JSON Lines file (docs/sweep.md): the header line is skipped, and each run line
    // carries the run's record under "record" (the same object `run --format jsonl` writes).
    std::string ptr;
    std::pair<int64_t, std::map<std::string, std::string>> sweep_point{-1, {}};
    if (j.is_object() && j.contains("type") && j["type"] == "sweep") continue;
    if (j.is_object() && j.contains("type") && j["type"] == "run") {
      auto rec = j.find("record");
      if (rec == j.end() || !rec->is_object())
        fail(path, "JSON /record: expected the run's record (schema schedsim-record) in this sweep line", line);
      // The point's parameters, as the sweep was given them: what a study's report plots against.
      std::map<std::string, std::string> point_params;
      if (auto pp = j.find("params"); pp != j.end() && pp->is_object())
        for (const auto& [k, v] : pp->items())
          if (v.is_string()) point_params[k] = v.get<std::string>();
      const int64_t point = j.contains("point") && j["point"].is_number_integer() ? j["point"].get<int64_t>() : -1;
      json inner = *rec;
      j = std::move(inner);
      ptr = "/record";
      sweep_point = {point, std::move(point_params)};
    }
    if (!j.is_object() || !j.contains("schema") || j["schema"] != kRecordSchema)
      fail(path, std::string("JSON ") + ptr + "/schema: expected \"" + kRecordSchema + "\" on every line", line);
    int v = read_identity(j, path, kRecordSchema, line);
    if (f.version && v != f.version)
      fail(path, "mixed schema versions in one file: version " + std::to_string(v) + " after version " +
                     std::to_string(f.version), line);
    f.version = v;
    Record r;
    read_params(j, path, ptr, line, r);
    read_rep(j, path, ptr, line, r);
    r.point = sweep_point.first;
    r.point_params = std::move(sweep_point.second);
    f.records.push_back(std::move(r));
    f.where.push_back(path + ":" + std::to_string(line));
  }
  if (f.records.empty()) fail(path, "no records");
  return f;
}

RecordFile record_file_of(RunResults r, const std::string& where) {
  RecordFile f;
  f.path = where;
  f.kind = "results";
  f.version = kResultsVersion;
  f.records.push_back(make_record(r, kNoiseUnrecorded, 0, r.config.seed));
  f.where.push_back(where);
  f.results = std::move(r);
  return f;
}

RecordFile load_record_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open: " + std::string(std::strerror(errno)));
  check_whole_read_size(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_record_text(gunzip_if_gzip(ss.str(), path), path);
}

}  // namespace schedsim
