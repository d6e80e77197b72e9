// `schedsim compare` (metrics/compare.hpp): matching, statistics per row, verdicts, renderings,
// gates. The statistics themselves are schedsim::stats; docs/compare.md is the user's guide.
#include "schedsim/base/log.hpp"
#include "schedsim/metrics/compare.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report_util.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/random.hpp"

namespace schedsim {

namespace {

using ojson = nlohmann::ordered_json;
using report_util::TextTable;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Parameters that name what is being compared (they may differ between BASE and NEW).
bool is_treatment(const std::string& p) {
  return p.rfind("module.", 0) == 0 || p.rfind("feature.", 0) == 0 || p.rfind("cost.", 0) == 0 || p == "seed" ||
         p == "label";
}
/// Parameters that say what was simulated on what: refused when they differ, unless allowed.
bool is_identity(const std::string& p) {
  return p == "workload" || p == "workload_source" || p == "topology" || p == "nr_cpus" || p == "noise" ||
         p == "workload_hash" || p == "topology_hash";
}
/// How a record was produced (version, command line, ...): recorded, never matched or compared.
bool is_provenance(const std::string& p) { return p.rfind("provenance.", 0) == 0; }

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

using Key = std::vector<std::pair<std::string, std::string>>;

/// `dropped`: identity parameters --allow-mismatch takes out of the key (those whose values differ
/// between the two files).
Key key_of(const Record& r, const CompareOptions& o, const std::set<std::string>& dropped) {
  Key k;
  for (const auto& [p, v] : r.params) {
    if (contains(o.ignore, p) || (is_provenance(p) && !contains(o.by, p))) continue;
    bool in = o.by.empty() ? !is_treatment(p) && !dropped.count(p) : contains(o.by, p);
    if (in) k.push_back({p, v});
  }
  return k;
}

std::string key_text(const Key& k) {
  std::vector<std::string> parts;
  for (const auto& [p, v] : k) parts.push_back(p + "=" + v);
  return parts.empty() ? std::string("(all records)") : join(parts, ", ");
}

struct Group {
  Key key;
  std::vector<size_t> idx;
};

/// Records grouped by key, in first-appearance order; records of one group must agree on every
/// parameter that is neither ignored nor per-repetition (seed, label).
std::vector<Group> group_records(const RecordFile& f, const CompareOptions& o, const std::set<std::string>& dropped,
                                 const char* side) {
  std::vector<Group> groups;
  for (size_t i = 0; i < f.records.size(); ++i) {
    Key k = key_of(f.records[i], o, dropped);
    auto it = std::find_if(groups.begin(), groups.end(), [&k](const Group& g) { return g.key == k; });
    if (it == groups.end()) {
      groups.push_back({k, {i}});
      continue;
    }
    const Record& first = f.records[it->idx.front()];
    const Record& r = f.records[i];
    std::set<std::string> names;
    for (const auto& [p, v] : first.params) names.insert(p);
    for (const auto& [p, v] : r.params) names.insert(p);
    for (const auto& p : names) {
      if (contains(o.ignore, p) || p == "seed" || p == "label" || dropped.count(p) || is_provenance(p)) continue;
      auto a = first.params.find(p), b = r.params.find(p);
      std::string va = a == first.params.end() ? "(absent)" : a->second;
      std::string vb = b == r.params.end() ? "(absent)" : b->second;
      if (va != vb)
        throw InputError(SourceLoc{f.where[i]},
                         std::string(side) + ": records matched to one point differ in " + p + ": '" + va + "' (" +
                             f.where[it->idx.front()] + ") vs '" + vb + "'; add it to --by to compare them as " +
                             "separate points, or --ignore it to pool them");
    }
    it->idx.push_back(i);
  }
  // Repetitions are independent samples only if each ran with its own seed: a record whose seed
  // and parameters equal another's of the same point is the same deterministic simulation again
  // (a file concatenated to itself, a shard merged twice), and counting it would shrink every
  // interval and p-value without new evidence (8 copies turned p = 1.0 into p < 0.0001).
  for (const Group& g : groups) {
    std::map<std::pair<uint64_t, std::map<std::string, std::string>>, size_t> seen;
    for (size_t i : g.idx) {
      std::map<std::string, std::string> params;
      for (const auto& [p, v] : f.records[i].params)
        if (p != "label" && !is_provenance(p)) params.emplace(p, v);
      auto [at, fresh] = seen.emplace(std::pair{f.records[i].seed, std::move(params)}, i);
      if (!fresh)
        throw InputError(SourceLoc{f.where[i]},
                         fmt::format("{}: this record repeats the run at {} (repetition {}, seed {}, same parameters): "
                                     "a copy, not an independent repetition (a file concatenated or merged twice?); "
                                     "remove the duplicates",
                                     side, f.where[at->second], f.records[at->second].rep, f.records[i].seed));
    }
  }
  return groups;
}

/// "p: a -> b" for every parameter that differs between two records (ignoring seed and label).
std::vector<std::string> differences(const Record& a, const Record& b, const CompareOptions& o, bool identity_only) {
  std::set<std::string> names;
  for (const auto& [p, v] : a.params) names.insert(p);
  for (const auto& [p, v] : b.params) names.insert(p);
  std::vector<std::string> out;
  for (const auto& p : names) {
    if (contains(o.ignore, p) || p == "seed" || p == "label" || is_provenance(p)) continue;
    if (identity_only && !is_identity(p)) continue;
    auto x = a.params.find(p), y = b.params.find(p);
    std::string va = x == a.params.end() ? "(absent)" : x->second;
    std::string vb = y == b.params.end() ? "(absent)" : y->second;
    if (va != vb) out.push_back(p + ": " + va + " -> " + vb);
  }
  return out;
}

std::vector<double> metric_values(const RecordFile& f, const Group& g, const std::string& metric) {
  std::vector<double> v;
  for (size_t i : g.idx) {
    auto it = f.records[i].metrics.find(metric);
    if (it == f.records[i].metrics.end())
      throw InputError(SourceLoc{f.where[i]}, "JSON /metrics/" + metric + ": missing metric (it is compared; " +
                                                  "choose the metrics with --metrics)");
    v.push_back(it->second);
  }
  return v;
}

// A latency statistic (wakeup.mean, preempt.p99, ...) of a run that recorded no sample of that
// latency is stored as 0: it is undefined, not zero. Counts the runs of g whose companion count
// says so (`none`), and those that store 0 with no companion count (`unknown`: a record from
// before runqueue_wait.count and fork.count existed; sample_state()).
struct NoSamples {
  size_t none = 0, unknown = 0;
};
NoSamples runs_without_samples(const RecordFile& f, const Group& g, const std::string& metric) {
  NoSamples n;
  for (size_t i : g.idx) {
    const SampleState st = sample_state(f.records[i].metrics, metric);
    if (st == SampleState::kNone) ++n.none;
    else if (st == SampleState::kUnknown) ++n.unknown;
  }
  return n;
}

std::vector<stats::Bin> bins_of(const Distribution& d) {
  std::vector<stats::Bin> b;
  for (const auto& x : d.buckets) b.push_back({static_cast<double>(x.lo), static_cast<double>(x.hi), x.count});
  return b;
}

double rel_change(double base, double next) { return base != 0 ? next / base - 1.0 : kNaN; }

void set_verdict(CompareRow& r, const CompareOptions& o) {
  double diff = r.next.mean - r.base.mean;
  bool big = std::isnan(r.change) ? diff != 0 : std::fabs(r.change) >= o.min_effect;
  if (!r.significant || !big) {
    r.verdict = "no significant change";
    return;
  }
  if (r.def->better == Better::kNone) r.verdict = "changed";
  else if ((diff < 0) == (r.def->better == Better::kLower)) r.verdict = "improved";
  else r.verdict = "regressed";
}

std::vector<std::string> selected_metrics(const CompareOptions& o) {
  std::vector<std::string> m;
  if (o.metrics.empty()) {
    for (const auto& d : metric_catalog())
      if (d.compare_default) m.emplace_back(d.name);
  } else if (o.metrics.size() == 1 && o.metrics[0] == "all") {
    for (const auto& d : metric_catalog()) m.emplace_back(d.name);
  } else {
    std::vector<std::string> known;
    for (const auto& d : metric_catalog()) known.emplace_back(d.name);
    for (const auto& x : o.metrics) {
      if (!find_metric(x)) throw InputError(SourceLoc{"--metrics"}, unknown_choice_message("metric", x, known));
      if (!contains(m, x)) m.push_back(x);
    }
  }
  return m;
}

std::string pct(double f) {
  if (std::isnan(f)) return "-";
  if (std::isinf(f)) return f > 0 ? "+inf" : "-inf";
  return fmt::format("{:+.2f}%", 100.0 * f);
}
std::string ci_text(const stats::Interval& i) {
  if (std::isnan(i.lo) || std::isnan(i.hi)) return "-";
  return "[" + pct(i.lo) + ", " + pct(i.hi) + "]";
}
std::string pval(double p) {
  if (std::isnan(p)) return "-";
  if (p < 0.0001) return "<0.0001";
  return fmt::format("{:.4f}", p);
}
std::string val(double v, const MetricDef& d) {
  if (std::isnan(v)) return "-";
  if (*display_unit(d)) return fmt::format("{:.3f}", display_value(d, v));
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.3f}", v);
}
std::string label_of(const MetricDef& d) { return metric_label(d); }

ojson num_or_null(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

const char* kind_name(RowKind k) {
  return k == RowKind::kRepetitions ? "repetitions" : k == RowKind::kDistribution ? "distribution" : "single";
}

}  // namespace

namespace {

// Refuses bad options and files of different schema versions.
void check_options(const RecordFile& base, const RecordFile& next, const CompareOptions& o) {
  if (o.correction != "holm" && o.correction != "bh")
    throw InputError(SourceLoc{"--correction"}, unknown_choice_message("correction", o.correction, {"holm", "bh"}));
  if (!(o.alpha > 0 && o.alpha < 1)) throw InputError(SourceLoc{"--alpha"}, "expected a level in (0, 1)");
  if (!(o.min_effect >= 0)) throw InputError(SourceLoc{"--min-effect"}, "expected a non-negative fraction");
  if (base.kind == next.kind && base.version != next.version)
    throw InputError(SourceLoc{next.path}, "mixed schema versions: BASE " + base.path + " is version " +
                                               std::to_string(base.version) + ", NEW is version " +
                                               std::to_string(next.version));
}

// Every parameter either file records; --by and --ignore must name some of them.
std::set<std::string> known_parameters(const RecordFile& base, const RecordFile& next, const CompareOptions& o) {
  std::set<std::string> known;
  for (const auto* f : {&base, &next})
    for (const auto& r : f->records)
      for (const auto& [p, v] : r.params) known.insert(p);
  for (const auto* list : {&o.by, &o.ignore})
    for (const auto& p : *list)
      if (!known.count(p))
        throw InputError(SourceLoc{list == &o.by ? "--by" : "--ignore"},
                         unknown_choice_message("parameter", p, std::vector<std::string>(known.begin(), known.end())));
  return known;
}

void drop_benchmark_time(const RecordFile& base, const RecordFile& next, const CompareOptions& o,
                         std::vector<std::string>& metrics, CompareResult& c) {
  // benchmark_time exists only where the workload declares the benchmark's own timer (a
  // generator that models a program which reports its time: docs/generators.md). In the default
  // set and in `all` it is compared where every record has it and otherwise left out (with a
  // note when some have it); asked for by name (--metrics, --fail-on) it must be in every record.
  if (!contains(metrics, kBenchmarkTimeMetric)) return;
  const bool asked =
      contains(o.gated, kBenchmarkTimeMetric) ||
      (!o.metrics.empty() && o.metrics != std::vector<std::string>{"all"} && contains(o.metrics, kBenchmarkTimeMetric));
  size_t with = 0, without = 0;
  std::string first_without;
  for (const auto* f : {&base, &next})
    for (size_t i = 0; i < f->records.size(); ++i) {
      if (f->records[i].metrics.count(kBenchmarkTimeMetric)) {
        ++with;
      } else {
        if (without++ == 0) first_without = f->where[i];
      }
    }
  if (without > 0 && asked)
    throw InputError(SourceLoc{first_without},
                     std::string("JSON /metrics/") + kBenchmarkTimeMetric + ": missing: " +
                         fmt::format("{} of {} record(s) have no benchmark time (a workload without a benchmark "
                                     "timer: traces, and generators whose real program reports no time; a run that "
                                     "did not finish; or a file from an older schedsim). Leave {} out of --metrics "
                                     "and --fail-on (docs/compare.md)",
                                     without, with + without, kBenchmarkTimeMetric));
  if (without > 0) {
    std::erase(metrics, std::string(kBenchmarkTimeMetric));
    if (with > 0)
      c.notes.push_back(
          fmt::format("{} not compared: {} of {} record(s) have no benchmark time (a workload "
                      "without a benchmark timer, a run that did not finish, or a file from an older "
                      "schedsim)",
                      kBenchmarkTimeMetric, without, with + without));
  }
}

void drop_unrecorded_metrics(const RecordFile& base, const RecordFile& next, const CompareOptions& o,
                             std::vector<std::string>& metrics, CompareResult& c) {
  // `--metrics all` means every metric both files carry: a metric added to the catalog after a
  // file was written (runqueue_wait.count, fork.count) is left out with a note, not an error.
  if (o.metrics.size() != 1 || o.metrics[0] != "all") return;
  std::vector<std::string> absent;
  std::erase_if(metrics, [&](const std::string& m) {
    for (const auto* f : {&base, &next})
      for (const auto& r : f->records)
        if (!r.metrics.count(m)) {
          absent.push_back(m);
          return true;
        }
    return false;
  });
  if (!absent.empty())
    c.notes.push_back("not compared (not recorded in every record: a file from an older schedsim): " +
                      join(absent, ", "));
}

// The parameters left out of the matching key (and why, in a note where the user should know).
std::set<std::string> unmatched_parameters(const RecordFile& base, const RecordFile& next, const CompareOptions& o,
                                           const std::set<std::string>& known, CompareResult& c) {
  // --allow-mismatch: identity parameters whose values differ between the files leave the key.
  std::set<std::string> dropped;
  if (o.allow_mismatch) {
    std::map<std::string, std::set<std::string>> vb, vn;
    for (const auto& r : base.records)
      for (const auto& [p, v] : r.params) vb[p].insert(v);
    for (const auto& r : next.records)
      for (const auto& [p, v] : r.params) vn[p].insert(v);
    for (const auto& p : known)
      if (is_identity(p) && vb[p] != vn[p]) dropped.insert(p);
  }
  // Files written before the hashes were recorded have none: match without them (a note says so).
  for (const char* h : {"workload_hash", "topology_hash"}) {
    bool missing = false;
    for (const auto* f : {&base, &next})
      for (const auto& r : f->records) missing = missing || !r.params.count(h);
    if (missing && known.count(h) && !contains(o.by, h)) {
      dropped.insert(h);
      c.notes.push_back(std::string(h) + " is not recorded in every record (a file from an older schedsim): " +
                        "not checked");
    }
  }
  // A plain results JSON does not record the noise (--jitter) it ran with: match without it.
  for (const auto* f : {&base, &next})
    if (f->kind == "results" && !contains(o.by, "noise")) dropped.insert("noise");
  return dropped;
}

// Pairs each BASE point with its NEW point; a point without a match is an error.
std::vector<std::pair<size_t, size_t>> match_points(const RecordFile& base, const RecordFile& next,
                                                    const CompareOptions& o, const std::vector<Group>& gb,
                                                    const std::vector<Group>& gn) {
  std::vector<std::pair<size_t, size_t>> pairs;
  if (o.allow_mismatch && gb.size() == 1 && gn.size() == 1) {
    pairs.emplace_back(0, 0);
  } else {
    for (size_t i = 0; i < gb.size(); ++i) {
      auto it = std::find_if(gn.begin(), gn.end(), [&](const Group& g) { return g.key == gb[i].key; });
      if (it == gn.end()) {
        const Record& rb = base.records[gb[i].idx.front()];
        std::vector<std::string> diff = differences(rb, next.records[gn.front().idx.front()], o, false);
        std::vector<std::string> keyd;
        for (const auto& d : diff)
          if (!is_treatment(d.substr(0, d.find(':')))) keyd.push_back(d);
        throw InputError(SourceLoc{base.where[gb[i].idx.front()]},
                         "no record in NEW (" + next.path + ") matches this BASE point {" + key_text(gb[i].key) +
                             "}" + (keyd.empty() ? std::string() : "; NEW's first point differs in " + join(keyd, "; ")) +
                             ". Runs on different workloads, machines or noise are refused unless --allow-mismatch; " +
                             "choose the matching key with --by or drop parameters with --ignore");
      }
      pairs.emplace_back(i, static_cast<size_t>(it - gn.begin()));
    }
    for (size_t j = 0; j < gn.size(); ++j)
      if (std::none_of(pairs.begin(), pairs.end(), [j](const auto& p) { return p.second == j; }))
        throw InputError(SourceLoc{next.where[gn[j].idx.front()]},
                         "this NEW point {" + key_text(gn[j].key) + "} has no match in BASE (" + base.path +
                             "); a comparison never silently drops points");
  }
  return pairs;
}

// Refuses (or, with --allow-mismatch, notes) a point whose two sides simulated different setups;
// the first point's treatment differences are the comparison's `differs`.
void check_setups(const RecordFile& base, const RecordFile& next, const CompareOptions& o, const Group& a,
                  const Group& b, size_t pi, const std::set<std::string>& dropped, CompareResult& c) {
  const Record& ra = base.records[a.idx.front()];
  const Record& rb = next.records[b.idx.front()];
  std::vector<std::string> idd = differences(ra, rb, o, true);
  // Parameters left out because a file does not record them (noise in a plain results file,
  // the hashes in older files) are not differences.
  if (!o.allow_mismatch)
    idd.erase(std::remove_if(idd.begin(), idd.end(),
                             [&](const std::string& d) { return dropped.count(d.substr(0, d.find(':'))) > 0; }),
              idd.end());
  if (!idd.empty()) {
    if (!o.allow_mismatch)
      throw InputError(SourceLoc{next.where[b.idx.front()]},
                       "BASE and NEW were simulated differently: " + join(idd, "; ") +
                           " (compare like with like, or pass --allow-mismatch)");
    c.notes.push_back("point " + std::to_string(pi + 1) +
                      " compares different setups (--allow-mismatch): " + join(idd, "; "));
  }
  if (pi == 0) {
    for (const auto& d : differences(ra, rb, o, false))
      if (is_treatment(d.substr(0, d.find(':')))) c.differs.push_back(d);
  }
}

void note_incomplete(const RecordFile& base, const RecordFile& next, const Group& a, const Group& b, size_t pi,
                     ComparePoint& pt, CompareResult& c) {
  // A run that did not finish (--stop-at, a deadlock accepted with --allow-incomplete) has
  // metrics of only the part that was simulated: a 1 ms prefix "improves" every latency by
  // 100%. Each such record is named in a note, and a gate refuses to judge the point.
  for (const auto& [f, g, side] : {std::tuple{&base, &a, "BASE"}, std::tuple{&next, &b, "NEW"}})
    for (size_t i : g->idx) {
      const Record& rec = f->records[i];
      if (rec.complete) continue;
      pt.incomplete.push_back(fmt::format(
          "{} {}{}", side, f->where[i], rec.incomplete.empty() ? std::string() : " (" + rec.incomplete.front() + ")"));
    }
  if (!pt.incomplete.empty()) {
    std::string first = pt.incomplete.front();
    c.notes.push_back(
        fmt::format("point {}: {} run(s) did not finish (\"complete\": false), first {}: their metrics cover only the "
                    "simulated part, so changes at this point are not a measure of the treatment",
                    pi + 1, pt.incomplete.size(), first));
  }
}

void note_warnings(const RecordFile& base, const RecordFile& next, const Group& a, const Group& b, size_t pi,
                   ComparePoint& pt, CompareResult& c) {
  // A run printed with a warning (records' `notes`: a trace banked as tokens, SMT counted twice,
  // work not conserved, ...) may have figures that do not mean what they seem: said per point
  // and side, with the first such warning, so a gate's verdict is read with it.
  for (const auto& [f, g, side] : {std::tuple{&base, &a, "BASE"}, std::tuple{&next, &b, "NEW"}}) {
    size_t warned = 0;
    std::string first;
    for (size_t i : g->idx)
      if (const std::string* n = first_warning(f->records[i].notes); n && warned++ == 0)
        first = fmt::format("{} ({})", f->where[i], log::headline(*n));
    if (warned > 0) {
      pt.warned.push_back(
          fmt::format("{} of the {} {} run(s) came with a warning, first {}", warned, g->idx.size(), side, first));
      c.notes.push_back(fmt::format("point {}: {}", pi + 1, pt.warned.back()));
    }
  }
}

// One metric's row at a point: summaries, change, and the tests its samples allow.
CompareRow compare_row(const RecordFile& base, const RecordFile& next, const CompareOptions& o, const Group& a,
                       const Group& b, size_t pi, size_t mi, const std::string& metric, CompareResult& c) {
  const bool reps = a.idx.size() >= 2 && b.idx.size() >= 2;
  const bool dists = a.idx.size() == 1 && b.idx.size() == 1 && base.results && next.results;
  CompareRow r;
  r.metric = metric;
  r.def = find_metric(r.metric);
  std::vector<double> va = metric_values(base, a, r.metric), vb = metric_values(next, b, r.metric);
  r.base = stats::summarize(va);
  r.next = stats::summarize(vb);
  const NoSamples na = runs_without_samples(base, a, r.metric), nb = runs_without_samples(next, b, r.metric);
  r.runs_without_samples = na.none + nb.none;
  r.runs_maybe_without_samples = na.unknown + nb.unknown;
  if (na.none + nb.none > 0)
    c.notes.push_back(fmt::format(
        "point {}: {}: {} of {} base and {} of {} new run(s) recorded no sample of it; their value is stored "
        "as 0 and is averaged in, so this row is not a measure of the latency",
        pi + 1, r.metric, na.none, a.idx.size(), nb.none, b.idx.size()));
  if (na.unknown + nb.unknown > 0)
    c.notes.push_back(fmt::format(
        "point {}: {}: {} base and {} new run(s) store 0 for it without {} (a file from an older schedsim): "
        "a run with no sample also stores 0, so these may be undefined, not zero",
        pi + 1, r.metric, na.unknown, nb.unknown, sample_count_metric(r.metric)));
  r.change = rel_change(r.base.mean, r.next.mean);
  r.p_welch = r.p_mw = r.p_welch_adj = r.p_mw_adj = r.ks_d = r.ks_p = kNaN;
  r.ci = {kNaN, kNaN};
  uint64_t seed = derive_seed(derive_seed(o.seed, pi), mi);
  if (reps) {
    r.kind = RowKind::kRepetitions;
    r.ci = stats::bootstrap_rel_change(va, vb, o.confidence, o.resamples, seed);
    r.p_welch = stats::welch_t_test(va, vb).p;
    r.p_mw = stats::mann_whitney_u(va, vb).p;
    stats::TestResult ks = stats::ks_two_sample(va, vb);
    r.ks_d = ks.statistic;
    r.ks_p = ks.p;
  } else if (dists) {
    const Distribution* da = metric_distribution(*base.results, r.metric);
    const Distribution* db = metric_distribution(*next.results, r.metric);
    double q = metric_percentile(r.metric);
    if (da && db) {
      std::vector<stats::Bin> ba = bins_of(*da), bb = bins_of(*db);
      stats::TestResult ks = stats::ks_binned(ba, bb);
      r.ks_d = ks.statistic;
      r.ks_p = ks.p;
      if (q >= 0 && q < 100) {
        r.kind = RowKind::kDistribution;
        r.ci = stats::bootstrap_binned_percentile_change(ba, bb, q, o.confidence, o.resamples, seed);
      }
    }
  }
  return r;
}

ComparePoint compare_point(const RecordFile& base, const RecordFile& next, const CompareOptions& o, const Group& a,
                           const Group& b, size_t pi, const std::vector<std::string>& metrics,
                           const std::set<std::string>& dropped, CompareResult& c) {
  check_setups(base, next, o, a, b, pi, dropped, c);
  ComparePoint pt;
  pt.key = a.key;
  pt.base_where = base.where[a.idx.front()];
  pt.next_where = next.where[b.idx.front()];
  note_incomplete(base, next, a, b, pi, pt, c);
  note_warnings(base, next, a, b, pi, pt, c);
  for (size_t mi = 0; mi < metrics.size(); ++mi)
    pt.rows.push_back(compare_row(base, next, o, a, b, pi, mi, metrics[mi], c));
  return pt;
}

void correct_p_values(CompareResult& c, const CompareOptions& o) {
  // One correction family per test: every repetition row with a p-value.
  std::vector<double> pw, pm;
  std::vector<CompareRow*> fam;
  for (auto& p : c.points)
    for (auto& r : p.rows)
      if (r.kind == RowKind::kRepetitions && std::isfinite(r.p_welch) && std::isfinite(r.p_mw)) {
        fam.push_back(&r);
        pw.push_back(r.p_welch);
        pm.push_back(r.p_mw);
      }
  std::vector<double> aw = o.correction == "bh" ? stats::benjamini_hochberg(pw) : stats::holm(pw);
  std::vector<double> am = o.correction == "bh" ? stats::benjamini_hochberg(pm) : stats::holm(pm);
  for (size_t i = 0; i < fam.size(); ++i) {
    fam[i]->p_welch_adj = aw[i];
    fam[i]->p_mw_adj = am[i];
  }
  c.tested = fam.size();
}

// Each row's verdict, then the notes on what the verdicts can and cannot say.
void judge_rows(const RecordFile& base, const RecordFile& next, const CompareOptions& o, CompareResult& c) {
  bool any_single = false, any_dist = false, any_small = false;
  for (auto& p : c.points)
    for (auto& r : p.rows) {
      if (r.kind == RowKind::kRepetitions) {
        r.significant = r.p_welch_adj < o.alpha && r.p_mw_adj < o.alpha;
        set_verdict(r, o);
      } else if (r.kind == RowKind::kDistribution) {
        // Within-run sampling only: the interval must exclude zero.
        r.significant = (r.ci.lo > 0 || r.ci.hi < 0);
        set_verdict(r, o);
        // One run per side is no significance test, whatever its thousands of samples say: the
        // verdict describes these two runs and says so (no "improved" beside a p < 0.0001).
        r.verdict = r.verdict == "improved"    ? "better in these 2 runs"
                    : r.verdict == "regressed" ? "worse in these 2 runs"
                    : r.verdict == "changed"   ? "changed in these 2 runs"
                                               : "no shift in these 2 runs";
        any_dist = true;
      } else {
        r.verdict = "not tested";
        if (r.base.count == 1 && r.next.count == 1) any_single = true;
        else any_small = true;
      }
    }
  for (const auto* f : {&base, &next})
    if (f->records.size() >= 2 && std::any_of(f->records.begin(), f->records.end(), [](const Record& r) {
          auto it = r.params.find("noise");
          return it != r.params.end() && it->second == "none";
        }))
      if (f == &base || next.path != base.path)
        c.notes.push_back(f->path + ": repetitions ran without noise (--noise none); they differ only where a "
                          "module draws random numbers, so the tests do not measure run-to-run noise");
  if (any_dist || any_single)
    c.notes.emplace_back("one run per side cannot show significance: the intervals, KS D and p(KS) describe the "
                      "samples inside these two runs (their latency histograms), not the run-to-run noise a change "
                      "must beat, so a verdict 'in these 2 runs' may not survive repetition. Use run --repeat N and "
                      "compare the repetitions (docs/compare.md)");
  if (any_single && !any_dist)
    c.notes.emplace_back("rows marked 'not tested' have one value per side and no histogram to resample");
  if (any_small) c.notes.emplace_back("a point with fewer than 2 repetitions on a side is not tested");
}

}  // namespace

CompareResult compare_records(const RecordFile& base, const RecordFile& next, const CompareOptions& o) {
  check_options(base, next, o);
  const std::set<std::string> known = known_parameters(base, next, o);
  std::vector<std::string> metrics = selected_metrics(o);
  for (const auto& g : o.gated)
    if (!contains(metrics, g)) metrics.push_back(g);
  CompareResult c;
  c.base_path = base.path;
  c.next_path = next.path;
  c.options = o;
  drop_benchmark_time(base, next, o, metrics, c);
  drop_unrecorded_metrics(base, next, o, metrics, c);
  const std::set<std::string> dropped = unmatched_parameters(base, next, o, known, c);
  std::vector<Group> gb = group_records(base, o, dropped, "BASE"), gn = group_records(next, o, dropped, "NEW");
  const std::vector<std::pair<size_t, size_t>> pairs = match_points(base, next, o, gb, gn);
  for (size_t pi = 0; pi < pairs.size(); ++pi)
    c.points.push_back(
        compare_point(base, next, o, gb[pairs[pi].first], gn[pairs[pi].second], pi, metrics, dropped, c));
  correct_p_values(c, o);
  judge_rows(base, next, o, c);
  return c;
}

// ---- renderings -----------------------------------------------------------------------------

namespace {

std::string header_lines(const CompareResult& c, const std::string& bullet) {
  const CompareOptions& o = c.options;
  std::string out;
  out += bullet + "BASE " + c.base_path + ", NEW " + c.next_path + "\n";
  out += bullet + "differs: " + (c.differs.empty() ? std::string("nothing but seeds") : join(c.differs, "; ")) + "\n";
  if (c.tested > 0)
    out += bullet + fmt::format("tests: Welch t and Mann-Whitney U, both {}-corrected over {} rows, alpha {}; "
                                "minimum effect {:.2f}%; {:.0f}% bootstrap CI ({} resamples, seed {})\n",
                                o.correction == "bh" ? "Benjamini-Hochberg" : "Holm", c.tested,
                                report_util::num(o.alpha), 100.0 * o.min_effect, 100.0 * o.confidence, o.resamples,
                                o.seed);
  else
    out += bullet + fmt::format("tests: none across repetitions; percentile changes with a {:.0f}% bootstrap CI of "
                                "each run's histogram ({} resamples, seed {}), KS of the histograms; minimum "
                                "effect {:.2f}%\n",
                                100.0 * o.confidence, o.resamples, o.seed, 100.0 * o.min_effect);
  for (const auto& n : c.notes) out += bullet + "note: " + n + "\n";
  return out;
}

/// A point's name in tables: the key parameters that vary between points (all of them when
/// there is one point, minus noise and nr_cpus).
std::string point_name(const CompareResult& c, size_t pi) {
  Key shown;
  for (const auto& kv : c.points[pi].key) {
    bool varies = false;
    for (const auto& q : c.points)
      if (std::find(q.key.begin(), q.key.end(), kv) == q.key.end()) varies = true;
    if (varies || (c.points.size() == 1 && kv.first != "noise" && kv.first != "nr_cpus" && kv.first != "workload"))
      shown.push_back(kv);
  }
  // The workload name is derived from its source: show one of them.
  bool has_source = std::any_of(shown.begin(), shown.end(), [](const auto& kv) { return kv.first == "workload_source"; });
  if (has_source)
    shown.erase(std::remove_if(shown.begin(), shown.end(), [](const auto& kv) { return kv.first == "workload"; }),
                shown.end());
  return key_text(shown.empty() ? c.points[pi].key : shown);
}

bool point_has_reps(const ComparePoint& p) {
  return std::any_of(p.rows.begin(), p.rows.end(), [](const CompareRow& r) { return r.kind == RowKind::kRepetitions; });
}

}  // namespace

std::string render_compare_table(const CompareResult& c) {
  std::string out = header_lines(c, "");
  for (size_t pi = 0; pi < c.points.size(); ++pi) {
    const ComparePoint& p = c.points[pi];
    out += fmt::format("\npoint {}/{}: {}\n", pi + 1, c.points.size(), point_name(c, pi));
    if (point_has_reps(p)) {
      TextTable t({"metric", "side", "count", "mean", "std", "min", "p50", "p99", "max", "change", "95% CI",
                   "p(t)", "p(U)", "verdict"});
      for (const auto& r : p.rows) {
        const MetricDef& d = *r.def;
        t.add({label_of(d), "base", std::to_string(r.base.count), val(r.base.mean, d), val(r.base.std, d),
               val(r.base.min, d), val(r.base.p50, d), val(r.base.p99, d), val(r.base.max, d)});
        t.add({"", "new", std::to_string(r.next.count), val(r.next.mean, d), val(r.next.std, d), val(r.next.min, d),
               val(r.next.p50, d), val(r.next.p99, d), val(r.next.max, d), pct(r.change), ci_text(r.ci),
               pval(r.p_welch_adj), pval(r.p_mw_adj), r.verdict});
      }
      out += t.render();
    } else {
      TextTable t({"metric", "base", "new", "change", "95% CI", "KS D", "p(KS)", "verdict"});
      for (const auto& r : p.rows) {
        const MetricDef& d = *r.def;
        t.add({label_of(d), val(r.base.mean, d), val(r.next.mean, d), pct(r.change), ci_text(r.ci),
               std::isnan(r.ks_d) ? "-" : fmt::format("{:.4f}", r.ks_d), pval(r.ks_p), r.verdict});
      }
      out += t.render();
    }
  }
  return out;
}

std::string render_compare_markdown(const CompareResult& c) {
  std::string out = "### schedsim compare\n\n" + header_lines(c, "- ");
  for (size_t pi = 0; pi < c.points.size(); ++pi) {
    const ComparePoint& p = c.points[pi];
    out += fmt::format("\n**point {}/{}**: `{}`\n\n", pi + 1, c.points.size(), point_name(c, pi));
    bool reps = point_has_reps(p);
    out += reps ? "| metric | base mean ± std (n) | new mean ± std (n) | change | 95% CI | p(t) | p(U) | verdict |\n"
                  "|---|---:|---:|---:|---|---:|---:|---|\n"
                : "| metric | base | new | change | 95% CI | KS D | p(KS) | verdict |\n"
                  "|---|---:|---:|---:|---|---:|---:|---|\n";
    for (const auto& r : p.rows) {
      const MetricDef& d = *r.def;
      std::string verdict = r.verdict == "regressed" ? "**regressed**" : r.verdict;
      if (reps)
        out += fmt::format("| {} | {} ± {} ({}) | {} ± {} ({}) | {} | {} | {} | {} | {} |\n", label_of(d),
                           val(r.base.mean, d), val(r.base.std, d), r.base.count, val(r.next.mean, d),
                           val(r.next.std, d), r.next.count, pct(r.change), ci_text(r.ci), pval(r.p_welch_adj),
                           pval(r.p_mw_adj), verdict);
      else
        out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", label_of(d), val(r.base.mean, d),
                           val(r.next.mean, d), pct(r.change), ci_text(r.ci),
                           std::isnan(r.ks_d) ? "-" : fmt::format("{:.4f}", r.ks_d), pval(r.ks_p), verdict);
    }
  }
  return out;
}

