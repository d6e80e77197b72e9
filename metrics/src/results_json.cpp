// The versioned results JSON (docs/results-schema.md): writer and reader.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "schedsim/base/gzip.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/metrics/results.hpp"

namespace schedsim {

namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

// ---- writer ---------------------------------------------------------------------------------

ojson dist_json(const Distribution& d) {
  ojson j;
  j["count"] = d.count;
  j["mean"] = d.mean;
  j["std"] = d.stddev;
  j["min"] = d.min;
  j["p50"] = d.p50;
  j["p90"] = d.p90;
  j["p99"] = d.p99;
  j["p99_9"] = d.p999;
  j["max"] = d.max;
  j["exact"] = d.exact;
  ojson b = ojson::array();
  for (const auto& x : d.buckets) b.push_back(ojson::array({x.lo, x.hi, x.count}));
  j["buckets"] = std::move(b);
  return j;
}

template <class Map>
ojson map_json(const Map& m) {
  ojson j = ojson::object();
  for (const auto& [k, v] : m) j[k] = v;
  return j;
}

bool is_scalar_array(const ojson& j) {
  for (const auto& e : j)
    if (e.is_structured()) return false;
  return true;
}

// Pretty printer: objects one member per line (2-space indent), arrays of scalars on one line,
// so a 40-CPU timeline stays 40 lines. Scalars use nlohmann's dump (shortest round-trip doubles).
void dump(const ojson& j, std::string& out, int depth) {
  std::string pad(static_cast<size_t>(depth + 1) * 2, ' ');
  std::string close(static_cast<size_t>(depth) * 2, ' ');
  if (j.is_object()) {
    if (j.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) {
      out += pad + ojson(it.key()).dump() + ": ";
      dump(it.value(), out, depth + 1);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    out += close + "}";
  } else if (j.is_array()) {
    if (j.empty()) {
      out += "[]";
      return;
    }
    if (is_scalar_array(j)) {
      out += "[";
      for (size_t i = 0; i < j.size(); ++i) {
        if (i) out += ", ";
        out += j[i].dump();
      }
      out += "]";
      return;
    }
    out += "[\n";
    for (size_t i = 0; i < j.size(); ++i) {
      out += pad;
      dump(j[i], out, depth + 1);
      out += i + 1 < j.size() ? ",\n" : "\n";
    }
    out += close + "]";
  } else {
    out += j.dump();
  }
}

// ---- reader ---------------------------------------------------------------------------------

struct Reader {
  std::string source;

  [[noreturn]] void fail(const std::string& ptr, const std::string& msg) const {
    throw InputError(SourceLoc{source, 0, 0}, "results JSON " + ptr + ": " + msg);
  }
  const json& field(const json& obj, const std::string& ptr, const char* key) const {
    if (!obj.is_object()) fail(ptr, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(ptr + "/" + key, "missing field");
    return *it;
  }
  int64_t i64(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = field(obj, ptr, key);
    if (!v.is_number_integer()) fail(ptr + "/" + key, std::string("expected an integer, got ") + v.type_name());
    return v.get<int64_t>();
  }
  uint64_t u64(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = field(obj, ptr, key);
    if (!v.is_number_unsigned())
      fail(ptr + "/" + key, std::string("expected a non-negative integer, got ") + v.type_name());
    return v.get<uint64_t>();
  }
  uint32_t u32(const json& obj, const std::string& ptr, const char* key) const {
    uint64_t v = u64(obj, ptr, key);
    if (v > UINT32_MAX) fail(ptr + "/" + key, "value out of range");
    return static_cast<uint32_t>(v);
  }
  double dbl(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = field(obj, ptr, key);
    if (!v.is_number()) fail(ptr + "/" + key, std::string("expected a number, got ") + v.type_name());
    return v.get<double>();
  }
  std::string str(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = field(obj, ptr, key);
    if (!v.is_string()) fail(ptr + "/" + key, std::string("expected a string, got ") + v.type_name());
    return v.get<std::string>();
  }
  bool boolean(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = field(obj, ptr, key);
    if (!v.is_boolean()) fail(ptr + "/" + key, std::string("expected true or false, got ") + v.type_name());
    return v.get<bool>();
  }
  const json& array(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = field(obj, ptr, key);
    if (!v.is_array()) fail(ptr + "/" + key, std::string("expected an array, got ") + v.type_name());
    return v;
  }
  const json& object(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = field(obj, ptr, key);
    if (!v.is_object()) fail(ptr + "/" + key, std::string("expected an object, got ") + v.type_name());
    return v;
  }

  Distribution dist(const json& obj, const std::string& ptr, const char* key) const {
    const json& j = object(obj, ptr, key);
    std::string p = ptr + "/" + key;
    Distribution d;
    d.count = u64(j, p, "count");
    d.mean = dbl(j, p, "mean");
    d.stddev = dbl(j, p, "std");
    d.min = i64(j, p, "min");
    d.p50 = i64(j, p, "p50");
    d.p90 = i64(j, p, "p90");
    d.p99 = i64(j, p, "p99");
    d.p999 = i64(j, p, "p99_9");
    d.max = i64(j, p, "max");
    d.exact = boolean(j, p, "exact");
    const json& b = array(j, p, "buckets");
    for (size_t i = 0; i < b.size(); ++i) {
      std::string bp = p + "/buckets/" + std::to_string(i);
      const json& e = b[i];
      if (!e.is_array() || e.size() != 3 || !e[0].is_number_integer() || !e[1].is_number_integer() ||
          !e[2].is_number_unsigned())
        fail(bp, "expected [lo, hi, count]");
      d.buckets.push_back({e[0].get<int64_t>(), e[1].get<int64_t>(), e[2].get<uint64_t>()});
    }
    return d;
  }
};

// 1-based line of the first occurrence of `needle` in `text`, or 0.
long line_of(const std::string& text, const std::string& needle) {
  size_t pos = text.find(needle);
  if (pos == std::string::npos) return 0;
  return 1 + static_cast<long>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

std::string line_text(const std::string& text, long line) {
  std::istringstream in(text);
  std::string l;
  for (long i = 1; std::getline(in, l); ++i)
    if (i == line) return l;
  return {};
}

}  // namespace

std::string render_json(const RunResults& r) {
  ojson j;
  j["schema"] = kResultsSchema;
  j["version"] = kResultsVersion;
  const RunConfig& c = r.config;
  ojson cfg;
  cfg["label"] = c.display_label();
  cfg["workload"] = c.workload;
  cfg["workload_source"] = c.workload_source;
  cfg["topology"] = c.topology;
  cfg["nr_cpus"] = c.nr_cpus;
  cfg["modules"] = map_json(c.modules);
  cfg["features"] = map_json(c.features);
  cfg["cost_overrides"] = map_json(c.cost_overrides);
  cfg["seed"] = c.seed;
  if (!c.observed_elsewhere.empty()) cfg["observed_elsewhere"] = c.observed_elsewhere;
  j["config"] = std::move(cfg);
  if (!c.provenance.empty()) {
    ojson prov = ojson::object();
    for (const auto& [k, v] : c.provenance.fields()) prov[k] = v;
    j["provenance"] = std::move(prov);
  }

  ojson s;
  s["start_ns"] = r.start_ns;
  s["end_ns"] = r.end_ns;
  s["makespan_ns"] = r.makespan_ns;
  if (r.benchmark_time_ns >= 0) s["benchmark_time_ns"] = r.benchmark_time_ns;
  if (r.benchmark_time_ns >= 0 && r.benchmark_ops > 0) s["benchmark_ops"] = r.benchmark_ops;
  s["events"] = r.events;
  s["context_switches"] = r.context_switches;
  s["tokens_banked"] = r.tokens_banked;
  s["tokens_left"] = r.tokens_left;
  // Counts of mechanisms not every run uses (channels, held-back preemptions, reschedule IPIs):
  // a run that used none counted 0 of them, a true 0, so they are always written and a JSON
  // consumer sees one shape for every run (the text table shows them only when non-zero).
  s["channel_writes"] = r.channel_writes;
  s["channel_reads"] = r.channel_reads;
  s["channel_wakes"] = r.channel_wakes;
  s["channel_sleeps"] = r.channel_sleeps;
  s["preempt_deferred"] = r.preempt_deferred;
  s["preempt_deferred_slept"] = r.preempt_deferred_slept;
  s["resched_ipi"] = r.resched_ipi;
  s["resched_ipi_superseded"] = r.resched_ipi_superseded;
  s["tasks"] = r.tasks;
  s["tasks_exited"] = r.tasks_exited;
  s["complete"] = r.complete;
  s["work_done_ns"] = r.work_done_ns;
  s["work_expected_ns"] = r.work_expected_ns;
  s["incomplete"] = r.incomplete;
  s["notes"] = r.notes;
  s["busy_ns"] = r.busy_ns;
  s["wasted_ns"] = r.wasted_ns;
  j["summary"] = std::move(s);

  ojson lat;
  lat["wakeup"] = dist_json(r.wakeup_latency);
  lat["preempt"] = dist_json(r.preempt_delay);
  lat["runqueue_wait"] = dist_json(r.runqueue_wait);
  lat["fork"] = dist_json(r.fork_latency);
  j["latency_ns"] = std::move(lat);

  const PlacementStats& p = r.placement;
  ojson pl;
  pl["wakeups"] = p.wakeups;
  pl["forks"] = p.forks;
  pl["execs"] = p.execs;
  pl["outcomes"] = map_json(p.outcomes);
  pl["probes"] = dist_json(p.probes);
  pl["search_ns"] = dist_json(p.search_ns);
  pl["wake_delay_ns"] = dist_json(p.wake_delay_ns);
  pl["to_idle_cpu"] = p.to_idle_cpu;
  pl["cross_llc_waker"] = p.cross_llc_waker;
  pl["cross_llc_prev"] = p.cross_llc_prev;
  pl["idle_core_hint"] = ojson{{"consulted", p.hint_consulted}, {"stale_yes", p.hint_stale_yes},
                               {"stale_no", p.hint_stale_no}};
  j["placement"] = std::move(pl);

  j["migrations"] = ojson{{"total", r.migrations_total}, {"by_level", map_json(r.migrations)}};

  ojson cpus = ojson::array();
  for (const auto& x : r.cpus)
    cpus.push_back(ojson{{"cpu", x.cpu}, {"llc", x.llc}, {"node", x.node}, {"busy_ns", x.busy_ns}, {"idle_ns", x.idle_ns},
                         {"wasted_ns", x.wasted_ns}, {"utilization", x.utilization}});
  j["cpus"] = std::move(cpus);
  ojson llcs = ojson::array();
  for (const auto& x : r.llcs)
    llcs.push_back(ojson{{"llc", x.llc}, {"cpus", x.cpus}, {"busy_ns", x.busy_ns}, {"wasted_ns", x.wasted_ns},
                         {"utilization", x.utilization}});
  j["llcs"] = std::move(llcs);

  ojson tl;
  tl["start_ns"] = r.timeline.start_ns;
  tl["bucket_ns"] = r.timeline.bucket_ns;
  tl["buckets"] = r.timeline.buckets;
  ojson busy = ojson::array();
  for (const auto& row : r.timeline.busy) busy.push_back(ojson(row));
  tl["busy"] = std::move(busy);
  j["timeline"] = std::move(tl);

  ojson tasks = ojson::array();
  for (const auto& t : r.tasks_detail)
    tasks.push_back(ojson{{"id", t.id},
                          {"name", t.name},
                          {"pid", t.pid},
                          {"switches", t.switches},
                          {"runtime_ns", t.runtime_ns},
                          {"delays", t.delays},
                          {"delay_total_ns", t.delay_total_ns},
                          {"max_delay_ns", t.max_delay_ns},
                          {"max_delay_start_ns", t.max_delay_start_ns},
                          {"max_delay_end_ns", t.max_delay_end_ns},
                          {"migrations", t.migrations}});
  j["tasks"] = std::move(tasks);
  ojson groups = ojson::array();
  for (const auto& g : r.task_groups)
    groups.push_back(ojson{{"name", g.name},
                           {"tasks", g.tasks},
                           {"switches", g.switches},
                           {"runtime_ns", g.runtime_ns},
                           {"delays", g.delays},
                           {"delay_total_ns", g.delay_total_ns},
                           {"max_delay_ns", g.max_delay_ns},
                           {"max_delay_start_ns", g.max_delay_start_ns},
                           {"max_delay_end_ns", g.max_delay_end_ns}});
  j["task_groups"] = std::move(groups);

  if (r.has_observed) {
    ojson obs = ojson::array();
    for (const auto& o : r.observed) {
      obs.push_back(ojson{{"metric", o.metric}, {"simulated", o.simulated}, {"observed", o.observed},
                          {"rel_error", o.rel_error}});
      if (!o.note.empty()) obs.back()["note"] = o.note;
    }
    j["observed"] = std::move(obs);
  } else {
    j["observed"] = nullptr;
  }

  std::string out;
  dump(j, out, 0);
  out += "\n";
  return out;
}

namespace {

// Parses `text` as one JSON document; a syntax error becomes an InputError at its line:col.
json parse_document(const std::string& text, const std::string& source) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // A file of JSON Lines (run -f jsonl records, a sweep's results) is well-formed, only not
    // one document: say what it is rather than "malformed".
    const size_t nl = text.find('\n');
    if (nl != std::string::npos && nl + 1 < text.size()) {
      const json first = json::parse(text.substr(0, nl), nullptr, /*allow_exceptions=*/false);
      if (first.is_object() && (first.contains("schema") || first.contains("type")))
        throw InputError(SourceLoc{source, 2, 1},
                         "a JSON Lines file (one JSON object per line: `run -f jsonl` records or a sweep's "
                         "results), not the results JSON of one run (`run -f json -o FILE`)");
    }
    // Turn the byte offset into line:col and keep nlohmann's reason without its prefix.
    size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    if (byte > text.size()) byte = text.size();
    long line = 1, col = 1;
    for (size_t i = 0; i < byte; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    size_t colon = what.find(": ", what.find("parse error"));
    std::string reason = colon == std::string::npos ? what : what.substr(colon + 2);
    throw InputError(SourceLoc{source, line, col}, "malformed results JSON: " + reason, line_text(text, line));
  } catch (const json::out_of_range& e) {  // a number beyond double's range (error 406)
    std::string what = e.what();
    throw InputError(SourceLoc{source}, "malformed results JSON: " + what.substr(what.find("] ") + 2));
  }
}

// Refuses a document that is not a schedsim results file of this schema version.
void check_schema(const json& j, const std::string& text, const std::string& source) {
  if (!j.is_object() || !j.contains("schema") || !j["schema"].is_string() ||
      j["schema"].get<std::string>() != kResultsSchema) {
    long line = line_of(text, "\"schema\"");
    throw InputError(SourceLoc{source, line, 0},
                     std::string("not a schedsim results file (expected \"schema\": \"") + kResultsSchema + "\")",
                     line ? line_text(text, line) : std::string());
  }
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int64_t>() != kResultsVersion) {
    long line = line_of(text, "\"version\"");
    std::string got = j.contains("version") ? j["version"].dump() : std::string("missing");
    throw InputError(SourceLoc{source, line, 0},
                     "unsupported results schema version " + got + "; this schedsim reads version " +
                         std::to_string(kResultsVersion),
                     line ? line_text(text, line) : std::string());
  }
}

// /config and /provenance.
void read_config(const Reader& rd, const json& j, RunResults& r) {
  const json& c = rd.object(j, "", "config");
  r.config.label = rd.str(c, "/config", "label");
  r.config.workload = rd.str(c, "/config", "workload");
  r.config.workload_source = rd.str(c, "/config", "workload_source");
  r.config.topology = rd.str(c, "/config", "topology");
  r.config.nr_cpus = rd.u32(c, "/config", "nr_cpus");
  r.config.seed = rd.u64(c, "/config", "seed");
  // Added within schema version 1, only when true of the run.
  if (c.contains("observed_elsewhere")) r.config.observed_elsewhere = rd.str(c, "/config", "observed_elsewhere");
  for (const auto& [k, v] : rd.object(c, "/config", "modules").items()) {
    if (!v.is_string()) rd.fail("/config/modules/" + k, "expected a string");
    r.config.modules[k] = v.get<std::string>();
  }
  for (const auto& [k, v] : rd.object(c, "/config", "features").items()) {
    if (!v.is_boolean()) rd.fail("/config/features/" + k, "expected true or false");
    r.config.features[k] = v.get<bool>();
  }
  for (const auto& [k, v] : rd.object(c, "/config", "cost_overrides").items()) {
    if (!v.is_string()) rd.fail("/config/cost_overrides/" + k, "expected a string");
    r.config.cost_overrides[k] = v.get<std::string>();
  }

  // Added within schema version 1 (older files have none): every member a string.
  if (j.contains("provenance")) {
    const json& pv = rd.object(j, "", "provenance");
    for (const auto& [k, v] : pv.items()) {
      if (!v.is_string()) rd.fail("/provenance/" + k, "expected a string");
      r.config.provenance.set(k, v.get<std::string>());
    }
  }
}

void read_summary(const Reader& rd, const json& j, RunResults& r) {
  const json& s = rd.object(j, "", "summary");
  r.start_ns = rd.i64(s, "/summary", "start_ns");
  r.end_ns = rd.i64(s, "/summary", "end_ns");
  r.makespan_ns = rd.i64(s, "/summary", "makespan_ns");
  if (s.contains("benchmark_time_ns")) r.benchmark_time_ns = rd.i64(s, "/summary", "benchmark_time_ns");
  if (s.contains("benchmark_ops")) r.benchmark_ops = rd.i64(s, "/summary", "benchmark_ops");
  r.events = rd.u64(s, "/summary", "events");
  r.context_switches = rd.u64(s, "/summary", "context_switches");
  r.tokens_banked = rd.u64(s, "/summary", "tokens_banked");
  // Added within schema version 1: files written before it have no such key.
  if (s.contains("tokens_left")) r.tokens_left = rd.u64(s, "/summary", "tokens_left");
  if (s.contains("channel_writes")) {
    r.channel_writes = rd.u64(s, "/summary", "channel_writes");
    r.channel_reads = rd.u64(s, "/summary", "channel_reads");
    r.channel_wakes = rd.u64(s, "/summary", "channel_wakes");
    r.channel_sleeps = rd.u64(s, "/summary", "channel_sleeps");
  }
  if (s.contains("preempt_deferred")) {
    r.preempt_deferred = rd.u64(s, "/summary", "preempt_deferred");
    r.preempt_deferred_slept = rd.u64(s, "/summary", "preempt_deferred_slept");
  }
  if (s.contains("resched_ipi")) {
    r.resched_ipi = rd.u64(s, "/summary", "resched_ipi");
    r.resched_ipi_superseded = rd.u64(s, "/summary", "resched_ipi_superseded");
  }
  r.tasks = rd.u64(s, "/summary", "tasks");
  r.tasks_exited = rd.u64(s, "/summary", "tasks_exited");
  r.complete = rd.boolean(s, "/summary", "complete");
  r.work_done_ns = rd.i64(s, "/summary", "work_done_ns");
  // Added within schema version 1 (files written before have neither).
  if (s.contains("work_expected_ns")) r.work_expected_ns = rd.i64(s, "/summary", "work_expected_ns");
  // Lists of lines, both added within schema version 1: `incomplete`, then `notes`.
  auto lines = [&](const char* key, std::vector<std::string>& out) {
    if (!s.contains(key)) return;
    const std::string at = std::string("/summary/") + key;
    const json& arr = s[key];
    if (!arr.is_array()) rd.fail(at, "expected an array of strings");
    for (size_t i = 0; i < arr.size(); ++i) {
      if (!arr[i].is_string()) rd.fail(at + "/" + std::to_string(i), "expected a string");
      out.push_back(arr[i].get<std::string>());
    }
  };
  lines("incomplete", r.incomplete);
  lines("notes", r.notes);
  r.busy_ns = rd.i64(s, "/summary", "busy_ns");
  r.wasted_ns = rd.i64(s, "/summary", "wasted_ns");
}

// /latency_ns, /placement and /migrations.
void read_latency_placement(const Reader& rd, const json& j, RunResults& r) {
  const json& lat = rd.object(j, "", "latency_ns");
  r.wakeup_latency = rd.dist(lat, "/latency_ns", "wakeup");
  r.preempt_delay = rd.dist(lat, "/latency_ns", "preempt");
  r.runqueue_wait = rd.dist(lat, "/latency_ns", "runqueue_wait");
  r.fork_latency = rd.dist(lat, "/latency_ns", "fork");

  const json& pl = rd.object(j, "", "placement");
  PlacementStats& p = r.placement;
  p.wakeups = rd.u64(pl, "/placement", "wakeups");
  p.forks = rd.u64(pl, "/placement", "forks");
  p.execs = rd.u64(pl, "/placement", "execs");
  for (const auto& [k, v] : rd.object(pl, "/placement", "outcomes").items()) {
    if (!v.is_number_unsigned()) rd.fail("/placement/outcomes/" + k, "expected a non-negative integer");
    p.outcomes[k] = v.get<uint64_t>();
  }
  p.probes = rd.dist(pl, "/placement", "probes");
  p.search_ns = rd.dist(pl, "/placement", "search_ns");
  p.wake_delay_ns = rd.dist(pl, "/placement", "wake_delay_ns");
  p.to_idle_cpu = rd.u64(pl, "/placement", "to_idle_cpu");
  p.cross_llc_waker = rd.u64(pl, "/placement", "cross_llc_waker");
  p.cross_llc_prev = rd.u64(pl, "/placement", "cross_llc_prev");
  const json& hint = rd.object(pl, "/placement", "idle_core_hint");
  p.hint_consulted = rd.u64(hint, "/placement/idle_core_hint", "consulted");
  p.hint_stale_yes = rd.u64(hint, "/placement/idle_core_hint", "stale_yes");
  p.hint_stale_no = rd.u64(hint, "/placement/idle_core_hint", "stale_no");

  const json& mig = rd.object(j, "", "migrations");
  r.migrations_total = rd.u64(mig, "/migrations", "total");
  for (const auto& [k, v] : rd.object(mig, "/migrations", "by_level").items()) {
    if (!v.is_number_unsigned()) rd.fail("/migrations/by_level/" + k, "expected a non-negative integer");
    r.migrations[k] = v.get<uint64_t>();
  }
}

// /cpus, /llcs and /timeline.
void read_cpus(const Reader& rd, const json& j, RunResults& r) {
  const json& cpus = rd.array(j, "", "cpus");
  for (size_t i = 0; i < cpus.size(); ++i) {
    std::string ptr = "/cpus/" + std::to_string(i);
    CpuRow x;
    x.cpu = rd.u32(cpus[i], ptr, "cpu");
    x.llc = rd.u32(cpus[i], ptr, "llc");
    // Added within schema version 1 (older files have none: node 0).
    if (cpus[i].contains("node")) x.node = rd.u32(cpus[i], ptr, "node");
    x.busy_ns = rd.i64(cpus[i], ptr, "busy_ns");
    x.idle_ns = rd.i64(cpus[i], ptr, "idle_ns");
    x.wasted_ns = rd.i64(cpus[i], ptr, "wasted_ns");
    x.utilization = rd.dbl(cpus[i], ptr, "utilization");
    r.cpus.push_back(x);
  }
  const json& llcs = rd.array(j, "", "llcs");
  for (size_t i = 0; i < llcs.size(); ++i) {
    std::string ptr = "/llcs/" + std::to_string(i);
    LlcRow x;
    x.llc = rd.u32(llcs[i], ptr, "llc");
    x.cpus = rd.str(llcs[i], ptr, "cpus");
    x.busy_ns = rd.i64(llcs[i], ptr, "busy_ns");
    x.wasted_ns = rd.i64(llcs[i], ptr, "wasted_ns");
    x.utilization = rd.dbl(llcs[i], ptr, "utilization");
    r.llcs.push_back(x);
  }

  const json& tl = rd.object(j, "", "timeline");
  r.timeline.start_ns = rd.i64(tl, "/timeline", "start_ns");
  r.timeline.bucket_ns = rd.i64(tl, "/timeline", "bucket_ns");
  r.timeline.buckets = rd.u32(tl, "/timeline", "buckets");
  const json& busy = rd.array(tl, "/timeline", "busy");
  for (size_t c2 = 0; c2 < busy.size(); ++c2) {
    std::string ptr = "/timeline/busy/" + std::to_string(c2);
    if (!busy[c2].is_array()) rd.fail(ptr, "expected an array of fractions");
    std::vector<double> row;
    for (const auto& v : busy[c2]) {
      if (!v.is_number()) rd.fail(ptr, "expected an array of fractions");
      row.push_back(v.get<double>());
    }
    if (row.size() != r.timeline.buckets)
      rd.fail(ptr, "expected " + std::to_string(r.timeline.buckets) + " buckets, got " + std::to_string(row.size()));
    r.timeline.busy.push_back(std::move(row));
  }
}

// /tasks and /task_groups.
void read_tasks(const Reader& rd, const json& j, RunResults& r) {
  const json& tasks = rd.array(j, "", "tasks");
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string ptr = "/tasks/" + std::to_string(i);
    const json& t = tasks[i];
    TaskRow x;
    x.id = rd.u32(t, ptr, "id");
    x.name = rd.str(t, ptr, "name");
    x.pid = rd.i64(t, ptr, "pid");
    x.switches = rd.u64(t, ptr, "switches");
    x.runtime_ns = rd.i64(t, ptr, "runtime_ns");
    x.delays = rd.u64(t, ptr, "delays");
    x.delay_total_ns = rd.i64(t, ptr, "delay_total_ns");
    x.max_delay_ns = rd.i64(t, ptr, "max_delay_ns");
    x.max_delay_start_ns = rd.i64(t, ptr, "max_delay_start_ns");
    x.max_delay_end_ns = rd.i64(t, ptr, "max_delay_end_ns");
    x.migrations = rd.u64(t, ptr, "migrations");
    r.tasks_detail.push_back(std::move(x));
  }
  const json& groups = rd.array(j, "", "task_groups");
  for (size_t i = 0; i < groups.size(); ++i) {
    std::string ptr = "/task_groups/" + std::to_string(i);
    const json& g = groups[i];
    TaskGroupRow x;
    x.name = rd.str(g, ptr, "name");
    x.tasks = rd.u32(g, ptr, "tasks");
    x.switches = rd.u64(g, ptr, "switches");
    x.runtime_ns = rd.i64(g, ptr, "runtime_ns");
    x.delays = rd.u64(g, ptr, "delays");
    x.delay_total_ns = rd.i64(g, ptr, "delay_total_ns");
    x.max_delay_ns = rd.i64(g, ptr, "max_delay_ns");
    x.max_delay_start_ns = rd.i64(g, ptr, "max_delay_start_ns");
    x.max_delay_end_ns = rd.i64(g, ptr, "max_delay_end_ns");
    r.task_groups.push_back(std::move(x));
  }
}

void read_observed(const Reader& rd, const json& j, RunResults& r) {
  const json& obs = rd.field(j, "", "observed");
  if (obs.is_null()) return;
  if (!obs.is_array()) rd.fail("/observed", "expected an array or null");
  r.has_observed = true;
  for (size_t i = 0; i < obs.size(); ++i) {
    std::string ptr = "/observed/" + std::to_string(i);
    Comparison x;
    x.metric = rd.str(obs[i], ptr, "metric");
    x.simulated = rd.dbl(obs[i], ptr, "simulated");
    x.observed = rd.dbl(obs[i], ptr, "observed");
    x.rel_error = rd.dbl(obs[i], ptr, "rel_error");
    if (obs[i].is_object() && obs[i].contains("note")) x.note = rd.str(obs[i], ptr, "note");
    r.observed.push_back(std::move(x));
  }
}

}  // namespace

RunResults parse_results_json(const std::string& text, const std::string& source) {
  const json j = parse_document(text, source);
  const Reader rd{source};
  check_schema(j, text, source);
  RunResults r;
  read_config(rd, j, r);
  read_summary(rd, j, r);
  read_latency_placement(rd, j, r);
  read_cpus(rd, j, r);
  read_tasks(rd, j, r);
  read_observed(rd, j, r);
  return r;
}

RunResults load_results_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(SourceLoc{path, 0, 0}, "cannot open results file: " + std::string(std::strerror(errno)));
  check_whole_read_size(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_results_json(gunzip_if_gzip(ss.str(), path), path);
}

}  // namespace schedsim
