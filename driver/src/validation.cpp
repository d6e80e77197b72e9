// The validation corpus: reader, judgement and renderings (docs/validation.md).
#include "schedsim/driver/validation.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/stats/stats.hpp"
#include "schedsim/topology/json_input.hpp"

namespace schedsim::driver {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr const char* kFormatKey = "schedsim_validation";

[[noreturn]] void fail(const std::string& path, const std::string& pointer, const std::string& msg) {
  throw InputError(SourceLoc{path}, pointer.empty() ? msg : pointer + ": " + msg);
}

void check_keys(const json& obj, std::initializer_list<const char*> allowed, const std::string& path,
                const std::string& where) {
  for (const auto& [k, v] : obj.items()) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || k == a;
    if (ok) continue;
    fail(path, where + "/" + k, unknown_choice_message("key", k, std::vector<std::string>(allowed.begin(), allowed.end())));
  }
}

std::string get_string(const json& obj, const char* key, const std::string& path, const std::string& where,
                       bool required = true) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) fail(path, where, fmt::format("missing \"{}\"", key));
    return {};
  }
  if (!it->is_string()) fail(path, where + "/" + key, "expected a string, got " + describe_json_value(*it));
  std::string s = it->get<std::string>();
  if (required && s.empty()) fail(path, where + "/" + key, "expected a non-empty string");
  return s;
}

double get_number(const json& v, const std::string& path, const std::string& where) {
  if (!v.is_number()) fail(path, where, "expected a number, got " + describe_json_value(v));
  double d = v.get<double>();
  if (!std::isfinite(d)) fail(path, where, "expected a finite number");
  return d;
}

std::map<std::string, std::string> get_params(const json& obj, const char* key, const std::string& path,
                                              const std::string& where) {
  std::map<std::string, std::string> out;
  auto it = obj.find(key);
  if (it == obj.end()) return out;
  const std::string at = where + "/" + key;
  if (!it->is_object()) fail(path, at, "expected an object of parameter values, got " + describe_json_value(*it));
  for (const auto& [k, v] : it->items()) {
    if (k.empty() || k.find_first_of("{} ") != std::string::npos)
      fail(path, at + "/" + k, "a parameter name must be non-empty, without braces or spaces");
    if (v.is_string()) {
      out[k] = v.get<std::string>();
    } else if (v.is_number_integer()) {
      out[k] = std::to_string(v.get<int64_t>());
    } else if (v.is_number()) {
      out[k] = fmt::format("{}", v.get<double>());
    } else {
      fail(path, at + "/" + k, "expected a string or a number, got " + describe_json_value(v));
    }
    if (out[k].empty()) fail(path, at + "/" + k, "expected a non-empty value");
  }
  return out;
}

SideSpec read_side(const json& root, const char* key, const std::string& path) {
  const std::string where = std::string("/") + key;
  auto it = root.find(key);
  if (it == root.end()) fail(path, "", fmt::format("missing \"{}\" (the run options of that kernel)", key));
  if (!it->is_object()) fail(path, where, "expected an object, got " + describe_json_value(*it));
  check_keys(*it, {"kernel", "placement", "queue", "balance", "util", "idle_cores", "features", "label"}, path, where);
  SideSpec s;
  s.kernel = get_string(*it, "kernel", path, where);
  s.label = get_string(*it, "label", path, where, false);
  for (const char* slot : {"placement", "queue", "balance", "util", "idle_cores"}) {
    std::string m = get_string(*it, slot, path, where, false);
    if (it->contains(slot) && m.empty()) fail(path, where + "/" + slot, "expected a module name");
    if (m.empty()) continue;
    std::string option = slot;  // the run option that chooses this slot: idle_cores -> --idle-cores
    std::replace(option.begin(), option.end(), '_', '-');
    s.modules[option] = m;
  }
  if (auto f = it->find("features"); f != it->end()) {
    if (!f->is_array()) fail(path, where + "/features", "expected an array of flags, got " + describe_json_value(*f));
    for (size_t i = 0; i < f->size(); ++i) {
      const json& v = (*f)[i];
      if (!v.is_string() || v.get<std::string>().empty())
        fail(path, fmt::format("{}/features/{}", where, i), "expected a flag name (X or NO_X)");
      s.features.push_back(v.get<std::string>());
    }
  }
  if (s.label.empty()) s.label = key;
  return s;
}

/// Every metric, in the order metric_names() lists them.
constexpr Metric kMetrics[] = {Metric::kBenchmarkTime, Metric::kThroughput, Metric::kThroughputPerClient,
                               Metric::kUsecsPerOp,    Metric::kWakeupP50,  Metric::kWakeupP90,
                               Metric::kWakeupP99,     Metric::kWakeupP999};

Metric parse_metric(const std::string& name, const std::string& path, const std::string& where) {
  for (Metric m : kMetrics)
    if (name == metric_name(m)) return m;
  fail(path, where, unknown_choice_message("metric", name, metric_names()));
}

/// The placeholders of a gen spec, in order. InputError for an unclosed or empty brace.
std::vector<std::string> placeholders(const std::string& gen, const std::string& path, const std::string& where) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = gen.find('{', pos)) != std::string::npos) {
    size_t end = gen.find('}', pos);
    if (end == std::string::npos) fail(path, where, fmt::format("unclosed '{{' at character {}", pos + 1));
    std::string name = gen.substr(pos + 1, end - pos - 1);
    if (name.empty() || name.find('{') != std::string::npos)
      fail(path, where, fmt::format("expected a parameter name between the braces at character {}", pos + 1));
    out.push_back(name);
    pos = end + 1;
  }
  if (static_cast<size_t>(std::count(gen.begin(), gen.end(), '}')) != out.size()) fail(path, where, "'}' without '{'");
  return out;
}

