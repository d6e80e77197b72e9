// The `schedsim._schedsim` extension: the driver library (driver/) as Python calls, built with
// pybind11. It holds no logic of its own beyond turning Python values into a RunRequest through
// the run option table (driver/run_options.hpp, the same rows `schedsim run` builds its options
// from), releasing the GIL while simulating, and stopping a simulation on Ctrl-C. The package
// (python/schedsim/__init__.py) turns what it returns into DataFrames; docs/python.md is the API.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <exception>
#include <future>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/driver/compare.hpp"
#include "schedsim/driver/inputs.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/driver/run_options.hpp"
#include "schedsim/driver/sweep_params.hpp"
#include "schedsim/metrics/compare.hpp"
#include "schedsim/metrics/records.hpp"
#include "schedsim/metrics/results.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/sweep/spec.hpp"
#include "schedsim/topology/topology.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/traces/sched_views.hpp"

namespace py = pybind11;

namespace schedsim::python {

namespace {

using driver::OptionType;
using driver::RunOption;

// The package's exception classes (schedsim.InputError, UsageError, ResourceError), handed over by
// set_error_classes() when the package is imported; kept for the life of the interpreter.
PyObject* g_input_error = nullptr;
PyObject* g_usage_error = nullptr;
PyObject* g_resource_error = nullptr;

// The process's memory budget as the module set it at import; a run with max_memory replaces it
// for its own duration only (execute_run sets it for the process, as the CLI's one run may).
uint64_t g_default_budget = 0;
std::string g_default_budget_source;

// A value a Python caller gave that `schedsim run` would refuse as a usage error (exit 2).
using driver::UsageError;
// A keyword or value of the wrong Python type: TypeError.
struct WrongType : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void raise_input_error(const InputError& e) {
  py::object cls = py::reinterpret_borrow<py::object>(g_input_error ? g_input_error : PyExc_ValueError);
  py::object exc = cls(e.render());
  if (g_input_error) {
    exc.attr("file") = e.loc().path;
    exc.attr("line") = e.loc().line;
    exc.attr("column") = e.loc().col;
    exc.attr("message") = e.message();
  }
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

// Python keyword names: the option's long name with '-' as '_', and the plural a list reads as.
const std::map<std::string, std::string>& keyword_aliases() {
  static const std::map<std::string, std::string> a = {
      {"features", "feature"}, {"costs", "cost"}, {"slices", "slice"}, {"pids", "pid"}, {"background_pids", "background-pid"}};
  return a;
}

// Options of `run` that shape its terminal output, not the simulation: a Python caller has the
// results object instead. Each with what to use.
const std::map<std::string, std::string>& cli_only_options() {
  static const std::map<std::string, std::string> o = {
      {"output", "write Results.to_json() (or a DataFrame) yourself"},
      {"format", "Results.to_json() is the JSON; the DataFrames are the rest"},
      {"progress", "a Python run prints no progress bar"},
      {"tasks", "Results.tasks has every task"},
      {"cpus", "Results.cpus has every CPU"},
      {"view", "write the schedule with trace_out=FILE and read it with `schedsim sched`"},
  };
  return o;
}

std::string option_name_of(const std::string& keyword) {
  auto a = keyword_aliases().find(keyword);
  if (a != keyword_aliases().end()) return a->second;
  std::string name = keyword;
  for (char& c : name)
    if (c == '_') c = '-';
  return name;
}

// Which of the run options a call takes as keywords: all of run's, the trace options of
// `import` (selection and reading), or only how a trace is read (`sched`, whose views show every task).
enum class Scope { kRun, kTrace, kTraceReading };

bool in_scope(const RunOption& o, Scope scope) {
  switch (scope) {
    case Scope::kRun: return true;
    case Scope::kTrace: return o.group == driver::OptionGroup::kTraceSelection || o.group == driver::OptionGroup::kTraceReading;
    case Scope::kTraceReading: return o.group == driver::OptionGroup::kTraceReading;
  }
  return false;
}

std::vector<std::string> keyword_names(Scope scope) {
  std::vector<std::string> out;
  for (const auto& o : driver::run_options()) {
    if (o.group == driver::OptionGroup::kPositional || cli_only_options().count(o.name)) continue;
    if (!in_scope(o, scope)) continue;
    std::string k = o.name;
    for (char& c : k)
      if (c == '-') c = '_';
    out.push_back(k);
  }
  return out;
}

std::string type_name(const py::handle& v) { return py::str(py::type::of(v).attr("__name__")); }

bool is_int(const py::handle& v) { return py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v); }

// One text as the CLI would see it: a str, or a number written as Python writes it.
std::string text_of(const py::handle& v, const std::string& keyword) {
  if (py::isinstance<py::str>(v)) return v.cast<std::string>();
  if (is_int(v) || py::isinstance<py::float_>(v)) return py::str(v);
  throw WrongType(keyword + ": expected a str, got " + type_name(v));
}

template <class Each>
void for_each_item(const py::handle& v, Each each) {
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    for (const auto& item : v) each(item);
  } else {
    each(v);
  }
}

uint64_t count_of(const py::handle& v, const std::string& keyword, uint64_t max) {
  if (!is_int(v)) throw WrongType(keyword + ": expected an int, got " + type_name(v));
  py::int_ i = py::reinterpret_borrow<py::int_>(v);
  if (i < py::int_(0) || i > py::int_(max))
    throw py::value_error(keyword + ": expected 0 to " + std::to_string(max) + ", got " + std::string(py::str(v)));
  return v.cast<uint64_t>();
}

int64_t integer_of(const py::handle& v, const std::string& keyword) {
  if (!is_int(v)) throw WrongType(keyword + ": expected an int, got " + type_name(v));
  py::int_ i = py::reinterpret_borrow<py::int_>(v);
  if (i < py::int_(std::numeric_limits<int64_t>::min()) || i > py::int_(std::numeric_limits<int64_t>::max()))
    throw py::value_error(keyword + ": out of range: " + std::string(py::str(v)));
  return v.cast<int64_t>();
}

// Puts keyword=value into `req` through its option's row, as `schedsim run` puts --name value;
// `argv` receives the words the same option takes on the command line.
void apply_keyword(driver::RunRequest& req, const std::string& keyword, const py::handle& value, Scope scope,
                   std::vector<std::string>& argv) {
  const std::string name = option_name_of(keyword);
  const RunOption* o = driver::find_run_option(name);
  if (o && !in_scope(*o, scope)) o = nullptr;
  if (!o || o->group == driver::OptionGroup::kPositional) {
    std::vector<std::string> valid = keyword_names(scope);
    std::string near = closest_match(keyword, valid);
    throw WrongType("unexpected keyword argument '" + keyword + "'" +
                    (near.empty() ? "" : "; did you mean '" + near + "'?") + " (schedsim.options() lists them)");
  }
  if (auto c = cli_only_options().find(o->name); c != cli_only_options().end())
    throw WrongType("keyword '" + keyword + "' is an option of the command line's output: " + c->second);
  const std::string flag = std::string("--") + o->name;
  driver::OptionValue v;
  std::string shown;
  switch (o->type) {
    case OptionType::kText:
      v.text = shown = text_of(value, keyword);
      if (o->refuse_empty && v.text.empty()) throw InputError(SourceLoc{flag}, driver::empty_value_message(*o, "run"));
      argv.insert(argv.end(), {flag, v.text});
      break;
    case OptionType::kTexts:
      for_each_item(value, [&](const py::handle& item) {
        v.texts.push_back(text_of(item, keyword));
        argv.insert(argv.end(), {flag, v.texts.back()});
      });
      break;
    case OptionType::kFlag:
      if (!py::isinstance<py::bool_>(value)) throw WrongType(keyword + ": expected a bool, got " + type_name(value));
      v.flag = value.cast<bool>();
      if (v.flag) argv.push_back(flag);
      break;
    case OptionType::kCount32:
    case OptionType::kCount64:
      v.count = count_of(value, keyword,
                         o->type == OptionType::kCount32 ? std::numeric_limits<uint32_t>::max()
                                                         : std::numeric_limits<uint64_t>::max());
      shown = std::to_string(v.count);
      argv.insert(argv.end(), {flag, shown});
      break;
    case OptionType::kInt:
      v.integer = integer_of(value, keyword);
      shown = std::to_string(v.integer);
      argv.insert(argv.end(), {flag, shown});
      break;
    case OptionType::kInts:
      for_each_item(value, [&](const py::handle& item) {
        v.integers.push_back(integer_of(item, keyword));
        argv.insert(argv.end(), {flag, std::to_string(v.integers.back())});
      });
      break;
  }
  try {
    o->set(req, v);
  } catch (const driver::OptionValueError& e) {
    // `schedsim run`'s text for the same value (cli_util.cpp, apply_selected).
    throw UsageError("the argument ('" + shown + "') for option '" + flag + "' is invalid: " + e.what());
  }
}

// Runs `f` with the GIL released. On the main thread the work runs on a thread of its own while
// this one checks for Ctrl-C every 50 ms (Python's handler only sets a flag until the interpreter
// runs again): on KeyboardInterrupt every simulation of the process is asked to stop
// (request_interrupt), the work unwinds with Interrupted, and KeyboardInterrupt propagates.
template <class F>
auto interruptible(F f) -> decltype(f()) {
  using R = decltype(f());
  py::module_ threading = py::module_::import("threading");
  const bool main_thread = threading.attr("current_thread")().is(threading.attr("main_thread")());
  if (!main_thread) {
    py::gil_scoped_release release;
    return f();
  }
  std::packaged_task<R()> task(std::move(f));
  std::future<R> result = task.get_future();
  std::thread worker(std::move(task));
  for (;;) {
    {
      py::gil_scoped_release release;
      if (result.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready) break;
    }
    if (PyErr_CheckSignals() != 0) {
      request_interrupt(SIGINT);
      {
        py::gil_scoped_release release;
        worker.join();
      }
      clear_interrupt();
      throw py::error_already_set();
    }
  }
  worker.join();
  return result.get();
}

struct RunReturn {
  std::string rendered, results_json, records, command;
  std::vector<std::string> notes, lines, incomplete;
  bool complete = true;
};

py::dict run_request(driver::RunRequest req, const std::vector<std::string>& argv) {
  req.format = "json";
  req.progress = "never";
  std::vector<std::string> line = argv;
  line.insert(line.end(), {"-f", "json"});
  req.command_line = driver::quoted_command_line(line);
  if (req.input.empty() && req.workload_gen.empty())
    throw UsageError("no workload: give a WORKLOAD or TRACE file, or --workload-gen 'KIND opts'");
  if (req.trace_out == "-")
    throw InputError(SourceLoc{"--trace-out"}, "'-' is standard output: give the schedule a file (trace_out='FILE')");
  RunReturn r = interruptible([req]() {
    struct RestoreBudget {
      bool active;
      ~RestoreBudget() {
        if (active) set_memory_budget(g_default_budget, g_default_budget_source);
      }
    } restore{!req.max_memory.empty()};
    driver::RunOutcome out = driver::execute_run(req);
    if (out.trace_file) commit_together({out.trace_file.get()});
    RunReturn ret;
    ret.rendered = std::move(out.rendered);
    ret.results_json = render_json(out.results);
    ret.records = render_jsonl(out.records);
    // What the CLI would print and whether it would exit 4 (run_status): a --stop-at run is not
    // a failure, and `quiet` drops notes, never warnings.
    driver::RunStatus st = driver::run_status(out, req.quiet);
    ret.notes = std::move(out.notes);
    ret.lines = std::move(st.lines);
    ret.complete = st.incomplete.empty();
    ret.incomplete = std::move(st.incomplete);
    ret.command = req.command_line;
    return ret;
  });
  py::dict d;
  d["rendered"] = r.rendered;
  d["results_json"] = r.results_json;
  d["records"] = r.records;
  d["notes"] = r.notes;
  d["lines"] = r.lines;
  d["complete"] = r.complete;
  d["incomplete"] = r.incomplete;
  d["command"] = r.command;
  return d;
}

py::dict run(const py::object& input, const py::dict& kwargs) {
  driver::RunRequest req;
  std::vector<std::string> argv{"schedsim", "run"};
  if (!input.is_none()) {
    if (!py::isinstance<py::str>(input) && !py::hasattr(input, "__fspath__"))
      throw WrongType("run(): the workload must be a path (str or os.PathLike) or None, got " + type_name(input));
    req.input = py::str(py::module_::import("os").attr("fspath")(input));
    if (req.input.empty()) throw InputError(SourceLoc{"WORKLOAD"}, "empty path: give a workload or trace file");
    argv.push_back(req.input);
  }
  for (const auto& [k, v] : kwargs) {
    const std::string keyword = py::str(k);
    if (v.is_none()) continue;  // None = not given: the option's default
    if (keyword == "seed") req.seed_given = true;
    apply_keyword(req, keyword, v, Scope::kRun, argv);
  }
  return run_request(std::move(req), argv);
}

// The trace's tasks as `schedsim import` would write them, one dict per task.
py::list import_trace(const std::string& path, const py::dict& kwargs) {
  driver::RunRequest req;
  std::vector<std::string> argv;
  for (const auto& [k, v] : kwargs) {
    if (v.is_none()) continue;
    apply_keyword(req, py::str(k), v, Scope::kTrace, argv);
  }
  struct Row {
    std::string name;
    int64_t pid, tgid;
    int32_t nice;
    bool kthread, background;
    size_t actions;
    int64_t start_ns, work_ns;
  };
  auto rows = interruptible([&]() {
    traces::ImportReport rep;
    Workload w = driver::load_workload_input(path, "", req.extract, &rep);
    std::vector<Row> out;
    for (const auto& t : w.tasks) {
      out.push_back({t.name, t.pid, t.tgid, t.nice, t.kthread, t.background, t.program.size(), t.start_time.ns(),
                     program_work(t.program).count()});
    }
    return out;
  });
  py::list l;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    py::dict d;
    d["id"] = i;
    d["name"] = r.name;
    d["pid"] = r.pid;
    d["tgid"] = r.tgid;
    d["nice"] = r.nice;
    d["kthread"] = r.kthread;
    d["background"] = r.background;
    d["actions"] = r.actions;
    d["start_ns"] = r.start_ns;
    d["run_ns"] = r.work_ns;
    l.append(d);
  }
  return l;
}

