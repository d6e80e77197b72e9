// Inputs the commands and the run pipeline share (inputs.hpp).
#include "schedsim/driver/inputs.hpp"

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include <unistd.h>

#include <fmt/format.h>

#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/workload/generators.hpp"

namespace schedsim::driver {

const KernelProfile& resolve_kernel_profile(const std::string& version, std::string& note) {
  note.clear();
  for (const auto& p : kernel_profiles())
    if (p.version == version) return p;
  bool parsed = false;
  const KernelProfile* best = newest_profile_not_newer(version, &parsed);
  if (!parsed) return kernel_profile(version);  // throws, naming the choices
  if (!best) {
    std::vector<std::string> names;
    for (const auto& p : kernel_profiles()) names.push_back(p.version);
    throw InputError(SourceLoc{"--kernel"}, fmt::format("no profile for kernel {}: it is older than every profile "
                                                        "(valid: {})", version, join(names, ", ")));
  }
  note = fmt::format("--kernel {}: no profile of its own; using {}, the newest profile not newer than it ({}); "
                     "give --kernel {} to silence this", version, best->version, best->summary, best->version);
  return *best;
}

double parse_fraction(const std::string& text, const char* flag) {
  std::string t = text;
  bool pct = !t.empty() && t.back() == '%';
  if (pct) t.pop_back();
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (t.empty() || *end != '\0' || !(v >= 0) || !std::isfinite(v))
    throw InputError(SourceLoc{flag}, "expected a fraction like 5% or 0.05, got '" + text + "'");
  return pct ? v / 100.0 : v;
}

std::string read_standard_input() {
  std::string data;
  char buf[1 << 16];
  while (size_t n = std::fread(buf, 1, sizeof buf, stdin)) {
    data.append(buf, n);
    if (data.size() > kMaxInMemoryInput)
      throw InputError(SourceLoc{"-"}, fmt::format("standard input holds more than {} MiB, the most it may (it is read whole, "
                                                   "so it can be read twice); give a file name instead, which is read as a stream",
                                                   kMaxInMemoryInput >> 20));
  }
  if (std::ferror(stdin)) throw InputError(SourceLoc{"-"}, std::string("cannot read standard input: ") + std::strerror(errno));
  return data;
}

void refuse_output_over_inputs(const std::string& output, const std::vector<std::string>& inputs,
                               const std::string& option) {
  if (output.empty() || output == "-") return;
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(output, ec)) return;
  for (const auto& in : inputs)
    if (!in.empty() && in != "-" && fs::exists(in, ec) && fs::equivalent(output, in, ec))
      throw InputError(SourceLoc{output}, option + " names an input file ('" + in + "'); it would be overwritten");
}

void add_spec_and_cost_files(std::vector<std::string>& inputs, const std::string& workload_gen,
                             const std::vector<std::string>& costs) {
  if (!workload_gen.empty())
    for (auto& word : split_command_line(workload_gen)) inputs.push_back(std::move(word));
  for (const auto& c : costs)
    if (c.find('=') == std::string::npos) inputs.push_back(c);
}

Workload import_trace_arg(const std::string& path, const traces::ExtractOptions& o, traces::ImportReport* rep) {
  if (path != "-") return traces::import_trace(path, o, rep);
  const std::string data = read_standard_input();
  return traces::import_trace_buffer(data, "-", o, rep);
}

namespace {

// The views of what `read` imports (with `opt`), over at least `min_cpus` CPUs.
template <class Read>
void render_views(const traces::SchedViewOptions& so, traces::ExtractOptions opt, size_t min_cpus, std::ostream& out,
                  Read read) {
  opt.all_tasks = true;  // the views show every task, as perf sched does
  traces::SchedViews views(so);
  opt.on_event = [&views](const traces::TraceEvent& ev) { views.on_event(ev); };
  opt.on_fork_record = [&views](int64_t tid, int64_t ppid) { views.on_fork_record(tid, ppid); };
  // A trace read again with its inferred prev_state layout is viewed from its start again.
  opt.on_restart = [&views, &so] { views = traces::SchedViews(so); };
  traces::ImportReport rep;
  read(opt, rep);
  views.set_nr_cpus(std::max({static_cast<size_t>(rep.nr_cpus), rep.header_cpus > 0 ? static_cast<size_t>(rep.header_cpus) : size_t{0}, min_cpus}));
  views.render(out);
}

}  // namespace

void view_trace(const std::string& path, const traces::SchedViewOptions& so, traces::ExtractOptions opt,
                std::ostream& out) {
  render_views(so, std::move(opt), 0, out,
               [&path](const traces::ExtractOptions& o, traces::ImportReport& rep) { import_trace_arg(path, o, &rep); });
}

traces::SchedView parse_sched_view(const std::string& name) {
  if (name.size() >= 3 && std::string_view("latency").starts_with(name)) return traces::SchedView::kLatency;
  if (name == "timehist") return traces::SchedView::kTimehist;
  if (name == "map") return traces::SchedView::kMap;
  throw UsageError(unknown_choice_message("sched view", name, {"latency", "timehist", "map"}));
}

