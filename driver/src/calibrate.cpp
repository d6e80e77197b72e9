#include "schedsim/driver/calibrate.hpp"
#include "schedsim/driver/inputs.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedsim/driver/run.hpp"
#include "schedsim/driver/simulate.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/stats/coordinate_search.hpp"
#include "schedsim/topology/json_input.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/topology/virt.hpp"
#include "schedsim/workload/generators.hpp"

namespace schedsim::driver {

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
      {"resched_ipi", 200, 50000,
       "the reschedule IPI of a remote wakeup preemption (resched_curr() -> smp_send_reschedule(), the switch at "
       "the target's scheduler_ipi() return): an IPI's delivery (ipi_same_package's bound) up to the waker's hold "
       "of the target's run-queue lock on a guest whose IPI send exits to the host; measured from traces by "
       "`trace info` (docs/model.md 'The reschedule IPI': 4-15 us p50 on the 2-vCPU guest, 4 us on the "
       "16-vCPU guest)"},
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

std::vector<std::string> default_fit_params(bool multi_package, IdleWakeMode mode, bool switch_charged) {
  std::vector<std::string> p;
  if (switch_charged) p.emplace_back("context_switch");
  p.emplace_back("ipi_same_package");
  if (multi_package) p.emplace_back("ipi_cross_package");
  if (mode == IdleWakeMode::kVmHaltPoll) {
    p.emplace_back("idle_exit_polled");
    p.emplace_back("idle_exit_halted");
    p.emplace_back("timer_wake_local");
  } else if (mode == IdleWakeMode::kTable) {
    // The table's exit costs are measured per idle class (trace info --idle-wake-costs): a fit
    // would trade them against the mechanisms the replay lacks (docs/model.md "fork-2000
    // hold-out"), so no idle-exit parameter is searched.
  } else {
    p.emplace_back("idle_exit");
  }
  // No smt_corun_permille: a trace's on-CPU time already ran at the recording machine's co-run
  // rate, so a replay that applies the rate again fits it to cancel the double count, and one
  // normalised at the start rate (--smt-normalize) cancels it by construction; the rate is fitted
  // on a generated workload against a benchmark time (calibration_ranges()' source).
  return p;
}

namespace {

// Nearest-rank percentile of sorted samples (q in 0..100); v must not be empty.
int64_t nearest_rank(const std::vector<int64_t>& v, double q) {
  size_t k = static_cast<size_t>(std::ceil(q / 100.0 * static_cast<double>(v.size()) - 1e-9));
  return v[std::min(v.size(), std::max<size_t>(k, 1)) - 1];
}

}  // namespace

double robust_loss(double l2) { return std::log1p(l2); }

std::optional<Prior> measured_prior(std::vector<int64_t> samples, double ipi_ns, double lo, double hi,
                                    const std::string& what) {
  if (samples.size() < kCalibrateMinPriorSamples) return std::nullopt;
  std::sort(samples.begin(), samples.end());
  const auto p25 = static_cast<double>(nearest_rank(samples, 25));
  const auto p50 = static_cast<double>(nearest_rank(samples, 50));
  const auto p75 = static_cast<double>(nearest_rank(samples, 75));
  // The model's idle wake is the IPI plus the exit: the exit is what remains of the measured
  // waking-to-switch-in time. The timestamps are in whole microseconds on the recordings this
  // was made for, so the range is at least one tick either side of the median.
  constexpr double kTick = 1000;
  Prior pr;
  pr.wake_lo = std::min(p25, p50 - kTick);
  pr.wake_hi = std::max(p75, p50 + kTick);
  pr.wake_value = p50;
  pr.lo = std::max(lo, pr.wake_lo - ipi_ns);
  pr.hi = std::min(hi, pr.wake_hi - ipi_ns);
  if (!(pr.lo < pr.hi)) return std::nullopt;
  pr.value = std::clamp(p50 - ipi_ns, pr.lo, pr.hi);
  pr.samples = samples.size();
  pr.source = fmt::format("measured: p50 {} of {} {} in the training traces, minus the IPI {}; the wake (IPI + exit) "
                          "kept in {} - {}, the samples' p25 - p75 widened to at least p50 -/+ 1 us",
                          format_duration(Duration::ns(std::llround(p50))), samples.size(), what,
                          format_duration(Duration::ns(std::llround(ipi_ns))),
                          format_duration(Duration::ns(std::llround(pr.wake_lo))),
                          format_duration(Duration::ns(std::llround(pr.wake_hi))));
  return pr;
}

double prior_penalty(double x, double value, double weight) {
  const double l = std::log(x / value);
  return weight * l * l;
}

double banked_weight(uint64_t banked, uint64_t replayed) {
  if (replayed == 0) return 1.0;
  const double share = std::min(1.0, static_cast<double>(banked) / static_cast<double>(replayed));
  if (share >= kBankedExclude) return 0.0;
  if (share >= kBankedDownweight) return 1.0 - share;
  return 1.0;
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
  /// Depends on the trace's wakes being replayed as wakes: a wake banked as a token (the wakee
  /// not yet blocked in the replay) has no latency, no wakeup and no wait (banked_weight()).
  bool wake;
};
const MetricSpec kMetrics[] = {
    {"makespan_ns", "makespan", true, true, true},
    {"wakeups", "wakeups", false, true, true},
    {"wakeup_latency.p50_ns", "wake latency p50", true, true, true},
    {"wakeup_latency.p90_ns", "wake latency p90", true, true, true},
    {"wakeup_latency.p99_ns", "wake latency p99", true, true, true},
    {"preempt_delay.p50_ns", "rq-wait (preempted) p50", true, true, false},
    {"preempt_delay.count", "rq-wait (preempted) n", false, false, false},
    {"preempt_delay.p90_ns", "rq-wait (preempted) p90", true, false, false},
    {"migrations", "migrations", false, false, false},
    {"context_switches", "context switches", false, false, false},
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
  double wake_weight = 1;     ///< banked_weight() at the start point
  std::vector<int64_t> idle_short, idle_long, idle_all;  ///< measured idle-wake samples (ns)
  bool generated = false;     ///< a generator spec, regenerated with each candidate's costs
  int64_t bench_obs_ns = -1;  ///< generated: the real benchmark time
  int64_t header_cpus = -1;   ///< the trace header's CPU count (#P:N, cpus=N); -1 = none given
};

// How every replay of a fit runs: the kernel profile, the engine settings of `run` (the request's
// model: jitter, preemption model, run-time accounting; the seed) and the custom slices.
struct ReplaySettings {
  std::string kernel;
  SimConfig sim;
  std::vector<std::string> slices;
  /// The settings away from run's defaults, as "--preempt none" (for the report's note).
  std::vector<std::string> given;
};

ReplaySettings replay_settings(const CalibrateRequest& req) {
  ReplaySettings r;
  r.kernel = req.kernel;
  RunRequest m = req.model;
  m.seed = req.seed;
  RunConfig config;
  r.sim = sim_config_of(m, config);
  check_slices(m.slices);
  r.slices = m.slices;
  if (!m.jitter.empty()) r.given.push_back("--jitter " + m.jitter);
  if (auto p = config.cost_overrides.find("preempt"); p != config.cost_overrides.end()) r.given.push_back("--preempt " + p->second);
  if (auto u = config.cost_overrides.find("update_curr"); u != config.cost_overrides.end())
    r.given.push_back("--update-curr " + u->second);
  for (const auto& s : m.slices) r.given.push_back("--slice " + s);
  return r;
}

// One replay; throws nothing for an incomplete run (the caller decides). A trace replay charges
// no switch or refill cost its recorded times contain (CostModel::for_input). A trace's slices
// were applied when it was loaded; a generated workload gets them each time it is regenerated.
RunResults replay(const Loaded& t, const Topology& topo, const ReplaySettings& rs, const CostModel& cost,
                  bool& complete) {
  RunConfig config;
  PolicyStack policies = build_policy_stack(rs.kernel, {}, {}, config);
  Workload regenerated;
  if (t.generated) {
    regenerated = generate_workload_from_spec(t.path, cost.gen_ops);
    apply_slices(regenerated, rs.slices);
  }
  const Workload& w = t.generated ? regenerated : t.w;
  // run's simulation path, without the progress bar (a fit runs hundreds of replays). Every
  // Simulation::kPollEvery events a signal or the memory budget ends the fit within
  // milliseconds, not at the end of an evaluation (one replay of a long trace takes minutes).
  MeteredRun run(w, topo, std::move(policies), cost.for_input(!t.generated), rs.sim, "never",
                 [](Instant) { poll_resources(); });
  SimSummary sum = run.run();
  complete = sum.complete;
  return run.results(config, sum);
}

int64_t bench_time(const RunResults& r) { return r.benchmark_time_ns >= 0 ? r.benchmark_time_ns : r.makespan_ns; }

double metric_weight(const Loaded& t, const MetricSpec& m) {
  if (!m.fit) return 0;
  if (std::string(m.metric) == "preempt_delay.p50_ns" && !t.rq_fit) return 0;
  return m.wake ? t.wake_weight : 1.0;
}

// Whether a trace has any metric left in the objective.
bool counts(const Loaded& t) {
  if (t.generated) return true;
  for (const auto& m : kMetrics)
    if (metric_weight(t, m) > 0) return true;
  return false;
}

// A trace's share of the objective: the weighted mean squared log-ratio over its fitted metrics;
// a generated workload's: that of its benchmark time.
double score(const Loaded& t, const RunResults& r) {
  if (t.generated)
    return log_ratio_sq(static_cast<double>(bench_time(r)), static_cast<double>(t.bench_obs_ns), true);
  double s = 0, n = 0;
  for (const auto& m : kMetrics) {
    const double w = metric_weight(t, m);
    if (w <= 0) continue;
    const Comparison* c = find_cmp(r, m.metric);
    if (!c) continue;
    s += w * robust_loss(log_ratio_sq(c->simulated, c->observed, m.time));
    n += w;
  }
  return n > 0 ? s / n : 0.0;
}

// Every check calibrate makes on a trace on its own before fitting, in the order calibrate
// reports them: `refusals` gets one entry per failed check (empty: the trace can be fitted). A
// native workload stops the checks (it has no observed figures to check). load_trace() throws the
// first; `calibrate --check-only` lists them all, so the two cannot disagree.
// With --smt-normalize (extract.smt_siblings set) the import is checked as run checks it
// (check_smt_normalisation(): a header with more CPUs than -t is an error; fewer, or nothing
// normalised, says the trace probably comes from another machine), its notes into `notes`.
Loaded check_trace(const std::string& path, const traces::ExtractOptions& extract,
                   std::vector<TraceRefusal>& refusals, std::vector<std::string>* notes = nullptr) {
  traces::ImportReport rep;
  Loaded t;
  t.path = path;
  t.w = load_workload_input(path, "", extract, &rep);
  const std::string why = "calibrate needs a kernel trace with enough scheduler events to fit";
  if (rep.path.empty() || !t.w.observed.present) {
    refusals.push_back({"not-a-trace", "not a kernel trace",
                        "not a kernel trace (a native workload has no observed figures to fit): " + why, 0});
    return t;
  }
  t.header_cpus = rep.header_cpus;
  if (!extract.smt_siblings.empty()) {
    std::vector<std::string> caveats;
    check_smt_normalisation(rep, extract, t.w, caveats);
    if (notes)
      for (const auto& c : caveats) notes->push_back(path + ": " + c);
  }
  if (!rep.lost.empty())
    refusals.push_back({"lost-events", "lost events",
                        fmt::format("cannot fit a trace with lost events ({} window(s), the first at this line): its "
                                    "observed figures are incomplete; re-record with a larger buffer",
                                    rep.lost.size()),
                        static_cast<long>(rep.lost.front().line)});
  if (!rep.conservation_ok)
    refusals.push_back({"not-conserved", "import not conserved",
                        "cannot fit: the import did not conserve the trace's on-CPU time (see `schedsim trace info`), "
                        "so a replay cannot reproduce it",
                        0});
  const ObservedStats& o = t.w.observed;
  if (o.span.count() < kCalibrateMinSpanNs)
    refusals.push_back({"too-short", fmt::format("{}, under {} ms", format_duration(o.span), kCalibrateMinSpanNs / 1000000),
                        fmt::format("too short to fit: the selected tasks span {:.3f} ms, at least {} ms are needed",
                                    static_cast<double>(o.span.count()) / 1e6, kCalibrateMinSpanNs / 1000000),
                        0});
  if (o.wakeups < kCalibrateMinWakeups)
    refusals.push_back({"too-few-wakeups", fmt::format("{} wakeups, under {}", o.wakeups, kCalibrateMinWakeups),
                        fmt::format("too few wakeups to fit: {} observed, at least {} are needed (a p99 of fewer "
                                    "samples is their maximum); select more tasks or record longer",
                                    o.wakeups, kCalibrateMinWakeups),
                        0});
  t.rq_fit = o.runqueue_wait.count() >= kCalibrateMinRqSamples;
  // The machine's idle wakes, measured over all the trace's tasks (traces/import: by how long the
  // target had been idle): under 50 us (bins 0-1), 200 us or more (bins 3-4), and all.
  const auto& b = rep.idle_wake.by_idle;
  for (size_t i = 0; i < 5; ++i) {
    auto& dst = i < 2 ? t.idle_short : t.idle_long;
    if (i != 2) dst.insert(dst.end(), b[i].begin(), b[i].end());
    t.idle_all.insert(t.idle_all.end(), b[i].begin(), b[i].end());
  }
  return t;
}

InputError refusal_error(const std::string& path, const TraceRefusal& r) {
  return InputError(SourceLoc{path, r.line}, r.message);
}

// A trace calibrate fits: the first failed check of check_trace() is the error.
// The import options of calibrate's traces. A trace's on-CPU time already ran at its recording
// machine's co-run rate: with --smt-normalize (the traces recorded on -t, the machine whose costs
// are fitted) the time during which an SMT sibling was busy becomes reference work at -t's
// starting smt_corun_permille, as run --smt-normalize does (docs/model.md "SMT normalisation
// of recorded on-CPU time"); without it on an SMT machine every replay slows that time a second
// time, and `notes` (when given) gets the warning.
traces::ExtractOptions calibrate_extract(const CalibrateRequest& req, const Topology& topo, const CostModel& base,
                                         bool generated, std::vector<std::string>* notes) {
  traces::ExtractOptions extract = req.extract;
  // A preemption model other than full acts on the runs a trace's syscall events mark, as in
  // run (docs/model.md "Syscall marks in plain replays").
  if (req.model.preempt && *req.model.preempt != "full") extract.syscall_marks = true;
  if (req.smt_normalize) {
    if (generated)
      throw InputError(SourceLoc{"--smt-normalize"}, "normalises a kernel trace's on-CPU time; --workload-gen has no "
                                                     "recorded time");
    if (!topo.has_smt())
      throw InputError(SourceLoc{"--smt-normalize"},
                       fmt::format("the topology {} has no SMT siblings: there is no co-run time to normalise",
                                   topo.name()));
    set_smt_siblings(topo, base.smt_corun_permille, topo.name() + " (-t)", extract);
  } else if (!generated && notes && topo.has_smt() && base.smt_corun_permille < 1000) {
    notes->push_back(fmt::format(
        "warning: {} has SMT siblings: if the traces were recorded there, their on-CPU times already hold the co-run "
        "slowdown and every replay of the fit applies it again ({} permille while a sibling is busy), which the "
        "fitted costs then absorb; add --smt-normalize (docs/model.md \"SMT normalisation of recorded on-CPU "
        "time\")",
        topo.name(), base.smt_corun_permille));
  }
  return extract;
}

Loaded load_trace(const std::string& path, const traces::ExtractOptions& extract, const ReplaySettings& rs,
                  std::vector<std::string>* notes = nullptr) {
  std::vector<TraceRefusal> refusals;
  Loaded t = check_trace(path, extract, refusals, notes);
  if (!refusals.empty()) throw refusal_error(path, refusals.front());
  apply_slices(t.w, rs.slices);
  return t;
}

std::string param_text(const std::string& name, double v) {
  if (is_permille(name)) return fmt::format("{}", std::llround(v));
  return format_duration(Duration::ns(std::llround(v)));
}

// --prior: name=value or cost files. A file may hold other settings (idle_wake, parameters not
// fitted): those are not priors; a fitted parameter's value must lie in its plausible range.
std::map<std::string, Prior> parse_priors(const std::vector<std::string>& specs, const std::set<std::string>& fitted,
                                          std::vector<std::string>& notes) {
  std::map<std::string, Prior> out;
  for (const auto& spec : specs) {
    if (spec == "start") continue;  // handled by the caller: the start values
    CostModel tmp;
    std::vector<std::string> keys;
    const size_t eq = spec.find('=');
    if (eq != std::string::npos) {
      const std::string key = spec.substr(0, eq);
      bool known = false;
      for (const auto& r : calibration_ranges()) known = known || key == r.name;
      if (!known || is_gen_cost(key)) {
        std::vector<std::string> names;
        for (const auto& r : calibration_ranges())
          if (!is_gen_cost(r.name)) names.emplace_back(r.name);
        throw InputError(SourceLoc{"--prior"}, unknown_choice_message("parameter with a prior", key, names));
      }
      tmp.set(spec, "--prior");
      keys.push_back(key);
    } else {
      // The names the file set, from the cost model's own parse: this target's JSON type is not
      // json_input.hpp's (JSON_DIAGNOSTICS), so a json value must not cross into it.
      const std::vector<std::string> in_file = tmp.load_json_file(spec);
      for (const auto& r : calibration_ranges())
        if (!is_gen_cost(r.name) && std::find(in_file.begin(), in_file.end(), r.name) != in_file.end())
          keys.emplace_back(r.name);
    }
    for (const auto& key : keys) {
      const CalibrationRange& r = range_of(key);
      const double v = std::stod(tmp.get(key));
      if (v < r.lo || v > r.hi)
        throw InputError(SourceLoc{"--prior"}, fmt::format("{} = {} is outside its plausible range {} - {} "
                                                           "(docs/calibrate.md): a measurement there means the "
                                                           "model does not describe this machine",
                                                           key, param_text(key, v), param_text(key, r.lo),
                                                           param_text(key, r.hi)));
      if (!fitted.count(key)) {
        notes.push_back(fmt::format("prior {} = {} ({}) not used: {} is not fitted", key, param_text(key, v),
                                    eq != std::string::npos ? "--prior " + spec : spec, key));
        continue;
      }
      Prior p;
      p.value = v;
      p.source = "given: --prior " + spec;
      out[key] = p;
    }
  }
  return out;
}

// The machine's cost profile, then the starting point given (as run does).
CostModel start_cost_model(const CalibrateRequest& req, const Topology& topo) {
  CostModel base = build_cost_model(req.costs, topo, nullptr);
  if (!base.idle_wake_set && req.topology == "host" && is_kvm_guest()) {
    base.idle_wake = IdleWakeMode::kVmHaltPoll;
    base.idle_wake_set = true;
  }
  return base;
}

// Why a trace's wake metrics count less than fully (banked_weight() < 1); "" at full weight.
std::string weight_reason(double wake_weight, uint64_t banked, uint64_t replayed) {
  if (wake_weight >= 1) return "";
  const double share = static_cast<double>(banked) / static_cast<double>(replayed);
  return wake_weight == 0
             ? fmt::format("its makespan, wakeups and wake latency are excluded from the fit: the start replay banked "
                           "{} of the {} wakes it replayed ({:.0f}%, at least {:.0f}%) as tokens (the wakee not yet "
                           "blocked where the trace blocks it), so they describe that missing mechanism, not the costs",
                           banked, replayed, 100 * share, 100 * kBankedExclude)
             : fmt::format("its makespan, wakeups and wake latency weigh {:.2f} in the fit: the start replay banked {} of "
                           "the {} wakes it replayed ({:.0f}%) as tokens; they count for the share replayed as wakes",
                           wake_weight, banked, replayed, 100 * share);
}

// A trace's report rows: observed, simulated at the start and with the fitted costs, per metric.
TraceFit make_trace_fit(const Loaded& t, const RunResults& start, const RunResults& fitted) {
  TraceFit tf;
  tf.path = t.path;
  tf.observed_wakeups = t.w.observed.wakeups;
  tf.span_ms = static_cast<double>(t.w.observed.span.count()) / 1e6;
  tf.start_score = score(t, start);
  tf.fitted_score = score(t, fitted);
  tf.banked_at_start = start.tokens_banked;
  tf.replayed_at_start = replayed_wakes(start);
  tf.wake_weight = t.wake_weight;
  tf.weight_reason = weight_reason(tf.wake_weight, tf.banked_at_start, tf.replayed_at_start);
  if (t.generated) {
    tf.span_ms = static_cast<double>(t.bench_obs_ns) / 1e6;
    const auto obs = static_cast<double>(t.bench_obs_ns);
    tf.metrics.push_back({"benchmark time", obs, static_cast<double>(bench_time(start)),
                          static_cast<double>(bench_time(fitted)), true, 1.0, "", 100.0});
    tf.metrics.push_back({"makespan", 0, static_cast<double>(start.makespan_ns), static_cast<double>(fitted.makespan_ns),
                          false, 0.0, ""});
    tf.metrics.push_back({"wakeups", 0, static_cast<double>(start.placement.wakeups),
                          static_cast<double>(fitted.placement.wakeups), false, 0.0, ""});
    return tf;
  }
  for (const auto& m : kMetrics) {
    const Comparison* a = find_cmp(start, m.metric);
    const Comparison* b = find_cmp(fitted, m.metric);
    if (!a || !b) continue;
    MetricFit mf;
    mf.metric = m.label;
    mf.observed = b->observed;
    mf.start = a->simulated;
    mf.fitted = b->simulated;
    mf.weight = metric_weight(t, m);
    mf.in_objective = mf.weight > 0;
    mf.note = b->note.empty() ? "" : ">=";
    mf.floor = m.time ? 100.0 : 1.0;
    if (mf.in_objective && log_ratio_sq(a->simulated, a->observed, m.time) > 1)
      tf.damped.push_back(fmt::format("{} {:.3g}x the observed at the start", m.label,
                                      std::max(a->simulated, m.time ? 100.0 : 1.0) /
                                          std::max(a->observed, m.time ? 100.0 : 1.0)));
    tf.metrics.push_back(mf);
  }
  return tf;
}

// The per-metric table of one trace (the fit report and the cross-validation).
std::string render_trace_rows(const TraceFit& t, const char* start_label, const char* fitted_label) {
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
  std::string out = fmt::format("  {:<24} {:>12} {:>12} {:>9} {:>12} {:>9}  {}\n", "metric", "observed", start_label,
                                "err", fitted_label, "err", "weight");
  for (const auto& m : t.metrics)
    out += fmt::format("  {:<24} {:>12} {:>12} {:>9} {:>12} {:>9}  {}\n", m.metric,
                       m.observed == 0 && !m.in_objective ? std::string("-") : m.note + val(m.metric, m.observed),
                       val(m.metric, m.start), err(m.start, m.observed), val(m.metric, m.fitted),
                       err(m.fitted, m.observed), !m.in_objective ? std::string("-") : fmt::format("{:.2f}", m.weight));
  return out;
}

// calibrate() and, with `check`, calibrate --check-only: one path, so that the check makes exactly
// the checks the fit makes. With `check` a trace's refusal is recorded there instead of thrown,
// the refused traces are left out of what follows, and it returns before the fit. The phases, in
// order: the request's checks, the parameters and their ranges, the traces, the priors, the start
// replay (which refuses traces that do not complete and weighs the banked ones), the
// identifiability probes, the search, the fitted replays.
class Calibration {
 public:
  Calibration(const CalibrateRequest& req, CalibrateCheck* check)
      : req_(req), check_(check), generated_(!req.workload_gen.empty()), topo_(check_request(req)) {}

