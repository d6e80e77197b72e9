// `schedsim calibrate`: options -> a CalibrateRequest -> calibrate() -> the cost file (atomic)
// and the fit report.
#include <cctype>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "schedsim/driver/calibrate.hpp"
#include "../command.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/error.hpp"
#include "trace_options.hpp"

namespace schedsim::cli {

namespace {

po::options_description calibrate_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("topology,t", po::value<std::string>(), "the machine the traces were recorded on: preset, topology JSON, sysfs dir, lscpu -p file, or 'host' (required)")
      ("kernel,k", po::value<std::string>(), "kernel profile to replay with ('host' = the running kernel's); default modules when absent")
      ("output,o", po::value<std::string>(), "the fitted cost file to write (atomically; required, except with --check-only)")
      ("cost,c", po::value<std::vector<std::string>>()->composing(), "starting point: name=value or a cost file, repeatable (e.g. idle_wake=vm-halt-poll); kept in the output")
      ("fit", po::value<std::string>(), "comma-separated parameters to fit (default on traces: the IPI costs, the idle exit of the idle-wake model, context_switch with -c replay_overheads=charged; on --workload-gen: the generator's per-operation costs)")
      ("workload-gen", po::value<std::string>(), "instead of traces: a generator spec as run takes it, whose per-operation costs are fitted to --benchmark-time")
      ("benchmark-time", po::value<std::string>(), "with --workload-gen: the time the real program reported on the machine (e.g. 15.78s)")
      ("prior", po::value<std::vector<std::string>>()->composing(), "a measured value of a fitted parameter: name=value or a cost file (e.g. from trace info --idle-wake-costs), or 'start' (every fitted parameter without another prior: its starting value), repeatable; the fit pays --prior-weight * ln(fitted/measured)^2 to move away from it. Without it the vm-halt-poll (or constant) idle exits take their prior from the traces' own idle wakes, with the search kept in the samples' interquartile range")
      ("prior-weight", po::value<std::string>()->default_value("1"), "weight of a prior's penalty against the data objective (>= 0; 0 keeps only the measured ranges)")
      ("max-evals", po::value<uint32_t>()->default_value(200), "evaluations at most (each replays every trace once)")
      ("seed", po::value<uint64_t>()->default_value(1), "seed of every replay, as run --seed (the 6.18 profile's NI_RANDOM newidle balance draws from it); refit with other seeds to see how much a fit depends on it")
      ("smt-normalize", po::bool_switch(), "the traces were recorded on the -t machine, which has SMT: replay their on-CPU time during which a sibling was busy as work at -t's starting co-run rate (as run --smt-normalize), so the replays apply the co-run slowdown once; without it an SMT -t gets a warning")
      ("cross-validate", po::bool_switch(), "also fit once per trace without it and replay it with that fit (leave one out, at least 2 traces; as many extra fits as traces): reports each left-out trace against the starting costs and warns when the fits replay them worse")
      ("check-only", po::bool_switch(), "fit nothing, write nothing: for every TRACE, whether calibrate with these options would use it and, if not, every reason (the checks it makes before fitting: lost events, import not conserved, span under 10 ms, under 100 wakeups, a start replay that does not complete); exit 6 when it would refuse one (or the set). Not with -o or --cross-validate")
      ("format,f", po::value<std::string>(), "with --check-only: text (default), tsv (trace, used, checks, reasons) or json")
      ("progress", po::value<std::string>()->default_value("auto"), "progress on stderr: auto (if a terminal), always, never");
  {
    // run's engine settings, from the run option table: a fit under the model its costs serve.
    po::options_description g = option_group("the model every replay runs (as run's)");
    add_run_options(g, {std::string_view("jitter"), "slice", "preempt", "update-curr"});
    d.add(g);
  }
  d.add(trace_selection_options());
  return d;
}

const char* kDescription =
    "Fits cost-model parameters so that replays of TRACE... on TOPOLOGY match what the real\n"
    "kernel did in them: makespan, wakeup count, wakeup latency p50/p90/p99 and the run-queue\n"
    "wait of preempted tasks (p50, when the trace has 30 such samples). Objective: the mean over\n"
    "traces of the mean of ln(1 + ln(simulated/observed)^2) (a squared log-ratio for small misses,\n"
    "damped beyond a factor e) plus the priors' penalty; method: a deterministic coordinate\n"
    "search on a log scale with every parameter inside a documented plausible range\n"
    "(docs/calibrate.md). Writes a cost file that run (also with --workload-gen) and sweep accept,\n"
    "and prints the fit per trace and metric. Refuses traces it cannot fit: lost events, an import\n"
    "that did not conserve on-CPU time, a span under 10 ms, fewer than 100 wakeups, a replay that\n"
    "does not complete; and refuses a fit (prints it, writes nothing, exit 1) whose parameter\n"
    "ended at a bound while the benchmark time is still more than 5% off, or a trace's metric\n"
    "a factor 10.\n"
    "To generalise beyond its traces: a parameter measured directly (--prior, or the idle exits\n"
    "from the traces' own idle wakes) is held near its measurement; a parameter whose doubling and\n"
    "halving does not move the objective is not fitted (\"not identifiable\"); a trace whose replay\n"
    "banks 10% or more of its wakes as tokens has its makespan, wakeup and latency metrics\n"
    "down-weighted (excluded from 50%). The report says each decision and why.\n"
    "With --workload-gen SPEC --benchmark-time T it fits the generator's per-operation costs\n"
    "(one common factor) so that the simulated benchmark time on TOPOLOGY is T, the time the\n"
    "real program reported on that machine.\n"
    "With --check-only it fits nothing and writes nothing: it makes the checks above on every\n"
    "TRACE (with the same options: selection, background, topology, starting costs) and prints,\n"
    "per trace, whether calibrate would use it and every reason it would not; exit 0 when it\n"
    "would use them all, 6 when it would refuse one of them or the set.\n"
    "With --cross-validate it also checks the fit on traces it did not see: each trace is left out\n"
    "of one fit with the same options and replayed with that fit's costs; a warning says when\n"
    "those replays are worse than with the starting costs (the cost file is still written).\n\n"
    "examples:\n"
    "  schedsim calibrate a.trace.gz b.trace.gz -t lscpu-p.txt --kernel 6.18 --comm loadgen -o costs.json\n"
    "  schedsim calibrate t.trace.gz -t host --kernel host -c idle_wake=vm-halt-poll -o host-costs.json\n"
    "  schedsim run t2.trace.gz -t host --kernel host -c host-costs.json\n"
    "  schedsim calibrate set/*.ftrace.gz -t set/lscpu-p.txt --background-comm '^schedsim$' \\\n"
    "      --check-only -f tsv\n"
    "  schedsim calibrate --workload-gen 'messaging -p -T -g 4 -l 50000' --benchmark-time 15.78s \\\n"
    "      -t xeon-e5-2690v2 --kernel 4.17 -o xeon-msg.json";

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t c = text.find(',', pos);
    out.push_back(text.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

}  // namespace

std::string help_calibrate() {
  return format_help("schedsim calibrate TRACE...|--workload-gen SPEC --benchmark-time T -t TOPOLOGY [--kernel V] -o COSTS.json|--check-only [options]", kDescription,
                     calibrate_options());
}

int run_calibrate(const std::vector<std::string>& args) {
  po::options_description d = calibrate_options();
  d.add_options()("input", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_calibrate)) return kExitOk;
  if (!vm.count("input") && !vm.count("workload-gen"))
    throw po::error("give at least one TRACE to calibrate on, or --workload-gen SPEC --benchmark-time T");
  if (!vm.count("topology")) throw po::error("--topology is required: the machine the traces were recorded on");
  const bool check_only = vm["check-only"].as<bool>();
  if (!vm.count("output") && !check_only) throw po::error("--output is required: the cost file to write");
  const std::string progress = vm["progress"].as<std::string>();
  if (progress != "auto" && progress != "always" && progress != "never")
    throw InputError(SourceLoc{"--progress"}, unknown_choice_message("progress mode", progress, {"auto", "always", "never"}));

