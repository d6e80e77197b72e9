#pragma once
/// The idle-cores slot: the LLC idle-core hint select_idle_sibling() consults
/// (sd_llc_shared->has_idle_cores, docs/sources.md, LLC search variants), and two comparison modules.
#include "schedsim/engine/policy.hpp"

namespace schedsim::idle_cores {

/// `kernel`: models __update_idle_core() and set/test_idle_cores(), kernel/sched/fair.c.
/// Set when a CPU switches to idle and every other SMT sibling is idle; cleared only by a
/// placement scan that failed to find an idle core. Stale both ways, as in the kernel: a core
/// that stops being idle leaves the hint set, and a core that becomes idle while the hint is
/// set (or via a path that is not an idle switch) is not re-announced.
class KernelHint final : public IdleCoresPolicy {
 public:
  void on_idle_enter(SchedState& s, CpuId cpu) override;
  void on_idle_exit(const SchedState&, CpuId) override {}
  bool test(const SchedState& s, CpuId target) const override;
  void clear(SchedState& s, CpuId target) override;
};

/// `exact`: what the hint would say if it were free: the engine's exact per-LLC idle-core count.
class ExactHint final : public IdleCoresPolicy {
 public:
  void on_idle_enter(SchedState&, CpuId) override {}
  void on_idle_exit(const SchedState&, CpuId) override {}
  bool test(const SchedState& s, CpuId target) const override;
  void clear(SchedState&, CpuId) override {}
};

/// `off`: never claims an idle core, so the searches never take their core-wise paths.
class NoHint final : public IdleCoresPolicy {
 public:
  void on_idle_enter(SchedState&, CpuId) override {}
  void on_idle_exit(const SchedState&, CpuId) override {}
  bool test(const SchedState&, CpuId) const override { return false; }
  void clear(SchedState&, CpuId) override {}
};

}  // namespace schedsim::idle_cores
