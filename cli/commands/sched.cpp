// schedsim sched latency|timehist|map TRACE: perf sched's views of a trace (a recorded one, or
// the simulated schedule written by `run --trace-out`), so the two can be set side by side.
#include <algorithm>
#include <iostream>
#include <string_view>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/traces/sched_views.hpp"
#include "trace_options.hpp"

namespace schedsim::cli {

namespace {
po::options_description sched_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("view", po::value<std::string>(), "latency, timehist or map (positional)")
      ("trace", po::value<std::string>(), "input trace (positional): any trace `trace info` reads, or `run --trace-out` output")
      ("sort,s", po::value<std::string>(), "latency: sort keys, comma-separated, first decides: runtime, switch, avg, max, pid, comm (default avg,max,switch,runtime)")
      ("pids,p", po::bool_switch(), "latency: one row per pid instead of one per comm")
      ("wakeups,w", po::bool_switch(), "timehist: also a row per wake event (sched_waking, sched_wakeup, sched_wakeup_new): the task current on the CPU, 'awakened: comm[pid]' (perf sched timehist -w)")
      ("migrations,M", po::bool_switch(), "timehist: also a row per sched_migrate_task: 'migrated: comm[pid] cpu FROM => TO' (perf sched timehist -M)");
  po::options_description t = option_group("trace options");
  add_trace_reading_options(t);
  d.add(t);
  return d;
}

std::vector<std::string> split_keys(const std::string& s) {
  std::vector<std::string> out;
  size_t b = 0;
  while (b <= s.size()) {
    size_t e = s.find(',', b);
    if (e == std::string::npos) e = s.size();
    std::string k = s.substr(b, e - b);
    k.erase(0, k.find_first_not_of(' '));
    k.erase(k.find_last_not_of(' ') + 1);
    if (!k.empty()) out.push_back(k);
    b = e + 1;
  }
  return out;
}
}  // namespace

std::string help_sched() {
  return format_help(
      "schedsim sched latency|timehist|map TRACE [-s KEYS] [-p]",
      "perf sched's views of a scheduler trace, in perf's columns: 'latency' ('lat' as in perf; per\n"
      "task: runtime, switches, average and maximum scheduling delay, sorted by -s like perf sched\n"
      "latency), 'timehist' (one row per switch-out: wait time, scheduling delay, run time) and\n"
      "'map' (one column per CPU, one row per context switch). TRACE is any trace 'trace info' reads\n"
      "(ftrace, trace-cmd report or trace.dat, perf script) or the simulated schedule of\n"
      "'run ... --trace-out sim.txt', so simulated and recorded runs print in the same form.\n"
      "Definitions: docs/sched-views.md.",
      sched_options());
}

int run_sched(const std::vector<std::string>& args) {
  po::options_description d = sched_options();
  po::positional_options_description pos;
  pos.add("view", 1).add("trace", 1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_sched)) return kExitOk;
  if (!vm.count("view")) throw po::error("missing view (latency, timehist or map)");
  const std::string view = vm["view"].as<std::string>();
  traces::SchedViewOptions so;
  // perf sched takes any prefix of "latency" of at least three letters ("lat"), the others whole.
  if (view.size() >= 3 && std::string_view("latency").starts_with(view)) so.view = traces::SchedView::kLatency;
  else if (view == "timehist") so.view = traces::SchedView::kTimehist;
  else if (view == "map") so.view = traces::SchedView::kMap;
  else throw po::error(unknown_choice_message("sched view", view, {"latency", "timehist", "map"}));
  if (!vm.count("trace")) throw po::error("missing TRACE");
  if (vm.count("sort")) {
    if (so.view != traces::SchedView::kLatency) throw po::error("--sort applies to 'sched latency' only");
    so.sort = split_keys(vm["sort"].as<std::string>());
    if (so.sort.empty()) throw po::error("--sort needs at least one key (runtime, switch, avg, max, pid, comm)");
    for (const auto& k : so.sort)
      if (std::find(traces::latency_sort_keys().begin(), traces::latency_sort_keys().end(), k) ==
          traces::latency_sort_keys().end())
        throw po::error(unknown_choice_message("sort key", k, traces::latency_sort_keys()));
  }
  so.per_pid = vm["pids"].as<bool>();
  if (so.per_pid && so.view != traces::SchedView::kLatency) throw po::error("--pids applies to 'sched latency' only");
  so.wakeups = vm["wakeups"].as<bool>();
  so.migrations = vm["migrations"].as<bool>();
  if ((so.wakeups || so.migrations) && so.view != traces::SchedView::kTimehist)
    throw po::error(std::string(so.wakeups ? "--wakeups" : "--migrations") + " applies to 'sched timehist' only");
  traces::ExtractOptions opt;
  opt.all_tasks = true;  // the views show every task, as perf sched does
  apply_trace_reading(vm, opt);
  traces::SchedViews views(so);
  opt.on_event = [&views](const traces::TraceEvent& ev) { views.on_event(ev); };
  // A trace read again with its inferred prev_state layout is viewed from its start again.
  opt.on_restart = [&views, &so] { views = traces::SchedViews(so); };
  traces::ImportReport rep;
  import_trace_arg(vm["trace"].as<std::string>(), opt, &rep);
  views.set_nr_cpus(std::max<size_t>(rep.nr_cpus, rep.header_cpus > 0 ? static_cast<size_t>(rep.header_cpus) : 0));
  views.render(std::cout);
  return kExitOk;
}

}  // namespace schedsim::cli
