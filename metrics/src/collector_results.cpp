// MetricsCollector::results(): turns the accumulated counters into RunResults (summary,
// placement outcomes, migrations by distance, per-CPU and per-LLC utilization, the timeline,
// per-task rows and the simulated-vs-observed comparison).
#include "schedsim/metrics/collector.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace schedsim {

namespace {

double round_to(double v, double scale) { return std::round(v * scale) / scale; }

}  // namespace

// The summary: span, counters and, from the engine, its own totals.
void MetricsCollector::fill_totals(RunResults& r, const SimSummary* summary, Instant end) const {
  r.start_ns = first_.ns();
  r.end_ns = end.ns();
  r.makespan_ns = std::max<int64_t>(0, (end - first_).count());
  if (bench_stopped_) {
    r.benchmark_time_ns = (bench_stop_ - bench_start_).count();
    r.benchmark_ops = bench_ops_;
  }
  r.context_switches = context_switches_;
  r.tokens_banked = tokens_banked_;
  r.tasks = workload_.tasks.size() - workload_.background_count();  // measured tasks
  r.tasks_exited = exited_;
  r.work_done_ns = work_done_;
  r.work_expected_ns = workload_.total_work(/*measured_only=*/true).count();
  if (summary) {
    r.events = summary->events;
    r.complete = summary->complete;
    r.tokens_banked = summary->tokens_banked;
    r.tokens_left = summary->tokens_left;
    r.channel_writes = summary->channel_writes;
    r.channel_reads = summary->channel_reads;
    r.channel_wakes = summary->channel_wakes;
    r.channel_sleeps = summary->channel_sleeps;
    r.preempt_deferred = summary->preempt_deferred;
    r.preempt_deferred_slept = summary->preempt_deferred_slept;
    r.resched_ipi = summary->resched_ipi;
    r.resched_ipi_superseded = summary->resched_ipi_superseded;
    r.work_done_ns = summary->work_done.count();  // exact; on_run's increments are rounded
    r.incomplete = summary->incomplete;
  }
}

// Latency distributions, placement outcomes and migrations by distance.
void MetricsCollector::fill_placement(RunResults& r) const {
  r.wakeup_latency = Distribution::from(wakeup_latency_);
  r.preempt_delay = Distribution::from(preempt_delay_);
  r.runqueue_wait = Distribution::from(runqueue_wait_);
  r.fork_latency = Distribution::from(fork_latency_);

  PlacementStats& pl = r.placement;
  pl.wakeups = wakeups_;
  pl.forks = forks_;
  pl.execs = execs_;
  for (size_t i = 0; i < kNrOutcomes; ++i)
    pl.outcomes[to_string(static_cast<PlaceOutcome>(i))] = outcomes_[i];
  pl.probes = Distribution::from(probes_);
  pl.search_ns = Distribution::from(search_ns_);
  pl.wake_delay_ns = Distribution::from(wake_delay_);
  pl.to_idle_cpu = to_idle_;
  pl.cross_llc_waker = cross_llc_waker_;
  pl.cross_llc_prev = cross_llc_prev_;
  pl.hint_consulted = hint_consulted_;
  pl.hint_stale_yes = hint_stale_yes_;
  pl.hint_stale_no = hint_stale_no_;

  for (size_t i = 0; i < kNrDistances; ++i) {
    r.migrations[to_string(static_cast<CpuDistance>(i))] = migrations_[i];
    r.migrations_total += migrations_[i];
  }
}

// Per-CPU and per-LLC utilization.
void MetricsCollector::fill_cpus(RunResults& r) const {
  double span = static_cast<double>(r.makespan_ns);
  std::map<uint32_t, LlcRow> llcs;
  std::map<uint32_t, CpuMask> llc_cpus;
  for (uint32_t cpu = 0; cpu < nr_cpus_; ++cpu) {
    const CpuAcc& c = cpus_[cpu];
    CpuRow row;
    row.cpu = cpu;
    row.llc = llc_of_cpu_[cpu];
    row.node = node_of_cpu_[cpu];
    row.busy_ns = c.busy_ns;
    row.idle_ns = std::max<int64_t>(0, r.makespan_ns - c.busy_ns);
    row.wasted_ns = c.wasted_ns;
    row.utilization = span > 0 ? round_to(static_cast<double>(c.busy_ns) / span, 1e6) : 0.0;
    r.busy_ns += c.busy_ns;
    r.wasted_ns += c.wasted_ns;
    LlcRow& l = llcs[row.llc];
    l.llc = row.llc;
    l.busy_ns += c.busy_ns;
    l.wasted_ns += c.wasted_ns;
    llc_cpus[row.llc].set(cpu);
    r.cpus.push_back(row);
  }
  for (auto& [idx, l] : llcs) {
    const CpuMask& m = llc_cpus[idx];
    l.cpus = m.to_cpulist();
    double cap = span * static_cast<double>(m.count());
    l.utilization = cap > 0 ? round_to(static_cast<double>(l.busy_ns) / cap, 1e6) : 0.0;
    r.llcs.push_back(l);
  }
}

void MetricsCollector::fill_timeline(RunResults& r, Instant end) const {
  UtilTimeline& tl = r.timeline;
  tl.start_ns = tl_start_.ns();
  tl.bucket_ns = tl_width_;
  int64_t covered = std::max<int64_t>(0, (end - tl_start_).count());
  int64_t nb = (covered + tl_width_ - 1) / tl_width_;
  tl.buckets = static_cast<uint32_t>(std::clamp<int64_t>(nb, 0, kTimelineBuckets));
  tl.busy.assign(nr_cpus_, std::vector<double>(tl.buckets, 0.0));
  for (uint32_t cpu = 0; cpu < nr_cpus_; ++cpu) {
    for (uint32_t b = 0; b < tl.buckets; ++b) {
      // The last bucket may be partial: divide by the part the run covers.
      int64_t lo = static_cast<int64_t>(b) * tl_width_;
      int64_t len = std::min(tl_width_, covered - lo);
      double f = len > 0 ? static_cast<double>(tl_busy_[cpu][b]) / static_cast<double>(len) : 0.0;
      tl.busy[cpu][b] = round_to(std::min(f, 1.0), 1e4);
    }
  }
}