double relative(double v, double mean) { return mean != 0 ? v / mean : kNaN; }

std::string pct(double x, int digits = 1) {
  if (!std::isfinite(x)) return "-";
  return fmt::format("{:+.{}f}%", x * 100, digits);
}

std::string num(double x) {
  if (!std::isfinite(x)) return "-";
  return fmt::format("{:.4g}", x);
}

std::string side_text(const SideSpec& s) {
  std::string t = "--kernel " + s.kernel;
  for (const auto& [option, m] : s.modules) t += " --" + option + " " + m;
  for (const auto& f : s.features) t += " --feature " + f;
  return t;
}

/// Rows that count toward the goals and how many agree / have the right size.
struct Tally {
  size_t rows = 0, failed = 0, counted = 0, agree = 0, size_ok = 0;
  void add(const RowResult& r) {
    ++rows;
    if (r.failed) {
      ++failed;
      return;
    }
    if (!r.published.beyond_noise) return;
    ++counted;
    agree += r.agrees() ? 1U : 0U;
    size_ok += r.size_ok() ? 1U : 0U;
  }
  std::string share(size_t k) const {
    return counted ? fmt::format("{} ({:.0f}%)", k, 100.0 * static_cast<double>(k) / static_cast<double>(counted))
                   : std::string("-");
  }
};

const char* half_name(const Entry& e) { return e.development() ? "dev" : "val"; }

/// The entries of `rows`, in the order their rows come.
std::vector<const Entry*> entry_order(const std::vector<RowResult>& rows) {
  std::vector<const Entry*> order;
  for (const auto& r : rows)
    if (order.empty() || order.back() != r.entry) order.push_back(r.entry);
  return order;
}

}  // namespace

const char* metric_name(Metric m) {
  switch (m) {
    case Metric::kBenchmarkTime: return "benchmark_time";
    case Metric::kThroughput: return "throughput";
    case Metric::kThroughputPerClient: return "throughput_per_client";
    case Metric::kUsecsPerOp: return "usecs_per_op";
    case Metric::kWakeupP50: return "wakeup_latency.p50";
    case Metric::kWakeupP90: return "wakeup_latency.p90";
    case Metric::kWakeupP99: return "wakeup_latency.p99";
    case Metric::kWakeupP999: return "wakeup_latency.p999";
  }
  return "?";
}

std::vector<std::string> metric_names() {
  std::vector<std::string> out;
  for (Metric m : kMetrics) out.emplace_back(metric_name(m));
  return out;
}

const std::vector<std::string>& machine_families() {
  static const std::vector<std::string> f = {"intel-2s-smt", "amd-many-llc", "arm-cluster", "power-smt", "intel-1s"};
  return f;
}

bool Entry::development() const {
  const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(commit.at(0))));
  const int d = c <= '9' ? c - '0' : c - 'a' + 10;
  return d % 2 == 0;
}

Entry read_entry(const std::string& path) { return parse_entry(read_input_file(path, "validation file"), path); }

