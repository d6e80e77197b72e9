#pragma once
/// The placement slot: select_task_rq_fair() and select_idle_sibling() as the kernel ran them,
/// version by version (docs/sources.md, Wake path, LLC search variants), plus simple baselines. Exposed here so unit tests
/// can pin each piece against the spec on a hand-built SchedState.
///
/// One class, KernelPlacement, models the wake path every kernel variant shares (wake_affine,
/// wake_wide, select_idle_sibling's fast checks, the fork/exec slow path); what differs is the
/// era (which fast checks and wake_affine steps exist) and the LLC search select_idle_sibling
/// ends with, an LlcSearch object. Each variant is one file under policies/src/placement/
/// (sis_4_17.cpp, sis_fold_opt.cpp, ...) holding its search and its PlacementModuleDef, plus one
/// line in policies/src/placement/modules.def. Every probe of a CPU made by a search is counted
/// in the PlacementResult and priced with the cost model; the simulated time is what feeds
/// avg_scan_cost / wake_avg_idle, as the kernel's measured time does.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "schedsim/engine/policy.hpp"
#include "schedsim/policies/features.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/topology/cpu_mask.hpp"

namespace schedsim::placement {

/// The version-dependent parts of the wake path around the LLC search (docs/sources.md, Wake path, LLC search variants).
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

/// The sched_feat flags the placement modules read (placement/features.def), resolved once.
struct Knobs {
  bool sis_prop = false, sis_util = false, sis_avg_cpu = false;
  bool sis_fold = false, sis_age = false, sis_once = false, sis_fold_always = false;
  bool wa_idle = true, wa_weight = true, wa_bias = true;
  bool wa_idle_prev = false;  ///< WA_IDLE_PREV, where the era has the step (Era::wa_idle_prev)
  static Knobs from(const Features& f);
};

/// update_idle_cpu_scan()'s budget (docs/sources.md, LLC search variants): with x = sum_util / W,
/// nr_idle_scan = floor((1024 - min(x^2 pct^2 / (10000 * 1024), 1024)) * W / 1024).
uint32_t sis_util_nr_idle_scan(uint64_t sum_util, uint32_t llc_weight, uint32_t imbalance_pct);
/// SIS_PROP's depth (select_idle_cpu): span_avg = W * avg_idle;
/// nr = span_avg / avg_cost when span_avg > 4 * avg_cost, else 4. avg_cost already includes +1.
uint64_t sis_prop_nr(uint32_t span_weight, int64_t avg_idle_ns, int64_t avg_cost_ns);

/// idle_cpu() as `era` defines it: nothing running or queued, and from 5.8 no wakeup in flight.
inline bool era_idle(const Era& era, const CpuSched& c) {
  return era.idle_checks_ttwu ? c.idle() : !c.curr.valid() && c.nr_running == 0;
}

/// What an LLC search may use from the wake path around it: the state (const), the writes a
/// placement may make (PlacementWrites), the question, the era's idle test, the flags, the
/// idle-core hint (its reads are recorded in the result) and the cost of probes. Built by
/// KernelPlacement for one select_idle_sibling() call.
struct SearchEnv {
  const SchedState& s;
  PlacementWrites& w;
  const WakeContext& ctx;
  const Era& era;
  const Knobs& k;
  PlacementResult& r;

  /// idle_cpu()/available_idle_cpu() as the era defines it: nothing running or queued, and from
  /// 5.8 no wakeup in flight. Inline and non-virtual: the searches call it once per probed CPU.
  bool is_idle(uint32_t cpu) const { return era_idle(era, s.cpus[cpu]); }
  /// test_idle_cores(target), noted in r (hint_consulted, hint_value).
  bool test_idle_cores(uint32_t target);
  /// set_idle_cores(target, 0) after a scan that found no idle core (w.clear_idle_cores).
  void clear_idle_cores(uint32_t target) { w.clear_idle_cores(CpuId(target)); }
  /// The simulated time of `cpu_probes` plain and `core_probes` core-wise probes.
  Duration probe_time(uint32_t cpu_probes, uint32_t core_probes) const;
};

/// The part of select_idle_sibling() that differs between kernel variants (and the baselines
/// that replace more of the wake path). One implementation per file under policies/src/placement/.
class LlcSearch {
 public:
  /// How much of select_task_rq_fair() the search replaces.
  enum class Scope : uint8_t {
    kLlc,      ///< the LLC scan after select_idle_sibling's fast checks (every kernel variant)
    kSibling,  ///< all of select_idle_sibling, fast checks included (first-idle, full-scan, ...)
    kWhole,    ///< all of select_task_rq_fair: no wake_affine, no slow path (prev)
  };
  virtual ~LlcSearch() = default;
  virtual Scope scope() const { return Scope::kLlc; }
  /// Searches for a CPU for env.ctx.p near `target` (`prev` = p's previous CPU). Returns the CPU
  /// and sets env.r.outcome, or returns kNoCpu (kLlc scope only: the wake path then falls back).
  virtual uint32_t search(SearchEnv& env, uint32_t prev, uint32_t target) = 0;
};

/// "No CPU found" from a search.
inline constexpr uint32_t kNoCpu = CpuMask::kMaxCpus;

/// select_task_rq_fair() for one era and one LLC search.
class KernelPlacement final : public PlacementPolicy {
 public:
  KernelPlacement(std::unique_ptr<LlcSearch> search, const Era& era, const Features& features);