// `schedsim sched VIEW TRACE --format json`: perf sched's view of a trace as its JSON text.
// `view_options` are the view's own (sort, pids, wakeups, migrations, summary, compact, cpus);
// `kwargs` how the trace is read (strict, clock_hz, kernel_version, buffer).
std::string sched_view(const std::string& path, const std::string& view, const py::dict& view_options,
                       const py::dict& kwargs) {
  traces::SchedViewOptions so;
  so.format = traces::SchedFormat::kJson;
  so.view = driver::parse_sched_view(view);
  std::vector<std::string> given;
  for (const auto& kv : view_options) {
    // Named handles, not a structured binding: the lambdas below capture them.
    const py::handle v = kv.second;
    const std::string key = py::str(kv.first);
    if (v.is_none()) continue;
    if (!py::isinstance<py::bool_>(v) || v.cast<bool>()) given.push_back(key);
    auto flag = [&](bool& out) {
      if (!py::isinstance<py::bool_>(v)) throw WrongType(key + ": expected a bool, got " + type_name(v));
      out = v.cast<bool>();
    };
    if (key == "sort") {
      std::string text;
      for_each_item(v, [&](const py::handle& item) { text += (text.empty() ? "" : ",") + text_of(item, key); });
      so.sort = driver::parse_sched_sort(text);  // as `sched -s ''`: no key at all is refused
    } else if (key == "pids") flag(so.per_pid);
    else if (key == "wakeups") flag(so.wakeups);
    else if (key == "migrations") flag(so.migrations);
    else if (key == "compact") flag(so.compact);
    else if (key == "summary") {
      bool on = false;
      flag(on);
      so.summary = on ? traces::SchedSummary::kOnly : traces::SchedSummary::kNone;
    } else if (key == "cpus") {
      std::string text;
      if (py::isinstance<py::str>(v)) text = v.cast<std::string>();
      else for_each_item(v, [&](const py::handle& item) {
          text += (text.empty() ? "" : ",") + std::to_string(count_of(item, key, std::numeric_limits<uint32_t>::max()));
        });
      so.cpus = traces::parse_view_cpus(text);
    } else {
      throw WrongType("unexpected view option '" + key + "'");
    }
  }
  driver::check_sched_view_options(so.view, given);
  driver::RunRequest req;
  std::vector<std::string> argv;
  for (const auto& [k, v] : kwargs) {
    if (v.is_none()) continue;
    apply_keyword(req, py::str(k), v, Scope::kTraceReading, argv);
  }
  return interruptible([&]() {
    std::ostringstream out;
    driver::view_trace(path, so, req.extract, out);
    return out.str();
  });
}