Entry parse_entry(const std::string& text, const std::string& path) {
  const json root = parse_json_input(text, path);
  if (!root.is_object()) fail(path, "", "expected a JSON object at the top level, got " + describe_json_value(root));
  check_keys(root, {kFormatKey, "title", "commit", "merged", "sources", "published_by", "machine", "before", "after",
                    "benchmarks", "rows", "notes"},
             path, "");
  auto ver = root.find(kFormatKey);
  if (ver == root.end())
    fail(path, "", fmt::format("missing \"{}\": 1 (is this a schedsim validation file?)", kFormatKey));
  if (!ver->is_number_integer() || ver->get<int64_t>() != kValidationVersion)
    fail(path, std::string("/") + kFormatKey,
         fmt::format("unsupported version {}; this schedsim reads version {}", describe_json_value(*ver),
                     kValidationVersion));
  Entry e;
  e.path = path;
  e.name = fs::path(path).stem().string();
  e.title = get_string(root, "title", path, "");
  e.commit = get_string(root, "commit", path, "");
  if (e.commit.size() < 12 || e.commit.size() > 40 ||
      !std::all_of(e.commit.begin(), e.commit.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); }))
    fail(path, "/commit", fmt::format("expected the change's commit id, 12 to 40 hex digits, got \"{}\"", e.commit));
  if (auto n = root.find("notes"); n != root.end()) {
    if (n->is_string()) {
      e.notes.push_back(n->get<std::string>());
    } else if (n->is_array()) {
      for (size_t i = 0; i < n->size(); ++i) {
        if (!(*n)[i].is_string()) fail(path, fmt::format("/notes/{}", i), "expected a string");
        e.notes.push_back((*n)[i].get<std::string>());
      }
    } else {
      fail(path, "/notes", "expected a string or an array of strings, got " + describe_json_value(*n));
    }
  }
  e.merged = get_string(root, "merged", path, "", false);
  e.published_by = get_string(root, "published_by", path, "", false);
  auto src = root.find("sources");
  if (src == root.end() || !src->is_array() || src->empty())
    fail(path, "/sources", "expected a non-empty array of the addresses the table was read from");
  for (size_t i = 0; i < src->size(); ++i) {
    if (!(*src)[i].is_string() || (*src)[i].get<std::string>().empty())
      fail(path, fmt::format("/sources/{}", i), "expected an address (string)");
    e.sources.push_back((*src)[i].get<std::string>());
  }
  auto mach = root.find("machine");
  if (mach == root.end() || !mach->is_object()) fail(path, "/machine", "expected an object with topology, family, published");
  check_keys(*mach, {"topology", "family", "published", "note"}, path, "/machine");
  e.topology_given = get_string(*mach, "topology", path, "/machine");
  e.family = get_string(*mach, "family", path, "/machine");
  e.machine_published = get_string(*mach, "published", path, "/machine", false);
  const auto& fams = machine_families();
  if (std::find(fams.begin(), fams.end(), e.family) == fams.end())
    fail(path, "/machine/family", unknown_choice_message("family", e.family, fams));
  // A file path is relative to the corpus file; anything else is a preset name (`run -t`).
  if (e.topology_given.find('/') != std::string::npos || e.topology_given.ends_with(".json")) {
    fs::path p = e.topology_given;
    e.topology = p.is_absolute() ? p.string() : (fs::path(path).parent_path() / p).lexically_normal().string();
  } else {
    e.topology = e.topology_given;
  }
  e.before = read_side(root, "before", path);
  e.after = read_side(root, "after", path);

  auto benches = root.find("benchmarks");
  if (benches == root.end() || !benches->is_object() || benches->empty())
    fail(path, "/benchmarks", "expected an object of benchmarks by id");
  for (const auto& [id, b] : benches->items()) {
    const std::string where = "/benchmarks/" + id;
    if (!b.is_object()) fail(path, where, "expected an object, got " + describe_json_value(b));
    check_keys(b, {"gen", "published_command", "params", "sim_params", "metric", "unit", "better", "normalised", "note"},
               path, where);
    BenchmarkSpec s;
    s.id = id;
    s.gen = get_string(b, "gen", path, where);
    s.published_command = get_string(b, "published_command", path, where, false);
    s.params = get_params(b, "params", path, where);
    s.sim_params = get_params(b, "sim_params", path, where);
    s.metric = parse_metric(get_string(b, "metric", path, where), path, where + "/metric");
    s.unit = get_string(b, "unit", path, where);
    const std::string better = get_string(b, "better", path, where);
    if (better != "lower" && better != "higher")
      fail(path, where + "/better", fmt::format("expected \"lower\" or \"higher\", got \"{}\"", better));
    s.higher_better = better == "higher";
    if (auto n = b.find("normalised"); n != b.end()) {
      if (!n->is_boolean()) fail(path, where + "/normalised", "expected true or false, got " + describe_json_value(*n));
      s.normalised = n->get<bool>();
    }
    s.placeholders = placeholders(s.gen, path, where + "/gen");
    if (s.metric == Metric::kThroughputPerClient && s.gen.find("{clients}") == std::string::npos)
      fail(path, where + "/metric", "throughput_per_client divides by the {clients} parameter, which /gen does not use");
    e.benchmarks.emplace(id, std::move(s));
  }

  auto rows = root.find("rows");
  if (rows == root.end() || !rows->is_array() || rows->empty()) fail(path, "/rows", "expected a non-empty array of rows");
  for (size_t i = 0; i < rows->size(); ++i) {
    const json& r = (*rows)[i];
    const std::string where = fmt::format("/rows/{}", i);
    if (!r.is_object()) fail(path, where, "expected an object, got " + describe_json_value(r));
    check_keys(r, {"benchmark", "params", "before", "after", "spread", "note"}, path, where);
    RowSpec row;
    row.index = i;
    row.benchmark = get_string(r, "benchmark", path, where);
    if (!e.benchmarks.count(row.benchmark))
      fail(path, where + "/benchmark", fmt::format("no benchmark '{}' in /benchmarks", row.benchmark));
    row.params = get_params(r, "params", path, where);
    for (const char* k : {"before", "after"}) {
      auto v = r.find(k);
      if (v == r.end()) fail(path, where, fmt::format("missing \"{}\" (the published mean)", k));
      double d = get_number(*v, path, where + "/" + k);
      if (d <= 0) fail(path, where + "/" + k, "expected a positive mean");
      (std::string(k) == "before" ? row.before : row.after) = d;
    }
    if (auto sp = r.find("spread"); sp != r.end()) {
      if (!sp->is_object()) fail(path, where + "/spread", "expected an object {kind, before, after}");
      check_keys(*sp, {"kind", "before", "after"}, path, where + "/spread");
      row.spread.kind = get_string(*sp, "kind", path, where + "/spread");
      if (row.spread.kind != "std-pct" && row.spread.kind != "std" && row.spread.kind != "ci95" && row.spread.kind != "none")
        fail(path, where + "/spread/kind",
             fmt::format("expected std-pct, std, ci95 or none, got \"{}\"", row.spread.kind));
      for (const char* k : {"before", "after"}) {
        auto v = sp->find(k);
        if (v == sp->end() || v->is_null()) continue;
        double d = get_number(*v, path, where + "/spread/" + k);
        if (d < 0) fail(path, where + "/spread/" + k, "expected a spread >= 0");
        (std::string(k) == "before" ? row.spread.before : row.spread.after) = d;
      }
      if (row.spread.kind != "none" && std::isnan(row.spread.before) && std::isnan(row.spread.after))
        fail(path, where + "/spread", fmt::format("kind {} needs a before or an after value", row.spread.kind));
    }
    row.note = get_string(r, "note", path, where, false);
    e.rows.push_back(std::move(row));
    // Every placeholder must have a value for this row.
    for (const auto& name : e.benchmarks.at(e.rows.back().benchmark).placeholders) row_param(e, e.rows.back(), name);
  }
  return e;
}