  CalibrateResult run() {
    settings_ = replay_settings(req_);
    if (!settings_.given.empty()) {
      std::string given;
      for (const auto& g : settings_.given) given += (given.empty() ? "" : " ") + g;
      res_.notes.push_back("note: every replay of the fit runs with " + given + ", as run would");
    }
    res_.generated = generated_;
    res_.budget = req_.max_evals;
    res_.kernel = req_.kernel;
    res_.seed = req_.seed;
    base_ = start_cost_model(req_, topo_);
    base_ipi_ = std::stod(base_.get("ipi_same_package"));
    res_.topology = topo_.name();
    extract_ = calibrate_extract(req_, topo_, base_, generated_, &res_.notes);
    {
      RunConfig probe;  // the kernel name is checked before the traces are read
      build_policy_stack(req_.kernel, {}, {}, probe);
    }
    if (generated_) {
      Loaded g;
      g.path = req_.workload_gen;
      g.generated = true;
      g.bench_obs_ns = req_.benchmark_time_ns;
      g.w = generate_workload_from_spec(req_.workload_gen, base_.gen_ops);
      check_slices(settings_.slices, g.w);
      loaded_.push_back(std::move(g));
    }
    choose_params();
    load_traces();
    if (!generated_) set_priors();
    for (size_t i = 0; i < sp_.size(); ++i) active_.push_back(i);
    x0_.reserve(sp_.size());
    for (const auto& p : sp_) x0_.push_back(p.start);
    replay_start();
    if (check_) {
      record_check();
      return res_;
    }
    if (counted_ == 0) throw InputError(kExcludedAll);
    if (!generated_) find_identifiable();
    search();
    finish();
    return res_;
  }

