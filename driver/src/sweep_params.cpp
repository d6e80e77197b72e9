// Sweep parameters -> RunRequest, and the record line of one run.
#include "schedsim/driver/sweep_params.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/driver/run_options.hpp"
#include "schedsim/engine/cost_model.hpp"
#include "schedsim/sweep/executor.hpp"
#include "schedsim/sweep/jsonl.hpp"
#include "schedsim/sweep/slurm.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/workload/generators.hpp"

namespace schedsim::driver {

namespace {

std::string point_name(const sweep::Point& p) {
  return p.label.empty() ? fmt::format("point {}", p.index) : fmt::format("point {} ({})", p.index, p.label);
}

}  // namespace

const std::vector<std::string>& sweep_param_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    for (const auto& o : driver::run_options())
      if (!o.not_swept) k.emplace_back(o.name);
    return k;
  }();
  return keys;
}

const std::vector<std::pair<std::string, std::string>>& sweep_excluded_keys() {
  static const std::vector<std::pair<std::string, std::string>> keys = [] {
    std::vector<std::pair<std::string, std::string>> k;
    for (const auto& o : driver::run_options())
      if (o.not_swept) k.emplace_back(o.name, o.not_swept);
    // Not a run option but every command's (common_options()).
    k.emplace_back("explain", "every command takes it (sweep --explain prints its warnings in full)");
    return k;
  }();
  return keys;
}

void check_sweep_keys(const sweep::Spec& spec) {
  std::vector<std::string> valid = sweep_param_keys();
  for (const char* fam : {"gen.KEY", "cost.NAME", "feature.NAME"}) valid.emplace_back(fam);
  for (const auto& key : spec.keys()) {
    std::string origin = spec.origin(key);
    if (key.rfind("gen.", 0) == 0 || key.rfind("cost.", 0) == 0 || key.rfind("feature.", 0) == 0) {
      if (key.substr(key.find('.') + 1).empty()) throw InputError(SourceLoc{origin}, "parameter '" + key + "' has no name after the dot");
      continue;
    }
    if (std::find(valid.begin(), valid.end(), key) != valid.end()) continue;
    for (const auto& [k, why] : sweep_excluded_keys())
      if (k == key) throw InputError(SourceLoc{origin}, "'" + key + "' cannot be a sweep parameter: " + why);
    throw InputError(SourceLoc{origin}, unknown_choice_message("sweep parameter", key, valid));
  }
  // gen.* needs a generator.
  bool has_gen = false, has_genopt = false;
  std::string genopt;
  for (const auto& key : spec.keys()) {
    if (key == "workload-gen") has_gen = true;
    if (key.rfind("gen.", 0) == 0 && !has_genopt) {
      has_genopt = true;
      genopt = key;
    }
  }
  if (has_genopt && !has_gen)
    throw InputError(SourceLoc{spec.origin(genopt)}, "'" + genopt + "' sets a generator option, but no 'workload-gen' parameter names the generator (e.g. --set workload-gen=messaging)");
}

RunRequest point_request(const sweep::Point& point, uint64_t seed) {
  RunRequest req;
  req.seed = seed;
  req.label = point.label;
  req.format = "json";
  req.progress = "never";
  req.output = "-";
  std::string gen_extra;
  for (const auto& param : point.params) {
    // Named references, not structured bindings: clang 14 cannot capture bindings in a lambda.
    const std::string& key = param.first;
    const std::string& value = param.second;
    auto bad = [&](const std::string& what) {
      return InputError(fmt::format("{}: parameter {}={}: {}", point_name(point), key, value, what));
    };
    bool b = false;
    if (const driver::RunOption* o = driver::find_run_option(key); o && !o->not_swept) {
      try {
        driver::set_option_text(req, *o, value);
      } catch (const driver::OptionValueError& e) {
        throw bad(e.what());
      }
    } else if (key.rfind("feature.", 0) == 0) {
      if (!driver::parse_on_off(value, b)) throw bad("expected on or off");
      req.features.push_back((b ? "" : "NO_") + key.substr(8));
    } else if (key.rfind("cost.", 0) == 0) {
      req.costs.push_back(key.substr(5) + "=" + value);
    } else if (key.rfind("gen.", 0) == 0) {
      // gen.group=10 -> "--group 10"; gen.g=10 -> "-g 10"; gen.pipe=true -> "--pipe", false -> nothing.
      std::string name = key.substr(4);
      std::string flag = (name.size() == 1 ? "-" : "--") + name;
      if (value == "true") gen_extra += " " + flag;
      else if (value != "false") gen_extra += " " + flag + " " + sweep::sh_quote(value);
    }
  }
  req.workload_gen += gen_extra;
  return req;
}