std::vector<Entry> read_corpus(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> here;
      for (const auto& de : fs::directory_iterator(in, ec))
        if (de.path().extension() == ".json" && de.is_regular_file(ec)) here.push_back(de.path().string());
      if (ec) throw InputError(SourceLoc{in}, "cannot read the directory: " + ec.message());
      if (here.empty()) throw InputError(SourceLoc{in}, "no validation files (*.json) in this directory");
      std::sort(here.begin(), here.end());
      files.insert(files.end(), here.begin(), here.end());
    } else if (fs::exists(in, ec)) {
      files.push_back(in);
    } else {
      throw InputError(SourceLoc{in}, "no such file or directory");
    }
  }
  std::vector<Entry> out;
  std::map<std::string, std::string> seen;  // name -> path
  for (const auto& f : files) {
    Entry e = read_entry(f);
    auto [it, fresh] = seen.emplace(e.name, f);
    if (!fresh) throw InputError(SourceLoc{f}, fmt::format("the same entry name as {} (each source is one file)", it->second));
    out.push_back(std::move(e));
  }
  return out;
}

std::string row_param(const Entry& e, const RowSpec& r, const std::string& name) {
  const BenchmarkSpec& b = e.benchmarks.at(r.benchmark);
  if (auto it = b.sim_params.find(name); it != b.sim_params.end()) return it->second;
  if (auto it = r.params.find(name); it != r.params.end()) return it->second;
  if (auto it = b.params.find(name); it != b.params.end()) return it->second;
  fail(e.path, fmt::format("/rows/{}/params", r.index),
       fmt::format("no value for {{{}}} of benchmark '{}' (in the row's params or the benchmark's)", name, b.id));
}

std::string row_workload_spec(const Entry& e, const RowSpec& r) {
  const BenchmarkSpec& b = e.benchmarks.at(r.benchmark);
  std::string out;
  size_t pos = 0;
  while (true) {
    size_t open = b.gen.find('{', pos);
    if (open == std::string::npos) {
      out += b.gen.substr(pos);
      break;
    }
    size_t close = b.gen.find('}', open);
    if (close == std::string::npos) fail(e.path, "/benchmarks/" + b.id + "/gen", "unclosed '{'");
    out += b.gen.substr(pos, open - pos);
    out += row_param(e, r, b.gen.substr(open + 1, close - open - 1));
    pos = close + 1;
  }
  return out;
}

std::string row_params_text(const RowSpec& r) {
  std::string t;
  for (const auto& [k, v] : r.params) t += (t.empty() ? "" : " ") + k + "=" + v;
  return t.empty() ? "-" : t;
}

const char* verdict_name(Verdict v) {
  switch (v) {
    case Verdict::kImproved: return "improved";
    case Verdict::kRegressed: return "regressed";
    case Verdict::kWithinNoise: return "within noise";
  }
  return "?";
}

PublishedJudgement judge_published(const RowSpec& r, bool higher_better) {
  PublishedJudgement j;
  j.change = r.after / r.before - 1;
  // The spread of each side relative to its own mean; a side the source leaves out takes the
  // other's. The noise of a change between two such means is sqrt(sb^2 + sa^2).
  double sb = kNaN, sa = kNaN;
  const Spread& s = r.spread;
  if (s.kind == "std-pct") {
    sb = s.before / 100;
    sa = s.after / 100;
  } else if (s.kind == "std" || s.kind == "ci95") {
    sb = relative(s.before, r.before);
    sa = relative(s.after, r.after);
  }
  if (std::isnan(sb)) sb = sa;
  if (std::isnan(sa)) sa = sb;
  if (s.kind != "none" && std::isfinite(sb) && std::isfinite(sa)) {
    j.noise = std::sqrt(sb * sb + sa * sa);
    j.noise_published = true;
  } else {
    j.noise = kNoSpreadThreshold;
  }
  j.beyond_noise = std::fabs(j.change) > j.noise;
  if (j.beyond_noise) j.verdict = (j.change > 0) == higher_better ? Verdict::kImproved : Verdict::kRegressed;
  return j;
}

SimulatedJudgement judge_simulated(const std::vector<double>& before, const std::vector<double>& after,
                                   bool higher_better, uint64_t seed) {
  SimulatedJudgement j;
  const stats::Summary b = stats::summarize(before), a = stats::summarize(after);
  j.before_mean = b.mean;
  j.after_mean = a.mean;
  j.before_std = b.std;
  j.after_std = a.std;
  // A side without a figure (a failed run, a metric the workload cannot give: NaN) has no
  // change to judge; its row is reported failed by the caller, never judged on NaN.
  if (before.empty() || after.empty() || b.mean == 0 || !std::isfinite(b.mean) || !std::isfinite(a.mean)) return j;
  j.change = a.mean / b.mean - 1;
  const stats::Interval ci = stats::bootstrap_rel_change(before, after, 0.95, 2000, seed);
  j.ci_lo = ci.lo;
  j.ci_hi = ci.hi;
  j.p = stats::welch_t_test(before, after).p;
  // A change counts when its 95% interval excludes 0 (so one repetition per side never does)
  // and it is at least kMinEffect.
  const bool excludes_zero = std::isfinite(ci.lo) && std::isfinite(ci.hi) && (ci.lo > 0 || ci.hi < 0);
  if (before.size() >= 2 && after.size() >= 2 && excludes_zero && std::fabs(j.change) >= kMinEffect)
    j.verdict = (j.change > 0) == higher_better ? Verdict::kImproved : Verdict::kRegressed;
  return j;
}

