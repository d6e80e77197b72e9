#pragma once
// The exact work/rate accountant (private to engine/src): how much of its run() a task has done
// after running for a while at a given rate, and when it will be done.
//
// A running task consumes reference work at rate capacity/1024, times the SMT co-run factor
// (cost.smt_corun_permille) while any sibling thread of its core runs a task. Work is kept in
// exact "scaled" units, reference ns x 1024 x 1000, so that progress = wall_ns x capacity x
// corun_permille is an integer product with no rounding loss; only the completion instant is
// rounded (up, to the nanosecond). Charged overheads (context switch, cache refill, the waker's
// search time) are consumed before the run() work itself. The engine re-plans a CPU's completion
// whenever its rate changes (engine.cpp, refresh_cpu).
//
// Everything here is arithmetic on values; the engine (work.cpp) applies it to the running task
// of a CPU and tells the queue policy and the observers.
#include <algorithm>
#include <cstdint>

#include "schedsim/base/int128.hpp"
#include "schedsim/base/time.hpp"
#include "schedsim/engine/cost_model.hpp"
#include "schedsim/topology/topology.hpp"

namespace schedsim::detail {

using i128 = Int128;
inline constexpr int64_t kScale = 1024 * 1000;  // scaled units per reference ns

// Work one task still owes, exact.
struct TaskWork {
  i128 work_left = 0;      // scaled units of the current run() action still to do
  i128 overhead_left = 0;  // scaled units of charged overhead (switch, refill, search cost)
  bool pending() const { return work_left > 0 || overhead_left > 0; }
  i128 left() const { return work_left + overhead_left; }
  void charge(Duration d) { overhead_left += static_cast<i128>(d.count()) * kScale; }
};

// Where a CPU's running task stands: progress is accounted up to seg_start, at `rate` scaled
// units per wall ns since.
struct CpuRate {
  Instant seg_start;
  int64_t rate = kScale;
};

// Scaled units per wall ns of a CPU of `capacity` (1024 = reference), `corun_permille` of it
// while an SMT sibling is busy (1000 otherwise).
inline int64_t work_rate(uint32_t capacity, int64_t corun_permille) {
  return static_cast<int64_t>(capacity) * corun_permille;
}

// Consumes `budget` scaled units from w, overhead first; returns the run() work part of it.
inline i128 consume(TaskWork& w, i128 budget) {
  i128 from_over = std::min(budget, w.overhead_left);
  w.overhead_left -= from_over;
  budget -= from_over;
  i128 from_work = std::min(budget, w.work_left);
  w.work_left -= from_work;
  return from_work;
}

// Whole wall ns until `left` scaled units are done at `rate` (rounded up; 0 for nothing left).
inline i128 wall_to_done(i128 left, int64_t rate) {
  // 64-bit division whenever the value fits (hours of work): __divti3 is slow.
  return left <= INT64_MAX - rate ? (static_cast<int64_t>(left) + rate - 1) / rate : (left + rate - 1) / rate;
}

// Scaled units as reference ns (truncated).
inline Duration scaled_to_ns(i128 scaled) {
  // 64-bit division whenever the value fits (always, but for hours of work): __divti3 is slow.
  return Duration::ns(scaled <= INT64_MAX ? static_cast<int64_t>(scaled) / kScale : static_cast<int64_t>(scaled / kScale));
}

// The cache refill a task pays when it runs `d` away from where it last ran (cost_model.hpp).
inline Duration refill_cost(const CostModel& cost, CpuDistance d) {
  switch (d) {
    case CpuDistance::kSame: return Duration::zero();
    case CpuDistance::kSmt: return cost.refill_smt;
    case CpuDistance::kCluster: return cost.refill_cluster;
    case CpuDistance::kLlc: return cost.refill_llc;
    case CpuDistance::kPackage: return cost.refill_package;
    case CpuDistance::kNuma: return cost.refill_numa;
  }
  return Duration::zero();
}

// The transfer of what a waker wrote to a wakee that runs `d` away from the waker's CPU
// (cost_model.hpp xfer_*).
inline Duration xfer_cost(const CostModel& cost, CpuDistance d) {
  switch (d) {
    case CpuDistance::kSame: return Duration::zero();
    case CpuDistance::kSmt: return cost.xfer_smt;
    case CpuDistance::kCluster: return cost.xfer_cluster;
    case CpuDistance::kLlc: return cost.xfer_llc;
    case CpuDistance::kPackage: return cost.xfer_package;
    case CpuDistance::kNuma: return cost.xfer_numa;
  }
  return Duration::zero();
}

}  // namespace schedsim::detail
