#pragma once
/// The placement slot: select_task_rq_fair() and select_idle_sibling() as the kernel ran them,
/// version by version (kernel-model.md §3-§4), plus simple baselines. Exposed here so unit tests
/// can pin each piece against the spec on a hand-built SchedState.
///
/// One class models every kernel variant: the wake path's era (which fast checks and wake_affine
/// steps exist) and the LLC search are chosen at construction. Every probe of a CPU made by a
/// search is counted in the PlacementResult and priced with the cost model; the simulated time
/// is what feeds avg_scan_cost / wake_avg_idle, as the kernel's measured time does.
#include <cstdint>
#include <string>
#include <vector>

#include "schedsim/engine/policy.hpp"

namespace schedsim::placement {

/// Which LLC search select_idle_sibling() ends with (the module's identity).
enum class LlcSearch : uint8_t {
  kSeparate,   ///< 4.17-5.11: select_idle_core, select_idle_cpu (SIS_PROP), select_idle_smt
  kFold2018,   ///< 2018 RFC SIS_FOLD: one folded pass, core-wise whenever SMT is present
  kFoldOpt,    ///< "Optimize SIS_FOLD": fold only when test_idle_cores() says yes
  kMerged,     ///< 5.12-6.6: select_idle_smt(prev) + merged core/CPU scan (SIS_PROP/SIS_UTIL)
  kUtil,       ///< 6.7+: SIS_UTIL only, cluster aware
  kPrev,       ///< baseline: always prev
  kFirstIdle,  ///< baseline: the lowest-numbered idle CPU of the target's LLC
  kFullScan,   ///< baseline: unlimited scan, first wholly idle core else first idle CPU
  kRandomIdle, ///< baseline: a uniformly chosen idle CPU of the LLC (seeded by task and time)
};

/// The version-dependent parts of the wake path around the LLC search (kernel-model.md §3-§4.1).
struct Era {
  const char* name = "6.12";
  bool wake_cap = false;            ///< 4.17-4.19 wake_cap() turns off want_affine
  bool recent_515 = true;           ///< recent_used_cpu = prev stored unconditionally (5.15+);
                                    ///< false: 4.17-5.11 form incl. waker->recent_used_cpu = cpu
  bool kthread_stacking = true;     ///< per-CPU kthread stacking fast check (5.11+)
  bool kthread_in_task = true;      ///< 6.1+: the stacking needs a task-context waker
  bool wa_idle_prev = true;         ///< wake_affine_idle step 3: prev idle -> prev (5.11+)
  bool asym_capacity = true;        ///< asym fits + select_idle_capacity (5.11+)
  bool cluster = true;              ///< 6.7+ cluster fallbacks (prev_aff, recent)
  bool idle_checks_ttwu = true;     ///< idle_cpu() also needs no wakeup in flight (5.8+ [U])
  bool find_idlest_55 = true;       ///< find_idlest_group 5.5+ form (else 4.17 form)
  bool cpus_upfront = true;         ///< 5.11+: select_idle_cpu scans span & allowed, so CPUs
                                    ///< p may not use consume no SIS_PROP budget
};
Era era_4_17();
Era era_5_11();
Era era_5_15();  ///< 5.15-6.6 (5.12 merged search, 6.1's kthread rule)
Era era_6_12();

/// The sched_feat flags the placement modules read (features.def), resolved once.
struct Knobs {
  bool sis_prop = false, sis_util = false, sis_avg_cpu = false;
  bool sis_fold = false, sis_age = false, sis_once = false, sis_fold_always = false;
  bool wa_idle = true, wa_weight = true, wa_bias = true;
  static Knobs from(const FeatureSet& f);
};

/// update_idle_cpu_scan()'s budget (kernel-model.md §4.6): with x = sum_util / W,
/// nr_idle_scan = floor((1024 - min(x^2 pct^2 / (10000 * 1024), 1024)) * W / 1024).
uint32_t sis_util_nr_idle_scan(uint64_t sum_util, uint32_t llc_weight, uint32_t imbalance_pct);
/// SIS_PROP's depth (select_idle_cpu): span_avg = W * avg_idle;
/// nr = span_avg / avg_cost when span_avg > 4 * avg_cost, else 4. avg_cost already includes +1.
uint64_t sis_prop_nr(uint32_t span_weight, int64_t avg_idle_ns, int64_t avg_cost_ns);
/// update_avg(): a += (s - a) / 8, signed.
Duration update_avg(Duration avg, Duration sample);

/// select_task_rq_fair() for one era and one LLC search.
class KernelPlacement final : public PlacementPolicy {
 public:
  KernelPlacement(LlcSearch search, const Era& era, const FeatureSet& features);

  /// With SIS_UTIL, seeds every LLC's nr_idle_scan as one periodic balance of the (still idle)
  /// machine would: a simulated run starts on a machine that has been up, not at boot.
  void attach(SchedState& s) override;
  PlacementResult select_task_rq(SchedState& s, const WakeContext& ctx) override;
  /// At the LLC level with SIS_UTIL on: refreshes sd_llc_shared.nr_idle_scan from the LLC's
  /// summed cpu_util_cfs (update_idle_cpu_scan, called from update_sd_lb_stats).
  void on_periodic_balance(SchedState& s, uint32_t cpu, int level) override;

