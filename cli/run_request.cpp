#include "run_request.hpp"

#include <filesystem>
#include <fstream>

#include <sys/utsname.h>

#include "command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/metrics/collector.hpp"
#include "schedsim/metrics/ftrace_writer.hpp"
#include "schedsim/metrics/progress.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/topology/virt.hpp"
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

int64_t parse_jitter(const std::string& text) {
  std::string t = text;
  bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !(v >= 0))
    throw InputError(SourceLoc{"--jitter"}, "expected a fraction like 5% or 0.05, got '" + text + "'");
  double frac = pct ? v / 100.0 : v;
  if (frac >= 1.0) throw InputError(SourceLoc{"--jitter"}, "jitter must be below 100%, got '" + text + "'");
  return static_cast<int64_t>(frac * 1000.0 + 0.5);
}

}  // namespace

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

// --kernel host: the running kernel's profile (uname -r), with a warning naming the choice.
static const KernelProfile& host_kernel_profile() {
  struct utsname u;
  if (uname(&u) != 0) throw InputError(SourceLoc{"--kernel host"}, "cannot read the running kernel's release (uname)");
  std::string note;
  const KernelProfile& p = kernel_profile_for_release(u.release, note);
  log::get("cli")->warn("{}", note);
  return p;
}

PolicyStack build_policy_stack(const std::string& kernel, const std::map<std::string, std::string>& modules,
                               const std::vector<std::string>& features, RunConfig& config) {
  const PolicyRegistry& reg = builtin_registry();
  std::map<std::string, std::string> choice = default_modules();
  FeatureSet explicit_features;
  if (!kernel.empty()) {
    const KernelProfile& prof = kernel == "host" ? host_kernel_profile() : kernel_profile(kernel);
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

RunOutcome execute_run(const RunRequest& req) {
  if (req.format != "table" && req.format != "json" && req.format != "csv")
    throw InputError(SourceLoc{"--format"}, unknown_choice_message("format", req.format, {"table", "json", "csv"}));
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
  // Machine cost profile: this machine as a KVM guest gets the guest's idle-wake model unless the
  // user chose one (presets and imported files keep the constant; a cost file gives theirs).
  if (!cost.idle_wake_set && req.topology == "host" && is_kvm_guest()) {
    cost.idle_wake = IdleWakeMode::kVmHaltPoll;
    config.cost_overrides["idle_wake"] = "vm-halt-poll (host: KVM guest)";
  }
  PolicyStack policies = build_policy_stack(req.kernel, req.modules, req.features, config);
  Workload w = load_workload_input(req.input, req.workload_gen, req.extract);
  config.workload = w.name;
  config.workload_source = w.source;
  config.topology = topo.name();
  config.nr_cpus = topo.nr_cpus();

  Simulation simulation(w, topo, std::move(policies), cost, sim);
  MetricsCollector metrics(w);
  simulation.add_observer(&metrics);
  ProgressReporter progress(req.progress == "always" ? ProgressReporter::Mode::kAlways
                            : req.progress == "never" ? ProgressReporter::Mode::kNever
                                                      : ProgressReporter::Mode::kAuto);
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
  else out.rendered = render_table(out.results, req.table_tasks);
  if (writer) out.trace_text = writer->text();
  return out;
}

}  // namespace schedsim::cli
