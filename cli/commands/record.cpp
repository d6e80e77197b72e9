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
  po::variables_map vm;
  if (!parse_command(mine, "record", vm)) return kExitOk;
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
  ro.idle_class = vm["recorder-class"].as<std::string>() == "idle";
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
