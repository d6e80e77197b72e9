#include "calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "run_request.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/stats/coordinate_search.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/topology/virt.hpp"
#include "schedsim/workload/generators.hpp"

namespace schedsim::cli {

const std::vector<CalibrationRange>& calibration_ranges() {
  // Plausible ranges: wide enough for any machine the model is meant for, narrow enough that a
  // fit cannot wander into nonsense to absorb a missing mechanism (the report then shows the
  // parameter at a bound). Sources are the original measurements.
  static const std::vector<CalibrationRange> r = {
      {"context_switch", 200, 20000,
       "lmbench lat_ctx (McVoy & Staelin, USENIX 1996) and Li, Ding & Shen, 'Quantifying the cost of context "
       "switch' (ExpCS 2007): 1-4 us direct cost on bare metal; up to 20 us for a guest switching through the host"},
      {"ipi_same_package", 100, 5000,
       "V. Pallipadi, 'Extend mwait idle to optimize away IPIs' (LKML 2012-02): ~1600 cycles for an IPI wake in "
       "one socket (~0.5 us); a guest IPI that exits to the host takes a few us"},
      {"ipi_cross_package", 100, 10000, "same posting: ~2000 cycles across sockets; up to 2x the in-package bound"},
      {"idle_exit", 100, 300000,
       "drivers/idle/intel_idle.c state tables (e.g. spr_cstates: C1 1 us ... C6 290 us exit latency)"},
      {"idle_exit_polled", 500, 30000,
       "Documentation/virt/kvm/halt-polling.rst: a wake inside the host's halt-poll window resumes the vCPU "
       "without a host reschedule (16-vCPU guest traces: 3-5 us)"},
      {"idle_exit_halted", 1000, 200000,
       "Documentation/virt/kvm/halt-polling.rst: after the window the host must wake the vCPU thread "
       "(16-vCPU guest traces: 10-19 us p50, tail to 76 us)"},
      {"timer_wake_local", 200, 20000,
       "interrupt exit and the switch from idle after a local timer wake (16-vCPU guest trace periodic-t24: 1-5 us)"},
      {"probe_cpu", 10, 400,
       "'Optimize SIS_FOLD' (select_idle_sibling rework RFC, 2018, patch 08/11): ~40 ns per CPU checked"},
      {"probe_core_cpu", 30, 1200, "same changelog: ~120 ns per CPU visited by the core-wise scan"},
      {"smt_corun_permille", 500, 1000,
       "Marr et al., 'Hyper-Threading Technology Architecture and Microarchitecture', Intel Technology Journal "
       "6(1), 2002 (up to 30% more throughput per core: ~650 per thread); the kernel's former smt_gain 1178 "
       "(~589 per thread); 1000 = no slowdown"},
  };
  static const std::vector<CalibrationRange> with_gen = [] {
    std::vector<CalibrationRange> v = r;
    for (const auto& g : kGenCostParams)
      v.push_back({g.name, 50, 50000,
                   "generator per-operation cost (docs/calibrate.md): the reference machine's 370 ns - 2 us per "
                   "pipe/socket operation, down to a bare syscall (~50 ns) and up to 25x for a contended "
                   "multi-socket machine"});
    return v;
  }();
  return with_gen;
}

std::vector<std::string> default_fit_params(bool multi_package, bool smt, IdleWakeMode mode, bool switch_charged) {
  std::vector<std::string> p;
  if (switch_charged) p.emplace_back("context_switch");
  p.emplace_back("ipi_same_package");
  if (multi_package) p.emplace_back("ipi_cross_package");
  if (mode == IdleWakeMode::kVmHaltPoll) {
    p.emplace_back("idle_exit_polled");
    p.emplace_back("idle_exit_halted");
    p.emplace_back("timer_wake_local");
  } else {
    p.emplace_back("idle_exit");
  }
  if (smt) p.emplace_back("smt_corun_permille");
  return p;
}

namespace {

const CalibrationRange& range_of(const std::string& name) {
  for (const auto& r : calibration_ranges())
    if (name == r.name) return r;
  std::vector<std::string> names;
  for (const auto& r : calibration_ranges()) names.emplace_back(r.name);
  throw InputError(SourceLoc{"--fit"}, unknown_choice_message("parameter to fit", name, names));
}

bool is_permille(const std::string& name) { return name == "smt_corun_permille"; }

bool is_gen_cost(const std::string& name) {
  for (const auto& g : kGenCostParams)
    if (name == g.name) return true;
  return false;
}

void set_param(CostModel& c, const std::string& name, double v) {
  c.set(fmt::format("{}={}{}", name, std::llround(v), is_permille(name) ? "" : "ns"), "calibrate");
}

// The metrics calibrate compares, in report order; `fit` marks those in the objective.
struct MetricSpec {
  const char* metric;
  const char* label;
  bool time;  ///< nanoseconds (floor 100 ns) or a count (floor 1)
  bool fit;
};
const MetricSpec kMetrics[] = {
    {"makespan_ns", "makespan", true, true},
    {"wakeups", "wakeups", false, true},
    {"wakeup_latency.p50_ns", "wake latency p50", true, true},
    {"wakeup_latency.p90_ns", "wake latency p90", true, true},
    {"wakeup_latency.p99_ns", "wake latency p99", true, true},
    {"preempt_delay.p50_ns", "rq-wait (preempted) p50", true, true},
    {"preempt_delay.count", "rq-wait (preempted) n", false, false},
    {"preempt_delay.p90_ns", "rq-wait (preempted) p90", true, false},
    {"migrations", "migrations", false, false},
    {"context_switches", "context switches", false, false},
};

const Comparison* find_cmp(const RunResults& r, const std::string& metric) {
  for (const auto& c : r.observed)
    if (c.metric == metric) return &c;
  return nullptr;
}

double log_ratio_sq(double sim, double obs, bool time) {
  const double floor = time ? 100.0 : 1.0;
  double l = std::log(std::max(sim, floor) / std::max(obs, floor));
  return l * l;
}

struct Loaded {
  std::string path;  ///< the trace, or the generator spec
  Workload w;
  bool rq_fit = false;
  bool generated = false;     ///< a generator spec, regenerated with each candidate's costs
  int64_t bench_obs_ns = -1;  ///< generated: the real benchmark time
};

// One replay; throws nothing for an incomplete run (the caller decides). A trace replay charges
// no switch or refill cost its recorded times contain (CostModel::for_input).
RunResults replay(const Loaded& t, const Topology& topo, const std::string& kernel, const CostModel& cost,
                  bool& complete) {
  RunConfig config;
  PolicyStack policies = build_policy_stack(kernel, {}, {}, config);
  SimConfig sc;
  sc.seed = 1;
  Workload regenerated;
  if (t.generated) regenerated = generate_workload_from_spec(t.path, cost.gen_ops);
  const Workload& w = t.generated ? regenerated : t.w;
  Simulation sim(w, topo, std::move(policies), cost.for_input(!t.generated), sc);
  MetricsCollector metrics(w);
  sim.add_observer(&metrics);
  SimSummary sum = sim.run();
  complete = sum.complete;
  return metrics.results(config, &sum);
}

int64_t bench_time(const RunResults& r) { return r.benchmark_time_ns >= 0 ? r.benchmark_time_ns : r.makespan_ns; }

// A trace's share of the objective: the mean squared log-ratio over its fitted metrics; a
// generated workload's: that of its benchmark time.
double score(const Loaded& t, const RunResults& r) {
  if (t.generated)
    return log_ratio_sq(static_cast<double>(bench_time(r)), static_cast<double>(t.bench_obs_ns), true);
  double s = 0;
  int n = 0;
  for (const auto& m : kMetrics) {
    if (!m.fit) continue;
    if (std::string(m.metric) == "preempt_delay.p50_ns" && !t.rq_fit) continue;
    const Comparison* c = find_cmp(r, m.metric);
    if (!c) continue;
    s += log_ratio_sq(c->simulated, c->observed, m.time);
    ++n;
  }
  return n ? s / n : 0.0;
}

Loaded load_trace(const std::string& path, const traces::ExtractOptions& extract) {
  traces::ImportReport rep;
  Loaded t;
  t.path = path;
  t.w = load_workload_input(path, "", extract, &rep);
  const std::string why = "calibrate needs a kernel trace with enough scheduler events to fit";
  if (rep.path.empty() || !t.w.observed.present)
    throw InputError(SourceLoc{path}, "not a kernel trace (a native workload has no observed figures to fit): " + why);
  if (!rep.lost.empty())
    throw InputError(SourceLoc{path, rep.lost.front().line},
                     fmt::format("cannot fit a trace with lost events ({} window(s), the first at this line): its "
                                 "observed figures are incomplete; re-record with a larger buffer",
                                 rep.lost.size()));
  if (!rep.conservation_ok)
    throw InputError(SourceLoc{path}, "cannot fit: the import did not conserve the trace's on-CPU time (see "
                                      "`schedsim trace info`), so a replay cannot reproduce it");
  const ObservedStats& o = t.w.observed;
  if (o.span.count() < kCalibrateMinSpanNs)
    throw InputError(SourceLoc{path}, fmt::format("too short to fit: the selected tasks span {:.3f} ms, at least {} ms "
                                                  "are needed",
                                                  static_cast<double>(o.span.count()) / 1e6, kCalibrateMinSpanNs / 1000000));
  if (o.wakeups < kCalibrateMinWakeups)
    throw InputError(SourceLoc{path}, fmt::format("too few wakeups to fit: {} observed, at least {} are needed (a p99 of "
                                                  "fewer samples is their maximum); select more tasks or record longer",
                                                  o.wakeups, kCalibrateMinWakeups));
  t.rq_fit = o.runqueue_wait.count() >= kCalibrateMinRqSamples;
  return t;
}

std::string param_text(const std::string& name, double v) {
  if (is_permille(name)) return fmt::format("{}", std::llround(v));
  return format_duration(Duration::ns(std::llround(v)));
}

}  // namespace

CalibrateResult calibrate(const CalibrateRequest& req) {
  const bool generated = !req.workload_gen.empty();
  if (generated && !req.traces.empty())
    throw InputError("calibrate: give either TRACE files or --workload-gen with --benchmark-time, not both");
  if (generated && req.benchmark_time_ns <= 0)
    throw InputError(SourceLoc{"--benchmark-time"}, "--workload-gen needs the real program's reported time on the "
                                                    "machine, e.g. --benchmark-time 15.78s");
  if (!generated && req.benchmark_time_ns > 0)
    throw InputError(SourceLoc{"--benchmark-time"}, "applies to a generated workload (--workload-gen); a trace has "
                                                    "its own observed figures");
  if (!generated && req.traces.empty()) throw InputError("calibrate: give at least one TRACE");
  if (req.max_evals == 0) throw InputError(SourceLoc{"--max-evals"}, "expected at least 1 evaluation");
  CalibrateResult res;
  res.generated = generated;
  res.budget = req.max_evals;
  res.kernel = req.kernel;
  Topology topo = load_topology(req.topology);
  // The machine's cost profile, then the starting point given (as run does).
  CostModel base = build_cost_model(req.costs, topo, nullptr);
  res.topology = topo.name();
  if (!base.idle_wake_set && req.topology == "host" && is_kvm_guest()) {
    base.idle_wake = IdleWakeMode::kVmHaltPoll;
    base.idle_wake_set = true;
  }
  {
    RunConfig probe;  // the kernel name is checked before the traces are read
    build_policy_stack(req.kernel, {}, {}, probe);
  }
  std::vector<Loaded> loaded;
  if (generated) {
    Loaded g;
    g.path = req.workload_gen;
    g.generated = true;
    g.bench_obs_ns = req.benchmark_time_ns;
    g.w = generate_workload_from_spec(req.workload_gen, base.gen_ops);
    loaded.push_back(std::move(g));
  }
  std::vector<std::string> names = req.fit;
  if (names.empty() && generated) {
    auto used = loaded[0].w.meta.find("gen_cost_params");
    if (used == loaded[0].w.meta.end())
      throw InputError(SourceLoc{"--workload-gen"}, "this generator has no per-operation costs to fit (docs/calibrate.md "
                                                    "lists them); give --fit");
    std::istringstream in(used->second);
    for (std::string n; std::getline(in, n, ',');) names.push_back(n);
  }
  if (names.empty())
    names = default_fit_params(topo.nr_packages() > 1, topo.has_smt(), base.idle_wake,
                                       base.replay_overheads == ReplayOverheads::kCharged);
  std::set<std::string> seen;
  std::vector<stats::SearchParam> sp;
  for (const auto& n : names) {
    const CalibrationRange& r = range_of(n);
    if (!seen.insert(n).second) throw InputError(SourceLoc{"--fit"}, "parameter '" + n + "' given twice");
    const bool gen_param = is_gen_cost(n);
    if (generated && !gen_param && names.size() > 1)
      throw InputError(SourceLoc{"--fit"}, "'" + n + "' is not a generator cost: with --workload-gen the parameters move by "
                                           "one common factor, so fit it alone (--fit " + n + ")");
    if (!generated && gen_param)
      throw InputError(SourceLoc{"--fit"}, "'" + n + "' is a generator cost: a trace replay does not use it (fit it with "
                                           "--workload-gen SPEC --benchmark-time T)");
    if (!generated &&
        ((base.replay_overheads != ReplayOverheads::kCharged && n == "context_switch") ||
         (base.replay_overheads == ReplayOverheads::kRecorded && n.rfind("refill_", 0) == 0)))
      throw InputError(SourceLoc{"--fit"}, "'" + n + "' has no effect on a trace replay: the recorded on-CPU times "
                                           "already contain it (replay_overheads=" + base.get("replay_overheads") +
                                           ", docs/calibrate.md); fit "
                                           "it on a generated workload, or with -c replay_overheads=charged");
    double start = std::stod(base.get(n));
    sp.push_back({n, r.lo, r.hi, std::clamp(start, r.lo, r.hi)});
    res.params.push_back({n, r.lo, r.hi, std::clamp(start, r.lo, r.hi), 0, is_permille(n) ? "permille" : "ns", r.source});
  }
  // One benchmark time determines one degree of freedom: a generated workload's parameters move
  // together, by one factor kept inside every parameter's range.
  if (generated) {
    double lo = 0, hi = std::numeric_limits<double>::infinity();
    for (const auto& p : sp) {
      lo = std::max(lo, p.lo / p.start);
      hi = std::min(hi, p.hi / p.start);
    }
    if (!(lo < hi))
      throw InputError(SourceLoc{"--fit"}, "the parameters' ranges leave no common factor to fit (start them closer "
                                           "with --cost)");
    sp = {{"factor", lo, hi, std::clamp(1.0, lo, hi)}};
  }

  for (const auto& p : req.traces) loaded.push_back(load_trace(p, req.extract));

  auto model_for = [&](const std::vector<double>& x) {
    CostModel c = base;
    if (generated) {
      for (const auto& p : res.params) set_param(c, p.name, p.start * x[0]);
      return c;
    }
    for (size_t i = 0; i < sp.size(); ++i) set_param(c, sp[i].name, x[i]);
    return c;
  };
  // The start point must replay completely: a trace that does not is refused, not fitted.
  std::vector<RunResults> start_results;
  {
    std::vector<double> x0;
    x0.reserve(sp.size());
    for (const auto& p : sp) x0.push_back(p.start);
    CostModel c = model_for(x0);
    for (const auto& t : loaded) {
      bool complete = false;
      start_results.push_back(replay(t, topo, req.kernel, c, complete));
      if (!complete)
        throw InputError(SourceLoc{t.path}, "cannot fit: its replay does not complete (`schedsim run` on it says why: "
                                            "tasks blocked forever or wake tokens never consumed)");
    }
  }
  bool first = true;
  auto objective = [&](const std::vector<double>& x) {
    double total = 0;
    if (first) {  // the start point was just replayed above
      first = false;
      for (size_t i = 0; i < loaded.size(); ++i) total += score(loaded[i], start_results[i]);
      return total / static_cast<double>(loaded.size());
    }
    CostModel c = model_for(x);
    for (const auto& t : loaded) {
      bool complete = false;
      RunResults r = replay(t, topo, req.kernel, c, complete);
      if (!complete) {
        ++res.rejected;
        return std::numeric_limits<double>::infinity();
      }
      total += score(t, r);
    }
    return total / static_cast<double>(loaded.size());
  };
  stats::SearchOptions opt;
  opt.max_evals = req.max_evals;
  stats::SearchResult sr = stats::coordinate_search(
      sp, objective, opt, [&](uint32_t n, double best) {
        if (req.progress) req.progress(n, req.max_evals, best);
      });
  res.evals = sr.evals;
  res.converged = sr.converged;
  res.start_objective = sr.start_value;
  res.fitted_objective = sr.best_value;
  res.cost = model_for(sr.best);
  for (auto& p : res.params) p.fitted = std::stod(res.cost.get(p.name));

  for (size_t i = 0; i < loaded.size(); ++i) {
    bool complete = false;
    RunResults fitted = replay(loaded[i], topo, req.kernel, res.cost, complete);
    TraceFit tf;
    tf.path = loaded[i].path;
    tf.observed_wakeups = loaded[i].w.observed.wakeups;
    tf.span_ms = static_cast<double>(loaded[i].w.observed.span.count()) / 1e6;
    tf.start_score = score(loaded[i], start_results[i]);
    tf.fitted_score = score(loaded[i], fitted);
    if (loaded[i].generated) {
      tf.span_ms = static_cast<double>(loaded[i].bench_obs_ns) / 1e6;
      const auto obs = static_cast<double>(loaded[i].bench_obs_ns);
      tf.metrics.push_back({"benchmark time", obs, static_cast<double>(bench_time(start_results[i])),
                            static_cast<double>(bench_time(fitted)), true, ""});
      tf.metrics.push_back({"makespan", 0, static_cast<double>(start_results[i].makespan_ns),
                            static_cast<double>(fitted.makespan_ns), false, ""});
      tf.metrics.push_back({"wakeups", 0, static_cast<double>(start_results[i].placement.wakeups),
                            static_cast<double>(fitted.placement.wakeups), false, ""});
    }
    for (const auto& m : kMetrics) {
      if (loaded[i].generated) break;
      const Comparison* a = find_cmp(start_results[i], m.metric);
      const Comparison* b = find_cmp(fitted, m.metric);
      if (!a || !b) continue;
      MetricFit mf;
      mf.metric = m.label;
      mf.observed = b->observed;
      mf.start = a->simulated;
      mf.fitted = b->simulated;
      mf.in_objective = m.fit && (std::string(m.metric) != "preempt_delay.p50_ns" || loaded[i].rq_fit);
      mf.note = b->note.empty() ? "" : ">=";
      tf.metrics.push_back(mf);
    }
    res.traces.push_back(std::move(tf));
  }
  // What the cost file holds: every parameter the base set (so the file stands alone) and the
  // fitted ones.
  const CostModel defaults;
  if (res.cost.idle_wake_set) res.cost_json_keys.emplace_back("idle_wake");
  if (res.cost.replay_overheads != ReplayOverheads::kRecorded) res.cost_json_keys.emplace_back("replay_overheads");
  for (const auto& p : CostModel::params()) {
    if (p.name == "idle_wake" || p.name == "replay_overheads") continue;
    bool fitted = seen.count(p.name) > 0;
    if (fitted || res.cost.get(p.name) != defaults.get(p.name)) res.cost_json_keys.push_back(p.name);
  }
  return res;
}

std::string render_cost_file(const CalibrateResult& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& k : r.cost_json_keys) {
    std::string v = r.cost.get(k);
    if (k == "idle_wake" || k == "replay_overheads") j[k] = v;
    else if (is_permille(k)) j[k] = std::stoll(v);
    else j[k] = v + "ns";
  }
  return j.dump(2) + "\n";
}

