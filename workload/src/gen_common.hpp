#pragma once
// Shared helpers of the generators: option parsing with range checks and uniform error messages,
// a deterministic RNG, and program-building helpers for compact loops.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>

#include "schedsim/base/random.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/workload/gen_costs.hpp"
#include "schedsim/workload/workload.hpp"

namespace schedsim::gen {

namespace po = boost::program_options;

/// Options of one generator. Every value is declared as a string and converted here, so that a
/// bad value produces "gen KIND: --opt: ..." with the allowed range.
class Options {
 public:
  Options(std::string kind, std::string usage, std::string description);

  /// Declares an option taking a value. `names` is Boost style: "group,groups,g".
  Options& value(const char* names, const char* help);
  /// Declares a flag.
  Options& flag(const char* names, const char* help);
  /// Declares the positional argument (at most one), stored under `name`.
  Options& positional(const char* name, const char* help);

  /// Parses `args` (throws InputError). Adds --seed automatically.
  void parse(const std::vector<std::string>& args);
  std::string help() const;

  bool has(const char* name) const;
  bool flag_set(const char* name) const;
  int64_t integer(const char* name, int64_t def, int64_t lo, int64_t hi) const;
  Duration duration(const char* name, Duration def, Duration lo, Duration hi) const;
  /// A fraction given as "10%" or "0.1", in [lo, hi].
  double fraction(const char* name, double def, double lo, double hi) const;
  std::string text(const char* name, const std::string& def) const;
  std::string choice(const char* name, const std::string& def, const std::vector<std::string>& valid) const;
  uint64_t seed() const;

  [[noreturn]] void fail(const std::string& msg) const;
  const std::string& kind() const { return kind_; }

 private:
  std::string raw(const char* name) const;
  std::string kind_, usage_, description_;
  po::options_description desc_;
  std::string positional_;
  po::variables_map vm_;
};

/// The generators' random source (identical on every platform, unlike <random>'s distributions).
using Rng = SplitMix64;

/// Appends `body` then repeats it: the body is executed `times` times in all (times >= 1);
/// nothing is appended when times == 0.
void append_repeated(std::vector<Action>& prog, const std::vector<Action>& body, int64_t times);

/// The generators number their tasks' pids from 1000 up, one per task.
inline constexpr int64_t kFirstGenPid = 1000;
/// Fails (naming `what`, the options that multiply to it) when `tasks` tasks numbered from
/// kFirstGenPid would pass kMaxWorkloadPid, the kernel's PID_MAX_LIMIT that workload files hold:
/// such a workload could not be read back, and the per-option ranges alone let
/// `messaging -g 100000 -f 1000` build 200 million tasks (17 GB and growing) before failing.
void check_task_count(const Options& o, int64_t tasks, const char* what);

/// A forked or runnable task with synthetic pid/tgid.
TaskSpec make_task(std::string name, StartState start, int64_t pid, int64_t tgid);

/// A machine per-operation cost (gen_costs.hpp): the value of option `option` if given, else
/// `param` from `costs` (the machine's cost profile) or its reference value. Records `param` in
/// w.meta["gen_cost_params"] when the option was not given, so a run can say whose costs they are.
Duration machine_cost(const Options& o, Workload& w, const char* option, const char* param, const GenCosts& costs);

/// "gen KIND ARG ..." with shell quoting where needed.
std::string canonical_source(const std::string& kind, const std::vector<std::string>& args);

Workload gen_messaging(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs);
Workload gen_pipe(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs);
Workload gen_schbench(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs);
Workload gen_rr(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs);
Workload gen_fork(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs);
Workload gen_periodic(const std::vector<std::string>& args, bool help_only, std::string* help, const GenCosts& costs);

}  // namespace schedsim::gen