py::list options() {
  py::list l;
  for (const auto& o : driver::run_options()) {
    if (o.group == driver::OptionGroup::kPositional) continue;
    static const char* const kTypes[] = {"str", "list[str]", "bool", "int", "int", "int", "list[int]"};
    py::dict d;
    std::string k = o.name;
    for (char& c : k)
      if (c == '-') c = '_';
    d["keyword"] = k;
    d["option"] = std::string("--") + o.name;
    d["type"] = kTypes[static_cast<int>(o.type)];
    d["group"] = driver::option_group_title(o.group);
    d["default"] = o.default_text ? py::object(py::str(o.default_text)) : py::object(py::none());
    d["help"] = o.help;
    d["sweep"] = o.not_swept == nullptr;
    d["python"] = cli_only_options().count(o.name) == 0;
    l.append(d);
  }
  return l;
}

py::list policies() {
  py::list l;
  for (const auto& m : builtin_registry().all()) {
    py::dict d;
    d["slot"] = m.slot;
    d["name"] = m.name;
    d["summary"] = m.summary;
    std::vector<std::string> f;
    for (const auto& fd : m.features) f.push_back(fd.name);
    d["features"] = f;
    l.append(d);
  }
  return l;
}

py::list kernels() {
  py::list l;
  for (const auto& p : kernel_profiles()) {
    py::dict d;
    d["version"] = p.version;
    d["summary"] = p.summary;
    d["modules"] = p.modules;
    d["features"] = p.features;
    l.append(d);
  }
  return l;
}

