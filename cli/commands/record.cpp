// schedsim record -o FILE [--events ...] [--workload] -- COMMAND ARGS
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <unistd.h>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/traces/record.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::cli {

namespace {
po::options_description record_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("output,o", po::value<std::string>(), "output file: ftrace text (.gz = gzip), or a workload with --workload")
      ("events", po::value<std::vector<std::string>>()->multitoken(), "sched events to enable (default: switch, waking, wakeup, wakeup_new, process_fork/exit/exec, migrate_task)")
      ("extra-events", po::value<std::vector<std::string>>()->multitoken(), "also record: idle (power:cpu_idle), ipi (ipi:*), irq (x86 irq_vectors: reschedule, local_timer and call_function_single entry/exit), syscalls (read/write enter/exit and close enter, with the TGID column; marks the time inside read/write for run --preempt, and --channels replays them as channels), comma-separated; events this kernel lacks are skipped with a warning (idle, ipi and irq feed the wake-to-run and reschedule-IPI costs of `trace info --idle-wake-costs`; a replay does not read them)")
      ("workload", po::bool_switch(), "write the extracted workload of the command and its descendants instead of the trace (.cbor = CBOR, else JSON)")
      ("buffer-kb", po::value<uint32_t>()->default_value(32768), "per-CPU ring buffer size in KiB")
      ("recorder-class", po::value<std::string>()->default_value("normal"), "scheduling class of the recorder while the command runs: normal (SCHED_OTHER, like the command) or idle (SCHED_IDLE: preempted at once by the command's tasks, and its CPU counts as idle for their wakeups; docs/traces.md says when each perturbs less)")
      ("command", po::value<std::vector<std::string>>(), "the command (after --)");
  return d;
}
}  // namespace

std::string help_record() {
  return format_help(
      "schedsim record -o FILE [--events EV...] [--workload] [--buffer-kb N] [--recorder-class idle|normal] -- COMMAND [ARGS...]",
      "Runs COMMAND and records its scheduler events through tracefs (needs root). A private\n"
      "tracefs instance is created and removed afterwards; tracefs is mounted if needed.\n"
      "Events are streamed from trace_pipe while the command runs; ring-buffer overruns are\n"
      "reported. The trace covers the whole machine; importing it keeps the command and its\n"
      "descendants by default (the trace's header names the command; --all-tasks keeps all).\n"
      "--workload writes the extracted workload instead of the trace.\n"
      "The output appears only complete, once the command has ended. SIGINT or SIGTERM (Ctrl-C)\n"
      "abandons the recording: the command is killed, tracing turned off, the instance removed,\n"
      "no output written, exit 130 / 143.",
      record_options());
}

int run_record(const std::vector<std::string>& args) {
  std::vector<std::string> mine, cmd;
  bool after = false;
  for (const auto& a : args) {
    if (!after && a == "--") {
      after = true;
      continue;
    }
    (after ? cmd : mine).push_back(a);
  }
  po::options_description d = record_options();
  po::positional_options_description pos;
  pos.add("command", -1);
  po::variables_map vm;
  if (!parse_args(mine, d, pos, vm, help_record)) return kExitOk;
  if (vm.count("command")) {
    auto extra = vm["command"].as<std::vector<std::string>>();
    cmd.insert(cmd.begin(), extra.begin(), extra.end());
  }
  if (!vm.count("output")) throw po::error("missing -o FILE");
  if (cmd.empty()) throw po::error("missing COMMAND (schedsim record -o FILE -- COMMAND ARGS)");
  const std::string out = vm["output"].as<std::string>();
  const bool as_workload = vm["workload"].as<bool>();
  traces::RecordOptions ro;
  ro.command = cmd;
  ro.buffer_kb = vm["buffer-kb"].as<uint32_t>();
  const std::string rclass = vm["recorder-class"].as<std::string>();
  if (rclass != "idle" && rclass != "normal")
    throw InputError(SourceLoc{"--recorder-class"}, unknown_choice_message("recorder class", rclass, {"idle", "normal"}));
  ro.idle_class = rclass == "idle";
  if (vm.count("events")) ro.events = vm["events"].as<std::vector<std::string>>();
  if (vm.count("extra-events"))
    for (const auto& v : vm["extra-events"].as<std::vector<std::string>>())
      for (size_t at = 0; at <= v.size();) {  // "idle,ipi" or "idle ipi"
        size_t comma = std::min(v.find(',', at), v.size());
        if (comma > at) ro.extra.push_back(v.substr(at, comma - at));
        at = comma + 1;
      }
  // --workload: the trace goes to a scratch file next to the output, named like every temporary
  // (.NAME.trace.schedsim-tmp.PID), so a killed run's leftover is removed by the next one.
  std::string trace_path = out;
  int scratch_slot = -1;
  if (as_workload) {
    std::filesystem::path p(out);
    trace_path = (p.parent_path() / ("." + p.filename().string() + ".trace" + std::string(AtomicFile::kTempTag) +
                                     std::to_string(::getpid())))
                     .string();
    ro.gzip = true;
    scratch_slot = register_temp_path(trace_path);
  }
  struct ScratchGuard {
    const std::string* path;
    int slot;
    ~ScratchGuard() {
      if (slot < 0) return;
      std::remove(path->c_str());
      unregister_temp_path(slot);
    }
  } scratch{&trace_path, scratch_slot};
  ro.output = trace_path;
  traces::RecordResult r = traces::record_trace(ro);
  for (const auto& e : r.skipped_events)
    std::cerr << "schedsim record: warning: event sched/" << e << " does not exist on this kernel; skipped\n";
  for (const auto& e : r.skipped_extra)
    std::cerr << "schedsim record: warning: event " << e << " does not exist on this kernel; skipped\n";
  std::cerr << fmt::format("schedsim record: pid {} exited with {}; {} bytes of trace, {} events overrun, {} lost markers\n",
                           r.root_pid, r.exit_status, r.bytes, r.overruns, r.lost_markers);
  if (r.overruns > 0 || r.lost_markers > 0)
    std::cerr << "schedsim record: warning: events were lost; enlarge --buffer-kb\n";
  if (as_workload) {
    traces::ExtractOptions eo;
    eo.descendants_of = r.root_pid;
    traces::ImportReport rep;
    Workload w = traces::import_trace(trace_path, eo, &rep);
    bool cbor = out.size() > 5 && out.compare(out.size() - 5, 5, ".cbor") == 0;
    write_workload(w, out, cbor ? WorkloadFormat::kCbor : WorkloadFormat::kJson);
    std::cout << traces::describe_workload(w);
  } else {
    std::cout << fmt::format("recorded {} (root pid {}); extract with: schedsim import {} -o W.json\n", out,
                             r.root_pid, out);
  }
  return r.exit_status == 0 ? kExitOk : kExitInputError;
}

}  // namespace schedsim::cli