 private:
  static constexpr const char* kExcludedAll =
      "calibrate: every trace's fitted metrics are excluded (their replays bank at least half of the wakes as tokens, "
      "see the report's reasons): nothing to fit on; add traces whose wakes replay";

  // The checks that need nothing loaded; returns the machine (-t).
  static Topology check_request(const CalibrateRequest& req) {
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
    return load_topology(req.topology);
  }

  // The parameters to fit (--fit, else the generator's costs or the defaults), each checked
  // against the input and given its range; for a generated workload the one common factor.
  void choose_params() {
    std::vector<std::string> names = req_.fit;
    if (names.empty() && generated_) {
      auto used = loaded_[0].w.meta.find("gen_cost_params");
      if (used == loaded_[0].w.meta.end())
        throw InputError(SourceLoc{"--workload-gen"}, "this generator has no per-operation costs to fit (docs/calibrate.md "
                                                      "lists them); give --fit");
      std::istringstream in(used->second);
      for (std::string n; std::getline(in, n, ',');) names.push_back(n);
    }
    if (names.empty())
      names = default_fit_params(topo_.nr_packages() > 1, base_.idle_wake,
                                 base_.replay_overheads == ReplayOverheads::kCharged);
    if (generated_ && !req_.priors.empty())
      throw InputError(SourceLoc{"--prior"}, "applies to traces: a generated workload's parameters move by one common "
                                             "factor fitted to one benchmark time");
    if (!(req_.prior_weight >= 0) || !std::isfinite(req_.prior_weight))
      throw InputError(SourceLoc{"--prior-weight"}, fmt::format("expected a finite weight >= 0, got {}", req_.prior_weight));
    res_.prior_weight = req_.prior_weight;
    for (const auto& n : names) add_param(n, names.size());
    given_ = parse_priors(req_.priors, seen_, res_.notes);
    // One benchmark time determines one degree of freedom: a generated workload's parameters move
    // together, by one factor kept inside every parameter's range.
    if (generated_) {
      double lo = 0, hi = std::numeric_limits<double>::infinity();
      for (const auto& p : res_.params) {
        lo = std::max(lo, p.lo / p.start);
        hi = std::min(hi, p.hi / p.start);
      }
      if (!(lo < hi))
        throw InputError(SourceLoc{"--fit"}, "the parameters' ranges leave no common factor to fit (start them closer "
                                             "with --cost)");
      sp_ = {{"factor", lo, hi, std::clamp(1.0, lo, hi)}};
    }
  }

