// Running the validation corpus (validation_run.hpp).
#include "schedsim/driver/validation_run.hpp"

#include <regex>
#include <set>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/driver/inputs.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/sweep/executor.hpp"

namespace schedsim::driver {

namespace {

/// The figure a benchmark reports, from one run.
double metric_value(Metric m, const RunResults& r, double clients, std::string& why) {
  auto need_timer = [&]() {
    if (r.benchmark_time_ns <= 0) why = "the workload has no benchmark timer (or it never stopped)";
    return r.benchmark_time_ns > 0;
  };
  switch (m) {
    case Metric::kBenchmarkTime:
      return need_timer() ? static_cast<double>(r.benchmark_time_ns) / 1e9 : kNaN;
    case Metric::kThroughput:
    case Metric::kThroughputPerClient:
    case Metric::kUsecsPerOp:
      if (!need_timer()) return kNaN;
      // A program that prints no per-operation figure (hackbench) counts one operation per run,
      // so its throughput is 1 / time: the ratio after/before is what the corpus compares.
      if (m == Metric::kUsecsPerOp && r.benchmark_ops <= 0) {
        why = "the workload declares no benchmark operations";
        return kNaN;
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
        return kNaN;
      }
      const auto& d = r.wakeup_latency;
      const int64_t v = m == Metric::kWakeupP50 ? d.p50 : m == Metric::kWakeupP90 ? d.p90 : m == Metric::kWakeupP99 ? d.p99 : d.p999;
      return static_cast<double>(v) / 1e3;
    }
  }
  return kNaN;
}

/// One simulation: a row, a side, a repetition.
struct Unit {
  size_t row;  ///< index into the selected rows
  bool after;
  uint32_t rep;
};

struct UnitResult {
  double value = kNaN;
  std::string failure;
  std::vector<std::string> notes;
};

}  // namespace

void select_entries(std::vector<Entry>& corpus, const std::optional<std::string>& filter, const std::string& half) {
  if (filter) {
    std::regex re;
    try {
      re = std::regex(*filter);
    } catch (const std::regex_error& e) {
      throw InputError(SourceLoc{"--filter"}, std::string("not a regular expression: ") + e.what());
    }
    std::erase_if(corpus, [&](const Entry& e) { return !std::regex_search(e.name, re) && !std::regex_search(e.commit, re); });
  }
  if (half != "all") std::erase_if(corpus, [&](const Entry& e) { return e.development() != (half == "dev"); });
  if (corpus.empty())
    throw InputError(fmt::format("no corpus entry is selected by {}", filter ? "--filter and --half" : "--half"));
}