bool RowResult::agrees() const { return !failed && published.verdict == simulated.verdict; }

bool RowResult::size_ok() const {
  if (failed || !std::isfinite(simulated.change) || !std::isfinite(published.change)) return false;
  const double err = std::fabs(simulated.change - published.change);
  return err <= std::max(kSizeRelTolerance * std::fabs(published.change), kSizeAbsTolerance);
}

RowResult judge_row(const Entry& e, const RowSpec& r, std::vector<double> before, std::vector<double> after,
                    uint64_t seed) {
  RowResult out;
  out.entry = &e;
  out.row = &r;
  const bool higher = e.benchmarks.at(r.benchmark).higher_better;
  out.published = judge_published(r, higher);
  out.simulated = judge_simulated(before, after, higher, seed);
  out.before = std::move(before);
  out.after = std::move(after);
  return out;
}

std::vector<Curve> curves(const std::vector<RowResult>& rows) {
  std::vector<Curve> out;
  // Group the rows of one entry and benchmark, in file order.
  std::map<std::pair<const Entry*, std::string>, std::vector<const RowResult*>> groups;
  std::vector<std::pair<const Entry*, std::string>> order;
  for (const auto& r : rows) {
    auto key = std::make_pair(r.entry, r.row->benchmark);
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const auto& key : order) {
    const auto& g = groups[key];
    if (g.size() < 2) continue;
    bool ok = true;
    for (const auto* r : g) ok = ok && !r->failed;
    if (key.first->benchmarks.at(key.second).normalised) continue;  // only ratios mean anything
    if (!ok) continue;
    // The one parameter that varies, numeric on every row.
    std::set<std::string> keys;
    for (const auto* r : g)
      for (const auto& [k, v] : r->row->params) keys.insert(k);
    std::string varying;
    for (const auto& k : keys) {
      std::set<std::string> values;
      for (const auto* r : g) values.insert(r->row->params.count(k) ? r->row->params.at(k) : "");
      if (values.size() > 1) {
        if (!varying.empty()) ok = false;
        varying = k;
      }
    }
    if (!ok || varying.empty()) continue;
    std::vector<std::pair<double, const RowResult*>> pts;
    for (const auto* r : g) {
      auto it = r->row->params.find(varying);
      if (it == r->row->params.end()) { ok = false; break; }
      char* end = nullptr;
      double x = std::strtod(it->second.c_str(), &end);
      if (end == it->second.c_str() || *end != '\0') { ok = false; break; }
      pts.emplace_back(x, r);
    }
    if (!ok) continue;
    std::stable_sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const char* side : {"before", "after"}) {
      Curve c;
      c.entry = key.first;
      c.benchmark = key.second;
      c.param = varying;
      c.side = side;
      const bool bef = std::string(side) == "before";
      for (const auto& [x, r] : pts) {
        c.x.push_back(x);
        c.published.push_back(bef ? r->row->before : r->row->after);
        c.simulated.push_back(bef ? r->simulated.before_mean : r->simulated.after_mean);
      }
      const double scale = c.published[0] / c.simulated[0];
      c.max_point_error = 0;
      c.max_ratio_error = 0;
      for (size_t i = 0; i < c.x.size(); ++i) {
        c.max_point_error = std::max(c.max_point_error, std::fabs(c.simulated[i] * scale / c.published[i] - 1));
        if (i > 0) {
          const double sr = c.simulated[i] / c.simulated[i - 1], pr = c.published[i] / c.published[i - 1];
          c.max_ratio_error = std::max(c.max_ratio_error, std::fabs(sr / pr - 1));
        }
      }
      if (!std::isfinite(scale)) c.max_point_error = c.max_ratio_error = kNaN;
      out.push_back(std::move(c));
    }
  }
  return out;
}

namespace {

/// Totals per half, and per change / family / benchmark within the requested rows.
struct Tallies {
  Tally dev, val, all;
  std::map<std::string, Tally> by_family, by_benchmark;
  explicit Tallies(const std::vector<RowResult>& rows) {
    for (const auto& r : rows) {
      (r.entry->development() ? dev : val).add(r);
      all.add(r);
      by_family[r.entry->family].add(r);
      const BenchmarkSpec& b = r.entry->benchmarks.at(r.row->benchmark);
      by_benchmark[b.gen.substr(0, b.gen.find(' ')) + " " + metric_name(b.metric)].add(r);
    }
  }
};

std::string goal_cell(const Tally& t, size_t k, double goal) {
  if (!t.counted) return "-";
  const double share = static_cast<double>(k) / static_cast<double>(t.counted);
  return fmt::format("{} of {} ({:.0f}%, goal {:.0f}%: {})", k, t.counted, share * 100, goal * 100,
                     share >= goal ? "met" : "missed");
}

std::string sim_cell(const RowResult& r) {
  if (r.failed) return "failed";
  return fmt::format("{} -> {}", num(r.simulated.before_mean), num(r.simulated.after_mean));
}

}  // namespace