// Per-task rows (measured tasks only) and their groups; returns their total runtime.
int64_t MetricsCollector::fill_tasks(RunResults& r) const {
  std::map<std::string, TaskGroupRow> groups;
  int64_t total_runtime = 0;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const TaskAcc& t = tasks_[i];
    if (i < workload_.tasks.size() && workload_.tasks[i].background) continue;
    TaskRow row;
    row.id = static_cast<uint32_t>(i);
    if (i < workload_.tasks.size()) {
      row.name = workload_.tasks[i].name;
      row.pid = workload_.tasks[i].pid;
    }
    row.switches = t.switches;
    row.runtime_ns = t.runtime;
    row.delays = t.delays;
    row.delay_total_ns = t.delay_total;
    row.max_delay_ns = t.max_delay;
    row.max_delay_start_ns = t.delays ? t.max_start.ns() : 0;
    row.max_delay_end_ns = t.delays ? t.max_end.ns() : 0;
    row.migrations = t.migrations;
    total_runtime += t.runtime;
    TaskGroupRow& g = groups[task_group_name(row.name)];
    g.name = task_group_name(row.name);
    ++g.tasks;
    g.switches += row.switches;
    g.runtime_ns += row.runtime_ns;
    g.delays += row.delays;
    g.delay_total_ns += row.delay_total_ns;
    if (row.delays && (g.delays == row.delays || row.max_delay_ns > g.max_delay_ns)) {
      g.max_delay_ns = row.max_delay_ns;
      g.max_delay_start_ns = row.max_delay_start_ns;
      g.max_delay_end_ns = row.max_delay_end_ns;
    }
    r.tasks_detail.push_back(std::move(row));
  }
  for (auto& [name, g] : groups) r.task_groups.push_back(g);
  return total_runtime;
}

// The simulated-vs-observed comparison, when the workload carries observed figures.
void MetricsCollector::fill_observed(RunResults& r, int64_t total_runtime) const {
  const ObservedStats& obs = workload_.observed;
  if (obs.present) {
    r.has_observed = true;
    auto add = [&](const std::string& metric, double sim, double ob) {
      Comparison c;
      c.metric = metric;
      c.simulated = round_to(sim, 1e3);
      c.observed = round_to(ob, 1e3);
      c.rel_error = ob != 0 ? round_to((sim - ob) / ob, 1e6) : 0.0;
      r.observed.push_back(c);
    };
    auto add_dist = [&](const std::string& name, const Histogram& sim, const Histogram& ob) {
      add(name + ".count", static_cast<double>(sim.count()), static_cast<double>(ob.count()));
      add(name + ".mean_ns", sim.mean(), ob.mean());
      add(name + ".p50_ns", static_cast<double>(sim.percentile(50)), static_cast<double>(ob.percentile(50)));
      add(name + ".p90_ns", static_cast<double>(sim.percentile(90)), static_cast<double>(ob.percentile(90)));
      add(name + ".p99_ns", static_cast<double>(sim.percentile(99)), static_cast<double>(ob.percentile(99)));
      add(name + ".max_ns", static_cast<double>(sim.max()), static_cast<double>(ob.max()));
    };
    add_dist("wakeup_latency", wakeup_latency_, obs.wakeup_latency);
    if (obs.wakeup_latency_inferred > 0) {
      // Those samples stop at a switch-in placed as late as the trace allows, so the observed
      // latencies are lower bounds (docs/fidelity.md, "Measurement caveats").
      const uint64_t n = obs.wakeup_latency.count();
      const std::string note = fmt::format(
          "lower bound: {} of {} samples ({:.0f}%) end at a switch-in from idle the trace did not record",
          obs.wakeup_latency_inferred, n, n ? 100.0 * static_cast<double>(obs.wakeup_latency_inferred) / static_cast<double>(n) : 0.0);
      for (auto& c : r.observed)
        if (c.metric.rfind("wakeup_latency.", 0) == 0 && c.metric != "wakeup_latency.count") c.note = note;
    }
    add_dist("preempt_delay", preempt_delay_, obs.runqueue_wait);
    add("wakeups", static_cast<double>(wakeups_), static_cast<double>(obs.wakeups));
    add("migrations", static_cast<double>(r.migrations_total), static_cast<double>(obs.migrations));
    add("context_switches", static_cast<double>(context_switches_), static_cast<double>(obs.context_switches));
    add("makespan_ns", static_cast<double>(r.makespan_ns), static_cast<double>(obs.span.count()));
    add("total_runtime_ns", static_cast<double>(total_runtime), static_cast<double>(obs.total_runtime.count()));
  }
}

RunResults MetricsCollector::results(const RunConfig& config, const SimSummary* summary) const {
  RunResults r;
  r.config = config;
  if (r.config.nr_cpus == 0) r.config.nr_cpus = nr_cpus_;
  Instant end = ended_ ? end_ : last_;
  fill_totals(r, summary, end);
  fill_placement(r);
  fill_cpus(r);
  fill_timeline(r, end);
  const int64_t total_runtime = fill_tasks(r);
  fill_observed(r, total_runtime);
  return r;
}

}  // namespace schedsim