std::string render_compare_json(const CompareResult& c) {
  const CompareOptions& o = c.options;
  ojson j;
  j["schema"] = "schedsim-compare";
  j["version"] = 1;
  j["base"] = c.base_path;
  j["new"] = c.next_path;
  j["options"] = {{"by", o.by},         {"ignore", o.ignore},         {"allow_mismatch", o.allow_mismatch},
                  {"min_effect", o.min_effect}, {"alpha", o.alpha}, {"correction", o.correction},
                  {"confidence", o.confidence}, {"resamples", o.resamples}, {"seed", o.seed}};
  j["differs"] = c.differs;
  j["notes"] = c.notes;
  j["tested"] = c.tested;
  ojson pts = ojson::array();
  for (const auto& p : c.points) {
    ojson pj;
    ojson key = ojson::object();
    for (const auto& [k, v] : p.key) key[k] = v;
    pj["key"] = std::move(key);
    pj["base_source"] = p.base_where;
    pj["new_source"] = p.next_where;
    ojson rows = ojson::array();
    for (const auto& r : p.rows) {
      auto side = [](const stats::Summary& s) {
        return ojson{{"count", s.count},         {"mean", num_or_null(s.mean)}, {"std", num_or_null(s.std)},
                     {"min", num_or_null(s.min)}, {"p50", num_or_null(s.p50)},  {"p99", num_or_null(s.p99)},
                     {"max", num_or_null(s.max)}};
      };
      const char* better = r.def->better == Better::kLower ? "lower" : r.def->better == Better::kHigher ? "higher" : "none";
      rows.push_back(ojson{{"metric", r.metric},
                           {"unit", r.def->unit},
                           {"better", better},
                           {"kind", kind_name(r.kind)},
                           {"base", side(r.base)},
                           {"new", side(r.next)},
                           {"change", num_or_null(r.change)},
                           {"ci", ojson::array({num_or_null(r.ci.lo), num_or_null(r.ci.hi)})},
                           {"p_welch", num_or_null(r.p_welch)},
                           {"p_mann_whitney", num_or_null(r.p_mw)},
                           {"p_welch_adjusted", num_or_null(r.p_welch_adj)},
                           {"p_mann_whitney_adjusted", num_or_null(r.p_mw_adj)},
                           {"ks_d", num_or_null(r.ks_d)},
                           {"ks_p", num_or_null(r.ks_p)},
                           {"significant", r.significant},
                           {"verdict", r.verdict}});
    }
    pj["rows"] = std::move(rows);
    pts.push_back(std::move(pj));
  }
  j["points"] = std::move(pts);
  return j.dump(1) + "\n";
}