std::string render_markdown(const std::vector<RowResult>& rows, const RenderOptions& o) {
  std::ostringstream os;
  std::set<const Entry*> entries;
  std::set<std::string> commits;
  for (const auto& r : rows) {
    entries.insert(r.entry);
    commits.insert(r.entry->commit.substr(0, 12));
  }
  os << "# schedsim validate\n\n";
  os << fmt::format("changes: {}; sources: {}; rows: {}; half: {}; {} repetitions per side with run --repeat's noise model\n"
                    "(seed {}); schedsim {}.\n\n",
                    commits.size(), entries.size(), rows.size(), o.half, o.repeat, o.seed, o.version);
  if (!o.costs.empty()) {
    std::string c;
    for (const auto& x : o.costs) c += (c.empty() ? "" : " ") + x;
    os << fmt::format("Every run with --cost {} (after the machine's cost profile).\n\n", c);
  }
  for (const auto& g : o.gen_options) {
    const size_t colon = g.find(':');
    os << fmt::format("Every {} row's generator with `{}` appended (--gen-option).\n\n", g.substr(0, colon), g.substr(colon + 1));
  }
  os << "Each row's workload runs with the machine's cost profile where it has the generator's per-operation\n"
        "costs, else the reference machine's (stderr names them): absolute simulated figures are not the published\n"
        "machine's. Only the change after/before, and curve shapes scaled at one point, are compared.\n\n";
  const Tallies t(rows);
  os << "## Goals\n\n";
  os << "Rows whose published change exceeds its published noise are judged: does the simulated verdict agree,\n"
        "and is the simulated change within 30% (or 2 percentage points) of the published one (docs/validation.md,\n"
        "\"How a row is judged\")? The validation half is reported, never tuned on.\n\n";
  os << "| half | rows | failed | beyond published noise | verdict agrees (goal 90%) | size within 30% / 2 pp (goal 75%) |\n";
  os << "|---|---|---|---|---|---|\n";
  for (const auto& [name, tl] : {std::pair<const char*, const Tally*>{"development", &t.dev},
                                 {"validation", &t.val}, {"all", &t.all}}) {
    if (!tl->rows) continue;
    os << fmt::format("| {} | {} | {} | {} | {} | {} |\n", name, tl->rows, tl->failed, tl->counted,
                      goal_cell(*tl, tl->agree, 0.90), goal_cell(*tl, tl->size_ok, 0.75));
  }
  os << "\n| machine family | rows | beyond noise | agrees | size ok |\n|---|---|---|---|---|\n";
  for (const auto& [k, tl] : t.by_family)
    os << fmt::format("| {} | {} | {} | {} | {} |\n", k, tl.rows, tl.counted, tl.share(tl.agree), tl.share(tl.size_ok));
  os << "\n| benchmark | rows | beyond noise | agrees | size ok |\n|---|---|---|---|---|\n";
  for (const auto& [k, tl] : t.by_benchmark)
    os << fmt::format("| {} | {} | {} | {} | {} |\n", k, tl.rows, tl.counted, tl.share(tl.agree), tl.share(tl.size_ok));

  os << "\n## Per change\n\n| change | commit | half | machine | rows | beyond noise | agrees | size ok |\n"
        "|---|---|---|---|---|---|---|---|\n";
  const std::vector<const Entry*> order = entry_order(rows);
  for (const Entry* e : order) {
    Tally tl;
    for (const auto& r : rows)
      if (r.entry == e) tl.add(r);
    os << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", e->name, e->commit.substr(0, 12), half_name(*e),
                      e->topology_given, tl.rows, tl.counted, tl.share(tl.agree), tl.share(tl.size_ok));
  }

  const auto cs = curves(rows);
  if (!cs.empty()) {
    os << "\n## Curves\n\nThe simulated curve scaled to the published one at its first point; the largest error of a point\n"
          "and of the ratio between consecutive points (goals 15% and 10%), before / after the change.\n\n"
          "| change | benchmark | over | points | max point error | max ratio error |\n|---|---|---|---|---|---|\n";
    const auto err = [](double e) { return std::isfinite(e) ? fmt::format("{:.1f}%", e * 100) : std::string("-"); };
    // curves() gives a benchmark's "before" curve and then its "after" one: one line for the two.
    for (size_t i = 0; i < cs.size(); ++i) {
      const Curve& b = cs[i];
      const Curve* a = nullptr;
      if (i + 1 < cs.size() && cs[i + 1].entry == b.entry && cs[i + 1].benchmark == b.benchmark) a = &cs[++i];
      os << fmt::format("| {} | {} | {} | {} | {} / {} | {} / {} |\n", b.entry->name, b.benchmark, b.param, b.x.size(),
                        err(b.max_point_error), a ? err(a->max_point_error) : "-", err(b.max_ratio_error),
                        a ? err(a->max_ratio_error) : "-");
    }
  }

  os << "\n## Rows\n";
  for (const Entry* e : order) {
    os << fmt::format("\n### {} ({})\n\n", e->title, e->name);
    os << fmt::format("commit {} ({} half){}; machine: {} ({}{}).\n", e->commit, half_name(*e) == std::string("dev") ? "development" : "validation",
                      e->merged.empty() ? "" : ", merged " + e->merged, e->topology_given, e->family,
                      e->machine_published.empty() ? "" : "; published: " + e->machine_published);
    os << fmt::format("before `{}` ({}), after `{}` ({}).\n", side_text(e->before), e->before.label, side_text(e->after),
                      e->after.label);
    for (const auto& s : e->sources) os << "source: <" << s << ">\n";
    for (const auto& n : e->notes) os << "\n> " << n << "\n";
    os << "\n| benchmark | params | published before -> after | published change (noise) | verdict | simulated before -> after | simulated change [95% CI] | verdict | agrees | size |\n";
    os << "|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : rows) {
      if (r.entry != e) continue;
      const BenchmarkSpec& b = e->benchmarks.at(r.row->benchmark);
      const bool judged = !r.failed && r.published.beyond_noise;
      os << fmt::format("| {} ({}, {}) | {} | {} -> {} | {} ({}{}) | {} | {} | {} | {} | {} | {} |\n", b.id, metric_name(b.metric),
                        b.unit, row_params_text(*r.row), num(r.row->before), num(r.row->after), pct(r.published.change),
                        r.published.noise_published ? "" : "none published, ", pct(r.published.noise).substr(1),
                        verdict_name(r.published.verdict), sim_cell(r),
                        r.failed ? "-" : fmt::format("{} [{}, {}]", pct(r.simulated.change), pct(r.simulated.ci_lo), pct(r.simulated.ci_hi)),
                        r.failed ? "-" : verdict_name(r.simulated.verdict),
                        judged ? (r.agrees() ? "yes" : "no") : "-", judged ? (r.size_ok() ? "yes" : "no") : "-");
    }
    bool any_caveat = false;
    for (const auto& r : rows) {
      if (r.entry != e) continue;
      if (r.failed) os << fmt::format("\nrow {} failed: {}\n", r.row->index, r.failure);
      for (const auto& c : r.caveats) {
        if (!any_caveat) os << "\n";
        any_caveat = true;
        os << fmt::format("- row {}: {}\n", r.row->index, c);
      }
    }
  }
  return os.str();
}

