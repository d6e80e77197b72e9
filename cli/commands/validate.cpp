// `schedsim validate [DIR|FILE...]`: runs the validation corpus (validation/README.md) and sets
// every simulated before/after beside the published one (docs/validation.md).
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <mutex>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/driver/validation.hpp"
#include "schedsim/sweep/executor.hpp"

namespace schedsim::cli {

namespace {

namespace fs = std::filesystem;
using driver::Entry;
using driver::Metric;
using driver::RowSpec;

po::options_description validate_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("half", po::value<std::string>()->default_value("all"), "dev (commit ids starting with an even hex digit), val (odd) or all")
      ("filter", po::value<std::string>(), "only entries whose file name or commit matches this regular expression")
      ("repeat,r", po::value<uint32_t>()->default_value(5), "repetitions per side and row, with run --repeat's noise model (2..1000)")
      ("seed", po::value<uint64_t>()->default_value(1), "base seed of the repetitions and of the bootstrap")
      ("jobs,j", po::value<unsigned>(), "simulations at once (default: the CPUs this process may use; at most 4 per CPU)")
      ("format,f", po::value<std::string>(), "markdown, json or html (default: by -o's extension, .json or .html, else markdown)")
      ("output,o", po::value<std::string>()->default_value("-"), "write here (atomically) instead of stdout")
      ("cost", po::value<std::vector<std::string>>()->composing(), "NAME=VALUE or a cost file, as run --cost, for every run (after each machine's cost profile); the report names them")
      ("gen-option", po::value<std::vector<std::string>>()->composing(), "GEN:OPTIONS, repeatable: OPTIONS appended to the spec of every row whose generator is GEN (e.g. 'messaging:--channel-model pipe'); the report names them")
      ("list", po::bool_switch(), "list the corpus (entries, halves, machine families, benchmarks) without running it")
      ("progress", po::value<std::string>()->default_value("auto"), "auto (on a terminal), always or never: runs done on stderr");
  return d;
}

const char* kDescription =
    "Runs the validation corpus: per published before/after table of a merged scheduler change\n"
    "(one JSON file each, validation/README.md), every row's benchmark on the entry's machine under\n"
    "the two kernels' run options, --repeat times per side with run --repeat's noise model, and\n"
    "sets the simulated change (mean after / mean before - 1, 95% bootstrap interval) and its\n"
    "verdict beside the published change and verdict. The summary counts, per half, the rows whose\n"
    "published change exceeds its published noise, how many verdicts agree and how many changes are\n"
    "within 30% (or 2 percentage points) of the published size; also curves over a parameter.\n"
    "The corpus is split once by commit id: even first hex digit = development, odd = validation;\n"
    "the validation half is for reporting only (docs/validation.md).\n"
    "DIR defaults to ./validation. Same inputs and seed, same output, whatever --jobs.\n\n"
    "exit status: 0 every row simulated; 4 a row's simulation did not complete (the report says\n"
    "which, and the row is left out of the goals); 1 bad input; 2 usage.\n\n"
    "examples:\n"
    "  schedsim validate --list\n"
    "  schedsim validate --half dev --repeat 5 -o validation-dev.md\n"
    "  schedsim validate validation/cluster-scan-8881e1639f1f-kunpeng920-node0.json -o v.html";

/// The figure a benchmark reports, from one run.
double metric_value(Metric m, const RunResults& r, double clients, std::string& why) {
  auto need_timer = [&]() {
    if (r.benchmark_time_ns <= 0) why = "the workload has no benchmark timer (or it never stopped)";
    return r.benchmark_time_ns > 0;
  };
  switch (m) {
    case Metric::kBenchmarkTime:
      return need_timer() ? static_cast<double>(r.benchmark_time_ns) / 1e9 : driver::kNaN;
    case Metric::kThroughput:
    case Metric::kThroughputPerClient:
    case Metric::kUsecsPerOp:
      if (!need_timer()) return driver::kNaN;
      // A program that prints no per-operation figure (hackbench) counts one operation per run,
      // so its throughput is 1 / time: the ratio after/before is what the corpus compares.
      if (m == Metric::kUsecsPerOp && r.benchmark_ops <= 0) {
        why = "the workload declares no benchmark operations";
        return driver::kNaN;
      }
      {
        const double ops = r.benchmark_ops > 0 ? static_cast<double>(r.benchmark_ops) : 1.0;
        const double per_s = ops / (static_cast<double>(r.benchmark_time_ns) / 1e9);
        if (m == Metric::kThroughput) return per_s;
        if (m == Metric::kThroughputPerClient) return per_s / clients;  // netperf: per instance
        return static_cast<double>(r.benchmark_time_ns) / 1e3 / ops;
      }
    case Metric::kWakeupP50:
    case Metric::kWakeupP90:
    case Metric::kWakeupP99:
    case Metric::kWakeupP999: {
      if (r.wakeup_latency.count == 0) {
        why = "the run has no wakeup latency samples";
        return driver::kNaN;
      }
      const auto& d = r.wakeup_latency;
      const int64_t v = m == Metric::kWakeupP50 ? d.p50 : m == Metric::kWakeupP90 ? d.p90 : m == Metric::kWakeupP99 ? d.p99 : d.p999;
      return static_cast<double>(v) / 1e3;
    }
  }
  return driver::kNaN;
}

/// One simulation: a row, a side, a repetition.
struct Unit {
  size_t row;  ///< index into the selected rows
  bool after;
  uint32_t rep;
};

struct UnitResult {
  double value = driver::kNaN;
  std::string failure;
  std::vector<std::string> notes;
};

}  // namespace

