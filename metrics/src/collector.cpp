#include "schedsim/metrics/collector.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>

#include "schedsim/engine/state.hpp"

namespace schedsim {

namespace {

double round_to(double v, double scale) { return std::round(v * scale) / scale; }

constexpr size_t kNrDistances = static_cast<size_t>(CpuDistance::kNuma) + 1;
constexpr size_t kNrOutcomes = static_cast<size_t>(PlaceOutcome::kCount);

}  // namespace

MetricsCollector::MetricsCollector(const Workload& w) : workload_(w) {
  outcomes_.assign(kNrOutcomes, 0);
  migrations_.assign(kNrDistances, 0);
}

void MetricsCollector::on_start(const SchedState& s) {
  state_ = &s;
  nr_cpus_ = s.topo->nr_cpus();
  tasks_.assign(s.tasks.size(), TaskAcc{});
  for (size_t i = 0; i < s.tasks.size(); ++i) {
    const CpuMask* aff = s.tasks[i].affinity;
    tasks_[i].restricted = aff != nullptr && !s.topo->all_cpus().is_subset_of(*aff);
  }
  cpus_.assign(nr_cpus_, CpuAcc{});
  llc_of_cpu_.resize(nr_cpus_);
  for (uint32_t cpu = 0; cpu < nr_cpus_; ++cpu) llc_of_cpu_[cpu] = s.topo->llc_index(cpu);
  node_of_cpu_.resize(nr_cpus_);
  for (uint32_t cpu = 0; cpu < nr_cpus_; ++cpu) node_of_cpu_[cpu] = s.topo->node_of(cpu);
  size_t words = (nr_cpus_ + 63) / 64;
  idle_empty_.assign(words, 0);
  wasted_mask_.assign(words, 0);
  wasted_count_ = 0;
  for (uint32_t cpu = 0; cpu < nr_cpus_; ++cpu) idle_empty_[cpu >> 6] |= uint64_t{1} << (cpu & 63);
  tl_busy_.assign(nr_cpus_, std::vector<int64_t>(kTimelineBuckets, 0));
  tl_start_ = s.now;
  first_ = last_ = s.now;
}

void MetricsCollector::see(Instant at) {
  if (at > last_) last_ = at;
}

void MetricsCollector::on_task_start(Instant at, TaskId, TaskId) {
  if (!started_) {
    // The makespan and the timeline begin with the first task, not at the clock's origin (a
    // trace-derived workload starts at the trace's first timestamp).
    started_ = true;
    first_ = at;
    tl_start_ = at;
  }
  see(at);
}

void MetricsCollector::on_wake(const WakeFact& f) {
  see(f.at);
  TaskAcc& t = tasks_[f.wakee.v];
  const PlacementResult& p = f.placement;
  size_t oc = static_cast<size_t>(p.outcome);
  if (oc < kNrOutcomes) ++outcomes_[oc];
  switch (f.kind) {
    case WakeKind::kWakeup: {
      ++wakeups_;
      t.wake_pending = true;
      t.wake_at = f.at;
      if (!t.delay_pending) {
        t.delay_pending = true;
        t.delay_start = f.at;
      }
      probes_.record(static_cast<int64_t>(p.probes_cpu) + static_cast<int64_t>(p.probes_core));
      search_ns_.record(p.scan_cost.count());
      wake_delay_.record(f.delay.count());
      if (f.target_was_idle) ++to_idle_;
      const Topology& topo = *state_->topo;
      if (f.waker.valid() && topo.llc_index(f.waker_cpu) != topo.llc_index(p.cpu)) ++cross_llc_waker_;
      if (topo.llc_index(f.prev_cpu) != topo.llc_index(p.cpu)) ++cross_llc_prev_;
      break;
    }
    case WakeKind::kFork:
      ++forks_;
      t.fork_pending = true;
      t.wake_at = f.at;
      if (!t.delay_pending) {
        t.delay_pending = true;
        t.delay_start = f.at;
      }
      break;
    case WakeKind::kExec:
      ++execs_;
      break;
  }
  if (p.hint_consulted) {
    // Truth is the engine's exact idle-core count of the chosen CPU's LLC at this moment (the
    // engine reports the wake right after select_task_rq, before applying the placement).
    ++hint_consulted_;
    bool truth = state_->llc_of(p.cpu).nr_idle_cores_exact > 0;
    if (p.hint_value && !truth) ++hint_stale_yes_;
    if (!p.hint_value && truth) ++hint_stale_no_;
  }
}

void MetricsCollector::refresh_cpu(uint32_t cpu) {
  const CpuAcc& c = cpus_[cpu];
  uint64_t bit = uint64_t{1} << (cpu & 63);
  if (!c.busy && c.queued == 0)
    idle_empty_[cpu >> 6] |= bit;
  else
    idle_empty_[cpu >> 6] &= ~bit;
}

void MetricsCollector::set_waiting(TaskId id, uint32_t cpu, Instant at) {
  TaskAcc& t = tasks_[id.v];
  if (t.running) return;
  if (t.queued) {
    if (t.queue_cpu == static_cast<int32_t>(cpu)) return;
    uint32_t old = static_cast<uint32_t>(t.queue_cpu);
    --cpus_[old].queued;
    refresh_cpu(old);
  } else {
    t.queued = true;
    t.queued_since = at;
    if (t.restricted)
      waiting_restricted_.push_back(id);
    else
      ++waiting_unrestricted_;
  }
  t.queue_cpu = static_cast<int32_t>(cpu);
  ++cpus_[cpu].queued;
  refresh_cpu(cpu);
}

void MetricsCollector::clear_waiting(TaskId id) {
  TaskAcc& t = tasks_[id.v];
  if (!t.queued) return;
  t.queued = false;
  uint32_t cpu = static_cast<uint32_t>(t.queue_cpu);
  t.queue_cpu = -1;
  --cpus_[cpu].queued;
  refresh_cpu(cpu);
  if (t.restricted) {
    auto it = std::find(waiting_restricted_.begin(), waiting_restricted_.end(), id);
    if (it != waiting_restricted_.end()) waiting_restricted_.erase(it);
  } else {
    --waiting_unrestricted_;
  }
}

// The wasted set W = idle_empty & (every CPU if an unrestricted task waits, else the union of the
// waiting restricted tasks' affinities). Each CPU's wasted time accumulates from the instant it
// enters W until it leaves, so the cost per event is O(mask words + restricted waiters).
void MetricsCollector::update_wasted(Instant at) {
  if (waiting_unrestricted_ == 0 && waiting_restricted_.empty() && wasted_count_ == 0) return;
  for (size_t i = 0; i < idle_empty_.size(); ++i) {
    uint64_t w = 0;
    if (waiting_unrestricted_ > 0) {
      w = idle_empty_[i];
    } else {
      uint64_t allowed = 0;
      for (TaskId t : waiting_restricted_) {
        const CpuMask& aff = *state_->tasks[t.v].affinity;
        if (i < aff.used_words()) allowed |= aff.word(static_cast<uint32_t>(i));
      }
      w = idle_empty_[i] & allowed;
    }
    uint64_t changed = w ^ wasted_mask_[i];
    while (changed) {
      uint32_t cpu = static_cast<uint32_t>(i * 64) + static_cast<uint32_t>(std::countr_zero(changed));
      changed &= changed - 1;
      CpuAcc& c = cpus_[cpu];
      if ((w >> (cpu & 63)) & 1u) {
        c.wasted_since = at;
        ++wasted_count_;
      } else {
        c.wasted_ns += (at - c.wasted_since).count();
        --wasted_count_;
      }
    }
    wasted_mask_[i] = w;
  }
}

void MetricsCollector::on_enqueue(Instant at, TaskId t, uint32_t cpu) {
  see(at);
  set_waiting(t, cpu, at);
  update_wasted(at);
}

void MetricsCollector::grow_timeline(Instant to) {
  // Doubling the bucket width merges bucket pairs: memory stays kTimelineBuckets per CPU.
  while ((to - tl_start_).count() > tl_width_ * static_cast<int64_t>(kTimelineBuckets)) {
    for (auto& row : tl_busy_) {
      for (size_t b = 0; b < kTimelineBuckets / 2; ++b) row[b] = row[2 * b] + row[2 * b + 1];
      std::fill(row.begin() + kTimelineBuckets / 2, row.end(), 0);
    }
    tl_width_ *= 2;
  }
}

void MetricsCollector::account_busy(uint32_t cpu, Instant from, Instant to) {
  if (from < tl_start_) from = tl_start_;
  if (to <= from) return;
  grow_timeline(to);
  std::vector<int64_t>& row = tl_busy_[cpu];
  int64_t a = (from - tl_start_).count(), b = (to - tl_start_).count();
  while (a < b) {
    int64_t bucket = a / tl_width_;
    int64_t edge = std::min(b, (bucket + 1) * tl_width_);
    row[static_cast<size_t>(std::min<int64_t>(bucket, kTimelineBuckets - 1))] += edge - a;
    a = edge;
  }
}

void MetricsCollector::on_switch(Instant at, uint32_t cpu, TaskId prev, SwitchReason why, TaskId next) {
  see(at);
  CpuAcc& c = cpus_[cpu];
  if (c.busy) {
    account_busy(cpu, c.busy_since, at);
    c.busy_ns += (at - c.busy_since).count();
    c.busy = false;
  }
  if (prev.valid()) {
    TaskAcc& p = tasks_[prev.v];
    if (p.running) {
      p.runtime += (at - p.running_since).count();
      p.running = false;
    }
    switch (why) {
      case SwitchReason::kPreempt:
        p.preempt_pending = true;
        p.preempt_at = at;
        p.delay_pending = true;  // perf: a task switched out in R waits from the switch-out
        p.delay_start = at;
        set_waiting(prev, cpu, at);
        break;
      case SwitchReason::kMigrate:
        p.delay_pending = true;
        p.delay_start = at;
        set_waiting(prev, cpu, at);
        break;
      case SwitchReason::kBlock:
      case SwitchReason::kSleep:
        break;
      case SwitchReason::kExit:
        p.exited = true;
        break;
    }
  }
  if (next.valid()) {
    TaskAcc& n = tasks_[next.v];
    if (n.wake_pending) wakeup_latency_.record((at - n.wake_at).count());
    if (n.fork_pending) fork_latency_.record((at - n.wake_at).count());
    if (n.preempt_pending) preempt_delay_.record((at - n.preempt_at).count());
    if (n.queued) {
      runqueue_wait_.record((at - n.queued_since).count());
      clear_waiting(next);
    }
    if (n.delay_pending) {
      int64_t d = (at - n.delay_start).count();
      ++n.delays;
      n.delay_total += d;
      if (d > n.max_delay || n.delays == 1) {
        n.max_delay = d;
        n.max_start = n.delay_start;
        n.max_end = at;
      }
    }
    n.wake_pending = n.fork_pending = n.preempt_pending = n.delay_pending = false;
    n.running = true;
    n.running_since = at;
    ++n.switches;
    ++context_switches_;
    c.busy = true;
    c.busy_since = at;
  }
  refresh_cpu(cpu);
  update_wasted(at);
}

void MetricsCollector::on_migrate(Instant at, TaskId t, uint32_t, uint32_t to, CpuDistance d) {
  see(at);
  size_t idx = static_cast<size_t>(d);
  if (idx < kNrDistances) ++migrations_[idx];
  ++tasks_[t.v].migrations;
  if (tasks_[t.v].queued) {
    set_waiting(t, to, at);
    update_wasted(at);
  }
}

void MetricsCollector::on_exit(Instant at, TaskId t, uint32_t) {
  see(at);
  if (!tasks_[t.v].exited) {
    tasks_[t.v].exited = true;
  }
  ++exited_;
}

void MetricsCollector::on_token(Instant at, TaskId, bool) {
  see(at);
  ++tokens_banked_;
}

void MetricsCollector::on_run(Instant at, TaskId, uint32_t, Duration, Duration work) {
  see(at);
  work_done_ += work.count();
}

void MetricsCollector::on_end(const SchedState&, Instant end) {
  see(end);
  end_ = end;
  ended_ = true;
  for (uint32_t cpu = 0; cpu < nr_cpus_; ++cpu) {
    CpuAcc& c = cpus_[cpu];
    if (c.busy) {
      account_busy(cpu, c.busy_since, end);
      c.busy_ns += (end - c.busy_since).count();
      c.busy_since = end;
    }
    if ((wasted_mask_[cpu >> 6] >> (cpu & 63)) & 1u) {
      c.wasted_ns += (end - c.wasted_since).count();
      c.wasted_since = end;
    }
  }
  for (TaskAcc& t : tasks_) {
    if (t.running) {
      t.runtime += (end - t.running_since).count();
      t.running_since = end;
    }
  }
}

RunResults MetricsCollector::results(const RunConfig& config, const SimSummary* summary) const {
  RunResults r;
  r.config = config;
  if (r.config.nr_cpus == 0) r.config.nr_cpus = nr_cpus_;
  Instant end = ended_ ? end_ : last_;
  r.start_ns = first_.ns();
  r.end_ns = end.ns();
  r.makespan_ns = std::max<int64_t>(0, (end - first_).count());
  r.context_switches = context_switches_;
  r.tokens_banked = tokens_banked_;
  r.tasks = workload_.tasks.size();
  r.tasks_exited = exited_;
  r.work_done_ns = work_done_;
  r.work_expected_ns = workload_.total_work().count();
  if (summary) {
    r.events = summary->events;
    r.complete = summary->complete;
    r.tokens_banked = summary->tokens_banked;
    r.tokens_left = summary->tokens_left;
    r.work_done_ns = summary->work_done.count();  // exact; on_run's increments are rounded
    r.incomplete = summary->incomplete;
  }

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

  std::map<std::string, TaskGroupRow> groups;
  int64_t total_runtime = 0;
  for (size_t i = 0; i < tasks_.size(); ++i) {
    const TaskAcc& t = tasks_[i];
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
  return r;
}

}  // namespace schedsim
