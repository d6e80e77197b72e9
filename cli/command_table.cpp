#include "command.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace schedsim::cli {

// Each command's entry point, defined in cli/commands/<name>.cpp; its name, summary, usage and
// options are its entry in driver::command_specs().
#define SCHEDSIM_COMMANDS(X) \
  X(calibrate) X(compare) X(gen) X(help) X(import) X(merge) X(policies) X(record) X(report) X(run) X(sched) \
  X(sweep) X(topology) X(trace) X(validate)
#define SCHEDSIM_DECLARE(id) int run_##id(const std::vector<std::string>& args);
SCHEDSIM_COMMANDS(SCHEDSIM_DECLARE)
#undef SCHEDSIM_DECLARE
// The commands whose help is more than their table entry.
std::string help_gen();
std::string help_run();

std::string Command::help() const {
  if (own_help) return own_help();
  const driver::CommandSpec& spec = *driver::find_command_spec(name);
  // A command that parses its own arguments (policies, help) has no option rows to list.
  if (spec.sections.empty()) return fmt::format("usage: {}\n\n{}\n", spec.usage, spec.description);
  return command_help(spec);
}

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = [] {
    struct Entry {
      const char* name;
      int (*run)(const std::vector<std::string>&);
    };
#define SCHEDSIM_ENTRY(id) {#id, run_##id},
    static const Entry kEntries[] = {SCHEDSIM_COMMANDS(SCHEDSIM_ENTRY)};
#undef SCHEDSIM_ENTRY
    std::vector<Command> t;
    for (const auto& spec : driver::command_specs()) {
      const Entry* e = nullptr;
      for (const auto& x : kEntries)
        if (std::string_view(x.name) == spec.name) e = &x;
      if (!e) throw std::logic_error(std::string("command without an entry point: ") + spec.name);
      std::string (*own)() = nullptr;
      if (std::string_view(spec.name) == "gen") own = help_gen;
      if (std::string_view(spec.name) == "run") own = help_run;
      t.push_back({spec.name, spec.summary, e->run, own});
    }
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
