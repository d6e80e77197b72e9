// `schedsim run`: options -> a RunRequest -> run_simulation() -> a reporter.
#include <iostream>
#include <memory>
#include <optional>

#include "../command.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/driver/listings.hpp"
#include "schedsim/traces/sched_views.hpp"

namespace schedsim::cli {

namespace {

/// Prints run_status() on `err` and returns the exit code: kExitIncomplete for an incomplete run
/// that --allow-incomplete does not accept.
int run_exit_code(const RunOutcome& out, bool allow_incomplete, std::ostream& err, bool quiet) {
  const RunStatus st = run_status(out, quiet);
  for (const auto& l : st.lines) err << "schedsim: " << log::brief(l) << "\n";
  if (st.incomplete.empty()) return kExitOk;
  err << "schedsim: " << (allow_incomplete ? "warning" : "error")
      << ": simulation incomplete (\"complete\": false in the results):\n";
  for (const auto& line : st.incomplete) err << "  " << line << "\n";
  if (allow_incomplete) return kExitOk;
  err << "  (exit code 4; --allow-incomplete accepts an incomplete run with exit code 0)\n";
  return kExitIncomplete;
}

}  // namespace

std::string help_run() {
  return command_help(*driver::find_command_spec("run")) + "\n" + exit_codes_help();
}

int run_run(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "run", vm, help_run)) return kExitOk;

  RunRequest req;
  apply_run_options(vm, req, {driver::OptionGroup::kPositional, driver::OptionGroup::kEssentials, driver::OptionGroup::kModules,
                              driver::OptionGroup::kModel, driver::OptionGroup::kOutput, driver::OptionGroup::kLimits,
                              driver::OptionGroup::kTraceSelection, driver::OptionGroup::kTraceReading},
                    "run");
  // `list` values print the choices and stop (ninja's -t list).
  if (auto listing = run_listing(req)) {
    std::cout << *listing;
    return kExitOk;
  }
  std::vector<std::string> argv{"schedsim", "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  req.command_line = quoted_command_line(argv);
  // A missing argument is a usage error (exit 2), as for any other command.
  if (!vm.count("input") && !vm.count("workload-gen"))
    throw po::error("no workload: give a WORKLOAD or TRACE file, or --workload-gen 'KIND opts'");
  req.seed_given = !vm["seed"].defaulted();
  if (!vm.count("format"))
    req.format = format_by_name(req.output, {{".jsonl", "jsonl"}, {".json", "json"}, {".csv", "csv"}}, "table");
  // Two streams on one standard output cannot be told apart afterwards.
  if (req.trace_out == "-" && req.output == "-")
    throw InputError(SourceLoc{"--trace-out"},
                     "'-' is standard output, where the results go too, and the two would be mixed: give the results "
                     "a file (-o FILE) or the schedule one (--trace-out FILE)");
  std::optional<traces::SchedView> view;
  if (vm.count("view")) {
    const std::string& v = req.view;
    if (v == "latency") view = traces::SchedView::kLatency;
    else if (v == "timehist") view = traces::SchedView::kTimehist;
    else if (v == "map") view = traces::SchedView::kMap;
    else throw po::error(unknown_choice_message("--view", v, {"latency", "timehist", "map"}));
    if (!req.trace_out.empty())
      throw po::error("--view shows the schedule that --trace-out writes; with --trace-out, run 'schedsim sched VIEW' on that file");
    if (req.repeat > 1) throw po::error("--view shows one schedule; it cannot be combined with --repeat");
    req.trace_out = "-";  // the schedule in memory (RunOutcome::trace_text), not printed
  }

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
    traces::SchedViewOptions so;
    so.view = *view;
    std::cout << "\n";
    view_schedule(out.trace_text, out.results.cpus.size(), so, std::cout);
  } else if (req.trace_out == "-") {
    write_output("-", out.trace_text);
  }
  return run_exit_code(out, req.allow_incomplete, std::cerr, req.quiet);
}

}  // namespace schedsim::cli