  CalibrateRequest req;
  if (vm.count("input")) req.traces = vm["input"].as<std::vector<std::string>>();
  if (vm.count("workload-gen")) req.workload_gen = vm["workload-gen"].as<std::string>();
  if (vm.count("benchmark-time")) {
    const std::string t = vm["benchmark-time"].as<std::string>();
    Duration bt;
    // A unit is required: hackbench prints seconds, and a bare number would be read as ns.
    if (t.empty() || std::isdigit(static_cast<unsigned char>(t.back())) || !parse_duration(t, bt) || bt.count() <= 0)
      throw InputError(SourceLoc{"--benchmark-time"},
                       "expected a positive duration with its unit, like 15.78s or 250ms, got '" + t + "'");
    req.benchmark_time_ns = bt.count();
  }
  req.topology = vm["topology"].as<std::string>();
  refuse_empty_values(vm, {"kernel", "workload-gen", "fit", "format"}, "calibrate");
  if (vm.count("kernel")) req.kernel = vm["kernel"].as<std::string>();
  if (vm.count("cost")) req.costs = vm["cost"].as<std::vector<std::string>>();
  if (vm.count("fit")) req.fit = split_commas(vm["fit"].as<std::string>());
  req.max_evals = vm["max-evals"].as<uint32_t>();
  req.seed = vm["seed"].as<uint64_t>();
  if (vm.count("prior")) req.priors = vm["prior"].as<std::vector<std::string>>();
  {
    const std::string w = vm["prior-weight"].as<std::string>();
    size_t used = 0;
    double v = -1;
    try {
      v = std::stod(w, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != w.size() || w.empty() || !std::isfinite(v) || v < 0)
      throw InputError(SourceLoc{"--prior-weight"}, "expected a finite number >= 0, got '" + w + "'");
    req.prior_weight = v;
  }
  req.extract = trace_selection(vm);
  apply_run_options(vm, req.model, {std::string_view("jitter"), "slice", "preempt", "update-curr"}, "calibrate");
  req.smt_normalize = vm["smt-normalize"].as<bool>();
  const bool cross = vm["cross-validate"].as<bool>();
  if (vm.count("format") && !check_only)
    throw InputError(SourceLoc{"--format"}, "applies to --check-only (the fit's report is text)");
  if (check_only) {
    // The check fits nothing: an output file or a cross-validation would be a fit.
    if (vm.count("output"))
      throw InputError(SourceLoc{"--output"}, "not with --check-only: the check fits nothing and writes no cost file");
    if (cross) throw InputError(SourceLoc{"--cross-validate"}, "not with --check-only: the check fits nothing");
    const std::string format = vm.count("format") ? vm["format"].as<std::string>() : "text";
    if (format != "text" && format != "tsv" && format != "json")
      throw InputError(SourceLoc{"--format"}, unknown_choice_message("format", format, {"text", "tsv", "json"}));
    const CalibrateCheck c = check_calibrate(req);
    for (const auto& n : c.notes) std::cerr << "schedsim: " << log::brief(n) << "\n";
    std::cout << render_calibrate_check(c, format);
    return c.all_usable() ? kExitOk : kExitRefused;
  }
  const std::string output = vm["output"].as<std::string>();

  // The output must not replace an input, and its directory must exist before an hour of work.
  namespace fs = std::filesystem;
  std::error_code ec;
  if (output == "-" || output.empty()) throw InputError(SourceLoc{"--output"}, "expected a file name for the cost file");
  fs::path dir = fs::path(output).parent_path().empty() ? fs::path(".") : fs::path(output).parent_path();
  if (!fs::is_directory(dir, ec)) throw InputError(SourceLoc{output}, "--output: directory '" + dir.string() + "' does not exist");
  std::vector<std::string> inputs = req.traces;
  add_spec_and_cost_files(inputs, req.workload_gen, req.costs);
  for (const auto& c : req.priors)
    if (c.find('=') == std::string::npos && c != "start") inputs.push_back(c);
  refuse_output_over_inputs(output, inputs);

  const bool show = progress == "always" || (progress == "auto" && isatty(STDERR_FILENO));
  if (show)
    req.progress = [](uint32_t n, uint32_t budget, double best) {
      if (n == 1 || n % 10 == 0 || n == budget)
        std::cerr << fmt::format("schedsim: calibrate: evaluation {}/{}, objective {:.4f}\n", n, budget, best);
    };
  if (cross) check_cross_validate(req);  // before the fit, not after it
  CalibrateResult r = calibrate(req);
  if (std::string why = fit_refusal(r); !why.empty()) {
    std::cout << render_calibration_report(r);
    throw InputError("calibrate: " + why);
  }
  std::optional<CrossValidation> cv;
  if (cross) cv = cross_validate(req);
  write_output(output, render_cost_file(r));
  std::cout << render_calibration_report(r);
  if (cv) std::cout << render_cross_validation(*cv);
  std::cout << fmt::format("\nwrote {} ({} parameter(s))\n", output, r.cost_json_keys.size());
  if (cv && cv->worse) std::cerr << "schedsim calibrate: warning: " << cross_validation_warning(*cv) << "\n";
  return kExitOk;
}

}  // namespace schedsim::cli
