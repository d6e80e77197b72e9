#pragma once
/// Synthetic workload generators (docs/generators.md): the standard scheduler benchmarks as
/// action programs, with the real programs' option names so a command line can be pasted.
///
///   messaging  perf bench sched messaging / hackbench (groups of 20 senders x 20 receivers)
///   pipe       perf bench sched pipe (two tasks ping-ponging over pipes)
///   schbench   Chris Mason's schbench (message threads waking all queued workers); --old
///   fork       lmbench lat_proc fork / exec / shell
///   periodic   N rt-app style periodic tasks with optional seeded jitter
///   mix        a JSON file combining any of the above in one workload
///
/// Every generator is deterministic for a given argument list (randomness only through
/// --seed) and holds repetition in compact Loop actions, so memory grows with tasks, not with
/// messages or iterations.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "schedsim/workload/gen_costs.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim {

/// A generator's name and one-line summary.
struct GeneratorInfo {
  std::string name;
  std::string summary;
};

/// Every generator kind, in the order `schedsim gen list` prints them.
const std::vector<GeneratorInfo>& list_generators();

/// The option help of one kind (usage, what it models, options with defaults). Throws InputError
/// with a did-you-mean for an unknown kind.
std::string generator_help(const std::string& kind);

/// Generates a workload of `kind` from command-line style arguments (e.g. {"--group", "4",
/// "--pipe"}). Throws InputError naming the option and its allowed range on a bad argument.
/// The result has passed validate_workload; `source` is the canonical "gen KIND ARGS" line.
/// Per-operation costs not given as options come from `costs` (the machine's cost profile,
/// gen_costs.hpp), else their reference values.
Workload generate_workload(const std::string& kind, const std::vector<std::string>& args, const GenCosts& costs = {});

/// `spec` is either a command line "KIND [ARGS]" (split shell-like: quotes and backslashes work)
/// or the path of a JSON mix file (see docs/generators.md "mix"). `seed`, when set, seeds a spec
/// that does not choose its own: a command line without `--seed` runs with `--seed N` appended
/// (and its `source` says so), a mix file without "seed" uses it as its base seed. A spec's own
/// seed always wins.
Workload generate_workload_from_spec(const std::string& spec, const GenCosts& costs = {},
                                     std::optional<uint64_t> seed = std::nullopt);

/// Shell-like word splitting: whitespace separates words; '...' and "..." quote; backslash
/// escapes. Throws InputError on an unterminated quote.
std::vector<std::string> split_command_line(const std::string& text);

}  // namespace schedsim
