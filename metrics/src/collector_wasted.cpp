// MetricsCollector's wasted-cores bookkeeping: which CPUs sit idle with an empty queue while a
// task that may run there waits in another CPU's queue (collector.hpp, "wasted").
#include "schedsim/metrics/collector.hpp"

#include <algorithm>
#include <bit>

#include "schedsim/engine/state.hpp"

namespace schedsim {

void MetricsCollector::refresh_cpu(uint32_t cpu) {
  const CpuAcc& c = cpus_[cpu];
  uint64_t bit = uint64_t{1} << (cpu & 63);
  if (!c.busy && c.queued == 0)
    idle_empty_[cpu >> 6] |= bit;
  else
    idle_empty_[cpu >> 6] &= ~bit;
}

void MetricsCollector::set_waiting(TaskId id, uint32_t cpu, Instant at) {
  TaskAcc& t = tasks_[id.value()];
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
  TaskAcc& t = tasks_[id.value()];
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
        const CpuMask& aff = *state_->tasks[t.value()].affinity;
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
        close_interval(cpu, true, c.wasted_since, at);
        --wasted_count_;
      }
    }
    wasted_mask_[i] = w;
  }
}

}  // namespace schedsim
