// schedsim import TRACE -o WORKLOAD: trace -> native workload file (docs/traces.md).
#include <iostream>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::cli {

int run_import(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "import", vm)) return kExitOk;
  if (!vm.count("trace")) throw po::error("missing TRACE");
  if (!vm.count("output")) throw po::error("missing -o WORKLOAD");
  const std::string out = vm["output"].as<std::string>();
  const WorkloadFormat wf = workload_format_for(vm.count("format") ? vm["format"].as<std::string>() : "", out);
  traces::ExtractOptions opt = trace_selection(vm);
  opt.syscall_marks = vm["syscall-marks"].as<bool>();
  // The native format keeps no wake pairs (Action::body of wake and block): the file would replay
  // with tokens, not as asked.
  if (opt.wake_match != traces::TraceWakeMatch::kToken)
    throw UsageError("--wake-match recorded applies to a trace replayed directly (run, calibrate, sweep): a workload "
                     "file does not keep which wake ended which sleep");
  traces::ImportReport rep;
  const std::string in = vm["trace"].as<std::string>();
  refuse_output_over_inputs(out, {in});
  Workload w = import_trace_arg(in, opt, &rep);
  // An empty workload is no conversion of the trace: writing it with exit 0 would only move the
  // surprise to a later command.
  refuse_empty_selection(w, in, rep, "no workload written");
  if (opt.syscall_marks && !w.marks_syscalls())
    log::get("traces")->warn(
        "{}: --syscall-marks: the trace has no read/write syscall events of the selected tasks (record with "
        "schedsim record --extra-events syscalls); the workload marks no system call, and run --preempt acts on "
        "none of its tasks",
        in);
  write_workload(w, out, wf);
  std::ostream& summary = out == "-" ? std::cerr : std::cout;
  summary << fmt::format("imported {} ({}): {} tasks, {} repairs, {} lost-event windows -> {}\n", in,
                           rep.format, w.tasks.size(), rep.repairs_total(), rep.lost.size(), out);
  summary << traces::describe_workload(w);
  return kExitOk;
}

}  // namespace schedsim::cli