  /// With SIS_UTIL, seeds every LLC's nr_idle_scan as one periodic balance of the (still idle)
  /// machine would: a simulated run starts on a machine that has been up, not at boot.
  void attach(const SchedState& s, PlacementWrites& w) override;
  PlacementResult select_task_rq(const SchedState& s, PlacementWrites& w, const WakeContext& ctx) override;
  /// At the LLC level with SIS_UTIL on: refreshes sd_llc_shared.nr_idle_scan from the LLC's
  /// summed cpu_util_cfs (update_idle_cpu_scan, called from update_sd_lb_stats).
  void on_periodic_balance(const SchedState& s, PlacementWrites& w, CpuId cpu, int level) override;

  // The pieces, public for unit tests.

  /// wake_wide(): 1 iff min(flips) >= f and max(flips) >= min * f, f = waking CPU's LLC size.
  static bool wake_wide(const SchedState& s, TaskId waker, TaskId p, uint32_t waker_cpu);
  /// wake_affine() at domain level `level`: WA_IDLE, then WA_WEIGHT; prev when neither decides.
  uint32_t wake_affine(const SchedState& s, const WakeContext& ctx, int level) const;
  /// select_idle_sibling(p, prev, target); r accumulates probes, outcome and hint use.
  uint32_t select_idle_sibling(const SchedState& s, PlacementWrites& w, const WakeContext& ctx, uint32_t prev,
                               uint32_t target, PlacementResult& r);
  /// find_idlest_cpu() from domain `level` (fork/exec slow path).
  uint32_t find_idlest_cpu(const SchedState& s, PlacementWrites& w, const WakeContext& ctx, int level, uint32_t cpu,
                           uint32_t prev, uint32_t sd_flag);
  /// idle_cpu()/available_idle_cpu() as this era defines it.
  bool is_idle(const SchedState& s, uint32_t cpu) const { return era_idle(era_, s.cpus[cpu]); }

  const Knobs& knobs() const { return k_; }

 private:
  // Asymmetric capacity.
  uint32_t select_idle_capacity(const SchedState& s, TaskId p, uint32_t target, uint32_t task_util,
                                PlacementResult& r) const;
  // Slow path pieces.
  int find_idlest_group_55(const SchedState& s, TaskId p, int level, uint32_t this_cpu) const;
  int find_idlest_group_417(const SchedState& s, TaskId p, int level, uint32_t this_cpu,
                            uint32_t sd_flag) const;
  uint32_t find_idlest_group_cpu(const SchedState& s, TaskId p, const CpuMask& group,
                                 uint32_t this_cpu) const;

  std::unique_ptr<LlcSearch> search_;
  Era era_;
  Knobs k_;
};

/// One placement module: name, summary, the era of its wake path, the flags it reads with their
/// defaults, and its LLC search. Each variant file defines one (policies/src/placement/modules.def
/// lists them in registration order).
struct PlacementModuleDef {
  std::string name, summary;
  Era era;
  std::vector<FeatureDoc> features;
  std::function<std::unique_ptr<LlcSearch>()> make_search;

  /// A fresh module with `flags` (already resolved: defaults plus explicit settings).
  std::unique_ptr<KernelPlacement> make(const Features& flags) const;
};
const std::vector<PlacementModuleDef>& placement_module_defs();

}  // namespace schedsim::placement

namespace schedsim {
/// Adds one placement module to `reg` (register_placement_modules() does this for every line of
/// modules.def; a test registers a module of its own the same way).
void register_placement_module(PolicyRegistry& reg, const placement::PlacementModuleDef& d);
}  // namespace schedsim
