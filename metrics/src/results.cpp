// RunResults helpers and the table / CSV reporters. JSON lives in results_json.cpp.
#include "schedsim/base/log.hpp"
#include "schedsim/metrics/results.hpp"
#include "schedsim/metrics/records.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "report_util.hpp"

namespace schedsim {

using report_util::TextTable;
using report_util::csv_field;
using report_util::num;

namespace {

double round3(double v) { return std::round(v * 1e3) / 1e3; }

std::string us(int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e3); }
std::string us(double ns) { return fmt::format("{:.3f}", ns / 1e3); }
std::string ms(int64_t ns) { return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6); }
std::string pct(double num, double den) {
  return den > 0 ? fmt::format("{:.1f}%", 100.0 * num / den) : std::string("-");
}
std::string secs(int64_t ns) {
  const char* sign = ns < 0 ? "-" : "";
  int64_t a = ns < 0 ? -ns : ns;
  return fmt::format("{}{}.{:06d}", sign, a / 1000000000, (a % 1000000000) / 1000);
}

std::vector<std::string> dist_row(const std::string& name, const Distribution& d) {
  if (d.count == 0) return {name, "0", "-", "-", "-", "-", "-", "-", "-", "-"};
  return {name,      std::to_string(d.count), us(d.mean),  us(d.stddev), us(d.min), us(d.p50),
          us(d.p90), us(d.p99),               us(d.p999),  us(d.max)};
}

}  // namespace

uint64_t fnv1a64(std::string_view bytes, uint64_t h) {
  for (char c : bytes) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string hash_hex(uint64_t h) { return fmt::format("{:016x}", h); }

std::vector<std::pair<std::string, std::string>> Provenance::fields() const {
  return {{"version", version},         {"command", command},
          {"kernel", kernel},           {"noise", noise},
          {"stop_at", stop_at},         {"cost_files", cost_files},
          {"cost_files_hash", cost_files_hash}, {"cost_profile", cost_profile},
          {"cost_profile_note", cost_profile_note}, {"workload_hash", workload_hash},
          {"topology_hash", topology_hash}};
}

bool Provenance::set(const std::string& name, const std::string& value) {
  if (name == "version") version = value;
  else if (name == "command") command = value;
  else if (name == "kernel") kernel = value;
  else if (name == "noise") noise = value;
  else if (name == "stop_at") stop_at = value;
  else if (name == "cost_files") cost_files = value;
  else if (name == "cost_files_hash") cost_files_hash = value;
  else if (name == "cost_profile") {
    // Files written before cost_profile_note held both in one string: "reference (NAME has no
    // measured costs)", "reference (NAME is synthetic)".
    if (value.rfind("reference (", 0) == 0 && value.back() == ')') {
      cost_profile = "reference";
      if (cost_profile_note.empty()) cost_profile_note = value.substr(11, value.size() - 12);
    } else {
      cost_profile = value;
    }
  }
  else if (name == "cost_profile_note") {
    if (!value.empty()) cost_profile_note = value;
  }
  else if (name == "workload_hash") workload_hash = value;
  else if (name == "topology_hash") topology_hash = value;
  else return false;
  return true;
}

std::string Provenance::cost_profile_text() const {
  if (cost_profile_note.empty()) return cost_profile;
  return (cost_profile.empty() ? std::string("reference") : cost_profile) + " (" + cost_profile_note + ")";
}

std::vector<std::pair<std::string, std::string>> Provenance::display_fields() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto& [k, v] : fields()) {
    if (k == "cost_profile_note") continue;
    out.emplace_back(k, k == "cost_profile" ? cost_profile_text() : v);
  }
  return out;
}

std::string RunConfig::display_label() const {
  if (!label.empty()) return label;
  std::string w = workload.empty() ? std::string("workload") : workload;
  return topology.empty() ? w : w + "@" + topology;
}

Distribution Distribution::from(const Histogram& h) {
  Distribution d;
  d.count = h.count();
  d.exact = h.exact();
  if (h.empty()) return d;
  d.mean = round3(h.mean());
  d.stddev = round3(h.stddev());
  d.min = h.min();
  d.p50 = h.percentile(50);
  d.p90 = h.percentile(90);
  d.p99 = h.percentile(99);
  d.p999 = h.percentile(99.9);
  d.max = h.max();
  h.for_each_bucket([&](int64_t lo, int64_t hi, uint64_t n) { d.buckets.push_back({lo, hi, n}); });
  return d;
}