std::string render_json(const std::vector<RowResult>& rows, const RenderOptions& o) {
  nlohmann::ordered_json root;
  root["schema"] = "schedsim-validate";
  root["version"] = 1;
  root["schedsim_version"] = o.version;
  root["half"] = o.half;
  root["repeat"] = o.repeat;
  root["seed"] = o.seed;
  root["costs"] = o.costs;
  if (!o.gen_options.empty()) root["gen_options"] = o.gen_options;
  const Tallies t(rows);
  auto tally = [](const Tally& tl) {
    nlohmann::ordered_json j;
    j["rows"] = tl.rows;
    j["failed"] = tl.failed;
    j["beyond_noise"] = tl.counted;
    j["agree"] = tl.agree;
    j["size_ok"] = tl.size_ok;
    return j;
  };
  root["summary"]["development"] = tally(t.dev);
  root["summary"]["validation"] = tally(t.val);
  root["summary"]["all"] = tally(t.all);
  auto fin = [](double x) -> nlohmann::ordered_json {
    if (!std::isfinite(x)) return nullptr;
    return x;
  };
  nlohmann::ordered_json jrows = nlohmann::ordered_json::array();
  for (const auto& r : rows) {
    nlohmann::ordered_json j;
    j["entry"] = r.entry->name;
    j["commit"] = r.entry->commit;
    j["half"] = half_name(*r.entry);
    j["family"] = r.entry->family;
    j["row"] = r.row->index;
    j["benchmark"] = r.row->benchmark;
    j["params"] = r.row->params;
    j["workload"] = row_workload_spec(*r.entry, *r.row);
    j["published"] = {{"before", r.row->before},
                      {"after", r.row->after},
                      {"change", fin(r.published.change)},
                      {"noise", fin(r.published.noise)},
                      {"noise_published", r.published.noise_published},
                      {"beyond_noise", r.published.beyond_noise},
                      {"verdict", verdict_name(r.published.verdict)}};
    if (r.failed) {
      j["failed"] = r.failure;
    } else {
      j["simulated"] = {{"before", r.before},
                        {"after", r.after},
                        {"before_mean", fin(r.simulated.before_mean)},
                        {"after_mean", fin(r.simulated.after_mean)},
                        {"change", fin(r.simulated.change)},
                        {"ci95", {fin(r.simulated.ci_lo), fin(r.simulated.ci_hi)}},
                        {"welch_p", fin(r.simulated.p)},
                        {"verdict", verdict_name(r.simulated.verdict)}};
      j["agrees"] = r.agrees();
      j["size_ok"] = r.size_ok();
    }
    j["caveats"] = r.caveats;
    jrows.push_back(std::move(j));
  }
  root["rows"] = std::move(jrows);
  nlohmann::ordered_json jc = nlohmann::ordered_json::array();
  for (const auto& c : curves(rows)) {
    jc.push_back({{"entry", c.entry->name}, {"benchmark", c.benchmark}, {"side", c.side}, {"param", c.param},
                  {"x", c.x}, {"published", c.published}, {"simulated", c.simulated},
                  {"max_point_error", fin(c.max_point_error)}, {"max_ratio_error", fin(c.max_ratio_error)}});
  }
  root["curves"] = std::move(jc);
  return root.dump(2) + "\n";
}

