#include "command.hpp"

#include <algorithm>

namespace schedsim::cli {

// Each command's entry points, defined in cli/commands/<name>.cpp.
#define SCHEDSIM_COMMAND(id)                            \
  int run_##id(const std::vector<std::string>& args); \
  std::string help_##id();
SCHEDSIM_COMMAND(topology)
SCHEDSIM_COMMAND(policies)
SCHEDSIM_COMMAND(run)
SCHEDSIM_COMMAND(help)
SCHEDSIM_COMMAND(import)
SCHEDSIM_COMMAND(trace)
SCHEDSIM_COMMAND(record)
SCHEDSIM_COMMAND(gen)
SCHEDSIM_COMMAND(report)
SCHEDSIM_COMMAND(compare)
SCHEDSIM_COMMAND(sweep)
SCHEDSIM_COMMAND(merge)
SCHEDSIM_COMMAND(sched)
SCHEDSIM_COMMAND(calibrate)
SCHEDSIM_COMMAND(validate)
#undef SCHEDSIM_COMMAND

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = [] {
    std::vector<Command> t = {
        {"help", "help for a command", run_help, help_help},
        {"policies", "list policy modules by slot, and their feature flags", run_policies, help_policies},
        {"run", "simulate a workload or trace on a modeled machine and print latency metrics", run_run, help_run},
        {"topology", "list, show and export modeled machines (presets, JSON, sysfs, lscpu -p)", run_topology, help_topology},
        {"import", "convert a kernel trace into a native workload file", run_import, help_import},
        {"trace", "inspect a kernel trace: format, tasks, events, repairs, observed latency", run_trace, help_trace},
        {"record", "record a command's scheduler events through tracefs", run_record, help_record},
        {"gen", "generate a synthetic workload (messaging, pipe, schbench, rr, fork, periodic)", run_gen, help_gen},
        {"report", "render results files into one self-contained HTML report", run_report, help_report},
        {"compare", "before/after table of two results with significance tests; a CI gate with --fail-on", run_compare, help_compare},
        {"sweep", "run a parameter grid with repetitions in parallel (JSON Lines, resume, shards, Slurm)", run_sweep, help_sweep},
        {"calibrate", "fit cost parameters so that replays of real traces match them; writes a cost file", run_calibrate, help_calibrate},
        {"merge", "join the shard files of one sweep, checking every run is present once", run_merge, help_merge},
        {"validate", "run the corpus of published before/after results and judge the simulated changes", run_validate, help_validate},
        {"sched", "perf sched latency, timehist and map of a recorded or simulated (--trace-out) trace", run_sched, help_sched},
    };
    std::sort(t.begin(), t.end(), [](const Command& a, const Command& b) {
      return std::string(a.name) < std::string(b.name);
    });
    return t;
  }();
  return table;
}

const Command* find_command(const std::string& name) {
  for (const auto& c : command_table())
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace schedsim::cli
