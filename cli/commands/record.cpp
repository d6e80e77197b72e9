// schedsim record -o FILE [--events ...] [--workload] -- COMMAND ARGS
#include <iostream>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/driver/inputs.hpp"
#include "schedsim/traces/record.hpp"

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
  // What the recording lost is said before the trace is read back (--workload).
  const auto said = [](const traces::RecordResult& r) {
    for (const auto& e : r.skipped_events)
      std::cerr << "schedsim record: warning: event sched/" << e << " does not exist on this kernel; skipped\n";
    for (const auto& e : r.skipped_extra)
      std::cerr << "schedsim record: warning: event " << e << " does not exist on this kernel; skipped\n";
    std::cerr << fmt::format("schedsim record: pid {} exited with {}; {} bytes of trace, {} events overrun, {} lost markers\n",
                             r.root_pid, r.exit_status, r.bytes, r.overruns, r.lost_markers);
    if (r.overruns > 0 || r.lost_markers > 0)
      std::cerr << "schedsim record: warning: events were lost; enlarge --buffer-kb\n";
  };
  const RecordOutcome rec = record_command(ro, out, as_workload, said);
  std::cout << rec.summary;
  return rec.result.exit_status == 0 ? kExitOk : kExitInputError;
}

}  // namespace schedsim::cli