std::string render_calibration_report(const CalibrateResult& r) {
  std::string out;
  out += fmt::format("calibration on {}{}: {} evaluation(s) of {} ({}), {} candidate(s) rejected (replay incomplete)\n",
                     r.topology, r.kernel.empty() ? "" : ", kernel " + r.kernel, r.evals, r.budget,
                     r.converged ? "converged" : "budget spent", r.rejected);
  if (r.generated)
    out += fmt::format("objective (squared log-ratio of the benchmark time; the parameters move by one common factor): "
                       "{:.4f} -> {:.4f}\n\n",
                       r.start_objective, r.fitted_objective);
  else
    out += fmt::format("objective (mean over traces of the mean squared log-ratio of the fitted metrics): {:.4f} -> {:.4f}\n\n",
                       r.start_objective, r.fitted_objective);
  out += fmt::format("{:<20} {:>10} {:>10} {:>10} {:>10}  {}\n", "parameter", "start", "fitted", "range lo", "range hi", "note");
  for (const auto& p : r.params) {
    std::string note;
    if (p.fitted <= p.lo * 1.0001) note = "at the lower bound";
    else if (p.fitted >= p.hi * 0.9999) note = "at the upper bound";
    out += fmt::format("{:<20} {:>10} {:>10} {:>10} {:>10}  {}\n", p.name, param_text(p.name, p.start),
                       param_text(p.name, p.fitted), param_text(p.name, p.lo), param_text(p.name, p.hi), note);
  }
  auto val = [](const std::string& label, double v) {
    if (label.find("p50") != std::string::npos || label.find("p90") != std::string::npos ||
        label.find("p99") != std::string::npos || label == "makespan" || label == "benchmark time")
      return format_duration(Duration::ns(std::llround(v)));
    return fmt::format("{}", std::llround(v));
  };
  auto err = [](double sim, double obs) {
    if (obs == 0) return std::string("-");  // generated: no observed figure but the benchmark time
    return fmt::format("{:+.1f}%", 100.0 * (sim - obs) / obs);
  };
  for (const auto& t : r.traces) {
    if (r.generated)
      out += fmt::format("\n{} (benchmark time {:.2f} ms on the real machine; score {:.4f} -> {:.4f})\n", t.path,
                         t.span_ms, t.start_score, t.fitted_score);
    else
      out += fmt::format("\n{} (span {:.2f} ms, {} wakeups; score {:.4f} -> {:.4f})\n", t.path, t.span_ms,
                         t.observed_wakeups, t.start_score, t.fitted_score);
    out += fmt::format("  {:<24} {:>12} {:>12} {:>9} {:>12} {:>9}  {}\n", "metric", "observed", "sim start", "err",
                       "sim fitted", "err", "fitted");
    for (const auto& m : t.metrics)
      out += fmt::format("  {:<24} {:>12} {:>12} {:>9} {:>12} {:>9}  {}\n", m.metric,
                         m.observed == 0 && !m.in_objective ? std::string("-") : m.note + val(m.metric, m.observed),
                         val(m.metric, m.start), err(m.start, m.observed),
                         val(m.metric, m.fitted), err(m.fitted, m.observed), m.in_objective ? "yes" : "no");
  }
  return out;
}

}  // namespace schedsim::cli
