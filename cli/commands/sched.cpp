// schedsim sched latency|timehist|map TRACE: perf sched's views of a trace (a recorded one, or
// the simulated schedule written by `run --trace-out`), so the two can be set side by side.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/traces/sched_views.hpp"

namespace schedsim::cli {

namespace {


// The view: the first argument that is neither an option nor an option's value.
std::string first_positional(const std::vector<std::string>& args, const po::options_description& d) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return i + 1 < args.size() ? args[i + 1] : "";
    if (a.size() < 2 || a[0] != '-') return a;
    if (a.find('=') != std::string::npos || (a[1] != '-' && a.size() > 2)) continue;  // its value is attached
    const po::option_description* o = d.find_nothrow(a[1] == '-' ? a.substr(2) : a, false);
    if (o && o->semantic()->max_tokens() > 0) ++i;
  }
  return "";
}

// perf spells --summary -s in timehist, where latency's -s is --sort; the view decides which.
std::vector<std::string> with_timehist_summary(std::vector<std::string> args) {
  for (auto& a : args) {
    if (a == "--") break;
    if (a == "-s") a = "--summary";
  }
  return args;
}


// -s/-S, -V, the format, the colour and the map's CPUs, into `so`.
void apply_output_options(const po::variables_map& vm, traces::SchedViewOptions& so) {
  const std::string format = vm.count("format") ? vm["format"].as<std::string>() : "table";
  so.format = format == "json" ? traces::SchedFormat::kJson : format == "csv" ? traces::SchedFormat::kCsv : traces::SchedFormat::kTable;
  const bool only = vm["summary"].as<bool>(), with = vm["with-summary"].as<bool>();
  if (only && with) throw po::error("-s (the summary alone) and -S (the rows, then the summary): one of them");
  so.summary = only ? traces::SchedSummary::kOnly : with ? traces::SchedSummary::kWithRows : traces::SchedSummary::kNone;
  so.cpu_visual = vm["cpu-visual"].as<bool>();
  if (so.format != traces::SchedFormat::kTable) {
    if (with) throw po::error("-S prints two tables, and --format " + format + " holds one: -s gives the summary alone");
    if (so.cpu_visual) throw po::error("--cpu-visual draws in the table only, not in --format " + format);
  }
  if (vm.count("highlight-delay")) {
    const double v = vm["highlight-delay"].as<double>();
    if (!(v >= 0 && v < 1e12)) throw po::error(fmt::format("--highlight-delay: expected milliseconds >= 0, got {}", v));
    so.highlight_delay = static_cast<int64_t>(std::llround(v * 1e6));
  }
  so.compact = vm["compact"].as<bool>();
  if (vm.count("cpus")) so.cpus = traces::parse_view_cpus(vm["cpus"].as<std::string>());
  if (vm.count("color-pids")) so.color_pids = parse_pid_list(vm["color-pids"].as<std::string>());
  if (vm.count("color-cpus")) so.color_cpus = traces::parse_view_cpus(vm["color-cpus"].as<std::string>(), "--color-cpus");
  // Colour only where a person reads it: piped output (and every golden test) stays plain.
  so.color = traces::color_wanted(::isatty(STDOUT_FILENO) != 0, std::getenv("NO_COLOR"), so.format);
}
}  // namespace

int run_sched(const std::vector<std::string>& args) {
  po::variables_map vm;
  const bool timehist = first_positional(args, command_options(*driver::find_command_spec("sched"))) == "timehist";
  if (!parse_command(timehist ? with_timehist_summary(args) : args, "sched", vm)) return kExitOk;
  if (!vm.count("view")) throw po::error("missing view (latency, timehist or map)");
  const std::string view = vm["view"].as<std::string>();
  traces::SchedViewOptions so;
  so.view = parse_sched_view(view);
  if (!vm.count("trace")) throw po::error("missing TRACE");
  if (vm.count("extra")) {
    const bool short_s = std::find(args.begin(), args.end(), "-s") != args.end();
    throw po::error(fmt::format("unexpected argument '{}'{}", vm["extra"].as<std::vector<std::string>>().front(),
                                timehist && short_s ? ": in 'sched timehist', -s is --summary, as in perf, and takes no "
                                                      "value (--sort applies to 'sched latency' only)"
                                                    : ""));
  }
  check_sched_view_options(so.view, given_options(vm));
  if (vm.count("sort")) so.sort = parse_sched_sort(vm["sort"].as<std::string>());
  so.per_pid = vm["pids"].as<bool>();
  so.wakeups = vm["wakeups"].as<bool>();
  so.migrations = vm["migrations"].as<bool>();
  apply_output_options(vm, so);
  traces::ExtractOptions opt;
  apply_trace_reading(vm, opt);
  view_trace(vm["trace"].as<std::string>(), so, opt, std::cout);
  return kExitOk;
}

}  // namespace schedsim::cli