std::string render_compare_csv(const CompareResult& c) {
  using report_util::csv_field;
  auto n = [](double v) { return std::isfinite(v) ? report_util::num(v) : std::string(); };
  // report_util::num keeps 6 decimals: p-values need more.
  auto p = [](double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : std::string(); };
  std::string out =
      "point,metric,unit,kind,base_count,base_mean,base_std,base_min,base_p50,base_p99,base_max,new_count,new_mean,"
      "new_std,new_min,new_p50,new_p99,new_max,change,ci_lo,ci_hi,p_welch,p_mw,p_welch_adj,p_mw_adj,ks_d,ks_p,"
      "verdict\n";
  for (const auto& pt : c.points) {
    std::string key = csv_field(point_name(c, static_cast<size_t>(&pt - c.points.data())));
    for (const auto& r : pt.rows) {
      out += key + "," + r.metric + "," + r.def->unit + "," + kind_name(r.kind);
      for (const auto* s : {&r.base, &r.next})
        out += "," + std::to_string(s->count) + "," + n(s->mean) + "," + n(s->std) + "," + n(s->min) + "," + n(s->p50) +
               "," + n(s->p99) + "," + n(s->max);
      out += "," + p(r.change) + "," + p(r.ci.lo) + "," + p(r.ci.hi) + "," + p(r.p_welch) + "," + p(r.p_mw) + "," +
             p(r.p_welch_adj) + "," + p(r.p_mw_adj) + "," + p(r.ks_d) + "," + p(r.ks_p) + "," + csv_field(r.verdict) +
             "\n";
    }
  }
  return out;
}