std::vector<std::string> validate_points(const std::vector<sweep::Point>& points, uint32_t repeat) {
  std::map<std::string, bool> topologies;
  // Each generator spec and workload file the points name, with its task names only (programs
  // dropped): a point's --slice regex must match one of them. Traces are imported only when
  // their point runs, so a slice regex on a trace is checked then.
  std::map<std::string, Workload> generators, files;
  auto names_only = [](Workload w) {
    for (TaskSpec& t : w.tasks) std::vector<Action>().swap(t.program);
    return w;
  };
  std::vector<std::string> random;
  for (const auto& p : points) {
    try {
      RunRequest req = point_request(p, 1);
      if (!req.noise.empty()) (void)parse_noise(req.noise);
      check_slices(req.slices);
      if (!req.topology.empty() && !topologies.count(req.topology)) {
        (void)load_topology(req.topology);
        topologies[req.topology] = true;
      }
      if (!req.recorded_on.empty() && !topologies.count(req.recorded_on)) {
        try {
          (void)load_topology(req.recorded_on);
        } catch (const InputError& e) {  // an unknown preset: say which key named it
          if (!e.loc().path.empty()) throw;
          throw InputError("recorded-on: " + e.message());
        }
        topologies[req.recorded_on] = true;
      }
      RunConfig config;
      (void)sim_config_of(req, config);
      if (!req.max_memory.empty()) (void)parse_max_memory(req.max_memory);
      (void)build_policy_stack(req.kernel, req.modules, req.features, config);
      CostModel cost;
      for (const auto& c : req.costs) {
        if (c.find('=') == std::string::npos) cost.load_json_file(c);
        else cost.set(c);
      }
      if (!req.workload_gen.empty() && !req.input.empty())
        throw InputError("give either an 'input' file or a 'workload-gen', not both");
      if (!req.workload_gen.empty() && !generators.count(req.workload_gen)) {
        Workload generated = generate_workload_from_spec(req.workload_gen);
        if (generator_is_random(req.workload_gen, {}, 1, generated)) random.push_back(req.workload_gen);
        generators.emplace(req.workload_gen, names_only(std::move(generated)));
      }
      if (req.workload_gen.empty() && req.input.empty())
        throw InputError("no workload: give a WORKLOAD or TRACE file, --set input=FILE, or --set workload-gen='KIND opts'");
      std::error_code ec;
      if (!req.input.empty() && !std::filesystem::is_regular_file(req.input, ec))
        throw InputError(SourceLoc{req.input}, "no such file");
      const bool native = req.workload_gen.empty() && looks_like_workload(req.input);
      if (native && !files.count(req.input)) files.emplace(req.input, names_only(read_workload(req.input)));
      if (!req.slices.empty()) {
        if (!req.workload_gen.empty()) check_slices(req.slices, generators.at(req.workload_gen));
        else if (native) check_slices(req.slices, files.at(req.input));
      }
      // What `run` refuses once the workload is loaded, refused here before any point runs: the
      // trace options on a workload that is not a trace, and migration-delta on an imported file.
      if (!req.workload_gen.empty() || native) {
        std::vector<std::string> given;
        for (const std::string& opt : trace_options_given(req.extract)) given.push_back(opt.substr(2));
        if (req.smt_normalize) given.emplace_back("smt-normalize");
        if (!req.recorded_on.empty()) given.emplace_back("recorded-on");
        if (!given.empty())
          throw InputError(fmt::format("parameter{} {} {} only to a trace input, and {} is not a trace",
                                       given.size() == 1 ? "" : "s", join(given, ", "),
                                       given.size() == 1 ? "applies" : "apply",
                                       native ? "'" + req.input + "' (a schedsim workload)"
                                              : "the generated workload '" + req.workload_gen + "'"));
      }
      if (native) refuse_migration_delta(cost, files.at(req.input), false);
      refuse_recorded_on_alone(req);
    } catch (const InputError& e) {
      if (e.message().rfind("point ", 0) == 0) throw;
      throw InputError(e.loc(), point_name(p) + ": " + e.message(), e.context());
    }
  }
  // Repetitions of a point reuse its one generated workload (docs/sweep.md "Seeds and
  // repetitions"): their spread is the noise model's, not the generator's random choices.
  std::vector<std::string> notes;
  if (repeat > 1)
    for (const auto& g : random)
      notes.push_back(fmt::format("note: the {} repetitions of a point share one generated workload ('{}'): they vary "
                                  "the noise model, not the generator's random choices; sweep gen.seed to sample those",
                                  repeat, g));
  return notes;
}

