// MetricsCollector's event handlers: wakeup, fork and preemption latencies, run-queue waits,
// per-task delays and the placement statistics of each wake (definitions in collector.hpp).
// The wasted-cores bookkeeping is in collector_wasted.cpp, the utilization timeline in
// collector_timeline.cpp, the assembly of RunResults in collector_results.cpp.
#include "schedsim/metrics/collector.hpp"

#include <algorithm>
#include <cstdlib>

#include "schedsim/engine/state.hpp"

namespace schedsim {

MetricsCollector::MetricsCollector(const Workload& w) : workload_(w) {
  background_.reserve(w.tasks.size());
  for (const TaskSpec& t : w.tasks) background_.push_back(t.background ? 1 : 0);
  outcomes_.assign(kNrOutcomes, 0);
  migrations_.assign(kNrDistances, 0);
  if (auto it = w.meta.find("benchmark_timer"); it != w.meta.end()) {
    // A malformed value (a hand-edited workload file) leaves the metric out rather than guessing.
    char* end = nullptr;
    long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (!it->second.empty() && *end == '\0' && v >= 0 && static_cast<size_t>(v) < w.tasks.size()) bench_task_ = v;
    // Where the program takes its start time: "barrier" (default; hackbench and perf bench
    // messaging, just before the write that releases the children) is the timing task's first
    // wake of another task; "start" (perf bench sched pipe, whose modelled tasks exist from the
    // start: the creation inside perf's interval is not modelled) is the timing task's start.
    // Any other value leaves the metric out, as a malformed task index does.
    if (auto from = w.meta.find("benchmark_timer_from"); from != w.meta.end()) {
      if (from->second == "start") bench_from_start_ = true;
      else if (from->second != "barrier") bench_task_ = -1;
    }
    if (auto ops = w.meta.find("benchmark_ops"); ops != w.meta.end() && bench_task_ >= 0) {
      long long n = std::strtoll(ops->second.c_str(), &end, 10);
      if (!ops->second.empty() && *end == '\0' && n > 0) bench_ops_ = n;
    }
  }
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
  if (!started_) {
    // The makespan and the timeline begin with the first thing any task does, not at the clock's
    // origin (a trace-derived workload starts at the trace's first timestamp). That is not
    // always a task start: a task that begins asleep or blocked is first seen at its wakeup, and
    // CPU time it runs before the first task start must fall inside the makespan.
    started_ = true;
    first_ = at;
    tl_start_ = at;
    // Background tasks may have kept CPUs busy before the first measured event: the per-CPU
    // figures start with the makespan (a no-op without them, every switch being seen).
    for (CpuAcc& c : cpus_) {
      if (c.busy && c.busy_since < at) c.busy_since = at;
      if (c.wasted && c.wasted_since < at) c.wasted_since = at;
    }
  }
  if (!tail_.empty()) commit_tail(at);  // held intervals exist only with background tasks
  if (at > last_) last_ = at;
}

void MetricsCollector::add_interval(uint32_t cpu, bool wasted, Instant from, Instant to) {
  CpuAcc& c = cpus_[cpu];
  if (wasted) {
    c.wasted_ns += (to - from).count();
  } else {
    account_busy(cpu, from, to);
    c.busy_ns += (to - from).count();
  }
}

void MetricsCollector::close_interval(uint32_t cpu, bool wasted, Instant from, Instant to) {
  if (started_ && to <= last_)
    add_interval(cpu, wasted, from, to);
  else if (from < to)
    tail_.push_back({cpu, wasted, from, to});
}

void MetricsCollector::commit_tail(Instant limit) {
  for (const TailInterval& iv : tail_) {
    const Instant from = std::max(iv.from, first_), to = std::min(iv.to, limit);
    if (from < to) add_interval(iv.cpu, iv.wasted, from, to);
  }
  tail_.clear();
}

void MetricsCollector::on_task_start(Instant at, TaskId t, TaskId) {
  if (!measured(t)) return;
  see(at);
  if (bench_from_start_ && !bench_started_ && static_cast<int64_t>(t.value()) == bench_task_) {
    bench_started_ = true;
    bench_start_ = at;
  }
}

void MetricsCollector::on_wake(const WakeFact& f) {
  if (!measured(f.wakee)) return;
  see(f.at);
  if (!bench_from_start_ && !bench_started_ && bench_task_ >= 0 && f.kind == WakeKind::kWakeup && f.waker.valid() && static_cast<int64_t>(f.waker.value()) == bench_task_) {
    bench_started_ = true;
    bench_start_ = f.at;
  }
  TaskAcc& t = tasks_[f.wakee.value()];
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
      if (f.waker.valid() && topo.llc_index(f.waker_cpu.value()) != topo.llc_index(p.cpu.value())) ++cross_llc_waker_;
      if (topo.llc_index(f.prev_cpu.value()) != topo.llc_index(p.cpu.value())) ++cross_llc_prev_;
      break;
    }
    case WakeKind::kFork:
      ++forks_;
      t.fork_pending = true;
      t.forked = true;  // its first run is no migration, even after a move before it
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

void MetricsCollector::on_enqueue(Instant at, TaskId t, CpuId cpu_id) {
  const uint32_t cpu = cpu_id.value();
  if (measured(t)) see(at);
  set_waiting(t, cpu, at);
  update_wasted(at);
}

void MetricsCollector::on_switch(Instant at, CpuId cpu_id, TaskId prev, SwitchReason why, TaskId next) {
  const uint32_t cpu = cpu_id.value();
  const bool prev_measured = prev.valid() && measured(prev), next_measured = next.valid() && measured(next);
  if (prev_measured || next_measured) see(at);
  CpuAcc& c = cpus_[cpu];
  if (c.busy) {
    close_interval(cpu, false, c.busy_since, at);
    c.busy = false;
  }
  if (prev.valid() && !prev_measured && why != SwitchReason::kBlock && why != SwitchReason::kSleep &&
      why != SwitchReason::kExit)
    set_waiting(prev, cpu, at);  // a background task left runnable still waits (wasted time)
  if (prev_measured) {
    TaskAcc& p = tasks_[prev.value()];
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
  if (next.valid() && !next_measured) {
    if (tasks_[next.value()].queued) clear_waiting(next);
    c.busy = true;
    c.busy_since = at;
  }
  if (next_measured) {
    TaskAcc& n = tasks_[next.value()];
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
    if (n.last_cpu >= 0 && static_cast<uint32_t>(n.last_cpu) != cpu) {
      size_t idx = static_cast<size_t>(state_->topo->distance(static_cast<uint32_t>(n.last_cpu), cpu));
      if (idx < kNrDistances) ++migrations_[idx];
      ++n.migrations;
    }
    n.last_cpu = static_cast<int32_t>(cpu);
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

// A migration is counted where a trace can see one (the extractor's observed count): a task
// starts running on another CPU than the one it last ran on. The engine's set_task_cpu() moves
// (on_migrate, one per sched_migrate_task) are not counted themselves: a wake placed on B and
// pulled back to A by load balance before it runs is two moves and no migration. A task that
// has not run yet (alive at trace start, or asleep there) counts from the CPU it sat on before
// its first move; a forked task's first placement is not a migration (the engine does not
// report it, and the extractor skips a new task's first switch-in).
void MetricsCollector::on_migrate(Instant at, TaskId t, CpuId from, CpuId to_id, CpuDistance) {
  const uint32_t to = to_id.value();
  if (measured(t)) see(at);
  if (tasks_[t.value()].last_cpu < 0 && !tasks_[t.value()].forked) tasks_[t.value()].last_cpu = static_cast<int32_t>(from.value());
  if (tasks_[t.value()].queued) {
    set_waiting(t, to, at);
    update_wasted(at);
  }
}

void MetricsCollector::on_exit(Instant at, TaskId t, CpuId) {
  if (!measured(t)) return;
  see(at);
  if (bench_started_ && static_cast<int64_t>(t.value()) == bench_task_) {
    bench_stopped_ = true;
    bench_stop_ = at;
  }
  if (!tasks_[t.value()].exited) {
    tasks_[t.value()].exited = true;
  }
  ++exited_;
}

void MetricsCollector::on_token(Instant at, TaskId t, bool) {
  if (!measured(t)) return;
  see(at);
  ++tokens_banked_;
}

void MetricsCollector::on_tokens_consumed(Instant last, TaskId t, uint64_t n) {
  if (!measured(t)) return;
  see(last);
  tokens_banked_ += n;
}

void MetricsCollector::on_run(Instant at, TaskId t, CpuId, Duration, Duration work) {
  if (!measured(t)) return;
  see(at);
  work_done_ += work.count();
}

void MetricsCollector::on_end(const SchedState&, Instant end) {
  see(end);  // commits tail_ up to the end (what background tasks did after it is cut)
  end_ = end;
  ended_ = true;
  for (uint32_t cpu = 0; cpu < nr_cpus_; ++cpu) {
    CpuAcc& c = cpus_[cpu];
    // An interval opened after the end (by a background task) adds nothing.
    if (c.busy && c.busy_since < end) {
      add_interval(cpu, false, c.busy_since, end);
      c.busy_since = end;
    }
    if (((wasted_mask_[cpu >> 6] >> (cpu & 63)) & 1u) != 0 && c.wasted_since < end) {
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

}  // namespace schedsim