std::string render_compare_html(const CompareResult& c, const std::string& id,
                                std::string (*esc)(const std::string&)) {
  std::string out;
  for (const auto& n : c.notes) out += "<p class=\"note\">note: " + esc(n) + "</p>\n";
  for (size_t pi = 0; pi < c.points.size(); ++pi) {
    const ComparePoint& p = c.points[pi];
    bool reps = point_has_reps(p);
    out += fmt::format("<table id=\"{}-{}\"><thead><tr><th>metric</th><th>base</th><th>new</th><th>change</th>"
                       "<th>{:.0f}% CI</th><th>{}</th><th>{}</th><th>verdict</th></tr></thead><tbody>\n",
                       id, pi, 100.0 * c.options.confidence, reps ? "p(t)" : "KS D", reps ? "p(U)" : "p(KS)");
    for (const auto& r : p.rows) {
      const MetricDef& d = *r.def;
      std::string a = reps ? pval(r.p_welch_adj) : std::isnan(r.ks_d) ? "-" : fmt::format("{:.4f}", r.ks_d);
      std::string b = reps ? pval(r.p_mw_adj) : pval(r.ks_p);
      out += "<tr><td>" + esc(label_of(d)) + "</td><td>" + val(r.base.mean, d) + "</td><td>" + val(r.next.mean, d) +
             "</td><td>" + pct(r.change) + "</td><td>" + ci_text(r.ci) + "</td><td>" + esc(a) + "</td><td>" + esc(b) +
             "</td><td>" + esc(r.verdict) + "</td></tr>\n";
    }
    out += "</tbody></table>\n";
  }
  return out;
}

