// schedsim gen: synthetic workloads (the generators live in workload/, this only handles argv).
#include <iostream>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/workload/generators.hpp"

namespace schedsim::cli {

std::string help_gen() {
  const driver::CommandSpec& spec = *driver::find_command_spec("gen");
  std::string out = fmt::format("usage: {}\n\n{}\n\nkinds:\n", spec.usage, spec.description);
  for (const auto& g : list_generators())
    out += fmt::format("  {:<11}{}\n", g.name, g.summary);
  out +=
      "\noptions:\n"
      "  -o, --output FILE     where to write (default and '-': stdout; FILE.gz is gzip-compressed)\n"
      "  --format json|cbor    file format (default: cbor if FILE ends in .cbor or .cbor.gz, else json)\n"
      "  --seed N              seed of the generator's random choices (default 1)\n";
  return out;
}

int run_gen(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << help_gen();
    return kExitOk;
  }
  const std::string& kind = args[0];
  if (kind == "list") {
    if (args.size() > 1) throw po::error("'gen list' takes no arguments");
    for (const auto& g : list_generators()) std::cout << fmt::format("{:<11}{}\n", g.name, g.summary);
    return kExitOk;
  }
  // -o/--output and --format are gen's; everything else goes to the generator, in order.
  std::map<std::string, std::string> mine;
  std::vector<std::string> rest;
  for (size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << generator_help(kind);
      return kExitOk;
    }
    const std::string key = a == "-o" ? "--output" : a.substr(0, a.find('='));
    if (key != "--output" && key != "--format") {
      rest.push_back(a);
    } else if (a.find('=') != std::string::npos) {
      mine[key.substr(2)] = a.substr(a.find('=') + 1);
    } else {
      if (i + 1 >= args.size()) throw po::error(fmt::format("the option '{}' requires an argument", key));
      mine[key.substr(2)] = args[++i];
    }
  }
  // "" means "not given" below (stdout, the format by name): a value that expanded to nothing is refused.
  for (const auto& [name, value] : mine)
    if (value.empty()) refuse_empty_value(name.c_str(), "gen");
  const std::string output = mine["output"], format = mine["format"];
  const WorkloadFormat fmt = workload_format_for(format, output);
  if (kind == "mix") refuse_output_over_inputs(output, rest);  // the mix file
  Workload w = generate_workload(kind, rest);
  write_workload(w, output.empty() ? "-" : output, fmt);
  if (!output.empty() && output != "-") {
    size_t actions = 0;
    for (const auto& t : w.tasks) actions += t.program.size();
    auto counts = w.expanded_action_counts();
    uint64_t expanded = std::accumulate(counts.begin(), counts.end(), uint64_t{0}) -
                        counts[static_cast<size_t>(ActionKind::kLoop)];
    std::cout << fmt::format("wrote {}: {} tasks, {} actions ({} after loop expansion), {} of CPU work\n", output,
                             w.tasks.size(), actions, expanded, format_duration(w.total_work()));
  }
  return kExitOk;
}

}  // namespace schedsim::cli
