// Models PELT (kernel/sched/pelt.c: decay_load, __accumulate_pelt_segments, accumulate_sum,
// ___update_load_sum, ___update_load_avg), its fair.c users (update_load_avg, attach/detach,
// post_init_entity_util_avg), util_est (util_est_enqueue/dequeue/update, <= 6.8 form) and the
// cpu_util() family (docs/sources.md, PELT and utilization). Written from the spec.
//
// Simplifications:
// - No cgroups: task_h_load(p) = p's load_avg; the root cfs_rq is the CPU's.
// - No frequency/capacity invariance (clock_pelt = clock), no RT/DL/IRQ pressure.
// - Migration detaches immediately (after syncing both sides to now) instead of queueing the
//   contribution in cfs_rq->removed until the next update; at one instant the result is equal.
// - util_est follows the <= 6.8 form {enqueued, ewma}; 6.9+'s single ewma with its
//   starvation check is not modelled (the FASTUP behaviour it made unconditional is a flag).
#include "schedsim/policies/pelt.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "features.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace pelt {
namespace {

uint64_t sat_sub(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

}  // namespace

const std::array<uint32_t, kLoadAvgPeriod>& decay_table() {
  // y = 2^(-1/32); entry n = (2^32 - 1) * y^n, truncated.
  static const std::array<uint32_t, kLoadAvgPeriod> table = [] {
    std::array<uint32_t, kLoadAvgPeriod> t{};
    const long double y = std::pow(2.0L, -1.0L / 32.0L);
    for (uint32_t n = 0; n < kLoadAvgPeriod; ++n)
      t[n] = static_cast<uint32_t>(4294967295.0L * std::pow(y, static_cast<long double>(n)));
    return t;
  }();
  return table;
}

uint64_t decay_load(uint64_t val, uint64_t n) {
  if (n > kLoadAvgPeriod * 63) return 0;
  // y^n = (1/2)^(n/32) * y^(n%32)
  val >>= n / kLoadAvgPeriod;
  const uint64_t f = decay_table()[n % kLoadAvgPeriod];
  // (val * f) >> 32 without a 128-bit type: split val into 32-bit halves.
  const uint64_t hi = val >> 32, lo = val & 0xffffffffull;
  return hi * f + ((lo * f) >> 32);
}

uint64_t accumulate_segments(uint64_t periods, uint32_t d1, uint32_t d3) {
  const uint64_t c1 = decay_load(d1, periods);
  const uint64_t c2 = kLoadAvgMax - decay_load(kLoadAvgMax, periods) - 1024;
  return c1 + c2 + d3;
}

bool SchedAvg::update(int64_t now_ns, uint64_t load, uint64_t runnable, bool running, uint64_t weight) {
  int64_t delta_ns = now_ns - last_update_time;
  if (delta_ns < 0) {  // time went backwards (a reset): resync without accruing
    last_update_time = now_ns;
    return false;
  }
  uint64_t delta = static_cast<uint64_t>(delta_ns) >> 10;  // 1024 ns units
  if (delta == 0) return false;
  last_update_time += static_cast<int64_t>(delta << 10);
  // A blocked entity neither runs nor is runnable, whatever the caller passed.
  if (load == 0) {
    runnable = 0;
    running = false;
  }
  // accumulate_sum()
  delta += period_contrib;
  const uint64_t periods = delta / 1024;
  uint64_t contrib = delta - period_contrib;  // no period crossed: the units just elapsed
  if (periods > 0) {
    load_sum = decay_load(load_sum, periods);
    runnable_sum = decay_load(runnable_sum, periods);
    util_sum = decay_load(util_sum, periods);
    const uint32_t d1 = 1024 - period_contrib;
    const uint32_t d3 = static_cast<uint32_t>(delta % 1024);
    contrib = accumulate_segments(periods, d1, d3);
  }
  period_contrib = static_cast<uint32_t>(delta % 1024);
  if (load) load_sum += load * contrib;
  if (runnable) runnable_sum += runnable * contrib * 1024;
  if (running) util_sum += contrib * 1024;
  if (periods == 0) return false;
  // ___update_load_avg(): averages only move at period boundaries.
  const uint64_t div = divider();
  load_avg = weight * load_sum / div;
  runnable_avg = runnable_sum / div;
  util_avg = util_sum / div;
  return true;
}

// ------------------------------------------------------------------------------------------

PeltUtil::PeltUtil(bool util_est_module, const Features& f)
    : util_est_(util_est_module && f.get(Feature::UTIL_EST)),
      fastup_(util_est_module && f.get(Feature::UTIL_EST_FASTUP)) {}

void PeltUtil::attach(SchedState& s) {
  tasks_.assign(s.tasks.size(), Task{});
  cfs_.assign(s.cpus.size(), Cfs{});
}

void PeltUtil::grow(const SchedState& s) {
  if (tasks_.size() < s.tasks.size()) tasks_.resize(s.tasks.size());
  if (cfs_.size() < s.cpus.size()) cfs_.resize(s.cpus.size());
}

void PeltUtil::update_cfs(const SchedState& s, uint32_t cpu) {
  // __update_load_avg_cfs_rq(): load = sum of queued weights (multiplier 1), runnable =
  // h_nr_running, running = a current entity exists.
  Cfs& c = cfs_[cpu];
  c.avg.update(s.now.ns(), c.load_weight, c.h_nr_running, c.curr.valid(), 1);
}

void PeltUtil::update_task(const SchedState& s, TaskId p) {
  // __update_load_avg_se(): load = runnable = on_rq, running = is curr, multiplier = weight.
  Task& t = tasks_[p.value()];
  if (!t.init) return;
  const uint64_t on = t.on_rq ? 1 : 0;
  if (t.avg.update(s.now.ns(), on, on, t.running, s.tasks[p.value()].weight)) t.avg_unchanged = false;
}

void PeltUtil::attach_to(const SchedState& s, TaskId p, uint32_t cpu) {
  // attach_entity_load_avg(): align the entity with the cfs_rq's clock and period, rebuild its
  // sums from its averages with the cfs_rq's divider, then add both into the cfs_rq.
  Task& t = tasks_[p.value()];
  Cfs& c = cfs_[cpu];
  const uint64_t w = std::max<uint64_t>(s.tasks[p.value()].weight, 1);
  t.avg.last_update_time = c.avg.last_update_time;
  t.avg.period_contrib = c.avg.period_contrib;
  const uint64_t div = c.avg.divider();
  t.avg.util_sum = t.avg.util_avg * div;
  t.avg.runnable_sum = t.avg.runnable_avg * div;
  t.avg.load_sum = t.avg.load_avg * div / w;
  c.avg.util_avg += t.avg.util_avg;
  c.avg.util_sum += t.avg.util_sum;
  c.avg.runnable_avg += t.avg.runnable_avg;
  c.avg.runnable_sum += t.avg.runnable_sum;
  c.avg.load_avg += t.avg.load_avg;
  c.avg.load_sum += w * t.avg.load_sum;
  t.attached_cpu = CpuId(cpu);
}

void PeltUtil::detach(const SchedState& s, TaskId p) {
  // detach_entity_load_avg() / remove_entity_load_avg(): subtract the entity's (synced)
  // contribution. Sums are floored so they never fall below avg * the minimum divider.
  Task& t = tasks_[p.value()];
  if (!t.attached_cpu.valid()) return;
  const uint32_t old = t.attached_cpu.value();
  update_cfs(s, old);
  update_task(s, p);
  Cfs& c = cfs_[old];
  const uint64_t w = std::max<uint64_t>(s.tasks[p.value()].weight, 1);
  const uint64_t min_div = kLoadAvgMax - 1024;
  c.avg.util_avg = sat_sub(c.avg.util_avg, t.avg.util_avg);
  c.avg.util_sum = std::max(sat_sub(c.avg.util_sum, t.avg.util_sum), c.avg.util_avg * min_div);
  c.avg.runnable_avg = sat_sub(c.avg.runnable_avg, t.avg.runnable_avg);
  c.avg.runnable_sum =
      std::max(sat_sub(c.avg.runnable_sum, t.avg.runnable_sum), c.avg.runnable_avg * min_div);
  c.avg.load_avg = sat_sub(c.avg.load_avg, t.avg.load_avg);
  c.avg.load_sum = std::max(sat_sub(c.avg.load_sum, w * t.avg.load_sum), c.avg.load_avg * min_div);
  t.attached_cpu = CpuId();
}

void PeltUtil::task_new(const SchedState& s, TaskId p, CpuId cpu_id) {
  const uint32_t cpu = cpu_id.value();
  ensure(s);
  Task& t = tasks_[p.value()];
  if (t.attached_cpu.valid()) detach(s, p);
  t = Task{};
  t.init = true;
  t.fresh = true;
  update_cfs(s, cpu);
  const Cfs& c = cfs_[cpu];
  const uint64_t w = s.tasks[p.value()].weight;
  // init_entity_runnable_average(): a new task starts as fully loaded...
  t.avg.load_avg = w;
  // post_init_entity_util_avg(): ...and with half the CPU's spare capacity as utilization, or
  // its weight share of the CPU's current util if that is smaller.
  const int64_t cap =
      (static_cast<int64_t>(s.cpus[cpu].capacity) - static_cast<int64_t>(c.avg.util_avg)) / 2;
  if (cap > 0) {
    if (c.avg.util_avg != 0) {
      uint64_t u = c.avg.util_avg * w / (c.avg.load_avg + 1);
      t.avg.util_avg = std::min<uint64_t>(u, static_cast<uint64_t>(cap));
    } else {
      t.avg.util_avg = static_cast<uint64_t>(cap);
    }
  }
  t.avg.runnable_avg = t.avg.util_avg;
  attach_to(s, p, cpu);
}

void PeltUtil::update(const SchedState& s, CpuId cpu_id) {
  const uint32_t cpu = cpu_id.value();
  ensure(s);
  update_cfs(s, cpu);
  if (cfs_[cpu].curr.valid()) update_task(s, cfs_[cpu].curr);
}

uint32_t PeltUtil::est(const Task& t) const { return std::max(t.est_ewma, t.est_enqueued); }

void PeltUtil::enqueue(const SchedState& s, TaskId p, CpuId cpu_id, bool /*migrated*/) {
  const uint32_t cpu = cpu_id.value();
  ensure(s);
  // wake_up_new_task() runs post_init_entity_util_avg() on the CPU the fork placement chose:
  // a child initialised against its parent's CPU is re-initialised against its own.
  if (!tasks_[p.value()].init ||
      (tasks_[p.value()].fresh && tasks_[p.value()].attached_cpu != CpuId(cpu)))
    task_new(s, p, cpu_id);
  Task& t = tasks_[p.value()];
  t.fresh = false;
  // update_load_avg(DO_ATTACH): bring both to now with the old inputs (the task was blocked),
  // then move the contribution if the task last ran elsewhere.
  if (t.attached_cpu != CpuId(cpu)) {
    detach(s, p);
    update_task(s, p);
    update_cfs(s, cpu);
    attach_to(s, p, cpu);
  } else {
    update_cfs(s, cpu);
    update_task(s, p);
  }
  Cfs& c = cfs_[cpu];
  if (!t.on_rq) {
    t.on_rq = true;
    c.load_weight += s.tasks[p.value()].weight;
    ++c.h_nr_running;
    // util_est_enqueue(): the CPU's estimate is the sum over queued tasks.
    t.queued_est = est(t);
    c.util_est += t.queued_est;
  }
}

void PeltUtil::dequeue(const SchedState& s, TaskId p, CpuId cpu_id, bool sleep) {
  const uint32_t cpu = cpu_id.value();
  ensure(s);
  Task& t = tasks_[p.value()];
  if (!t.init || !t.on_rq) return;
  update_cfs(s, cpu);
  update_task(s, p);
  Cfs& c = cfs_[cpu];
  c.util_est = sat_sub(c.util_est, t.queued_est);
  t.queued_est = 0;
  t.on_rq = false;
  c.load_weight = sat_sub(c.load_weight, s.tasks[p.value()].weight);
  if (c.h_nr_running > 0) --c.h_nr_running;
  if (c.curr == p) {
    c.curr = TaskId();
    t.running = false;
  }
  if (sleep) util_est_update(s, p, cpu);
}

void PeltUtil::util_est_update(const SchedState& s, TaskId p, uint32_t cpu) {
  // util_est_update() on dequeue-for-sleep, <= 6.8 form.
  if (!util_est_) return;
  Task& t = tasks_[p.value()];
  // UTIL_AVG_UNCHANGED: util_avg has not moved since the last sample, nothing new to learn.
  if (t.avg_unchanged) return;
  const uint32_t last_enqueued = t.est_enqueued;
  const uint32_t enqueued = static_cast<uint32_t>(t.avg.util_avg);
  uint32_t ewma = t.est_ewma;
  if (fastup_ && ewma < enqueued) {
    ewma = enqueued;  // rise at once
  } else {
    const int64_t ewma_diff = static_cast<int64_t>(enqueued) - static_cast<int64_t>(t.est_ewma);
    const int64_t enq_diff = static_cast<int64_t>(last_enqueued) - static_cast<int64_t>(enqueued);
    const int64_t margin = kUtilEstMargin;
    if (ewma_diff > -margin && ewma_diff < margin) {
      // The ewma is close enough; only record a moved enqueued sample.
      if (enq_diff > -margin && enq_diff < margin) return;
    } else {
      // A task that used more than the CPU's capacity had no idle time: its util is not a
      // measurement of its need.
      if (enqueued > s.topo->capacity(cpu)) return;
      // ewma += (enqueued - ewma) / 4, as ((ewma << 2) + diff) >> 2 (floor).
      int64_t e = (static_cast<int64_t>(ewma) * 4 + ewma_diff) >> 2;
      ewma = static_cast<uint32_t>(std::max<int64_t>(e, 0));
    }
  }
  // Store, marking the sample taken until util_avg next changes.
  t.est_enqueued = enqueued;
  t.est_ewma = ewma;
  t.avg_unchanged = true;
}

void PeltUtil::set_running(const SchedState& s, TaskId p, CpuId cpu_id, bool running) {
  const uint32_t cpu = cpu_id.value();
  ensure(s);
  if (!tasks_[p.value()].init) task_new(s, p, cpu_id);
  update_cfs(s, cpu);
  update_task(s, p);
  Task& t = tasks_[p.value()];
  Cfs& c = cfs_[cpu];
  t.running = running;
  if (running) {
    if (c.curr.valid() && c.curr != p) tasks_[c.curr.value()].running = false;
    c.curr = p;
  } else if (c.curr == p) {
    c.curr = TaskId();
  }
}

void PeltUtil::sync_task(const SchedState& s, TaskId p) {
  ensure(s);
  Task& t = tasks_[p.value()];
  if (!t.init) return;
  if (t.attached_cpu.valid()) update_cfs(s, t.attached_cpu.value());
  update_task(s, p);
}

uint32_t PeltUtil::task_util(const SchedState&, TaskId p) const {
  if (p.value() >= tasks_.size()) return 0;
  return static_cast<uint32_t>(tasks_[p.value()].avg.util_avg);
}

uint32_t PeltUtil::task_util_est(const SchedState& s, TaskId p) const {
  if (p.value() >= tasks_.size()) return 0;
  const uint32_t u = task_util(s, p);
  return util_est_ ? std::max(u, est(tasks_[p.value()])) : u;
}

uint64_t PeltUtil::task_load(const SchedState&, TaskId p) const {
  if (p.value() >= tasks_.size()) return 0;
  return tasks_[p.value()].avg.load_avg;
}

uint32_t PeltUtil::cpu_util(const SchedState& s, CpuId cpu_id, TaskId p, CpuId dst, bool boost) const {
  const uint32_t cpu = cpu_id.value();
  if (cpu >= cfs_.size()) return 0;
  const Cfs& c = cfs_[cpu];
  uint64_t u = c.avg.util_avg;
  if (boost) u = std::max(u, c.avg.runnable_avg);
  const bool have_p = p.valid() && p.value() < tasks_.size() && tasks_[p.value()].init;
  const bool dst_here = dst == cpu_id;
  if (have_p) {
    const Task& t = tasks_[p.value()];
    const bool here = t.attached_cpu == cpu_id;
    if (here && !dst_here) u = sat_sub(u, t.avg.util_avg);
    else if (!here && dst_here) u += t.avg.util_avg;
  }
  if (util_est_) {
    uint64_t e = c.util_est;
    if (have_p) {
      const Task& t = tasks_[p.value()];
      if (dst_here) e += est(t);
      else if (t.on_rq && t.attached_cpu == cpu_id) e = sat_sub(e, t.queued_est);
    }
    u = std::max(u, e);
  }
  return static_cast<uint32_t>(std::min<uint64_t>(u, s.topo->capacity(cpu)));
}

uint32_t PeltUtil::cpu_util_without(const SchedState& s, CpuId cpu_id, TaskId p) const {
  // A task not attached here contributes nothing to remove; a sleeping one is not in util_est,
  // so only its decayed util_avg comes off.
  if (!p.valid() || p.value() >= tasks_.size() || tasks_[p.value()].attached_cpu != cpu_id)
    return cpu_util(s, cpu_id, TaskId(), CpuId(), false);
  return cpu_util(s, cpu_id, p, CpuId(), false);
}

uint64_t PeltUtil::cpu_load(const SchedState&, CpuId cpu_id) const {
  const uint32_t cpu = cpu_id.value();
  return cpu < cfs_.size() ? cfs_[cpu].avg.load_avg : 0;
}

uint64_t PeltUtil::cpu_load_without(const SchedState& s, CpuId cpu_id, TaskId p) const {
  const uint64_t l = cpu_load(s, cpu_id);
  if (!p.valid() || p.value() >= tasks_.size() || tasks_[p.value()].attached_cpu != cpu_id)
    return l;
  return sat_sub(l, tasks_[p.value()].avg.load_avg);
}

uint64_t PeltUtil::cpu_runnable(const SchedState&, CpuId cpu_id) const {
  const uint32_t cpu = cpu_id.value();
  return cpu < cfs_.size() ? cfs_[cpu].avg.runnable_avg : 0;
}

}  // namespace pelt

ModuleDef<UtilPolicy> pelt_util() {
  return {{"", "pelt", "PELT util_avg/load_avg per task and CPU, blocked-load decay, no util_est", {}},
          [](const Features& f) { return std::make_unique<pelt::PeltUtil>(false, f); }};
}

ModuleDef<UtilPolicy> pelt_util_est() {
  return {{"", "pelt-util-est", "PELT plus util_est (EWMA w=1/4 updated at sleep, UTIL_AVG_UNCHANGED skip)",
           feature_docs({Feature::UTIL_EST, Feature::UTIL_EST_FASTUP})},
          [](const Features& f) { return std::make_unique<pelt::PeltUtil>(true, f); }};
}

ModuleDef<UtilPolicy> no_util() {
  return {{"", "none", "all signals zero (placement sees no load or utilization)", {}},
          [](const Features&) { return std::make_unique<pelt::NoUtil>(); }};
}

}  // namespace schedsim
