// schedsim import TRACE -o WORKLOAD: trace -> native workload file (docs/traces.md).
#include <iostream>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/workload/workload.hpp"
#include "trace_options.hpp"

namespace schedsim::cli {

namespace {
po::options_description import_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("trace", po::value<std::string>(), "input trace (positional)")
      ("output,o", po::value<std::string>(), "output workload file (required; '-' = stdout, '*.gz' is gzip-compressed)")
      ("format", po::value<std::string>(), "output format: json or cbor (default: cbor if the name ends in .cbor or .cbor.gz, else json)")
      ("syscall-marks", po::bool_switch(), "flag the time inside read/write syscalls (a trace recorded with --extra-events syscalls) as runs marked 'syscall', for run --preempt none|voluntary|lazy; wakeups stay wake/block tokens (--channels marks them too); off by default: the finer runs move a --preempt full replay (docs/model.md \"Syscall marks in plain replays\")");
  d.add(trace_selection_options());
  return d;
}
}  // namespace

std::string help_import() {
  return format_help(
      "schedsim import TRACE|- -o WORKLOAD|- [--format json|cbor] [trace options]",
      "Converts a kernel scheduler trace into a native workload: ftrace text (trace, trace_pipe,\n"
      "systrace HTML), trace-cmd report text (-N recommended) or perf script output of\n"
      "perf sched record, plain or gzip/zstd compressed. Prints a summary of the extracted\n"
      "workload (on stderr when the workload goes to stdout); repairs and warnings go to stderr.\n"
      "TRACE '-' reads standard input. See docs/traces.md.",
      import_options());
}

int run_import(const std::vector<std::string>& args) {
  po::options_description d = import_options();
  po::positional_options_description pos;
  pos.add("trace", 1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_import)) return kExitOk;
  if (!vm.count("trace")) throw po::error("missing TRACE");
  if (!vm.count("output")) throw po::error("missing -o WORKLOAD");
  refuse_empty_values(vm, {"output", "format"}, "import");
  const std::string out = vm["output"].as<std::string>();
  const WorkloadFormat wf = workload_format_for(vm.count("format") ? vm["format"].as<std::string>() : "", out);
  traces::ExtractOptions opt = trace_selection(vm);
  opt.syscall_marks = vm["syscall-marks"].as<bool>();
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