std::string write_record(const sweep::Point& point, uint32_t rep, uint64_t seed, const RunResults& results,
                         const Record& record) {
  // The results JSON (docs/results-schema.md) without the per-task, per-CPU and timeline detail,
  // which would make a record of a 40-group messaging run hundreds of kilobytes: a sweep record
  // keeps every run-level metric; `schedsim run` on the point gives the rest.
  nlohmann::ordered_json r = nlohmann::ordered_json::parse(render_json(results));
  for (const char* bulky : {"cpus", "timeline", "tasks", "task_groups"}) r.erase(bulky);
  nlohmann::ordered_json rec;
  rec["type"] = sweep::kRecordType;
  rec[sweep::kRecordPoint] = point.index;
  rec[sweep::kRecordRep] = rep;
  rec["seed"] = seed;
  rec["label"] = point.label;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& [k, v] : point.params) params[k] = v;
  rec["params"] = params;
  rec["results"] = r;
  // The same run as `run --format jsonl` writes it (schema schedsim-record: flat parameters and
  // every scalar metric), which is what `schedsim compare` reads from a sweep file.
  Record one = record;
  one.rep = rep;
  one.seed = seed;
  rec["record"] = nlohmann::ordered_json::parse(render_jsonl({one}));
  return rec.dump() + "\n";
}

std::string run_unit(const sweep::Point& p, uint32_t rep, uint32_t repeat) {
  uint64_t seed = sweep::derive_seed(p.seed, rep);
  try {
    // With repetitions, repetition `rep` runs as `run --seed POINT_SEED --repeat N` runs its
    // repetition `rep`: the same seed, machine-speed factor and jitter (the noise model).
    RunRequest req = point_request(p, repeat > 1 ? p.seed : seed);
    if (repeat > 1) {
      req.repeat = repeat;
      req.only_rep = rep;
    }
    RunOutcome out = execute_run(req);
    out.results.config.seed = seed;  // the seed this run used (run --repeat prints the base seed)
    return write_record(p, rep, seed, out.results, out.records.at(0));
  } catch (const InputError& e) {
    throw InputError(e.loc(), fmt::format("point {}{} rep {}: {}", p.index, p.label.empty() ? "" : " (" + p.label + ")", rep, e.message()),
                     e.context());
  }
}

void check_records_output(const std::string& output, const char* command) {
  if (output == "-")
    throw InputError(SourceLoc{"--output"}, fmt::format("{} writes its records to a file; '-' is not supported (the summary goes "
                                                        "to stdout)", command));
  if (gzip_name(output))
    throw InputError(SourceLoc{"--output"}, fmt::format("{} writes plain JSON Lines, which sweep --resume and merge read back; "
                                                        "name the file without .gz and compress it when it is done", command));
}

sweep::SummaryOptions summary_options(const std::string& format) {
  sweep::SummaryOptions o;
  o.format = format;
  // Catalog metrics, titled and scaled as compare's table shows them (metric_label: one name and
  // one unit wherever a metric shows), read from each line's results, which every sweep file has
  // (lines of older versions have no `record`).
  struct Source {
    const char* metric;
    const char* pointer;
    const char* count;  // a statistic of a distribution: its sample count
  };
  static const Source kSources[] = {
      {"wakeup.mean", "/results/latency_ns/wakeup/mean", "/results/latency_ns/wakeup/count"},
      {"wakeup.p50", "/results/latency_ns/wakeup/p50", "/results/latency_ns/wakeup/count"},
      {"wakeup.p99", "/results/latency_ns/wakeup/p99", "/results/latency_ns/wakeup/count"},
      {"makespan", "/results/summary/makespan_ns", ""},
      {kBenchmarkTimeMetric, "/results/summary/benchmark_time_ns", ""},
  };
  for (const auto& src : kSources) {
    const MetricDef& d = *find_metric(src.metric);
    sweep::MetricColumn c;
    c.name = metric_label(d);
    c.pointer = src.pointer;
    c.count_pointer = src.count;
    c.scale = display_scale(d);
    c.decimals = std::string_view(display_unit(d)) == "ms" ? 3 : 2;
    // Only runs of a workload with a benchmark timer that finished record it (docs/generators.md).
    if (std::string_view(src.metric) == kBenchmarkTimeMetric) {
      c.optional = true;
      c.absent_why = "a workload without a benchmark timer, or a run that did not finish";
    }
    o.columns.push_back(std::move(c));
  }
  o.complete_pointer = "/results/summary/complete";
  o.incomplete_pointer = "/results/summary/incomplete";
  o.notes_pointer = "/results/summary/notes";
  return o;
}

