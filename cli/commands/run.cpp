// `schedsim run`: options -> a RunRequest -> run_simulation() -> a reporter.
#include <iostream>
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "../command.hpp"
#include "../run_request.hpp"
#include "trace_options.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/engine/cost_model.hpp"
#include "schedsim/engine/cost_profile.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/traces/sched_views.hpp"
#include "trace_options.hpp"

namespace schedsim::cli {

namespace {

po::options_description run_options() {
  // Grouped for --help: the essentials first, then one section per concern.
  po::options_description d = option_group("options (the essentials)");
  d.add_options()
      ("workload-gen", po::value<std::string>(), "generate the workload instead of reading one: 'KIND [options]' (see schedsim gen list)")
      ("topology,t", po::value<std::string>(), "preset name, smpN, topology JSON, saved sysfs dir, lscpu -p file, or 'host' ('list' for the presets). Default: a trace's recording machine (a topology.json, lscpu-p.txt or sysfs/ beside the trace, else smpN for the N CPUs the trace names), anything else xeon-e5-2690v2")
      ("kernel,k", po::value<std::string>(), "set every slot and flag to a kernel version's defaults ('list' to list, 'host' = the running kernel's); a version without a profile gets the nearest at or below, with a warning; explicit options override. Without it: 6.12's modules and flags (as --kernel 6.12 gives them; results say kernel \"6.12 (default)\"). 6.18 is the 6.18.y stable kernel (NI_RANDOM newidle), 6.17 also stands for 6.18.0 (newidle cost bump)")
      ("placement", po::value<std::string>(), "placement module ('list' to list)")
      ("feature,F", po::value<std::vector<std::string>>()->composing(), "sched_feat flag X or NO_X, repeatable ('list' to list)")
      ("cost,c", po::value<std::vector<std::string>>()->composing(), "cost parameter name=value, a JSON file of them, or 'list', repeatable; idle_wake=table charges the idle exit by the target's idle time from idle_exit_table=FROM:COST,... (e.g. 0:3400ns,50us:6400ns,100us:16400ns; written by `trace info --idle-wake-costs`)")
      ("repeat", po::value<uint32_t>()->default_value(1), "repetitions with modelled run-to-run noise; prints each and their statistics (docs/compare.md)")
      ("seed", po::value<uint64_t>()->default_value(1), "seed for jitter and randomized modules (random-idle placement, NI_RANDOM newidle balance); given explicitly, it also seeds a --workload-gen generator whose spec has no --seed of its own (docs/generators.md \"Seeds\"). --repeat reuses one generated workload")
      ("output,o", po::value<std::string>()->default_value("-"), "write results here (atomically; NAME.gz gzip-compressed) instead of stdout")
      ("format,f", po::value<std::string>(), "table, json, csv, or jsonl (one record per repetition, for compare); with --repeat, csv gives each value's unit (times in ns). Default: the -o name's extension (.json, .jsonl, .csv, each also .gz), else table");
  {
    po::options_description g = option_group("policy modules (each defaults to --kernel's)");
    g.add_options()
        ("idle-cores", po::value<std::string>(), "idle-core tracking module ('list' to list)")
        ("util", po::value<std::string>(), "utilization estimation module ('list' to list)")
        ("queue", po::value<std::string>(), "run-queue module ('list' to list)")
        ("balance", po::value<std::string>(), "load-balance module ('list' to list)");
    d.add(g);
  }
  {
    po::options_description g = option_group("the model");
    g.add_options()
        ("jitter", po::value<std::string>(), "scale each run() by U[1-j,1+j], e.g. 5%")
        ("noise", po::value<std::string>(), "noise between repetitions: 'speed=S,jitter=J' or 'none' (default speed=1%,jitter=5%)")
        ("slice", po::value<std::vector<std::string>>()->composing(), "REGEX=DURATION: give every task whose name matches REGEX a custom EEVDF slice, as sched_setattr()'s sched_runtime does (100us..100ms; traces do not record slices, so tasks otherwise get the base slice); repeatable, a later match wins; with PREEMPT_SHORT (6.12+) a shorter slice may wake-up preempt (docs/kernel-versions.md)")
        ("preempt", po::value<std::string>(), "preemption model of the kernel replayed: full (default: a preemption is immediate), none or voluntary (a task inside a system call is switched at its return to user space; if it blocks first it just sleeps), lazy (also waits for the next tick or syscall return in user space); only tasks whose program marks its system calls (a trace recorded with syscall events, with or without --channels) are affected (docs/fidelity.md); recorded as cost override preempt when not the default")
        ("update-curr", po::value<std::string>(), "when the running task's CPU time reaches the run queue (its vruntime, the average V): actions (default, schedsim's historical rule: at every end of a replayed run action, except at a syscall entry or exit), events (the kernel's: only at scheduler events, the tick, an enqueue or dequeue on that CPU, the wakeup-preemption check, schedule(), a migration; a DELAY_DEQUEUE'd wakee woken in place is then re-placed against a V without the waker's latest run, docs/fidelity.md \"Local wakeup preemption\"); recorded as cost override update_curr when not the default")
        ("smt-normalize", po::bool_switch(), "trace input recorded on an SMT machine (--recorded-on, else --topology): replay on-CPU time during which an SMT sibling was busy as work at that machine's co-run rate, so the replay machine's co-run slowdown is applied once (docs/fidelity.md)")
        ("recorded-on", po::value<std::string>(), "with --smt-normalize: the machine the trace was recorded on (preset, topology JSON, sysfs dir, lscpu -p file, or 'host'), when --topology is another machine to replay on");
    d.add(g);
  }
  {
    po::options_description g = option_group("output");
    g.add_options()
        ("label", po::value<std::string>(), "label of this run in reports")
        ("trace-out", po::value<std::string>(), "also write the simulated schedule as ftrace text (Perfetto opens it; '-' = stdout when -o names a file, NAME.gz gzip-compressed); it ends where the run's span ends (background tasks' events after it are left out)")
        ("view", po::value<std::string>(), "after the results, print the perf sched view of the simulated schedule: latency, timehist or map (as 'schedsim sched VIEW' on its --trace-out; the schedule is held in memory)")
        ("trace-window", po::value<std::string>(), "only that time window in --trace-out: START,END (e.g. 10ms,20ms)")
        ("tasks", po::value<size_t>()->default_value(20), "per-task rows in the table (0 = all)")
        ("cpus", po::value<size_t>()->default_value(64), "per-CPU rows in the table: a machine with more CPUs shows this many busiest, in CPU order (0 = all; the per-LLC table covers every CPU)")
        ("progress", po::value<std::string>()->default_value("auto"), "progress line on stderr after a second (events, simulated time, rate, share of the work done and time left): auto (if a terminal), always, never")
        ("quiet,q", po::bool_switch(), "leave the notes (stderr lines 'schedsim: note: ...') off stderr; the results keep them (summary.notes). Warnings and errors are always printed");
    d.add(g);
  }
  {
    po::options_description g = option_group("limits and checks");
    g.add_options()
        ("stop-at", po::value<std::string>(), "stop the simulation at this simulated time (e.g. 2s): the results cover the run up to it, the makespan ends there; complete: false, exit 0")
        ("max-sim-time", po::value<std::string>()->default_value("86400s"), "simulated-time limit: an action, start time or wakeup past it is an error (at most 366 days)")
        ("max-memory", po::value<std::string>(), "fail (exit 5) when resident memory exceeds SIZE: 512M, 4G, 50% (of MemAvailable) or none; default 80% of MemAvailable")
        ("allow-incomplete", po::bool_switch(), "exit 0 even when the run is incomplete (tasks blocked forever, tokens never consumed, work not conserved); still reported")
        ("check-invariants", po::bool_switch(), "check every engine invariant after every event (slow)");
    d.add(g);
  }
  d.add(trace_selection_options("trace options (when the input is a kernel trace)"));
  return d;
}

const char* kDescription =
    "Replays WORKLOAD (a native workload file, or a kernel trace: ftrace text, trace-cmd report,\n"
    "perf script; plain, gzip or zstd) on a modeled machine with the chosen policy modules and\n"
    "prints wakeup latency, run-queue wait, makespan, migrations and per-CPU utilization (and, for a\n"
    "generated benchmark whose real program prints a time of its own, that benchmark time:\n"
    "docs/generators.md). With a trace, the real kernel's figures from the same trace are printed\n"
    "side by side.\n"
    "WORKLOAD '-' reads standard input (schedsim gen ... -o - | schedsim run -). With the same\n"
    "inputs and --seed the output is byte-identical.\n\n"
    "examples:\n"
    "  schedsim run tests/data/traces/hackbench-pipe-g2.ftrace.gz --topology xeon-e5-2690v2\n"
    "  schedsim run --workload-gen 'messaging --group 10 --pipe' -t xeon-gold-6248 --kernel 6.6\n"
    "  schedsim run w.json --placement sis-fold-opt --feature NO_SIS_UTIL -o r.json";

std::string list_modules(const std::string& slot) {
  std::string out;
  for (const auto& m : builtin_registry().all())
    if (m.slot == slot) out += m.name + std::string(m.name.size() < 16 ? 16 - m.name.size() : 1, ' ') + m.summary + "\n";
  return out;
}

}  // namespace

std::string help_run() {
  return format_help("schedsim run [WORKLOAD|TRACE] [options]", kDescription, run_options()) + "\n" + kExitCodesHelp;
}

int run_run(const std::vector<std::string>& args) {
  po::options_description d = run_options();
  d.add_options()("input", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("input", 1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_run)) return kExitOk;

  // `list` values print the choices and stop (ninja's -t list).
  for (const char* slot : {"placement", "idle-cores", "util", "queue", "balance"})
    if (vm.count(slot) && vm[slot].as<std::string>() == "list") {
      std::cout << list_modules(slot);
      return kExitOk;
    }
  if (vm.count("topology") && vm["topology"].as<std::string>() == "list") {
    std::cout << render_topology_list();
    return kExitOk;
  }
  if (vm.count("kernel") && vm["kernel"].as<std::string>() == "list") {
    for (const auto& p : kernel_profiles()) std::cout << p.version << std::string(8 - std::min<size_t>(7, p.version.size()), ' ') << p.summary << "\n";
    return kExitOk;
  }
  if (vm.count("feature"))
    for (const auto& f : vm["feature"].as<std::vector<std::string>>())
      if (f == "list") {
        for (const auto& fd : builtin_registry().all_features())
          std::cout << fd.name << std::string(fd.name.size() < 24 ? 24 - fd.name.size() : 1, ' ') << (fd.default_on ? "on " : "off") << "  " << fd.doc << "\n";
        return kExitOk;
      }
  if (vm.count("cost"))
    for (const auto& c : vm["cost"].as<std::vector<std::string>>())
      if (c == "list") {
        // The costs a run on -t with the other --cost values would start from: the defaults, the
        // machine's profile, then what was given (rows say which).
        const Topology topo = load_topology(vm.count("topology") ? vm["topology"].as<std::string>() : kDefaultTopology);
        std::vector<std::string> others = vm["cost"].as<std::vector<std::string>>();
        std::erase(others, std::string("list"));
        std::map<std::string, std::string> given;
        const CostModel cost = build_cost_model(others, topo, nullptr, &given);
        std::cout << describe_costs(cost, cost_profile_for(topo.name()), given);
        return kExitOk;
      }

  RunRequest req;
  std::vector<std::string> argv{"schedsim", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  req.command_line = quoted_command_line(argv);
  if (vm.count("input")) req.input = vm["input"].as<std::string>();
  if (vm.count("workload-gen")) req.workload_gen = vm["workload-gen"].as<std::string>();
  // A missing argument is a usage error (exit 2), as for any other command.
  if (!vm.count("input") && !vm.count("workload-gen"))
    throw po::error("no workload: give a WORKLOAD or TRACE file, or --workload-gen 'KIND opts'");
  if (vm.count("topology")) req.topology = vm["topology"].as<std::string>();
  if (vm.count("kernel")) req.kernel = vm["kernel"].as<std::string>();
  for (const char* slot : {"placement", "idle-cores", "util", "queue", "balance"})
    if (vm.count(slot)) req.modules[slot] = vm[slot].as<std::string>();
  if (vm.count("feature")) req.features = vm["feature"].as<std::vector<std::string>>();
  if (vm.count("cost")) req.costs = vm["cost"].as<std::vector<std::string>>();
  req.seed = vm["seed"].as<uint64_t>();
  req.seed_given = !vm["seed"].defaulted();
  if (vm.count("jitter")) req.jitter = vm["jitter"].as<std::string>();
  if (vm.count("slice")) req.slices = vm["slice"].as<std::vector<std::string>>();
  if (vm.count("preempt")) req.preempt = vm["preempt"].as<std::string>();
  if (vm.count("update-curr")) req.update_curr = vm["update-curr"].as<std::string>();
  req.repeat = vm["repeat"].as<uint32_t>();
  if (vm.count("noise")) req.noise = vm["noise"].as<std::string>();
  req.output = vm["output"].as<std::string>();
  req.format = vm.count("format") ? vm["format"].as<std::string>()
                                  : format_by_name(req.output, {{".jsonl", "jsonl"}, {".json", "json"}, {".csv", "csv"}}, "table");
  if (vm.count("label")) req.label = vm["label"].as<std::string>();
  if (vm.count("trace-out")) req.trace_out = vm["trace-out"].as<std::string>();
  if (vm.count("trace-window")) req.trace_window = vm["trace-window"].as<std::string>();
  // Two streams on one standard output cannot be told apart afterwards.
  if (req.trace_out == "-" && req.output == "-")
    throw InputError(SourceLoc{"--trace-out"},
                     "'-' is standard output, where the results go too, and the two would be mixed: give the results "
                     "a file (-o FILE) or the schedule one (--trace-out FILE)");
  std::optional<traces::SchedView> view;
  if (vm.count("view")) {
    const std::string v = vm["view"].as<std::string>();
    if (v == "latency") view = traces::SchedView::kLatency;
    else if (v == "timehist") view = traces::SchedView::kTimehist;
    else if (v == "map") view = traces::SchedView::kMap;
    else throw po::error(unknown_choice_message("--view", v, {"latency", "timehist", "map"}));
    if (!req.trace_out.empty())
      throw po::error("--view shows the schedule that --trace-out writes; with --trace-out, run 'schedsim sched VIEW' on that file");
    if (req.repeat > 1) throw po::error("--view shows one schedule; it cannot be combined with --repeat");
    req.trace_out = "-";  // the schedule in memory (RunOutcome::trace_text), not printed
  }
  if (vm.count("stop-at")) req.stop_at = vm["stop-at"].as<std::string>();
  req.max_sim_time = vm["max-sim-time"].as<std::string>();
  req.check_invariants = vm["check-invariants"].as<bool>();
  req.progress = vm["progress"].as<std::string>();
  if (vm.count("max-memory")) req.max_memory = vm["max-memory"].as<std::string>();
  req.table_tasks = vm["tasks"].as<size_t>();
  req.table_cpus = vm["cpus"].as<size_t>();
  req.extract = trace_selection(vm);
  req.smt_normalize = vm["smt-normalize"].as<bool>();
  if (vm.count("recorded-on")) {
    req.recorded_on = vm["recorded-on"].as<std::string>();
    if (req.recorded_on.empty())
      throw InputError(SourceLoc{"--recorded-on"}, "expected a machine (preset, topology file or 'host'), got ''");
  }
  refuse_empty_values(vm, {"topology", "kernel", "jitter", "noise", "output", "trace-out", "trace-window", "stop-at", "max-sim-time", "max-memory",
                           "workload-gen"},
                      "run");

  // SIGINT/SIGTERM end the simulation at its next poll (exit 130/143, temporaries removed). The
  // outputs of the run are committed together, after all of them are complete.
  CooperativeInterrupts interrupts;
  RunOutcome out = execute_run(req);
  std::vector<AtomicFile*> files;
  std::unique_ptr<AtomicFile> results;
  if (req.output != "-" && !req.output.empty()) {
    results = std::make_unique<AtomicFile>(req.output, "output", Compress::kByName);
    results->write(out.rendered);
    files.push_back(results.get());
  }
  if (out.trace_file) files.push_back(out.trace_file.get());
  commit_together(files);
  if (!results) write_output("-", out.rendered);
  if (view) {
    // The simulated schedule read back as a trace, as `schedsim sched` reads a --trace-out file.
    traces::SchedViewOptions so;
    so.view = *view;
    traces::SchedViews views(so);
    traces::ExtractOptions opt;
    opt.all_tasks = true;
    opt.on_event = [&views](const traces::TraceEvent& ev) { views.on_event(ev); };
    opt.on_restart = [&views, &so] { views = traces::SchedViews(so); };
    traces::ImportReport rep;
    traces::import_trace_buffer(out.trace_text, "the simulated schedule", opt, &rep);
    views.set_nr_cpus(std::max<size_t>(rep.nr_cpus, out.results.cpus.size()));
    std::cout << "\n";
    views.render(std::cout);
  } else if (req.trace_out == "-") {
    write_output("-", out.trace_text);
  }
  return run_exit_code(out, vm["allow-incomplete"].as<bool>(), std::cerr, vm["quiet"].as<bool>());
}

}  // namespace schedsim::cli