py::list topologies() {
  py::list l;
  for (const auto& p : preset_list()) {
    py::dict d;
    d["name"] = p.name;
    d["cpus"] = preset_spec(p.name).cpus.size();
    d["summary"] = p.summary;
    l.append(d);
  }
  return l;
}

// One machine: its JSON (docs/topology.md) and the per-CPU indices the engine uses.
py::dict topology(const std::string& name) {
  struct Cpu {
    uint32_t core, llc, package, node, capacity;
  };
  std::string json, text, tname;
  std::vector<Cpu> cpus;
  {
    py::gil_scoped_release release;
    Topology t = load_topology(name);
    json = topology_to_json(t.spec());
    text = describe_topology(t);
    tname = t.name();
    for (uint32_t c = 0; c < t.nr_cpus(); ++c)
      cpus.push_back({t.core_index(c), t.llc_index(c), t.package_of(c), t.node_of(c), t.capacity(c)});
  }
  py::dict d;
  d["name"] = tname;
  d["json"] = json;
  d["text"] = text;
  py::list l;
  for (size_t c = 0; c < cpus.size(); ++c) {
    py::dict r;
    r["cpu"] = c;
    r["core"] = cpus[c].core;
    r["llc"] = cpus[c].llc;
    r["package"] = cpus[c].package;
    r["node"] = cpus[c].node;
    r["capacity"] = cpus[c].capacity;
    l.append(r);
  }
  d["cpus"] = l;
  return d;
}