namespace {

// The record writer of a sweep with an output file: created, or (resume) locked, scanned and cut
// after its last whole record; `done` receives the runs it already holds.
std::unique_ptr<sweep::RecordWriter> open_records(const sweep::Spec& spec, const SweepRunOptions& o,
                                                  const std::string& header, const std::vector<uint64_t>& units,
                                                  size_t& done) {
  done = 0;
  if (o.output.empty()) return nullptr;
  std::error_code ec;
  if (!o.resume || !std::filesystem::exists(o.output, ec))
    return std::make_unique<sweep::RecordWriter>(o.output, header, sweep::RecordWriter::Mode::kCreate);
  // Locked before it is read: another writer's records must not change it under the scan.
  auto writer = std::make_unique<sweep::RecordWriter>(o.output, header, sweep::RecordWriter::Mode::kResume);
  sweep::Existing ex = sweep::scan_existing(o.output, header, spec, units);
  if (ex.partial_tail && o.on_note)
    o.on_note("note: " + o.output + ": dropped a partial last record (the sweep was killed mid-write)");
  done = ex.records;
  writer->resume_at(ex.keep_bytes);
  if (done && o.on_note) o.on_note(fmt::format("note: {}: {} of {} runs already done, resuming", o.output, done, units.size()));
  return writer;
}

}  // namespace

SweepRunResult execute_sweep(const sweep::Spec& spec, const std::vector<sweep::Point>& points,
                             const SweepRunOptions& o) {
  const std::vector<uint64_t> units = sweep::shard_units(spec, o.shard);
  size_t done = 0;
  std::unique_ptr<sweep::RecordWriter> writer = open_records(spec, o, sweep::header_line(spec, o.shard), units, done);
  // A point's repetitions are contiguous units: a point is done with its last one.
  auto ends_point = [&](size_t i) { return i + 1 == units.size() || units[i + 1] / spec.repeat != units[i] / spec.repeat; };
  size_t total_points = 0, points_done = 0;
  for (size_t i = 0; i < units.size(); ++i)
    if (ends_point(i)) {
      ++total_points;
      if (i < done) ++points_done;
    }
  SweepRunResult res;
  res.runs = units.size();
  if (o.on_progress) o.on_progress(done, units.size(), points_done, total_points);
  sweep::ExecuteOptions eo;
  eo.jobs = o.jobs;
  eo.on_progress = [&](size_t delivered) {
    if (ends_point(done + delivered - 1)) ++points_done;
    if (o.on_progress) o.on_progress(done + delivered, units.size(), points_done, total_points);
  };
  auto work = [&](size_t i) {
    // A unit not yet started when SIGINT/SIGTERM arrived is not started (a running one stops at
    // its next progress poll, execute_run's RunGuard).
    throw_if_interrupted();
    const uint64_t u = units[done + i];
    return run_unit(points[u / spec.repeat], static_cast<uint32_t>(u % spec.repeat), spec.repeat);
  };
  size_t delivered = 0;
  try {
    // SIGINT/SIGTERM while the units run only set a flag: the workers stop, the records before
    // the first unit that did not finish are written whole and in order, the file is synced
    // (docs/sweep.md "Interruption").
    CooperativeInterrupts interrupts;
    sweep::execute_ordered(units.size() - done, eo, work, [&](size_t, std::string&& line) {
      if (o.on_record) o.on_record(line.substr(0, line.size() - 1));
      if (writer) writer->append(line);
      else res.records.push_back(line.substr(0, line.size() - 1));
      ++delivered;
    });
  } catch (const Interrupted& e) {
    if (writer) writer->close();
    res.signal = e.signal();
    res.interrupted = e.what();
    res.runs_written = done + delivered;
    return res;
  } catch (...) {
    if (writer) writer->close();
    throw;
  }
  res.runs_written = done + delivered;
  if (writer) {
    writer->close();
    res.records = sweep::read_results(o.output).records;
  }
  return res;
}

}  // namespace schedsim::driver