std::string help_validate() {
  return format_help("schedsim validate [DIR|FILE...] [options]", kDescription, validate_options());
}

int run_validate(const std::vector<std::string>& args) {
  po::options_description d = validate_options();
  d.add_options()("input", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_validate)) return kExitOk;
  refuse_empty_values(vm, {"half", "filter", "format", "output", "progress"}, "validate");

  std::vector<std::string> inputs;
  if (vm.count("input")) {
    inputs = vm["input"].as<std::vector<std::string>>();
  } else {
    std::error_code ec;
    if (!fs::is_directory("validation", ec))
      throw po::error("no corpus given and no ./validation directory here: name the corpus directory or files");
    inputs = {"validation"};
  }
  const std::string half = vm["half"].as<std::string>();
  if (half != "dev" && half != "val" && half != "all")
    throw po::error(unknown_choice_message("--half", half, {"dev", "val", "all"}));
  const std::string output = vm["output"].as<std::string>();
  std::string format;
  if (vm.count("format")) {
    format = vm["format"].as<std::string>();
    if (format != "markdown" && format != "json" && format != "html")
      throw po::error(unknown_choice_message("--format", format, {"markdown", "json", "html"}));
  } else {
    format = output.ends_with(".json") ? "json" : output.ends_with(".html") ? "html" : "markdown";
  }
  const uint32_t repeat = vm["repeat"].as<uint32_t>();
  if (repeat < 2 || repeat > 1000)
    throw po::error(fmt::format("--repeat {} is out of range; allowed 2..1000 (a verdict needs repetitions on each side)", repeat));
  const uint64_t seed = vm["seed"].as<uint64_t>();
  const std::vector<std::string> costs = vm.count("cost") ? vm["cost"].as<std::vector<std::string>>() : std::vector<std::string>{};
  for (const auto& c : costs)
    if (c.empty()) throw po::error("--cost '' is empty; expected NAME=VALUE or a cost file");
  const std::string progress = vm["progress"].as<std::string>();
  if (progress != "auto" && progress != "always" && progress != "never")
    throw po::error(unknown_choice_message("--progress", progress, {"auto", "always", "never"}));
  unsigned jobs = vm.count("jobs") ? vm["jobs"].as<unsigned>() : sweep::available_cpus();
  if (jobs == 0) throw po::error("--jobs must be at least 1");
  std::cerr << sweep::jobs_cap_note(jobs);

  std::vector<Entry> corpus = driver::read_corpus(inputs);
  std::vector<std::string> input_files;
  input_files.reserve(corpus.size());
  for (const auto& e : corpus) input_files.push_back(e.path);
  add_spec_and_cost_files(input_files, "", costs);
  refuse_output_over_inputs(output, input_files, "--output");
  if (vm.count("filter")) {
    std::regex re;
    try {
      re = std::regex(vm["filter"].as<std::string>());
    } catch (const std::regex_error& e) {
      throw InputError(SourceLoc{"--filter"}, std::string("not a regular expression: ") + e.what());
    }
    std::erase_if(corpus, [&](const Entry& e) { return !std::regex_search(e.name, re) && !std::regex_search(e.commit, re); });
  }
  if (half != "all") std::erase_if(corpus, [&](const Entry& e) { return e.development() != (half == "dev"); });
  if (corpus.empty())
    throw InputError(fmt::format("no corpus entry is selected by {}", vm.count("filter") ? "--filter and --half" : "--half"));
  // --gen-option GEN:OPTIONS: a model switch of one generator for the whole corpus (the
  // messaging channel model, say), so the halves can be run under each model side by side.
  std::vector<std::pair<std::string, std::string>> gen_options;
  if (vm.count("gen-option")) {
    std::set<std::string> kinds;
    for (const auto& e : corpus)
      for (const auto& [id, b] : e.benchmarks) kinds.insert(b.gen.substr(0, b.gen.find(' ')));
    for (const auto& g : vm["gen-option"].as<std::vector<std::string>>()) {
      const size_t colon = g.find(':');
      if (colon == std::string::npos || colon == 0 || g.find_first_not_of(' ', colon + 1) == std::string::npos)
        throw InputError(SourceLoc{"--gen-option"}, fmt::format("expected GEN:OPTIONS (e.g. 'messaging:--channel-model "
                                                                "pipe'), got '{}'", g));
      std::string kind = g.substr(0, colon);
      if (!kinds.count(kind))
        throw InputError(SourceLoc{"--gen-option"},
                         unknown_choice_message("generator of the selected rows", kind,
                                                std::vector<std::string>(kinds.begin(), kinds.end())));
      gen_options.emplace_back(std::move(kind), g.substr(colon + 1));
    }
  }

  if (vm["list"].as<bool>()) {
    write_output(output, driver::render_list(corpus));
    return kExitOk;
  }

  std::vector<std::pair<const Entry*, const RowSpec*>> rows;
  for (const auto& e : corpus)
    for (const auto& r : e.rows) rows.emplace_back(&e, &r);
  std::vector<Unit> units;
  for (size_t i = 0; i < rows.size(); ++i)
    for (bool after : {false, true})
      for (uint32_t rep = 0; rep < repeat; ++rep) units.push_back({i, after, rep});

  std::vector<UnitResult> results(units.size());
  const bool show = progress == "always" || (progress == "auto" && ::isatty(2));
  sweep::ExecuteOptions eo;
  eo.jobs = jobs;
  eo.on_progress = [&](size_t delivered) {
    if (show && (delivered == units.size() || delivered % 10 == 0))
      std::cerr << fmt::format("\rschedsim validate: {}/{} runs", delivered, units.size()) << (delivered == units.size() ? "\n" : "")
                << std::flush;
  };
  auto work = [&](size_t i) -> std::string {
    throw_if_interrupted();
    const Unit& u = units[i];
    const Entry& e = *rows[u.row].first;
    const RowSpec& r = *rows[u.row].second;
    const driver::SideSpec& side = u.after ? e.after : e.before;
    RunRequest req;
    req.workload_gen = driver::row_workload_spec(e, r);
    const std::string kind = req.workload_gen.substr(0, req.workload_gen.find(' '));
    for (const auto& [gen, opts] : gen_options)
      if (gen == kind) req.workload_gen += " " + opts;
    req.topology = e.topology;
    req.kernel = side.kernel;
    req.modules = side.modules;
    req.features = side.features;
    req.costs = costs;
    req.seed = seed;
    req.repeat = repeat;
    req.only_rep = u.rep;
    req.progress = "never";
    UnitResult& out = results[i];
    try {
      RunOutcome o = execute_run(req);
      out.notes = o.notes;
      if (!o.results.complete) {
        std::string why;
        for (const auto& s : o.results.incomplete) why += (why.empty() ? "" : "; ") + s;
        out.failure = fmt::format("{} run {} did not complete: {}", u.after ? "after" : "before", u.rep, why);
      } else {
        std::string why;
        const driver::BenchmarkSpec& b = e.benchmarks.at(r.benchmark);
        double clients = 1;
        if (b.metric == Metric::kThroughputPerClient) clients = std::stod(driver::row_param(e, r, "clients"));
        out.value = metric_value(b.metric, o.results, clients, why);
        if (!why.empty()) out.failure = why;
      }
    } catch (const InputError& err) {
      // A row the simulator refuses (an unknown module, a bad spec) is bad input: name the row.
      throw InputError(SourceLoc{e.path}, fmt::format("/rows/{} ({} side): {}", r.index, u.after ? "after" : "before",
                                                      err.loc().path.empty() ? err.message() : err.render()));
    }
    return {};
  };
  try {
    CooperativeInterrupts interrupts;
    sweep::execute_ordered(units.size(), eo, work, [](size_t, std::string&&) {});
  } catch (const Interrupted& e) {
    std::cerr << "\nschedsim: " << e.what() << "; no output written\n";
    return 128 + e.signal();
  }

  std::vector<driver::RowResult> judged;
  std::map<std::string, size_t> note_counts;
  bool any_failed = false;
  // A row's units are contiguous: 2 x repeat of them from row x 2 x repeat.
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<double> before, after;
    std::string failure;
    std::set<std::string> caveats;
    for (size_t k = i * 2 * repeat; k < (i + 1) * 2 * repeat; ++k) {
      const UnitResult& u = results[k];
      if (!u.failure.empty() && failure.empty()) failure = u.failure;
      (units[k].after ? after : before).push_back(u.value);
      for (const auto& n : u.notes) {
        // Two notes every repeated run gives by design are left out: the noise model's jitter
        // moving the simulated work, and the repetitions sharing one generated workload.
        if (n.starts_with("note: simulated work ") || n.find("repetitions share one generated workload") != std::string::npos)
          continue;
        if (n.starts_with("warning:")) caveats.insert(n);
        ++note_counts[n];
      }
    }
    driver::RowResult r = driver::judge_row(*rows[i].first, *rows[i].second, before, after, seed);
    if (!failure.empty()) {
      r.failed = true;
      r.failure = failure;
      any_failed = true;
    }
    r.caveats.assign(caveats.begin(), caveats.end());
    judged.push_back(std::move(r));
  }
  driver::RenderOptions ro;
  ro.repeat = repeat;
  ro.seed = seed;
  ro.version = kSchedsimVersion;
  ro.half = half;
  ro.costs = costs;
  for (const auto& [gen, opts] : gen_options) ro.gen_options.push_back(gen + ":" + opts);
  const std::string text = format == "json" ? driver::render_json(judged, ro)
                           : format == "html" ? driver::render_html(judged, ro)
                                              : driver::render_markdown(judged, ro);
  write_output(output, text);
  // The runs' caveats once each, with how many runs gave them.
  for (const auto& [n, count] : note_counts) std::cerr << fmt::format("schedsim: {} ({} runs)\n", n, count);
  if (any_failed) {
    std::cerr << "schedsim: some rows' simulations did not complete; they are reported as failed and left out of the goals\n";
    return kExitIncomplete;
  }
  return kExitOk;
}

}  // namespace schedsim::cli