// A results, repetitions or records file (JSON, JSON Lines, sweep output; each also .gz), read
// and checked as `compare` and `report` read it. Returns its kind, the full results of a plain
// results file (as JSON), and every record as a JSON Lines line with its sweep point.
py::dict load(const std::string& path) {
  RecordFile f;
  std::string results;
  {
    py::gil_scoped_release release;
    f = load_record_file(path);
    if (f.results) results = render_json(*f.results);
  }
  py::dict d;
  d["kind"] = f.kind;
  d["results_json"] = results.empty() ? py::object(py::none()) : py::object(py::str(results));
  py::list recs;
  for (const auto& r : f.records) {
    py::dict rd;
    rd["line"] = render_jsonl({r});
    rd["point"] = r.point;
    rd["point_params"] = r.point_params;
    recs.append(rd);
  }
  d["records"] = recs;
  d["where"] = f.where;
  return d;
}

driver::CompareRequest compare_request(const py::dict& kw) {
  driver::CompareRequest req;
  auto texts = [](const py::handle& v, const char* k) {
    std::vector<std::string> out;
    for_each_item(v, [&](const py::handle& item) { out.push_back(text_of(item, k)); });
    return out;
  };
  for (const auto& [k, v] : kw) {
    const std::string key = py::str(k);
    if (v.is_none()) continue;
    if (key == "by") req.by = texts(v, "by");
    else if (key == "ignore") req.ignore = texts(v, "ignore");
    else if (key == "fail_on") req.fail_on = texts(v, "fail_on");
    else if (key == "metrics") {
      std::vector<std::string> m = texts(v, "metrics");
      req.metrics = join(m, ",");
      if (req.metrics.empty()) throw InputError(SourceLoc{"--metrics"}, "expected a metric name or 'all', got nothing");
    } else if (key == "allow_mismatch") {
      if (!py::isinstance<py::bool_>(v)) throw WrongType("allow_mismatch: expected a bool, got " + type_name(v));
      req.allow_mismatch = v.cast<bool>();
    } else if (key == "min_effect") req.min_effect = text_of(v, "min_effect");
    else if (key == "correction") req.correction = text_of(v, "correction");
    else if (key == "alpha" || key == "confidence") {
      if (!py::isinstance<py::float_>(v) && !is_int(v)) throw WrongType(key + ": expected a float, got " + type_name(v));
      (key == "alpha" ? req.alpha : req.confidence) = v.cast<double>();
    } else if (key == "resamples") req.resamples = count_of(v, "resamples", std::numeric_limits<uint64_t>::max());
    else if (key == "seed") req.seed = count_of(v, "seed", std::numeric_limits<uint64_t>::max());
    else {
      static const std::vector<std::string> valid = {"by", "ignore", "fail_on", "metrics", "allow_mismatch", "min_effect",
                                                     "correction", "alpha", "confidence", "resamples", "seed"};
      std::string near = closest_match(key, valid);
      throw WrongType("unexpected keyword argument '" + key + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?"));
    }
  }
  return req;
}

// Two sides, each (name, JSON Lines text or "" with a path): the comparison as `schedsim compare`
// renders it in JSON and as a table, and the gates' verdict.
py::dict compare(const std::string& base_name, const std::string& base_text, const std::string& new_name,
                 const std::string& new_text, const py::dict& kw) {
  const driver::CompareSetup setup = driver::compare_setup(compare_request(kw));
  std::string json, table;
  driver::CompareVerdict verdict;
  {
    py::gil_scoped_release release;
    RecordFile base = base_text.empty() ? load_record_file(base_name) : parse_record_text(base_text, base_name);
    RecordFile next = new_text.empty() ? load_record_file(new_name) : parse_record_text(new_text, new_name);
    CompareResult c = compare_records(base, next, setup.options);
    json = render_compare_json(c);
    table = render_compare_table(c);
    verdict = driver::judge(c, setup.gates);
  }
  if (!verdict.gates.untestable.empty())
    throw InputError(SourceLoc{"--fail-on"}, join(verdict.gates.untestable, "; "));
  py::dict d;
  d["json"] = json;
  d["table"] = table;
  d["failures"] = verdict.gates.failures;
  d["warnings"] = verdict.warnings;
  d["gates"] = setup.gates.size();
  return d;
}

// Runs a sweep given as its JSON spec (docs/sweep.md), calling on_record with each record line in
// order. Called by the package on a thread of its own (the GIL is released while units run and
// taken for each on_record); returns the number of runs and the interruption, if any.
py::dict sweep_run(const std::string& spec_json, unsigned jobs, const std::string& output, bool resume,
                   const std::function<void(const std::string&)>& on_record,
                   const std::function<void(const std::string&)>& on_note) {
  driver::SweepRunResult res;
  {
    py::gil_scoped_release release;
    sweep::Spec spec = sweep::spec_from_json(spec_json, "sweep grid");
    driver::check_sweep_keys(spec);
    std::vector<sweep::Point> points = sweep::expand(spec);
    const std::vector<std::string> notes = driver::validate_points(points, spec.repeat);
    driver::SweepRunOptions so;
    so.output = output;
    so.resume = resume;
    so.jobs = jobs;
    if (so.jobs == 0) throw InputError(SourceLoc{"jobs"}, "must be at least 1");
    so.on_record = [&](const std::string& line) {
      py::gil_scoped_acquire gil;
      on_record(line);
    };
    so.on_note = [&](const std::string& note) {
      py::gil_scoped_acquire gil;
      on_note(note);
    };
    for (const auto& n : notes) so.on_note(n);
    res = driver::execute_sweep(spec, points, so);
  }
  py::dict d;
  d["signal"] = res.signal;
  d["interrupted"] = res.interrupted;
  d["runs_written"] = res.runs_written;
  d["runs"] = res.runs;
  return d;
}

}  // namespace

}  // namespace schedsim::python