namespace {

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '&': o += "&amp;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

/// One change's chart: per row, the published change (grey bar) and the simulated change (blue
/// bar with its 95% interval), on one signed percentage axis.
std::string change_chart(const std::vector<const RowResult*>& rows) {
  double lim = 0.05;
  for (const auto* r : rows) {
    lim = std::max(lim, std::fabs(r->published.change));
    if (!r->failed) {
      for (double v : {r->simulated.change, r->simulated.ci_lo, r->simulated.ci_hi})
        if (std::isfinite(v)) lim = std::max(lim, std::fabs(v));
    }
  }
  lim = std::min(lim * 1.1, 10.0);
  const int row_h = 22, left = 260, width = 420, top = 20;
  const int h = top + static_cast<int>(rows.size()) * row_h + 30;
  auto xpos = [&](double v) { return left + width / 2.0 + std::clamp(v, -lim, lim) / lim * (width / 2.0); };
  std::ostringstream s;
  s << fmt::format("<svg width=\"{}\" height=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"11\">\n",
                   left + width + 20, h);
  s << fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#444\"/>\n", xpos(0), top - 5, h - 25);
  for (double tick : {-lim, -lim / 2, lim / 2, lim}) {
    s << fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#ddd\"/>", xpos(tick), top - 5, h - 25);
    s << fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:+.0f}%</text>\n", xpos(tick), h - 10, tick * 100);
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    const RowResult& r = *rows[i];
    const double y = top + static_cast<double>(i) * row_h;
    const BenchmarkSpec& b = r.entry->benchmarks.at(r.row->benchmark);
    s << fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", left - 6, y + 13,
                     html_escape(b.id + " " + row_params_text(*r.row)));
    const double p0 = xpos(0), p1 = xpos(r.published.change);
    s << fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"8\" fill=\"#999\"><title>published {}</title></rect>\n",
                     std::min(p0, p1), y + 2, std::fabs(p1 - p0), pct(r.published.change));
    if (!r.failed && std::isfinite(r.simulated.change)) {
      const double s1 = xpos(r.simulated.change);
      s << fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"8\" fill=\"#3573b9\"><title>simulated {}</title></rect>\n",
                       std::min(p0, s1), y + 11, std::fabs(s1 - p0), pct(r.simulated.change));
      if (std::isfinite(r.simulated.ci_lo) && std::isfinite(r.simulated.ci_hi))
        s << fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#123\"/>\n",
                         xpos(r.simulated.ci_lo), xpos(r.simulated.ci_hi), y + 15, y + 15);
    }
  }
  s << "</svg>\n";
  return s.str();
}

}  // namespace

std::string render_html(const std::vector<RowResult>& rows, const RenderOptions& o) {
  std::ostringstream os;
  os << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>schedsim validate</title>\n"
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}"
        ".key span{display:inline-block;width:12px;height:8px;margin:0 4px 0 12px}</style></head><body>\n";
  os << "<h1>schedsim validate</h1>\n";
  os << fmt::format("<p>half {}; {} repetitions per side (seed {}); schedsim {}.</p>\n", html_escape(o.half), o.repeat,
                    o.seed, html_escape(o.version));
  const Tallies t(rows);
  os << "<table><tr><th>half</th><th>rows</th><th>failed</th><th>beyond published noise</th><th>verdict agrees (goal 90%)</th>"
        "<th>size within 30% / 2 pp (goal 75%)</th></tr>\n";
  for (const auto& [name, tl] : {std::pair<const char*, const Tally*>{"development", &t.dev},
                                 {"validation", &t.val}, {"all", &t.all}}) {
    if (!tl->rows) continue;
    os << fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", name, tl->rows,
                      tl->failed, tl->counted, html_escape(goal_cell(*tl, tl->agree, 0.90)),
                      html_escape(goal_cell(*tl, tl->size_ok, 0.75)));
  }
  os << "</table>\n<p class=\"key\">Each chart: per row, the change after/before - 1 <span style=\"background:#999\"></span>published"
        "<span style=\"background:#3573b9\"></span>simulated, with its 95% interval.</p>\n";
  const std::vector<const Entry*> order = entry_order(rows);
  for (const Entry* e : order) {
    std::vector<const RowResult*> mine;
    for (const auto& r : rows)
      if (r.entry == e) mine.push_back(&r);
    os << fmt::format("<h2>{}</h2>\n<p>{} ({} half); {} ({}); before <code>{}</code>, after <code>{}</code>.</p>\n",
                      html_escape(e->title), e->commit, half_name(*e), html_escape(e->topology_given), e->family,
                      html_escape(side_text(e->before)), html_escape(side_text(e->after)));
    os << change_chart(mine);
  }
  os << "</body></html>\n";
  return os.str();
}

std::string render_list(const std::vector<Entry>& entries) {
  std::ostringstream os;
  os << fmt::format("{:<44} {:<12} {:<5} {:<14} {:>4}  {}\n", "entry", "commit", "half", "family", "rows", "benchmarks");
  std::map<std::string, std::set<std::string>> fam, bench;
  std::map<std::string, size_t> changes, nrows;
  std::map<std::string, std::set<std::string>> commits;
  for (const auto& e : entries) {
    std::string bl;
    for (const auto& [id, b] : e.benchmarks) bl += (bl.empty() ? "" : ",") + id;
    const std::string h = half_name(e);
    os << fmt::format("{:<44} {:<12} {:<5} {:<14} {:>4}  {}\n", e.name, e.commit.substr(0, 12), h, e.family, e.rows.size(), bl);
    for (const std::string& k : {h, std::string("all")}) {
      commits[k].insert(e.commit.substr(0, 12));
      nrows[k] += e.rows.size();
      fam[k].insert(e.family);
      for (const auto& [id, b] : e.benchmarks) {
        // The program and its form: messaging --pipe --thread counts apart from the socket form.
        std::string kind = b.gen.substr(0, b.gen.find(' '));
        bench[k].insert(kind);
      }
    }
  }
  for (const std::string k : {"dev", "val", "all"}) {
    if (!commits.count(k)) continue;
    std::string fl, bl;
    for (const auto& f : fam[k]) fl += (fl.empty() ? "" : ", ") + f;
    for (const auto& b : bench[k]) bl += (bl.empty() ? "" : ", ") + b;
    os << fmt::format("{}: {} changes, {} rows, {} machine families ({}), {} benchmarks ({})\n", k, commits[k].size(),
                      nrows[k], fam[k].size(), fl, bench[k].size(), bl);
  }
  return os.str();
}

}  // namespace schedsim::driver