std::vector<std::string> parse_sched_sort(const std::string& text) {
  std::vector<std::string> keys = traces::parse_sort_keys(text);
  const auto& known = traces::latency_sort_keys();
  if (keys.empty()) throw UsageError("--sort needs at least one key (" + join(known, ", ") + ")");
  for (const auto& k : keys)
    if (std::find(known.begin(), known.end(), k) == known.end())
      throw InputError(SourceLoc{"--sort"}, unknown_choice_message("sort key", k, known));
  return keys;
}

std::vector<int64_t> parse_pid_list(const std::string& text) {
  std::vector<int64_t> pids;
  for (size_t at = 0; at <= text.size();) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string_view item = std::string_view(text).substr(at, comma - at);
    int64_t pid = -1;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), pid);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size() || pid < 0)
      throw InputError(SourceLoc{"--color-pids"}, fmt::format("expected PIDs like 10,12, got '{}'", text));
    pids.push_back(pid);
    at = comma + 1;
  }
  return pids;
}

void check_sched_view_options(traces::SchedView view, const std::vector<std::string>& given) {
  using V = traces::SchedView;
  static const std::pair<const char*, V> kOnly[] = {
      {"sort", V::kLatency},       {"pids", V::kLatency},         {"wakeups", V::kTimehist},
      {"migrations", V::kTimehist}, {"summary", V::kTimehist},     {"with-summary", V::kTimehist},
      {"cpu-visual", V::kTimehist}, {"highlight-delay", V::kTimehist}, {"compact", V::kMap}, {"cpus", V::kMap},
      {"color-pids", V::kMap},      {"color-cpus", V::kMap}};
  for (const auto& [name, only] : kOnly)
    if (only != view && std::find(given.begin(), given.end(), name) != given.end())
      throw UsageError(fmt::format("--{} applies to 'sched {}' only", name,
                                   only == V::kLatency ? "latency" : only == V::kTimehist ? "timehist" : "map"));
}

void view_schedule(const std::string& schedule, size_t nr_cpus, const traces::SchedViewOptions& so, std::ostream& out) {
  render_views(so, {}, nr_cpus, out, [&schedule](const traces::ExtractOptions& o, traces::ImportReport& rep) {
    traces::import_trace_buffer(schedule, "the simulated schedule", o, &rep);
  });
}

void refuse_empty_selection(const Workload& w, const std::string& path, const traces::ImportReport& rep,
                            const char* consequence) {
  if (!w.tasks.empty()) return;
  throw InputError(SourceLoc{path}, fmt::format("no tasks selected: the selection ({}) kept none of the {} tasks seen "
                                                "in the trace; {} (`schedsim trace info` lists the tasks)",
                                                rep.selection, rep.tasks_seen, consequence));
}

WorkloadFormat workload_format_for(const std::string& format, const std::string& output) {
  if (format == "json") return WorkloadFormat::kJson;
  if (format == "cbor") return WorkloadFormat::kCbor;
  if (!format.empty()) throw InputError(SourceLoc{"--format"}, unknown_choice_message("format value", format, {"json", "cbor"}));
  const std::string name = gzip_name(output) ? output.substr(0, output.size() - 3) : output;
  return name.size() > 5 && name.ends_with(".cbor") ? WorkloadFormat::kCbor : WorkloadFormat::kJson;
}

std::string format_by_name(const std::string& output, std::initializer_list<std::pair<std::string_view, const char*>> by_ext,
                           const char* fallback) {
  const std::string name = gzip_name(output) ? output.substr(0, output.size() - 3) : output;
  for (const auto& [ext, format] : by_ext)
    if (name.size() > ext.size() && name.ends_with(ext)) return format;
  return fallback;
}


RecordOutcome record_command(traces::RecordOptions ro, const std::string& out, bool as_workload,
                             const std::function<void(const traces::RecordResult&)>& on_recorded) {
  std::string trace_path = out;
  int scratch_slot = -1;
  if (as_workload) {
    const std::filesystem::path p(out);
    trace_path = (p.parent_path() / ("." + p.filename().string() + ".trace" + std::string(AtomicFile::kTempTag) +
                                     std::to_string(::getpid())))
                     .string();
    ro.gzip = true;
    scratch_slot = register_temp_path(trace_path);
  }
  struct ScratchGuard {
    const std::string* path;
    int slot;
    ~ScratchGuard() {
      if (slot < 0) return;
      std::remove(path->c_str());
      unregister_temp_path(slot);
    }
  } scratch{&trace_path, scratch_slot};
  ro.output = trace_path;
  RecordOutcome o{traces::record_trace(ro), ""};
  on_recorded(o.result);
  if (!as_workload) {
    o.summary = fmt::format("recorded {} (root pid {}); extract with: schedsim import {} -o W.json\n", out,
                            o.result.root_pid, out);
    return o;
  }
  traces::ExtractOptions eo;
  eo.descendants_of = o.result.root_pid;
  traces::ImportReport rep;
  const Workload w = traces::import_trace(trace_path, eo, &rep);
  write_workload(w, out, workload_format_for("", out));
  o.summary = traces::describe_workload(w);
  return o;
}

}  // namespace schedsim::driver