  // One parameter of `count` to fit, checked against the input, with its range and start.
  void add_param(const std::string& n, size_t count) {
    const CalibrationRange& r = range_of(n);
    if (!seen_.insert(n).second) throw InputError(SourceLoc{"--fit"}, "parameter '" + n + "' given twice");
    const bool gen_param = is_gen_cost(n);
    if (generated_ && !gen_param && count > 1)
      throw InputError(SourceLoc{"--fit"}, "'" + n + "' is not a generator cost: with --workload-gen the parameters move by "
                                           "one common factor, so fit it alone (--fit " + n + ")");
    if (!generated_ && gen_param)
      throw InputError(SourceLoc{"--fit"}, "'" + n + "' is a generator cost: a trace replay does not use it (fit it with "
                                           "--workload-gen SPEC --benchmark-time T)");
    if (!generated_ && n == "smt_corun_permille")
      throw InputError(SourceLoc{"--fit"}, "'smt_corun_permille' cannot be fitted on traces: their on-CPU times already "
                                           "ran at the recording machine's co-run rate, so a replay applying the rate "
                                           "again would fit it to cancel that double count (and one normalised with "
                                           "--smt-normalize cancels it by construction); fit it with --workload-gen "
                                           "SPEC --benchmark-time T");
    if (!generated_ &&
        ((base_.replay_overheads != ReplayOverheads::kCharged && n == "context_switch") ||
         (base_.replay_overheads == ReplayOverheads::kRecorded && n.rfind("refill_", 0) == 0)))
      throw InputError(SourceLoc{"--fit"}, "'" + n + "' has no effect on a trace replay: the recorded on-CPU times "
                                           "already contain it (replay_overheads=" + base_.get("replay_overheads") +
                                           ", docs/calibrate.md); fit "
                                           "it on a generated workload, or with -c replay_overheads=charged");
    double start = std::stod(base_.get(n));
    raw_start_.push_back(start);
    FittedParam fp;
    fp.name = n;
    fp.lo = fp.search_lo = r.lo;
    fp.hi = fp.search_hi = r.hi;
    fp.start = std::clamp(start, r.lo, r.hi);
    fp.unit = is_permille(n) ? "permille" : "ns";
    fp.source = r.source;
    res_.params.push_back(std::move(fp));
  }

  // calibrate fits the costs of -t from traces recorded on it: a trace from a machine with another
  // CPU count (its header's, or more CPUs seen than -t has) measured another machine, as run's
  // note says of its observed figures; fitted to it, -t's costs would absorb the difference.
  void note_other_machine(const Loaded& t) {
    const int64_t cpus = topo_.nr_cpus();
    const int64_t traced = traced_cpus(t.header_cpus, t.w);
    if (traced <= 0 || traced == cpus) return;
    const std::string which = t.header_cpus > 0
                                  ? fmt::format("comes from a {}-CPU machine (its header)", traced)
                                  : fmt::format("shows events on {} CPUs (no CPU count in its header)", traced);
    res_.notes.push_back(fmt::format("{}: warning: the trace {} and {} has {}: calibrate fits the costs of the "
                                     "machine the traces were recorded on (-t); if this trace comes from another "
                                     "machine, the fitted costs absorb the difference",
                                     t.path, which, topo_.name(), cpus));
  }