double TaskRow::avg_delay_ns() const {
  return delays ? round3(static_cast<double>(delay_total_ns) / static_cast<double>(delays)) : 0.0;
}
double TaskGroupRow::avg_delay_ns() const {
  return delays ? round3(static_cast<double>(delay_total_ns) / static_cast<double>(delays)) : 0.0;
}

std::string task_group_name(const std::string& comm) {
  size_t n = comm.size();
  while (n > 0 && comm[n - 1] >= '0' && comm[n - 1] <= '9') --n;
  if (n == comm.size()) return comm;  // no numeric suffix: the name is its own group
  while (n > 0 && (comm[n - 1] == ':' || comm[n - 1] == '_' || comm[n - 1] == '-' || comm[n - 1] == '/'))
    --n;
  return n == 0 ? comm : comm.substr(0, n);
}

std::string sample_count_metric(const std::string& statistic) {
  size_t dot = statistic.rfind('.');
  if (dot == std::string::npos || statistic.compare(dot, std::string::npos, ".count") == 0) return {};
  std::string family = statistic.substr(0, dot);
  // The collector records one probes / search / wake-delay sample per wakeup placement
  // (MetricsCollector::on_wake), so their count is the "wakeups" total, which has no prefix.
  if (family == "probes" || family == "search" || family == "wake_delay") return "wakeups";
  return family + ".count";
}

SampleState sample_state(const std::map<std::string, double>& metrics, const std::string& statistic) {
  const std::string count = sample_count_metric(statistic);
  if (count.empty()) return SampleState::kSampled;
  if (auto it = metrics.find(count); it != metrics.end()) return it->second == 0 ? SampleState::kNone : SampleState::kSampled;
  auto v = metrics.find(statistic);
  return v != metrics.end() && v->second == 0 ? SampleState::kUnknown : SampleState::kSampled;
}

ComparisonEmpty comparison_empty(const std::vector<Comparison>& rows, const Comparison& x) {
  ComparisonEmpty e;
  const std::string count = sample_count_metric(x.metric);
  if (count.empty()) return e;
  for (const auto& c : rows)
    if (c.metric == count) {
      e.simulated = c.simulated == 0;
      e.observed = c.observed == 0;
    }
  return e;
}

std::vector<std::string> observed_cells(const std::vector<Comparison>& rows, const Comparison& x) {
  const std::string mark = report_util::observed_mark(x.note);
  const ComparisonEmpty e = comparison_empty(rows, x);
  // Named and scaled as every other table names a metric (the JSON keeps its `_ns` names).
  const std::pair<std::string, double> display = display_of_results_name(x.metric);
  const double scale = display.second;
  const auto shown = [scale](double v) { return scale == 1.0 ? report_util::num(v) : fmt::format("{:.3f}", v * scale); };
  return {display.first, e.simulated ? "-" : shown(x.simulated), e.observed ? "-" : mark + shown(x.observed),
          x.observed != 0 && !e.simulated && !e.observed ? fmt::format("{:+.1f}%", 100.0 * x.rel_error) : "-"};
}

