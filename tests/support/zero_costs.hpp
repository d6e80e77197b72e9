#pragma once
// A cost model with every overhead at zero and no SMT slowdown, so expected times in hand-computed
// engine tests are plain sums of run() durations.
#include "schedsim/engine/cost_model.hpp"

namespace schedsim::testing {

inline CostModel zero_costs() {
  CostModel c;
  c.context_switch = c.ipi_same_package = c.ipi_cross_package = c.idle_exit = Duration::zero();
  c.probe_cpu = c.probe_core_cpu = Duration::zero();
  c.refill_smt = c.refill_cluster = c.refill_llc = c.refill_package = c.refill_numa = Duration::zero();
  c.smt_corun_permille = 1000;
  return c;
}

}  // namespace schedsim::testing