Gate parse_gate(const std::string& given) {
  Gate g;
  g.text = given;
  // Spaces are the reader's ('wakeup.p99 > +5%'); no metric name or number holds one.
  std::string text;
  for (char ch : given)
    if (!std::isspace(static_cast<unsigned char>(ch))) text += ch;
  size_t op = text.find_first_of("<>");
  std::string bad = "expected METRIC>+N% or METRIC<-N% (e.g. 'wakeup.p99>+5%'), got '" + given + "'";
  if (op == std::string::npos || op == 0) throw InputError(SourceLoc{"--fail-on"}, bad);
  g.metric = catalog_metric_name(text.substr(0, op));
  g.op = text[op];
  std::string t = text.substr(op + 1);
  if (t.empty() || t.back() != '%') throw InputError(SourceLoc{"--fail-on"}, bad);
  t.pop_back();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !std::isfinite(v)) throw InputError(SourceLoc{"--fail-on"}, bad);
  g.threshold = v / 100.0;
  if (!find_metric(g.metric)) {
    std::vector<std::string> known;
    for (const auto& d : metric_catalog()) known.emplace_back(d.name);
    throw InputError(SourceLoc{"--fail-on"}, unknown_choice_message("metric", g.metric, known));
  }
  return g;
}

GateOutcome evaluate_gates(const CompareResult& c, const std::vector<Gate>& gates) {
  GateOutcome out;
  for (const auto& g : gates) {
    // A gate whose metric was not compared (left out of --metrics all because a file does not
    // record it) must not pass by default.
    bool judged = false;
    for (const auto& p : c.points)
      for (const auto& r : p.rows) judged = judged || r.metric == g.metric;
    if (!judged)
      out.untestable.push_back(fmt::format("--fail-on '{}': {} was not compared (not recorded in every record)",
                                           g.text, g.metric));
    for (size_t pi = 0; pi < c.points.size(); ++pi)
      for (const auto& r : c.points[pi].rows) {
        if (r.metric != g.metric) continue;
        std::string where = fmt::format("point {} ({})", pi + 1, point_name(c, pi));
        if (!c.points[pi].incomplete.empty()) {
          out.untestable.push_back(fmt::format("--fail-on '{}': {}: {} run(s) did not finish (\"complete\": false), "
                                               "first {}; gate on complete runs only",
                                               g.text, where, c.points[pi].incomplete.size(),
                                               c.points[pi].incomplete.front()));
          continue;
        }
        if (r.runs_without_samples > 0) {
          out.untestable.push_back(fmt::format("--fail-on '{}': {}: {} run(s) recorded no sample of {} (stored as 0); "
                                               "gate on runs that measured it",
                                               g.text, where, r.runs_without_samples, r.metric));
          continue;
        }
        if (r.runs_maybe_without_samples > 0) {
          out.untestable.push_back(fmt::format("--fail-on '{}': {}: {} run(s) store 0 for {} without {} (an older "
                                               "schedsim's records), so it may be undefined; gate on records that "
                                               "carry it",
                                               g.text, where, r.runs_maybe_without_samples, r.metric,
                                               sample_count_metric(r.metric)));
          continue;
        }
        // A gate needs run-to-run spread: within-run intervals (one run per side) understate it.
        if (r.kind != RowKind::kRepetitions) {
          out.untestable.push_back("--fail-on '" + g.text + "': " + where + ": " + r.metric +
                                   (r.kind == RowKind::kSingle ? " has one value per side, nothing to test"
                                                               : " has one run per side, which cannot show "
                                                                 "run-to-run noise") +
                                   "; gate on run --repeat N results (N >= 2 per side)");
          continue;
        }
        bool crosses = g.op == '>' ? r.change > g.threshold : r.change < g.threshold;
        if (r.significant && crosses)
          out.failures.push_back(fmt::format("--fail-on '{}': {}: {} changed {} {} (p(t) {}, p(U) {}; {})", g.text,
                                             where, r.metric, pct(r.change), ci_text(r.ci), pval(r.p_welch_adj),
                                             pval(r.p_mw_adj), r.verdict));
      }
  }
  return out;
}

}  // namespace schedsim