  void load_traces() {
    for (const auto& p : req_.traces) {
      if (!check_) {
        loaded_.push_back(load_trace(p, extract_, settings_, &res_.notes));
        note_other_machine(loaded_.back());
        continue;
      }
      TraceCheck tc;
      tc.path = p;
      Loaded t = check_trace(p, extract_, tc.refusals, &res_.notes);
      if (t.w.observed.present) note_other_machine(t);
      if (tc.refusals.empty()) {
        apply_slices(t.w, settings_.slices);
        loaded_.push_back(std::move(t));
        check_index_.push_back(check_->traces.size());
      }
      check_->traces.push_back(std::move(tc));
    }
  }

  // Priors: --prior first; else the idle exit measured from the training traces' own idle wakes
  // (the model's wake to an idle CPU is the IPI plus the exit, docs/calibrate.md).
  void set_priors() {
    const bool prior_start = std::find(req_.priors.begin(), req_.priors.end(), "start") != req_.priors.end();
    const double ipi = std::stod(base_.get("ipi_same_package"));
    for (size_t i = 0; i < res_.params.size(); ++i)
      if (res_.params[i].name == "ipi_same_package") ipi_index_ = static_cast<int>(i);
    auto pooled = [&](std::vector<int64_t> Loaded::*field) {
      std::vector<int64_t> v;
      for (const auto& t : loaded_) v.insert(v.end(), (t.*field).begin(), (t.*field).end());
      return v;
    };
    for (size_t i = 0; i < res_.params.size(); ++i) {
      FittedParam& p = res_.params[i];
      if (auto g = given_.find(p.name); g != given_.end()) {
        p.prior = g->second;
      } else if (base_.idle_wake == IdleWakeMode::kVmHaltPoll && p.name == "idle_exit_polled") {
        p.prior = measured_prior(pooled(&Loaded::idle_short), ipi, p.lo, p.hi, "remote wakes to a CPU idle under 50 us");
      } else if (base_.idle_wake == IdleWakeMode::kVmHaltPoll && p.name == "idle_exit_halted") {
        p.prior = measured_prior(pooled(&Loaded::idle_long), ipi, p.lo, p.hi, "remote wakes to a CPU idle 200 us or more");
      } else if (base_.idle_wake == IdleWakeMode::kConstant && p.name == "idle_exit") {
        p.prior = measured_prior(pooled(&Loaded::idle_all), ipi, p.lo, p.hi, "remote wakes to an idle CPU");
      }
      if (!p.prior && prior_start) {
        Prior st;
        st.value = p.start;
        st.source = "--prior start: the starting value (-c, else the machine's cost profile)";
        p.prior = st;
      }
      if (p.prior && p.prior->hi > p.prior->lo) {
        p.search_lo = p.prior->lo;
        p.search_hi = p.prior->hi;
      }
      p.start = std::clamp(raw_start_[i], p.search_lo, p.search_hi);
    }
    // A measured exit with the IPI fitted too: the samples fix the sum, so the exit's box is what
    // the IPI's box leaves of the wake's range (the sum is checked in the objective).
    for (auto& p : res_.params) {
      if (!p.prior || p.prior->wake_value <= 0 || ipi_index_ < 0) continue;
      const FittedParam& q = res_.params[static_cast<size_t>(ipi_index_)];
      p.search_lo = std::max(p.lo, p.prior->wake_lo - q.search_hi);
      p.search_hi = std::min(p.hi, p.prior->wake_hi - q.search_lo);
    }
    for (const auto& p : res_.params) sp_.push_back({p.name, p.search_lo, p.search_hi, p.start});
  }

  // Every searched parameter's value: `x` over active_ (indices into sp_), the others at their start.
  std::vector<double> full_point(const std::vector<double>& x) const {
    std::vector<double> all;
    all.reserve(sp_.size());
    for (const auto& p : sp_) all.push_back(p.start);
    for (size_t k = 0; k < active_.size(); ++k) all[active_[k]] = x[k];
    return all;
  }

  CostModel model_for(const std::vector<double>& all) const {
    CostModel c = base_;
    if (generated_) {
      for (const auto& p : res_.params) set_param(c, p.name, p.start * all[0]);
      return c;
    }
    for (size_t i = 0; i < sp_.size(); ++i) set_param(c, sp_[i].name, all[i]);
    return c;
  }

  double ipi_at(const std::vector<double>& all) const {
    return ipi_index_ >= 0 ? all[static_cast<size_t>(ipi_index_)] : base_ipi_;
  }

  double penalty(const std::vector<double>& all) const {
    double pen = 0;
    if (generated_) return pen;
    for (size_t i = 0; i < res_.params.size(); ++i) {
      const auto& pr = res_.params[i].prior;
      if (!pr) continue;
      if (pr->wake_value > 0)  // measured: on the wake the samples measured, IPI + exit
        pen += prior_penalty(all[i] + ipi_at(all), pr->wake_value, req_.prior_weight);
      else
        pen += prior_penalty(all[i], pr->value, req_.prior_weight);
    }
    return pen;
  }

  // Outside a measured wake's range (IPI + exit), a candidate contradicts the samples.
  bool feasible(const std::vector<double>& all) const {
    if (generated_) return true;
    for (size_t i = 0; i < res_.params.size(); ++i) {
      const auto& pr = res_.params[i].prior;
      if (!pr || pr->wake_value <= 0) continue;
      const double wake = all[i] + ipi_at(all);
      if (wake < pr->wake_lo - 0.5 || wake > pr->wake_hi + 0.5) return false;
    }
    return true;
  }

  double data_objective(const std::vector<RunResults>& rs) const {
    double total = 0;
    for (size_t i = 0; i < loaded_.size(); ++i)
      if (counts(loaded_[i])) total += score(loaded_[i], rs[i]);
    return total / static_cast<double>(counted_);
  }

  // Replays every trace with `all`; nullopt when one does not complete.
  std::optional<std::vector<RunResults>> replay_all(const std::vector<double>& all) const {
    CostModel c = model_for(all);
    std::vector<RunResults> rs;
    for (const auto& t : loaded_) {
      bool complete = false;
      rs.push_back(replay(t, topo_, settings_, c, complete));
      if (!complete) return std::nullopt;
    }
    return rs;
  }

  // The start point must replay completely: a trace that does not is refused, not fitted. Wake
  // metrics of a trace whose replay banks its wakes as tokens describe the banking (a missing
  // mechanism: the wakee's block is fixed at its recorded point), not the costs.
  void replay_start() {
    CostModel c = model_for(x0_);
    std::vector<Loaded> kept;
    std::vector<size_t> kept_index;
    for (size_t i = 0; i < loaded_.size(); ++i) {
      bool complete = false;
      RunResults r = replay(loaded_[i], topo_, settings_, c, complete);
      if (!complete) {
        const TraceRefusal refusal{"replay-incomplete", "replay incomplete",
                                   "cannot fit: its replay does not complete (`schedsim run` on it says why: tasks "
                                   "blocked forever or wake tokens never consumed)",
                                   0};
        if (!check_) throw refusal_error(loaded_[i].path, refusal);
        check_->traces[check_index_[i]].refusals.push_back(refusal);
        continue;
      }
      start_results_.push_back(std::move(r));
      kept.push_back(std::move(loaded_[i]));
      if (check_) kept_index.push_back(check_index_[i]);
    }
    loaded_ = std::move(kept);
    check_index_ = std::move(kept_index);
    for (size_t i = 0; i < loaded_.size(); ++i)
      if (!loaded_[i].generated)
        loaded_[i].wake_weight = banked_weight(start_results_[i].tokens_banked, replayed_wakes(start_results_[i]));
    for (const auto& t : loaded_) counted_ += counts(t) ? 1U : 0U;
  }

  void record_check() {
    for (size_t i = 0; i < loaded_.size(); ++i) {
      TraceCheck& tc = check_->traces[check_index_[i]];
      tc.wake_weight = loaded_[i].wake_weight;
      tc.counts = counts(loaded_[i]);
      tc.weight_reason =
          weight_reason(loaded_[i].wake_weight, start_results_[i].tokens_banked, replayed_wakes(start_results_[i]));
    }
    check_->used = loaded_.size();
    if (loaded_.empty()) check_->set_refusal = "calibrate: no trace can be fitted (every one is refused)";
    else if (counted_ == 0) check_->set_refusal = kExcludedAll;
  }

