#include "run_request.hpp"

#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/random.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/metrics/ftrace_writer.hpp"
#include "schedsim/metrics/progress.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/generators.hpp"

namespace schedsim::cli {

namespace {

void check_output_path(const std::string& path, const std::string& option) {
  if (path.empty() || path == "-") return;
  namespace fs = std::filesystem;
  fs::path p(path);
  fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError(SourceLoc{path}, option + ": directory '" + dir.string() + "' does not exist");
  if (fs::is_directory(p, ec)) throw InputError(SourceLoc{path}, option + ": is a directory");
}

int64_t parse_jitter(const std::string& text, const char* flag = "--jitter") {
  double frac = parse_fraction(text, flag);
  if (frac >= 1.0) throw InputError(SourceLoc{flag}, "jitter must be below 100%, got '" + text + "'");
  return static_cast<int64_t>(frac * 1000.0 + 0.5);
}

/// "1%" for 0.01: up to two decimals, no trailing zeros.
std::string percent_text(double frac) {
  std::string t = fmt::format("{:.2f}", frac * 100.0);
  while (t.back() == '0') t.pop_back();
  if (t.back() == '.') t.pop_back();
  return t + "%";
}

/// A copy of `w` with every run() scaled by `speed` (the repetition's machine-speed factor).
Workload scaled_workload(const Workload& w, double speed) {
  Workload out = w;
  for (auto& t : out.tasks)
    for (auto& a : t.program)
      if (a.kind == ActionKind::kRun) a.arg = std::llround(static_cast<double>(a.arg) * speed);
  return out;
}

}  // namespace

std::string NoiseModel::text() const {
  std::vector<std::string> parts;
  if (speed_std > 0) parts.push_back("speed=" + percent_text(speed_std));
  if (jitter_permille > 0) parts.push_back("jitter=" + percent_text(static_cast<double>(jitter_permille) / 1000.0));
  return parts.empty() ? "none" : join(parts, ",");
}

NoiseModel parse_noise(const std::string& spec) {
  NoiseModel m;
  if (spec == "none") return m;
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string part = spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = part.find('=');
    std::string key = eq == std::string::npos ? part : part.substr(0, eq);
    std::string val = eq == std::string::npos ? std::string() : part.substr(eq + 1);
    if (key == "jitter" && !val.empty()) {
      m.jitter_permille = parse_jitter(val, "--noise");
    } else if (key == "speed" && !val.empty()) {
      // A uniform factor with this std must stay positive.
      m.speed_std = parse_fraction(val, "--noise");
      if (m.speed_std * 1.7320508075688772 >= 1.0)
        throw InputError(SourceLoc{"--noise"}, "speed std must be below 57%, got '" + val + "'");
    } else {
      throw InputError(SourceLoc{"--noise"}, "expected 'speed=S,jitter=J' (e.g. speed=1%,jitter=5%) or 'none', got '" + spec + "'");
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return m;
}

Workload load_workload_input(const std::string& input, const std::string& workload_gen,
                             const traces::ExtractOptions& extract) {
  if (!workload_gen.empty() && !input.empty())
    throw InputError("give either a WORKLOAD file or --workload-gen, not both");
  if (!workload_gen.empty()) return generate_workload_from_spec(workload_gen);
  if (input.empty()) throw InputError("no workload: give a WORKLOAD or TRACE file, or --workload-gen 'KIND opts'");
  std::error_code ec;
  if (!std::filesystem::exists(input, ec)) throw InputError(SourceLoc{input}, "no such file");
  if (std::filesystem::is_directory(input, ec)) throw InputError(SourceLoc{input}, "is a directory, expected a workload or trace file");
  if (looks_like_workload(input)) return read_workload(input);
  if (traces::is_trace_file(input)) return traces::import_trace(input, extract);
  throw InputError(SourceLoc{input, 1},
                   "not a schedsim workload (JSON/CBOR) nor a recognised kernel trace (ftrace text, "
                   "trace-cmd report, perf script; plain, gzip or zstd)");
}

PolicyStack build_policy_stack(const std::string& kernel, const std::map<std::string, std::string>& modules,
                               const std::vector<std::string>& features, RunConfig& config) {
  const PolicyRegistry& reg = builtin_registry();
  std::map<std::string, std::string> choice = default_modules();
  FeatureSet explicit_features;
  if (!kernel.empty()) {
    const KernelProfile& prof = kernel_profile(kernel);
    choice = prof.modules;
    for (const auto& [name, on] : prof.features) explicit_features.set(name, on);
  }
  for (const auto& [slot, name] : modules) choice[slot] = name;
  // A profile's flags only apply where a chosen module reads them (a profile sets SIS_PROP even
  // when the user swapped the placement module for one that has no such flag).
  std::map<std::string, bool> readable;
  for (const auto& [slot, name] : choice)
    for (const auto& f : reg.info(slot, name).features) readable[f.name] = true;
  FeatureSet fs;
  for (const auto& [name, on] : explicit_features.all())
    if (readable.count(name)) fs.set(name, on);
  for (const auto& f : features) {
    bool on = f.rfind("NO_", 0) != 0;
    std::string name = on ? f : f.substr(3);
    if (name.empty()) throw InputError(SourceLoc{"--feature"}, "empty feature name");
    fs.set(name, on);
  }
  PolicyStack st = reg.make(choice, fs);
  config.modules = st.names;
  config.features = st.features.all();
  return st;
}

namespace {

ProgressReporter::Mode progress_mode(const std::string& p) {
  return p == "always" ? ProgressReporter::Mode::kAlways
         : p == "never" ? ProgressReporter::Mode::kNever
                        : ProgressReporter::Mode::kAuto;
}

/// `run --repeat N`: N simulations of the same inputs, repetition r with seed
/// derive_seed(seed, r), its own machine-speed factor and per-run jitter (NoiseModel).
RunOutcome execute_repeats(const RunRequest& req, const Workload& w, const Topology& topo, PolicyStack first,
                           const CostModel& cost, SimConfig sim, RunConfig config) {
  NoiseModel noise = parse_noise(req.noise.empty() ? "speed=" + percent_text(kDefaultSpeedStd) + ",jitter=" +
                                                         percent_text(static_cast<double>(kDefaultJitterPermille) / 1000.0)
                                                   : req.noise);
  if (!req.jitter.empty()) noise.jitter_permille = sim.jitter_permille;
  RunOutcome out;
  for (uint32_t r = 0; r < req.repeat; ++r) {
    uint64_t seed = derive_seed(req.seed, r);
    SimConfig s = sim;
    s.seed = seed;
    s.jitter_permille = noise.jitter_permille;
    double u = SplitMix64{derive_seed(seed, 1)}.uniform();
    double speed = 1.0 + noise.speed_std * 1.7320508075688772 * (2.0 * u - 1.0);
    Workload wr = noise.speed_std > 0 ? scaled_workload(w, speed) : w;
    PolicyStack policies = r == 0 ? std::move(first) : build_policy_stack(req.kernel, req.modules, req.features, config);
    Simulation simulation(wr, topo, std::move(policies), cost, s);
    MetricsCollector metrics(wr);
    simulation.add_observer(&metrics);
    ProgressReporter progress(progress_mode(req.progress));
    simulation.add_observer(&progress);
    SimSummary summary = simulation.run();
    RunResults res = metrics.results(config, &summary);
    out.records.push_back(make_record(res, noise.text(), r, seed));
    if (r == 0) {
      out.summary = summary;
      out.results = std::move(res);
    }
  }
  std::string label = config.display_label();
  if (req.format == "json") out.rendered = render_repeat_json(out.records);
  else if (req.format == "csv") out.rendered = render_repeat_csv(out.records, label);
  else if (req.format == "jsonl") out.rendered = render_jsonl(out.records);
  else out.rendered = render_repeat_table(out.records, label);
  return out;
}

}  // namespace

RunOutcome execute_run(const RunRequest& req) {
  if (req.format != "table" && req.format != "json" && req.format != "csv" && req.format != "jsonl")
    throw InputError(SourceLoc{"--format"}, unknown_choice_message("format", req.format, {"table", "json", "csv", "jsonl"}));
  if (req.repeat == 0) throw InputError(SourceLoc{"--repeat"}, "expected at least 1 repetition");
  if (req.repeat > 1 && !req.trace_out.empty())
    throw InputError(SourceLoc{"--trace-out"}, "writes one schedule; it cannot be combined with --repeat");
  if (req.repeat == 1 && !req.noise.empty())
    throw InputError(SourceLoc{"--noise"}, "models run-to-run noise between repetitions: it needs --repeat N with N > 1");
  if (req.progress != "auto" && req.progress != "always" && req.progress != "never")
    throw InputError(SourceLoc{"--progress"}, unknown_choice_message("progress mode", req.progress, {"auto", "always", "never"}));
  check_output_path(req.output, "--output");
  check_output_path(req.trace_out, "--trace-out");
  if (!req.trace_window.empty() && req.trace_out.empty())
    throw InputError(SourceLoc{"--trace-window"}, "needs --trace-out");

  RunConfig config;
  config.label = req.label;
  config.seed = req.seed;
  CostModel cost;
  for (const auto& c : req.costs) {
    if (c.find('=') == std::string::npos) {
      cost.load_json_file(c);
      config.cost_overrides["file"] = c;
    } else {
      cost.set(c);
      config.cost_overrides[c.substr(0, c.find('='))] = c.substr(c.find('=') + 1);
    }
  }
  SimConfig sim;
  sim.seed = req.seed;
  if (!req.jitter.empty()) sim.jitter_permille = parse_jitter(req.jitter);
  sim.check_invariants_full = req.check_invariants;
  if (!req.stop_at.empty()) {
    Duration d;
    if (!parse_duration(req.stop_at, d) || d.count() <= 0)
      throw InputError(SourceLoc{"--stop-at"}, "expected a positive duration like 2s or 500ms, got '" + req.stop_at + "'");
    sim.stop_at = Instant::zero() + d;
  }
  FtraceOptions fopts;
  if (!req.trace_window.empty()) parse_trace_window(req.trace_window, fopts);

  Topology topo = load_topology(req.topology);
  PolicyStack policies = build_policy_stack(req.kernel, req.modules, req.features, config);
  Workload w = load_workload_input(req.input, req.workload_gen, req.extract);
  config.workload = w.name;
  config.workload_source = w.source;
  config.topology = topo.name();
  config.nr_cpus = topo.nr_cpus();

  if (req.repeat > 1) return execute_repeats(req, w, topo, std::move(policies), cost, sim, config);

  Simulation simulation(w, topo, std::move(policies), cost, sim);
  MetricsCollector metrics(w);
  simulation.add_observer(&metrics);
  ProgressReporter progress(progress_mode(req.progress));
  simulation.add_observer(&progress);
  std::unique_ptr<FtraceWriter> writer;
  if (!req.trace_out.empty()) {
    writer = std::make_unique<FtraceWriter>(w, fopts);
    simulation.add_observer(writer.get());
  }
  RunOutcome out;
  out.summary = simulation.run();
  out.results = metrics.results(config, &out.summary);
  if (req.format == "json") out.rendered = render_json(out.results);
  else if (req.format == "csv") out.rendered = render_csv(out.results);
  else if (req.format == "jsonl") {
    out.records.push_back(make_record(out.results, NoiseModel{0, sim.jitter_permille}.text(), 0, req.seed));
    out.rendered = render_jsonl(out.records);
  } else out.rendered = render_table(out.results, req.table_tasks);
  if (writer) out.trace_text = writer->text();
  return out;
}

}  // namespace schedsim::cli