  // The pieces, public for unit tests.

  /// record_wakee(): the waker's flips decay by half once if more than 1 s passed, then count a
  /// switch of wakee.
  static void record_wakee(SchedState& s, TaskId waker, TaskId p);
  /// wake_wide(): 1 iff min(flips) >= f and max(flips) >= min * f, f = waking CPU's LLC size.
  static bool wake_wide(const SchedState& s, TaskId waker, TaskId p, uint32_t waker_cpu);
  /// wake_affine() at domain level `level`: WA_IDLE, then WA_WEIGHT; prev when neither decides.
  uint32_t wake_affine(const SchedState& s, const WakeContext& ctx, int level) const;
  /// select_idle_sibling(p, prev, target); r accumulates probes, outcome and hint use.
  uint32_t select_idle_sibling(SchedState& s, const WakeContext& ctx, uint32_t prev,
                               uint32_t target, PlacementResult& r);
  /// find_idlest_cpu() from domain `level` (fork/exec slow path).
  uint32_t find_idlest_cpu(SchedState& s, const WakeContext& ctx, int level, uint32_t cpu,
                           uint32_t prev, uint32_t sd_flag);
  /// idle_cpu()/available_idle_cpu() as this era defines it.
  bool is_idle(const SchedState& s, uint32_t cpu) const;

  const Knobs& knobs() const { return k_; }

 private:
  uint32_t llc_search(SchedState& s, const WakeContext& ctx, uint32_t prev, uint32_t target,
                      PlacementResult& r);
  bool test_idle_cores(SchedState& s, uint32_t target, PlacementResult& r) const;
  void clear_idle_cores(SchedState& s, uint32_t target) const;
  // Variant A (4.17-5.11).
  uint32_t select_idle_core_417(SchedState& s, TaskId p, uint32_t target, PlacementResult& r);
  uint32_t select_idle_cpu_417(SchedState& s, const WakeContext& ctx, uint32_t target,
                               PlacementResult& r);
  uint32_t select_idle_smt(SchedState& s, TaskId p, uint32_t target, const CpuMask& llc,
                           PlacementResult& r) const;
  // Variant B/C (5.12+).
  uint32_t select_idle_core_512(const SchedState& s, uint32_t core, CpuMask& cpus, uint32_t& idle_cpu,
                                PlacementResult& r) const;
  /// One pass of the 5.12+ select_idle_cpu() loop over `cpus`, wrapping from target + 1: with
  /// has_idle_core each core is probed whole (select_idle_core, not budgeted) and the first wholly
  /// idle core ends the pass and is returned; otherwise each CPU costs one unit of `nr` and the
  /// first idle CPU ends the pass. `idle_cpu` receives that idle CPU, or the core scan's idle
  /// sibling fallback. `exhausted` is set when nr ran out (the kernel then returns "none" without
  /// touching the hint or the cost).
  uint32_t scan_llc_512(const SchedState& s, CpuMask& cpus, uint32_t target, bool has_idle_core,
                        int64_t& nr, uint32_t& idle_cpu, bool& exhausted, PlacementResult& r) const;
  uint32_t select_idle_cpu_512(SchedState& s, const WakeContext& ctx, bool has_idle_core,
                               uint32_t target, PlacementResult& r);
  uint32_t select_idle_cpu_612(SchedState& s, const WakeContext& ctx, bool has_idle_core,
                               uint32_t target, PlacementResult& r);
  // 2018 fold.
  uint32_t select_idle_cpu_fold(SchedState& s, const WakeContext& ctx, uint32_t target,
                                PlacementResult& r);
  int64_t fold_budget(SchedState& s, uint32_t this_cpu) const;
  // Asymmetric capacity.
  uint32_t select_idle_capacity(const SchedState& s, TaskId p, uint32_t target, uint32_t task_util,
                                PlacementResult& r) const;
  // Baselines.
  uint32_t baseline_search(SchedState& s, const WakeContext& ctx, uint32_t target, PlacementResult& r);
  // Slow path pieces.
  int find_idlest_group_55(const SchedState& s, TaskId p, int level, uint32_t this_cpu) const;
  int find_idlest_group_417(const SchedState& s, TaskId p, int level, uint32_t this_cpu,
                            uint32_t sd_flag) const;
  uint32_t find_idlest_group_cpu(const SchedState& s, TaskId p, const CpuMask& group,
                                 uint32_t this_cpu) const;

  LlcSearch search_;
  Era era_;
  Knobs k_;
  uint64_t rng_calls_ = 0;  ///< random-idle: part of the seed, so two picks at one instant differ
};

/// Module metadata (name, summary, flags with defaults) and factories, in registration order.
struct PlacementModuleDef {
  std::string name, summary;
  LlcSearch search;
  Era era;
  std::vector<FeatureDoc> features;
};
const std::vector<PlacementModuleDef>& placement_module_defs();

}  // namespace schedsim::placement