  // Identifiability: a parameter whose doubling and halving (inside its search range) leaves the
  // data objective unchanged within kCalibrateMinEffect cannot be told apart by these traces; the
  // search would move it along a flat valley (or by the prior alone), so it keeps its start.
  void find_identifiable() {
    const double j0 = data_objective(start_results_);
    active_.clear();
    for (size_t i = 0; i < sp_.size(); ++i) {
      double effect = 0;
      for (double f : {2.0, 0.5}) {
        std::vector<double> probe = x0_;
        probe[i] = std::clamp(x0_[i] * f, sp_[i].lo, sp_[i].hi);
        if (probe[i] == x0_[i]) continue;
        ++res_.probes;
        auto rs = replay_all(probe);
        effect = rs ? std::max(effect, std::abs(data_objective(*rs) - j0)) : std::numeric_limits<double>::infinity();
      }
      res_.params[i].effect = effect;
      res_.params[i].identifiable = effect >= kCalibrateMinEffect;
      if (res_.params[i].identifiable) active_.push_back(i);
    }
  }

  // The coordinate search over the identifiable parameters; best_ is where it ends.
  void search() {
    best_ = x0_;
    res_.start_penalty = penalty(x0_);
    if (active_.empty()) {  // nothing identifiable: the start is the answer
      res_.start_objective = res_.fitted_objective = data_objective(start_results_) + res_.start_penalty;
      res_.converged = true;
      return;
    }
    bool first = true;
    auto objective = [&](const std::vector<double>& x) {
      const std::vector<double> all = full_point(x);
      if (first) {  // the start point was just replayed
        first = false;
        return data_objective(start_results_) + penalty(all);
      }
      if (!feasible(all)) {
        ++res_.infeasible;
        return std::numeric_limits<double>::infinity();
      }
      auto rs = replay_all(all);
      if (!rs) {
        ++res_.rejected;
        return std::numeric_limits<double>::infinity();
      }
      return data_objective(*rs) + penalty(all);
    };
    std::vector<stats::SearchParam> asp;
    asp.reserve(active_.size());
    for (size_t k : active_) asp.push_back(sp_[k]);
    stats::SearchOptions opt;
    opt.max_evals = req_.max_evals;
    stats::SearchResult sr = stats::coordinate_search(
        asp, objective, opt, [&](uint32_t n, double b) {
          if (req_.progress) req_.progress(n, req_.max_evals, b);
        });
    res_.evals = sr.evals;
    res_.converged = sr.converged;
    res_.start_objective = sr.start_value;
    res_.fitted_objective = sr.best_value;
    best_ = full_point(sr.best);
    revert_small_moves();
  }

  // A move that buys less than kCalibrateMinEffect of objective is not kept: the fitted value
  // would then differ from the start for a gain the identifiability test calls no effect (a
  // percentile step, a rounding of one trace), which is what makes two folds disagree.
  void revert_small_moves() {
    for (size_t k : active_) {
      if (std::llround(best_[k]) == std::llround(x0_[k])) continue;  // the cost file holds whole ns
      std::vector<double> trial = best_;
      trial[k] = x0_[k];
      if (!feasible(trial)) continue;
      ++res_.probes;
      auto rs = replay_all(trial);
      if (!rs) continue;
      const double v = data_objective(*rs) + penalty(trial);
      if (v <= res_.fitted_objective + kCalibrateMinEffect) {
        res_.params[k].reverted_from = best_[k];
        res_.params[k].revert_cost = v - res_.fitted_objective;
        best_ = trial;
        res_.fitted_objective = v;
      }
    }
  }

  // The fitted costs, each trace replayed with them, and the keys the cost file holds: every
  // parameter the base set (so the file stands alone) and the fitted ones.
  void finish() {
    res_.fitted_penalty = penalty(best_);
    res_.cost = model_for(best_);
    for (auto& p : res_.params) p.fitted = std::stod(res_.cost.get(p.name));
    for (size_t i = 0; i < loaded_.size(); ++i) {
      bool complete = false;
      RunResults fitted = replay(loaded_[i], topo_, settings_, res_.cost, complete);
      res_.traces.push_back(make_trace_fit(loaded_[i], start_results_[i], fitted));
    }
    const CostModel defaults;
    if (res_.cost.idle_wake_set) res_.cost_json_keys.emplace_back("idle_wake");
    if (res_.cost.replay_overheads != ReplayOverheads::kRecorded) res_.cost_json_keys.emplace_back("replay_overheads");
    if (res_.cost.replay_wakes != ReplayWakes::kRecorded) res_.cost_json_keys.emplace_back("replay_wakes");
    for (const auto& p : CostModel::params()) {
      if (p.name == "idle_wake" || p.name == "replay_overheads" || p.name == "replay_wakes") continue;
      bool fitted = seen_.count(p.name) > 0;
      if (fitted || res_.cost.get(p.name) != defaults.get(p.name)) res_.cost_json_keys.push_back(p.name);
    }
  }

  const CalibrateRequest& req_;
  CalibrateCheck* check_;
  ReplaySettings settings_;
  const bool generated_;
  Topology topo_;
  CalibrateResult res_;
  CostModel base_;
  traces::ExtractOptions extract_;
  std::vector<Loaded> loaded_;
  std::vector<size_t> check_index_;  ///< with check_: loaded_[i] is check_->traces[check_index_[i]]
  std::set<std::string> seen_;       ///< the fitted parameters' names
  std::vector<double> raw_start_;    ///< each parameter's start before clamping into a prior's range
  std::map<std::string, Prior> given_;
  std::vector<stats::SearchParam> sp_;
  std::vector<size_t> active_;       ///< the searched parameters (indices into sp_)
  int ipi_index_ = -1;               ///< ipi_same_package among the fitted parameters
  double base_ipi_ = 0;              ///< ipi_same_package where it is not fitted
  std::vector<double> x0_, best_;
  std::vector<RunResults> start_results_;
  size_t counted_ = 0;               ///< traces whose fitted metrics count
};

CalibrateResult calibrate_or_check(const CalibrateRequest& req, CalibrateCheck* check) {
  return Calibration(req, check).run();
}

}  // namespace

CalibrateResult calibrate(const CalibrateRequest& req) { return calibrate_or_check(req, nullptr); }

CalibrateCheck check_calibrate(const CalibrateRequest& req) {
  if (!req.workload_gen.empty())
    throw InputError(SourceLoc{"--check-only"}, "applies to traces: a generated workload has no trace to check");
  CalibrateCheck c;
  c.notes = calibrate_or_check(req, &c).notes;
  return c;
}