namespace {

// The title, the run's configuration and why it is incomplete.
void render_config(const RunResults& r, std::string& out) {
  const RunConfig& c = r.config;
  out += "schedsim results: " + c.display_label() + "\n";
  TextTable t({"workload", c.workload + (c.workload_source.empty() ? "" : " (" + c.workload_source + ")")}, true);
  t.add({"topology", c.topology + ", " + std::to_string(c.nr_cpus) + " CPUs"});
  if (!c.provenance.kernel.empty()) t.add({"kernel", c.provenance.kernel});
  std::string mods;
  for (const auto& [slot, name] : c.modules) mods += (mods.empty() ? "" : " ") + slot + "=" + name;
  t.add({"modules", mods.empty() ? "-" : mods});
  std::string feats;
  for (const auto& [name, on] : c.features) feats += (feats.empty() ? "" : " ") + (on ? name : "NO_" + name);
  t.add({"features", feats.empty() ? "-" : feats});
  // The machine cost profile first (docs/calibrate.md "Machine cost profiles"): a preset's own
  // costs are not the defaults, and a preset without any says it ran on the reference ones.
  const std::string& profile = c.provenance.cost_profile;
  std::string costs;
  if (!c.provenance.cost_profile_note.empty())
    costs = "defaults (" + c.provenance.cost_profile_note + ")";
  else if (!profile.empty() && profile != "reference")
    costs = "profile " + profile;
  for (const auto& [name, v] : c.cost_overrides) costs += (costs.empty() ? "" : " ") + name + "=" + v;
  t.add({"cost", costs.empty() ? "defaults" : costs});
  t.add({"seed", std::to_string(c.seed)});
  out += t.render();
  if (!r.incomplete.empty()) {
    out += "\nINCOMPLETE RUN (complete: false)\n";
    for (const auto& line : r.incomplete) out += "  " + line + "\n";
  }
}

void render_latency(const RunResults& r, std::string& out) {
  out += "\nlatency (us)\n";
  TextTable t({"", "count", "mean", "std", "min", "p50", "p90", "p99", "p99.9", "max"});
  t.add(dist_row("wakeup", r.wakeup_latency));
  t.add(dist_row("preempt delay", r.preempt_delay));
  t.add(dist_row("run-queue wait", r.runqueue_wait));
  t.add(dist_row("fork", r.fork_latency));
  out += t.render();
}

void render_totals(const RunResults& r, std::string& out) {
  out += "\ntotals\n";
  TextTable t({"makespan", ms(r.makespan_ns) + " ms"}, true);
  if (r.benchmark_time_ns >= 0 && r.benchmark_ops > 0)
    // perf bench sched pipe prints its total time and that time over its loops, "usecs/op".
    t.add({"benchmark time",
           ms(r.benchmark_time_ns) +
               fmt::format(" ms (what the benchmark reports as its total time; {:.6f} usecs/op "
                           "over {} ops)",
                           static_cast<double>(r.benchmark_time_ns) / 1e3 / static_cast<double>(r.benchmark_ops),
                           r.benchmark_ops)});
  else if (r.benchmark_time_ns >= 0)
    t.add({"benchmark time", ms(r.benchmark_time_ns) + " ms (what the benchmark reports: start barrier to last join)"});
  t.add({"span", secs(r.start_ns) + " .. " + secs(r.end_ns) + " s"});
  t.add({"context switches", std::to_string(r.context_switches)});
  t.add({"wakeups", std::to_string(r.placement.wakeups)});
  t.add({"forks", std::to_string(r.placement.forks)});
  t.add({"tokens banked", std::to_string(r.tokens_banked) + " (" + std::to_string(r.tokens_left) + " never consumed)"});
  if (r.channel_writes + r.channel_reads > 0)
    t.add({"channel ops", std::to_string(r.channel_writes) + " writes, " + std::to_string(r.channel_reads) +
                              " reads, " + std::to_string(r.channel_wakes) + " wakes, " +
                              std::to_string(r.channel_sleeps) + " sleeps (full or empty)"});
  if (r.preempt_deferred > 0)
    t.add({"held-back preemptions", std::to_string(r.preempt_deferred) + " (curr in a syscall: --preempt), " +
                                        std::to_string(r.preempt_deferred_slept) + " ended by curr sleeping first"});
  if (r.resched_ipi > 0)
    t.add({"reschedule IPIs", std::to_string(r.resched_ipi) + " (remote wakeup preemptions: --cost resched_ipi), " +
                                  std::to_string(r.resched_ipi_superseded) +
                                  " made moot by a switch before they landed"});
  t.add({"tasks exited",
         std::to_string(r.tasks_exited) + " of " + std::to_string(r.tasks) + (r.complete ? "" : " (incomplete run)")});
  if (r.work_expected_ns >= 0)
    t.add({"work done", ms(r.work_done_ns) + " of " + ms(r.work_expected_ns) + " ms in the workload" +
                            (r.work_done_ns == r.work_expected_ns
                                 ? ""
                                 : " (" + (r.work_done_ns > r.work_expected_ns ? std::string("+") : std::string("-")) +
                                       ms(std::abs(r.work_done_ns - r.work_expected_ns)) + " ms)")});
  if (r.events) t.add({"events", std::to_string(r.events)});
  double cap = static_cast<double>(r.makespan_ns) * static_cast<double>(r.cpus.size());
  t.add({"utilization", pct(static_cast<double>(r.busy_ns), cap)});
  t.add({"wasted idle", ms(r.wasted_ns) + " ms (" + pct(static_cast<double>(r.wasted_ns), cap) + " of CPU time)"});
  out += t.render();
}

void render_placement(const RunResults& r, std::string& out) {
  const PlacementStats& p = r.placement;
  out += "\nplacement\n";
  uint64_t total = 0;
  for (const auto& [k, v] : p.outcomes) total += v;
  TextTable t({"outcome", "count", "share"});
  for (const auto& [k, v] : p.outcomes)
    if (v) t.add({k, std::to_string(v), pct(static_cast<double>(v), static_cast<double>(total))});
  t.add({"total", std::to_string(total), total ? "100.0%" : "-"});
  out += t.render();
  TextTable d({"per wakeup", "mean", "p50", "p99", "max"});
  auto plain = [](const Distribution& x) -> std::vector<std::string> {
    // No wakeup placed: no sample, so no mean or percentile (not 0).
    if (x.count == 0) return {"-", "-", "-", "-"};
    return {num(x.mean), std::to_string(x.p50), std::to_string(x.p99), std::to_string(x.max)};
  };
  auto row = [](std::string name, std::vector<std::string> v) {
    v.insert(v.begin(), std::move(name));
    return v;
  };
  d.add(row("CPUs probed", plain(p.probes)));
  d.add(row("search ns", plain(p.search_ns)));
  d.add(row("wake delay ns", plain(p.wake_delay_ns)));
  out += "\n" + d.render();
  TextTable h({"to an idle CPU", std::to_string(p.to_idle_cpu)}, true);
  h.add({"cross-LLC from waker", std::to_string(p.cross_llc_waker)});
  h.add({"cross-LLC from prev", std::to_string(p.cross_llc_prev)});
  h.add({"idle-core hint read", std::to_string(p.hint_consulted)});
  h.add({"  stale yes", std::to_string(p.hint_stale_yes) + " (" +
                            pct(static_cast<double>(p.hint_stale_yes), static_cast<double>(p.hint_consulted)) + ")"});
  h.add({"  stale no", std::to_string(p.hint_stale_no) + " (" +
                           pct(static_cast<double>(p.hint_stale_no), static_cast<double>(p.hint_consulted)) + ")"});
  out += "\n" + h.render();
}

void render_migrations(const RunResults& r, std::string& out) {
  out += "\nmigrations by level\n";
  TextTable t({"level", "count"});
  // Bottom-up level order, not alphabetical.
  for (const char* lvl : {"same", "smt", "cluster", "llc", "package", "numa"}) {
    auto it = r.migrations.find(lvl);
    if (it != r.migrations.end()) t.add({lvl, std::to_string(it->second)});
  }
  t.add({"total", std::to_string(r.migrations_total)});
  out += t.render();
}

// Per CPU: the `max_cpus` busiest when there are more.
void render_cpus(const RunResults& r, size_t max_cpus, std::string& out) {
  std::vector<const CpuRow*> rows;
  for (const auto& x : r.cpus) rows.push_back(&x);
  if (max_cpus > 0 && rows.size() > max_cpus) {
    std::stable_sort(rows.begin(), rows.end(),
                     [](const CpuRow* a, const CpuRow* b) { return a->busy_ns > b->busy_ns; });
    rows.resize(max_cpus);
    std::sort(rows.begin(), rows.end(), [](const CpuRow* a, const CpuRow* b) { return a->cpu < b->cpu; });
    out += fmt::format("\nper CPU (the {} busiest of {})\n", rows.size(), r.cpus.size());
  } else {
    out += "\nper CPU\n";
  }
  TextTable t({"cpu", "llc", "util", "busy ms", "idle ms", "wasted ms"});
  for (const CpuRow* row : rows) {
    const CpuRow& x = *row;
    t.add({std::to_string(x.cpu), std::to_string(x.llc), fmt::format("{:.1f}%", 100.0 * x.utilization), ms(x.busy_ns),
           ms(x.idle_ns), ms(x.wasted_ns)});
  }
  out += t.render();
}

void render_llcs(const RunResults& r, std::string& out) {
  if (r.llcs.size() > 1) {
    out += "\nper LLC\n";
    TextTable t({"llc", "cpus", "util", "busy ms", "wasted ms"});
    for (const auto& x : r.llcs)
      t.add({std::to_string(x.llc), x.cpus, fmt::format("{:.1f}%", 100.0 * x.utilization), ms(x.busy_ns),
             ms(x.wasted_ns)});
    out += t.render();
  }
}

// The `max_tasks` tasks with the longest delays.
void render_tasks(const RunResults& r, size_t max_tasks, std::string& out) {
  std::vector<const TaskRow*> rows;
  for (const auto& x : r.tasks_detail) rows.push_back(&x);
  std::stable_sort(rows.begin(), rows.end(), [](const TaskRow* a, const TaskRow* b) {
    if (a->max_delay_ns != b->max_delay_ns) return a->max_delay_ns > b->max_delay_ns;
    return a->id < b->id;
  });
  size_t n = max_tasks == 0 ? rows.size() : std::min(rows.size(), max_tasks);
  out += "\ntasks by max delay (" + std::to_string(n) + " of " + std::to_string(rows.size()) + ")\n";
  TextTable t({"task", "pid", "switches", "runtime ms", "avg delay us", "max delay us", "max at s"});
  for (size_t i = 0; i < n; ++i) {
    const TaskRow& x = *rows[i];
    t.add({x.name.empty() ? "task" + std::to_string(x.id) : x.name, std::to_string(x.pid), std::to_string(x.switches),
           ms(x.runtime_ns), x.delays ? us(x.avg_delay_ns()) : "-", x.delays ? us(x.max_delay_ns) : "-",
           x.delays ? secs(x.max_delay_start_ns) : "-"});
  }
  out += t.render();
}

void render_task_groups(const RunResults& r, std::string& out) {
  if (r.task_groups.size() < r.tasks_detail.size()) {
    out += "\ntask groups\n";
    TextTable t({"group", "tasks", "switches", "runtime ms", "avg delay us", "max delay us", "max at s"});
    for (const auto& g : r.task_groups)
      t.add({g.name + ":(" + std::to_string(g.tasks) + ")", std::to_string(g.tasks), std::to_string(g.switches),
             ms(g.runtime_ns), g.delays ? us(g.avg_delay_ns()) : "-", g.delays ? us(g.max_delay_ns) : "-",
             g.delays ? secs(g.max_delay_start_ns) : "-"});
    out += t.render();
  }
}

void render_observed(const RunResults& r, std::string& out) {
  const RunConfig& c = r.config;
  if (r.has_observed) {
    // Another machine's figures are no prediction for this one: the column says so, not only a note.
    const bool elsewhere = !c.observed_elsewhere.empty();
    out += elsewhere ? "\nsimulated vs observed on another machine (" + c.observed_elsewhere + ")\n"
                     : std::string("\nsimulated vs observed (recorded trace)\n");
    TextTable t({"metric", "simulated", elsewhere ? "observed elsewhere" : "observed", "rel error"});
    // A figure with a note is marked ">=" (a lower bound) or "*" and its note printed once below.
    for (const auto& x : r.observed) t.add(observed_cells(r.observed, x));
    out += t.render();
    for (const auto& n : report_util::observed_notes(r.observed)) out += "  " + report_util::observed_note_line(n) + "\n";
  }
}

void render_provenance(const RunResults& r, std::string& out) {
  const RunConfig& c = r.config;
  if (!c.provenance.empty()) {
    out += "\nprovenance\n";
    auto f = c.provenance.display_fields();
    TextTable t({f[0].first, f[0].second.empty() ? "-" : f[0].second}, true);
    for (size_t i = 1; i < f.size(); ++i) t.add({f[i].first, f[i].second.empty() ? "-" : f[i].second});
    out += t.render();
  }
}

}  // namespace