PYBIND11_MODULE(_schedsim, m) {
  using namespace schedsim;
  using namespace schedsim::python;
  m.doc() = "schedsim's driver library (use the schedsim package, not this module)";
  // The interpreter owns SIGINT: a run stops through request_interrupt(), never exits the process.
  set_signals_hosted();
  log::init(0, "");
  g_default_budget = driver::set_default_memory_budget("80% of MemAvailable at import, the default", &g_default_budget_source);

  // pybind11 takes a void(*)(std::exception_ptr): the parameter is by value in its signature.
  py::register_exception_translator([](std::exception_ptr p) {  // NOLINT(performance-unnecessary-value-param)
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      raise_input_error(e);
    } catch (const UsageError& e) {
      PyErr_SetString(g_usage_error ? g_usage_error : PyExc_ValueError, e.what());
    } catch (const WrongType& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const Interrupted& e) {
      PyErr_SetString(PyExc_KeyboardInterrupt, e.what());
    } catch (const ResourceError& e) {
      PyErr_SetString(g_resource_error ? g_resource_error : PyExc_MemoryError, e.what());
    }
  });

  m.def("set_error_classes", [](const py::object& input, const py::object& usage, const py::object& resource) {
    g_input_error = input.inc_ref().ptr();
    g_usage_error = usage.inc_ref().ptr();
    g_resource_error = resource.inc_ref().ptr();
  });
  m.attr("version") = driver::kSchedsimVersion;
  m.def("run", &run, py::arg("input"), py::arg("kwargs"));
  m.def("import_trace", &import_trace, py::arg("path"), py::arg("kwargs"));
  m.def("sched", &sched_view, py::arg("path"), py::arg("view"), py::arg("view_options"), py::arg("kwargs"));
  m.def("options", &options);
  m.def("policies", &policies);
  m.def("kernels", &kernels);
  m.def("topologies", &topologies);
  m.def("topology", &topology, py::arg("name"));
  m.def("load", &load, py::arg("path"));
  m.def("compare", &compare, py::arg("base_name"), py::arg("base_text"), py::arg("new_name"), py::arg("new_text"),
        py::arg("kwargs"));
  m.def("sweep", &sweep_run, py::arg("spec_json"), py::arg("jobs"), py::arg("output"), py::arg("resume"),
        py::arg("on_record"), py::arg("on_note"));
  m.def("interrupt", []() { request_interrupt(SIGINT); });
  m.def("clear_interrupt", []() { clear_interrupt(); });
}