std::string render_calibrate_check(const CalibrateCheck& c, const std::string& format) {
  auto checks = [](const TraceCheck& t) {
    std::vector<std::string> v;
    v.reserve(t.refusals.size());
    for (const auto& r : t.refusals) v.push_back(r.check);
    return v;
  };
  auto briefs = [](const TraceCheck& t) {
    std::vector<std::string> v;
    v.reserve(t.refusals.size());
    for (const auto& r : t.refusals) v.push_back(r.brief);
    return v;
  };
  if (format == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    j["traces"] = nlohmann::ordered_json::array();
    for (const auto& t : c.traces) {
      nlohmann::ordered_json tj = nlohmann::ordered_json::object();
      tj["path"] = t.path;
      tj["used"] = t.refusals.empty();
      tj["refusals"] = nlohmann::ordered_json::array();
      for (const auto& r : t.refusals) {
        nlohmann::ordered_json rj = {{"check", r.check}, {"brief", r.brief}, {"message", r.message}};
        if (r.line > 0) rj["line"] = r.line;
        tj["refusals"].push_back(rj);
      }
      if (t.refusals.empty()) {
        tj["wake_weight"] = t.wake_weight;
        tj["counts"] = t.counts;
        if (!t.weight_reason.empty()) tj["weight_reason"] = t.weight_reason;
      }
      j["traces"].push_back(tj);
    }
    j["used"] = c.used;
    j["total"] = c.traces.size();
    j["set_refusal"] = c.set_refusal.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(c.set_refusal);
    return j.dump(2) + "\n";
  }
  std::string out;
  if (format == "tsv") {
    // Tab-separated, no quoting: a path with a tab or newline cannot be written (the import
    // would not have read such a name from a manifest either); reasons are joined by "; ".
    out = "trace\tused\tchecks\treasons\n";
    for (const auto& t : c.traces)
      out += fmt::format("{}\t{}\t{}\t{}\n", t.path, t.refusals.empty() ? "yes" : "no",
                         t.refusals.empty() ? "-" : join(checks(t), ","), join(briefs(t), "; "));
    if (!c.set_refusal.empty()) out += "# set\trefused\t-\t" + c.set_refusal + "\n";
    return out;
  }
  for (const auto& t : c.traces) {
    if (t.refusals.empty()) {
      out += fmt::format("{}: used{}\n", t.path, t.weight_reason.empty() ? "" : "; " + t.weight_reason);
      continue;
    }
    out += fmt::format("{}: refused ({}):\n", t.path, join(briefs(t), "; "));
    for (const auto& r : t.refusals)
      out += fmt::format("  {}{}: {}\n", r.check, r.line > 0 ? fmt::format(" (line {})", r.line) : "", r.message);
  }
  out += fmt::format("\ncalibrate would use {} of the {} trace(s)\n", c.used, c.traces.size());
  if (!c.set_refusal.empty()) out += "and would refuse the set: " + c.set_refusal + "\n";
  return out;
}

void check_cross_validate(const CalibrateRequest& req) {
  if (!req.workload_gen.empty())
    throw InputError(SourceLoc{"--cross-validate"}, "applies to traces: a generated workload has one benchmark time, "
                                                    "nothing to leave out");
  if (req.traces.size() < 2)
    throw InputError(SourceLoc{"--cross-validate"}, fmt::format("needs at least 2 traces (got {}): each is left out of "
                                                                "one fit and replayed with the costs fitted on the others",
                                                                req.traces.size()));
}

CrossValidation cross_validate(const CalibrateRequest& req) {
  check_cross_validate(req);
  const Topology topo = load_topology(req.topology);
  const CostModel base = start_cost_model(req, topo);
  CrossValidation cv;
  double start_sum = 0, fitted_sum = 0;
  for (size_t i = 0; i < req.traces.size(); ++i) {
    HeldOutFit h;
    h.path = req.traces[i];
    CalibrateRequest sub = req;
    sub.traces.erase(sub.traces.begin() + static_cast<std::ptrdiff_t>(i));
    sub.progress = nullptr;
    CalibrateResult f;
    try {
      f = calibrate(sub);
    } catch (const InputError& e) {
      h.refused = e.message();
      cv.folds.push_back(std::move(h));
      continue;
    }
    for (const auto& p : f.params) h.fitted.emplace_back(p.name, p.fitted);
    const ReplaySettings rs = replay_settings(req);
    Loaded t = load_trace(h.path, calibrate_extract(req, topo, base, false, nullptr), rs);
    bool start_complete = false, fitted_complete = false;
    // Scored on every metric the fit uses, at full weight: the token-banking weights decide what
    // a fit may learn from a trace; the question here is whether the fitted costs move the
    // left-out trace's figures away from what the real kernel did, whatever the reason.
    RunResults start = replay(t, topo, rs, base, start_complete);
    RunResults fitted = replay(t, topo, rs, f.cost, fitted_complete);
    h.fit = make_trace_fit(t, start, fitted);
    h.counted = counts(t) && start_complete && fitted_complete;
    if (!start_complete || !fitted_complete)
      h.refused = fmt::format("its replay with the {} costs does not complete", start_complete ? "fitted" : "starting");
    if (h.counted) {
      start_sum += h.fit.start_score;
      fitted_sum += h.fit.fitted_score;
      ++cv.counted;
    }
    cv.folds.push_back(std::move(h));
  }
  if (cv.counted > 0) {
    cv.start_mean = start_sum / static_cast<double>(cv.counted);
    cv.fitted_mean = fitted_sum / static_cast<double>(cv.counted);
    cv.worse = cv.fitted_mean > cv.start_mean + kCalibrateMinEffect;
  }
  return cv;
}

std::string render_cross_validation(const CrossValidation& cv) {
  std::string out = fmt::format(
      "\ncross-validation (leave one out: each trace replayed with the costs fitted on the others, against the "
      "starting costs; score = the mean of ln(1 + ln(sim/obs)^2) over the fitted metrics at full weight, lower is "
      "better):\n");
  for (const auto& h : cv.folds) {
    std::vector<std::string> vals;
    vals.reserve(h.fitted.size());
    for (const auto& [name, v] : h.fitted) vals.push_back(name + "=" + param_text(name, v));
    if (!h.refused.empty() && h.fit.metrics.empty()) {
      out += fmt::format("\n{} left out: not fitted: {}\n", h.path, h.refused);
      continue;
    }
    out += fmt::format("\n{} left out: fitted on the others {}\n", h.path, join(vals, " "));
    if (!h.refused.empty()) out += fmt::format("  not scored: {}\n", h.refused);
    else if (!h.counted) out += "  not scored: no fitted metric\n";
    else
      out += fmt::format("  score {:.4f} with the starting costs, {:.4f} with the costs fitted without it ({}); {} of "
                         "the {} wakes it replayed banked as tokens with the starting costs\n",
                         h.fit.start_score, h.fit.fitted_score,
                         h.fit.fitted_score > h.fit.start_score + kCalibrateMinEffect   ? "worse"
                         : h.fit.fitted_score < h.fit.start_score - kCalibrateMinEffect ? "better"
                                                                                        : "equal",
                         h.fit.banked_at_start, h.fit.replayed_at_start);
    out += render_trace_rows(h.fit, "sim start", "sim held-out");
  }
  if (cv.counted == 0)
    out += "\nno left-out trace could be scored: the check says nothing about how the fit generalises\n";
  else
    out += fmt::format("\nmean held-out score over {} trace(s): {:.4f} with the starting costs, {:.4f} fitted "
                       "without them{}\n",
                       cv.counted, cv.start_mean, cv.fitted_mean, cv.worse ? " (worse)" : "");
  return out;
}

std::string cross_validation_warning(const CrossValidation& cv) {
  if (!cv.worse) return "";
  return fmt::format("the costs fitted without each trace replay it worse than the starting costs (mean held-out "
                     "score {:.4f} against {:.4f}): the fit follows these traces' noise or a mechanism the model lacks "
                     "more than the machine; read the cross-validation rows before using the cost file instead of the "
                     "starting costs",
                     cv.fitted_mean, cv.start_mean);
}

std::string fit_refusal(const CalibrateResult& r) {
  std::vector<std::string> bounds;
  for (const auto& p : r.params) {
    if (!p.identifiable || p.reverted_from > 0) continue;
    const bool prior = p.prior.has_value();
    if (p.fitted <= p.search_lo * 1.0001)
      bounds.push_back(fmt::format("{} ended at the {}lower bound {}", p.name, prior && p.search_lo > p.lo ? "prior's " : "",
                                   param_text(p.name, p.search_lo)));
    else if (p.fitted >= p.search_hi * 0.9999)
      bounds.push_back(fmt::format("{} ended at the {}upper bound {}", p.name, prior && p.search_hi < p.hi ? "prior's " : "",
                                   param_text(p.name, p.search_hi)));
  }
  if (bounds.empty()) return "";
  const double limit = r.generated ? kFitMissGenerated : kFitMissTraces;
  std::vector<std::string> misses;
  for (const auto& t : r.traces)
    for (const auto& m : t.metrics) {
      if (!m.in_objective || m.weight < 1.0 || !m.note.empty()) continue;
      const double ratio = std::max(m.fitted, m.floor) / std::max(m.observed, m.floor);
      if (ratio <= limit && ratio >= 1 / limit) continue;
      misses.push_back(fmt::format("{}{} {:+.1f}% ({:.3g}x the observed)", r.traces.size() > 1 ? t.path + ": " : "",
                                   m.metric, (ratio - 1) * 100, ratio));
    }
  if (misses.empty()) return "";
  return fmt::format("the fit failed: {} with {} still off by more than {}: {}. No value in the searched range "
                     "explains the {}, so the costs would calibrate nothing: the workload, machine or kernel profile "
                     "may not be the real run's, or the model lacks the mechanism (docs/calibrate.md \"Refusals\"); "
                     "nothing written",
                     join(bounds, ", "), r.generated ? "the benchmark time" : "a metric",
                     r.generated ? "5%" : "a factor 10", join(misses, "; "), r.generated ? "benchmark time" : "traces");
}