std::string render_table(const RunResults& r, size_t max_tasks, size_t max_cpus) {
  std::string out;
  render_config(r, out);
  render_latency(r, out);
  render_totals(r, out);
  render_placement(r, out);
  render_migrations(r, out);
  render_cpus(r, max_cpus, out);
  render_llcs(r, out);
  render_tasks(r, max_tasks, out);
  render_task_groups(r, out);
  render_observed(r, out);
  render_provenance(r, out);
  return out;
}

std::string render_csv(const RunResults& r) {
  std::string out = "run,section,key,stat,value\n";
  const std::string run = csv_field(r.config.display_label());
  auto row = [&](const std::string& section, const std::string& key, const std::string& stat,
                 const std::string& value) {
    out += run + "," + section + "," + csv_field(key) + "," + stat + "," + csv_field(value) + "\n";
  };
  const RunConfig& c = r.config;
  row("config", "workload", "", c.workload);
  row("config", "workload_source", "", c.workload_source);
  row("config", "topology", "", c.topology);
  row("config", "nr_cpus", "", std::to_string(c.nr_cpus));
  row("config", "seed", "", std::to_string(c.seed));
  if (!c.observed_elsewhere.empty()) row("config", "observed_elsewhere", "", c.observed_elsewhere);
  for (const auto& [k, v] : c.modules) row("module", k, "", v);
  for (const auto& [k, v] : c.features) row("feature", k, "", v ? "1" : "0");
  for (const auto& [k, v] : c.cost_overrides) row("cost", k, "", v);
  if (!c.provenance.empty())
    for (const auto& [k, v] : c.provenance.fields()) row("provenance", k, "", v);

  row("summary", "", "start_ns", std::to_string(r.start_ns));
  row("summary", "", "end_ns", std::to_string(r.end_ns));
  row("summary", "", "makespan_ns", std::to_string(r.makespan_ns));
  if (r.benchmark_time_ns >= 0) row("summary", "", "benchmark_time_ns", std::to_string(r.benchmark_time_ns));
  if (r.benchmark_time_ns >= 0 && r.benchmark_ops > 0) row("summary", "", "benchmark_ops", std::to_string(r.benchmark_ops));
  row("summary", "", "events", std::to_string(r.events));
  row("summary", "", "context_switches", std::to_string(r.context_switches));
  row("summary", "", "tokens_banked", std::to_string(r.tokens_banked));
  row("summary", "", "tokens_left", std::to_string(r.tokens_left));
  // As in JSON: counts, 0 for a run that used no channel, held back no preemption, sent no IPI.
  for (auto [stat, v] : {std::pair{"channel_writes", r.channel_writes}, {"channel_reads", r.channel_reads},
                         {"channel_wakes", r.channel_wakes}, {"channel_sleeps", r.channel_sleeps},
                         {"preempt_deferred", r.preempt_deferred}, {"preempt_deferred_slept", r.preempt_deferred_slept},
                         {"resched_ipi", r.resched_ipi}, {"resched_ipi_superseded", r.resched_ipi_superseded}})
    row("summary", "", stat, std::to_string(v));
  row("summary", "", "tasks", std::to_string(r.tasks));
  row("summary", "", "tasks_exited", std::to_string(r.tasks_exited));
  row("summary", "", "complete", r.complete ? "1" : "0");
  row("summary", "", "work_done_ns", std::to_string(r.work_done_ns));
  row("summary", "", "work_expected_ns", std::to_string(r.work_expected_ns));
  for (size_t i = 0; i < r.incomplete.size(); ++i)
    row("summary", "incomplete", std::to_string(i), r.incomplete[i]);
  // One row per line: a note's headline/detail newline (log::headline) becomes a space here.
  for (size_t i = 0; i < r.notes.size(); ++i) row("summary", "notes", std::to_string(i), log::flat(r.notes[i]));
  row("summary", "", "busy_ns", std::to_string(r.busy_ns));
  row("summary", "", "wasted_ns", std::to_string(r.wasted_ns));
  row("summary", "", "migrations", std::to_string(r.migrations_total));

  auto dist = [&](const std::string& section, const std::string& key, const Distribution& d) {
    row(section, key, "count", std::to_string(d.count));
    if (d.count == 0) {
      // No sample: the statistics are undefined, an empty value (NaN in pandas), not 0.
      for (const char* stat : {"mean", "std", "min", "p50", "p90", "p99", "p99.9", "max"}) row(section, key, stat, "");
      return;
    }
    row(section, key, "mean", num(d.mean));
    row(section, key, "std", num(d.stddev));
    row(section, key, "min", std::to_string(d.min));
    row(section, key, "p50", std::to_string(d.p50));
    row(section, key, "p90", std::to_string(d.p90));
    row(section, key, "p99", std::to_string(d.p99));
    row(section, key, "p99.9", std::to_string(d.p999));
    row(section, key, "max", std::to_string(d.max));
  };
  dist("latency_ns", "wakeup", r.wakeup_latency);
  dist("latency_ns", "preempt", r.preempt_delay);
  dist("latency_ns", "runqueue_wait", r.runqueue_wait);
  dist("latency_ns", "fork", r.fork_latency);

  const PlacementStats& p = r.placement;
  row("placement", "", "wakeups", std::to_string(p.wakeups));
  row("placement", "", "forks", std::to_string(p.forks));
  row("placement", "", "execs", std::to_string(p.execs));
  for (const auto& [k, v] : p.outcomes) row("placement_outcome", k, "count", std::to_string(v));
  dist("placement", "probes", p.probes);
  dist("placement", "search_ns", p.search_ns);
  dist("placement", "wake_delay_ns", p.wake_delay_ns);
  row("placement", "", "to_idle_cpu", std::to_string(p.to_idle_cpu));
  row("placement", "", "cross_llc_waker", std::to_string(p.cross_llc_waker));
  row("placement", "", "cross_llc_prev", std::to_string(p.cross_llc_prev));
  row("placement", "", "hint_consulted", std::to_string(p.hint_consulted));
  row("placement", "", "hint_stale_yes", std::to_string(p.hint_stale_yes));
  row("placement", "", "hint_stale_no", std::to_string(p.hint_stale_no));
  for (const auto& [k, v] : r.migrations) row("migrations", k, "count", std::to_string(v));

  for (const auto& x : r.cpus) {
    std::string k = std::to_string(x.cpu);
    row("cpu", k, "llc", std::to_string(x.llc));
    row("cpu", k, "utilization", num(x.utilization));
    row("cpu", k, "busy_ns", std::to_string(x.busy_ns));
    row("cpu", k, "idle_ns", std::to_string(x.idle_ns));
    row("cpu", k, "wasted_ns", std::to_string(x.wasted_ns));
  }
  for (const auto& x : r.llcs) {
    std::string k = std::to_string(x.llc);
    row("llc", k, "cpus", x.cpus);
    row("llc", k, "utilization", num(x.utilization));
    row("llc", k, "busy_ns", std::to_string(x.busy_ns));
    row("llc", k, "wasted_ns", std::to_string(x.wasted_ns));
  }
  for (const auto& t : r.tasks_detail) {
    std::string k = std::to_string(t.id);
    row("task", k, "name", t.name);
    row("task", k, "pid", std::to_string(t.pid));
    row("task", k, "switches", std::to_string(t.switches));
    row("task", k, "runtime_ns", std::to_string(t.runtime_ns));
    row("task", k, "delays", std::to_string(t.delays));
    row("task", k, "avg_delay_ns", num(t.avg_delay_ns()));
    row("task", k, "max_delay_ns", std::to_string(t.max_delay_ns));
    row("task", k, "max_delay_start_ns", std::to_string(t.max_delay_start_ns));
    row("task", k, "migrations", std::to_string(t.migrations));
  }
  for (const auto& g : r.task_groups) {
    row("task_group", g.name, "tasks", std::to_string(g.tasks));
    row("task_group", g.name, "switches", std::to_string(g.switches));
    row("task_group", g.name, "runtime_ns", std::to_string(g.runtime_ns));
    row("task_group", g.name, "avg_delay_ns", num(g.avg_delay_ns()));
    row("task_group", g.name, "max_delay_ns", std::to_string(g.max_delay_ns));
  }
  for (const auto& o : r.observed) {
    row("observed", o.metric, "simulated", num(o.simulated));
    row("observed", o.metric, "observed", num(o.observed));
    row("observed", o.metric, "rel_error", num(o.rel_error));
    if (!o.note.empty()) row("observed", o.metric, "note", o.note);
  }
  const UtilTimeline& tl = r.timeline;
  for (size_t cpu = 0; cpu < tl.busy.size(); ++cpu)
    for (size_t b = 0; b < tl.busy[cpu].size(); ++b)
      row("timeline", std::to_string(cpu),
          std::to_string(tl.start_ns + static_cast<int64_t>(b) * tl.bucket_ns), num(tl.busy[cpu][b]));
  return out;
}

}  // namespace schedsim