std::vector<std::pair<std::string, std::string>> parse_gen_options(const std::vector<Entry>& corpus,
                                                                   const std::vector<std::string>& values) {
  std::vector<std::pair<std::string, std::string>> gen_options;
  std::set<std::string> kinds;
  for (const auto& e : corpus)
    for (const auto& [id, b] : e.benchmarks) kinds.insert(b.gen.substr(0, b.gen.find(' ')));
  for (const auto& g : values) {
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
  return gen_options;
}

namespace {

using RowRef = std::pair<const Entry*, const RowSpec*>;

/// The request of one unit: the row's workload on the entry's machine under its side's kernel.
RunRequest unit_request(const Entry& e, const RowSpec& r, const Unit& u, const ValidationOptions& o) {
  const SideSpec& side = u.after ? e.after : e.before;
  RunRequest req;
  req.workload_gen = row_workload_spec(e, r);
  const std::string kind = req.workload_gen.substr(0, req.workload_gen.find(' '));
  for (const auto& [gen, opts] : o.gen_options)
    if (gen == kind) req.workload_gen += " " + opts;
  req.topology = e.topology;
  req.kernel = side.kernel;
  req.modules = side.modules;
  req.features = side.features;
  req.costs = o.costs;
  req.seed = o.seed;
  req.repeat = o.repeat;
  req.only_rep = u.rep;
  req.progress = "never";
  return req;
}

/// Runs one unit; a run that does not complete, or reports no figure, is a failure, not an error.
UnitResult simulate_unit(const RowRef& row, const Unit& u, const ValidationOptions& o) {
  const Entry& e = *row.first;
  const RowSpec& r = *row.second;
  UnitResult out;
  try {
    RunOutcome run = execute_run(unit_request(e, r, u, o));
    out.notes = run.notes;
    std::string why;
    if (!run.results.complete) {
      for (const auto& s : run.results.incomplete) why += (why.empty() ? "" : "; ") + s;
      out.failure = fmt::format("{} run {} did not complete: {}", u.after ? "after" : "before", u.rep, why);
      return out;
    }
    const BenchmarkSpec& b = e.benchmarks.at(r.benchmark);
    double clients = 1;
    if (b.metric == Metric::kThroughputPerClient) clients = std::stod(row_param(e, r, "clients"));
    out.value = metric_value(b.metric, run.results, clients, why);
    if (!why.empty()) out.failure = why;
  } catch (const InputError& err) {
    // A row the simulator refuses (an unknown module, a bad spec) is bad input: name the row.
    throw InputError(SourceLoc{e.path}, fmt::format("/rows/{} ({} side): {}", r.index, u.after ? "after" : "before",
                                                    err.loc().path.empty() ? err.message() : err.render()));
  }
  return out;
}

}  // namespace

ValidationRun run_corpus(const std::vector<Entry>& corpus, const ValidationOptions& o) {
  std::vector<RowRef> rows;
  for (const auto& e : corpus)
    for (const auto& r : e.rows) rows.emplace_back(&e, &r);
  std::vector<Unit> units;
  for (size_t i = 0; i < rows.size(); ++i)
    for (bool after : {false, true})
      for (uint32_t rep = 0; rep < o.repeat; ++rep) units.push_back({i, after, rep});

  std::vector<UnitResult> results(units.size());
  sweep::ExecuteOptions eo;
  eo.jobs = o.jobs;
  eo.on_progress = [&](size_t delivered) {
    if (o.on_progress) o.on_progress(delivered, units.size());
  };
  auto work = [&](size_t i) -> std::string {
    throw_if_interrupted();
    results[i] = simulate_unit(rows[units[i].row], units[i], o);
    return {};
  };
  sweep::execute_ordered(units.size(), eo, work, [](size_t, std::string&&) {});

  ValidationRun run;
  // A row's units are contiguous: 2 x repeat of them from row x 2 x repeat.
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<double> before, after;
    std::string failure;
    std::set<std::string> caveats;
    for (size_t k = i * 2 * o.repeat; k < (i + 1) * 2 * o.repeat; ++k) {
      const UnitResult& u = results[k];
      if (!u.failure.empty() && failure.empty()) failure = u.failure;
      (units[k].after ? after : before).push_back(u.value);
      for (const auto& n : u.notes) {
        // Two notes every repeated run gives by design are left out: the noise model's jitter
        // moving the simulated work, and the repetitions sharing one generated workload.
        if (n.starts_with("note: simulated work ") || n.find("repetitions share one generated workload") != std::string::npos)
          continue;
        if (n.starts_with("warning:")) caveats.insert(n);
        ++run.note_counts[n];
      }
    }
    RowResult r = judge_row(*rows[i].first, *rows[i].second, before, after, o.seed);
    if (!failure.empty()) {
      r.failed = true;
      r.failure = failure;
      run.any_failed = true;
    }
    r.caveats.assign(caveats.begin(), caveats.end());
    run.rows.push_back(std::move(r));
  }
  return run;
}

std::vector<Entry> prepare_validation(ValidateRequest& r) {
  if (r.run.repeat < 2 || r.run.repeat > 1000)
    throw InputError(SourceLoc{"--repeat"}, fmt::format("{} is out of range; allowed 2..1000 (a verdict needs repetitions "
                                                        "on each side)", r.run.repeat));
  for (const auto& c : r.run.costs)
    if (c.empty()) throw InputError(SourceLoc{"--cost"}, "'' is empty; expected NAME=VALUE or a cost file");
  if (r.run.jobs == 0) throw InputError(SourceLoc{"--jobs"}, "must be at least 1");
  std::vector<Entry> corpus = read_corpus(r.inputs);
  std::vector<std::string> files;
  files.reserve(corpus.size());
  for (const auto& e : corpus) files.push_back(e.path);
  add_spec_and_cost_files(files, "", r.run.costs);
  refuse_output_over_inputs(r.output, files, "--output");
  select_entries(corpus, r.filter, r.half);
  // --gen-option GEN:OPTIONS: a model switch of one generator for the whole corpus (the
  // messaging channel model, say), so the halves can be run under each model side by side.
  r.run.gen_options = parse_gen_options(corpus, r.gen_options);
  return corpus;
}

std::string render_validation(const ValidationRun& run, const ValidateRequest& r, const std::string& format) {
  RenderOptions ro;
  ro.repeat = r.run.repeat;
  ro.seed = r.run.seed;
  ro.version = kSchedsimVersion;
  ro.half = r.half;
  ro.costs = r.run.costs;
  for (const auto& [gen, opts] : r.run.gen_options) ro.gen_options.push_back(gen + ":" + opts);
  return format == "json" ? render_json(run.rows, ro) : format == "html" ? render_html(run.rows, ro) : render_markdown(run.rows, ro);
}

}  // namespace schedsim::driver