std::string render_cost_file(const CalibrateResult& r) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& k : r.cost_json_keys) {
    std::string v = r.cost.get(k);
    if (k == "idle_wake" || k == "replay_overheads" || k == "replay_wakes" || CostModel::is_table(k)) j[k] = v;
    else if (is_permille(k)) j[k] = std::stoll(v);
    else j[k] = v + "ns";
  }
  return j.dump(2) + "\n";
}

std::string render_calibration_report(const CalibrateResult& r) {
  std::string out;
  out += fmt::format("calibration on {}{}{}: {} evaluation(s) of {} ({}), {} candidate(s) rejected (replay incomplete)",
                     r.topology, r.kernel.empty() ? "" : ", kernel " + r.kernel,
                     r.seed == 1 ? "" : fmt::format(", seed {}", r.seed), r.evals, r.budget,
                     r.converged ? "converged" : "budget spent", r.rejected);
  if (r.infeasible > 0) out += fmt::format(", {} outside a measured wake's range", r.infeasible);
  out += "\n";
  if (r.generated)
    out += fmt::format("objective (squared log-ratio of the benchmark time; the parameters move by one common factor): "
                       "{:.4f} -> {:.4f}\n\n",
                       r.start_objective, r.fitted_objective);
  else
    out += fmt::format("objective (mean over traces of the weighted mean of ln(1 + ln(sim/obs)^2) over the fitted "
                       "metrics, plus the priors' penalty {:.4f} -> {:.4f}): {:.4f} -> {:.4f}\n\n",
                       r.start_penalty, r.fitted_penalty, r.start_objective, r.fitted_objective);
  out += fmt::format("{:<20} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10}  {}\n", "parameter", "start", "fitted", "moved",
                     "search lo", "search hi", "prior", "note");
  for (const auto& p : r.params) {
    std::string note;
    if (!p.identifiable) note = "not fitted (not identifiable)";
    else if (p.reverted_from > 0) note = "kept at start (gain under the threshold)";
    else if (p.fitted <= p.search_lo * 1.0001) note = p.search_lo > p.lo ? "at the prior's lower bound" : "at the lower bound";
    else if (p.fitted >= p.search_hi * 0.9999) note = p.search_hi < p.hi ? "at the prior's upper bound" : "at the upper bound";
    out += fmt::format("{:<20} {:>10} {:>10} {:>7} {:>10} {:>10} {:>10}  {}\n", p.name, param_text(p.name, p.start),
                       param_text(p.name, p.fitted), fmt::format("x{:.2f}", p.start > 0 ? p.fitted / p.start : 1.0),
                       param_text(p.name, p.search_lo), param_text(p.name, p.search_hi),
                       p.prior ? param_text(p.name, p.prior->value) : std::string("-"), note);
  }
  if (!r.generated) {
    out += fmt::format("\ndecisions ({} identifiability and threshold replay(s) of the set; prior weight {}):\n", r.probes,
                       r.prior_weight);
    for (const auto& p : r.params) {
      if (!p.identifiable)
        out += fmt::format("  {}: not identifiable from these traces: kept at {} (doubling and halving it moved the "
                           "objective by {:.2g}, under {:.0e})\n",
                           p.name, param_text(p.name, p.start), p.effect, kCalibrateMinEffect);
      else
        out += fmt::format("  {}: identifiable (doubling or halving it moves the objective by {:.2g})\n", p.name,
                           p.effect);
      if (p.reverted_from > 0)
        out += fmt::format("  {}: kept at {}: the fit's {:.0f} {} lowered the objective by only {:.2g} (under {:.0e})\n",
                           p.name, param_text(p.name, p.start), p.reverted_from, p.unit,
                           p.revert_cost <= 0 ? 0.0 : p.revert_cost, kCalibrateMinEffect);
      if (p.prior)
        out += fmt::format("  {}: prior {} ({}); search range {} - {} of the plausible {} - {}\n", p.name,
                           param_text(p.name, p.prior->value), p.prior->source, param_text(p.name, p.search_lo),
                           param_text(p.name, p.search_hi), param_text(p.name, p.lo), param_text(p.name, p.hi));
    }
    for (const auto& t : r.traces) {
      if (!t.weight_reason.empty()) out += fmt::format("  {}: {}\n", t.path, t.weight_reason);
      if (!t.damped.empty())
        out += fmt::format("  {}: beyond a factor e, so their pull on the costs is damped by the robust loss: {}\n",
                           t.path, join(t.damped, "; "));
    }
    for (const auto& n : r.notes) out += "  " + n + "\n";
  }
  for (const auto& t : r.traces) {
    if (r.generated)
      out += fmt::format("\n{} (benchmark time {:.2f} ms on the real machine; score {:.4f} -> {:.4f})\n", t.path,
                         t.span_ms, t.start_score, t.fitted_score);
    else
      out += fmt::format("\n{} (span {:.2f} ms, {} wakeups; {} of the {} wakes replayed banked as tokens at the start; "
                         "score {:.4f} -> {:.4f})\n",
                         t.path, t.span_ms, t.observed_wakeups, t.banked_at_start, t.replayed_at_start, t.start_score,
                         t.fitted_score);
    out += render_trace_rows(t, "sim start", "sim fitted");
  }
  return out;
}

int64_t parse_benchmark_time(const std::string& t) {
  Duration bt;
  if (t.empty() || std::isdigit(static_cast<unsigned char>(t.back())) || !parse_duration(t, bt) || bt.count() <= 0)
    throw InputError(SourceLoc{"--benchmark-time"},
                     "expected a positive duration with its unit, like 15.78s or 250ms, got '" + t + "'");
  return bt.count();
}

double parse_prior_weight(const std::string& w) {
  size_t used = 0;
  double v = -1;
  try {
    v = std::stod(w, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != w.size() || w.empty() || !std::isfinite(v) || v < 0)
    throw InputError(SourceLoc{"--prior-weight"}, "expected a finite number >= 0, got '" + w + "'");
  return v;
}

std::vector<std::string> parse_fit_list(const std::string& text) {
  std::vector<std::string> out;
  for (size_t pos = 0;;) {
    const size_t c = text.find(',', pos);
    out.push_back(text.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos) return out;
    pos = c + 1;
  }
}

void check_cost_file_output(const CalibrateRequest& req, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (output == "-" || output.empty()) throw InputError(SourceLoc{"--output"}, "expected a file name for the cost file");
  const fs::path dir = fs::path(output).parent_path().empty() ? fs::path(".") : fs::path(output).parent_path();
  if (!fs::is_directory(dir, ec)) throw InputError(SourceLoc{output}, "--output: directory '" + dir.string() + "' does not exist");
  std::vector<std::string> inputs = req.traces;
  add_spec_and_cost_files(inputs, req.workload_gen, req.costs);
  for (const auto& c : req.priors)
    if (c.find('=') == std::string::npos && c != "start") inputs.push_back(c);
  refuse_output_over_inputs(output, inputs);
}

}  // namespace schedsim::driver
