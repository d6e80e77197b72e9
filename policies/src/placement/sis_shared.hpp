#pragma once
// The kernel pieces several placement variants share (docs/sources.md, LLC search variants), so that no variant
// file repeats them: CPU walks, the capacity fit, the wake_avg_idle aging, the 4.17 core and SMT
// scans, the 5.12+ scan loop, the SIS_UTIL budget, the fold pass of the 2018 RFC and its
// optimized form, and the helper that lists a module's flags. Internal to policies/.
#include <bit>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "features.hpp"
#include "schedsim/policies/sis.hpp"

namespace schedsim::placement {

/// for_each_cpu_wrap(): set CPUs >= start, then those < start. `m` may shrink while walking;
/// removed CPUs are skipped because the walk re-reads the mask. f returns false to stop.
/// A word scan: countr_zero finds each next CPU, and the current word is re-read after every
/// call of f (CPUs above the one just visited), so a CPU f removed is never visited.
template <class F>
void for_each_cpu_wrap(const CpuMask& m, uint32_t start, F&& f) {
  // Visits the set CPUs of [from, limit) in order; false when f stopped the walk.
  auto walk = [&](uint32_t from, uint32_t limit) {
    for (uint32_t w = from >> 6; w < m.used_words() && (w << 6) < limit; ++w) {
      uint64_t bits = m.word(w);
      if (w == (from >> 6)) bits &= ~uint64_t{0} << (from & 63);
      while (bits) {
        const uint32_t bit = static_cast<uint32_t>(std::countr_zero(bits));
        const uint32_t c = (w << 6) + bit;
        if (c >= limit) return true;
        if (!f(c)) return false;
        bits = bit == 63 ? 0 : m.word(w) & (~uint64_t{1} << bit);
      }
    }
    return true;
  };
  if (walk(start, CpuMask::kMaxCpus)) walk(0, start);
}

/// fits_capacity(): u < 80% of cap, i.e. u * 1280 < cap * 1024 (util_fits_cpu without uclamp).
inline bool fits_capacity(uint64_t util, uint64_t cap) { return util * 1280 < cap * 1024; }

/// The simulated time of `cpu_probes` plain and `core_probes` core-wise probes (the default cost
/// model when the state has none).
Duration probe_time(const SchedState& s, uint32_t cpu_probes, uint32_t core_probes);

/// SIS_UTIL's depth for a scan of target's LLC: nr_idle_scan + 1 (1 = skip the scan).
inline int64_t sis_util_budget(const SchedState& s, uint32_t target) {
  return static_cast<int64_t>(s.llc_of(CpuId(target)).nr_idle_scan) + 1;
}

/// 4.17-5.11 select_idle_core(): with the hint set, every core of target's LLC probed whole
/// (no early exit inside a core) until a wholly idle one; an exhaustive miss clears the hint.
uint32_t select_idle_core_417(SearchEnv& e, uint32_t target);
/// select_idle_smt(): an idle SMT sibling of `target` inside `llc` that p may use.
uint32_t select_idle_smt(SearchEnv& e, uint32_t target, const CpuMask& llc);

/// 5.12+ select_idle_core() for one core: probes its siblings (core-wise) and returns the core
/// when all are idle; otherwise removes them from `cpus` and leaves the first idle sibling in
/// `idle_cpu` as the fallback.
uint32_t select_idle_core_512(SearchEnv& e, uint32_t core, CpuMask& cpus, uint32_t& idle_cpu);
/// One pass of the 5.12+ select_idle_cpu() loop over `cpus`, wrapping from target + 1: with
/// has_idle_core each core is probed whole (select_idle_core, not budgeted) and the first wholly
/// idle core ends the pass and is returned; otherwise each CPU costs one unit of `nr` and the
/// first idle CPU ends the pass. `idle_cpu` receives that idle CPU, or the core scan's idle
/// sibling fallback. `exhausted` is set when nr ran out (the kernel then returns "none" without
/// touching the hint or the cost).
uint32_t scan_llc_512(SearchEnv& e, CpuMask& cpus, uint32_t target, bool has_idle_core, int64_t& nr, uint32_t& idle_cpu,
                      bool& exhausted);
/// The start select_idle_sibling() has before select_idle_cpu() from 5.12 on: with SMT, read the
/// hint; without an idle core, try prev's SMT siblings when prev shares target's LLC. Returns
/// that sibling (outcome set) or kNoCpu, and the hint in `has_idle_core`.
uint32_t merged_prelude(SearchEnv& e, uint32_t prev, uint32_t target, bool& has_idle_core);

/// A 5.12+ LLC search: merged_prelude(), then `SelectIdleCpu(e, has_idle_core, target)`, that
/// variant's select_idle_cpu().
template <uint32_t (*SelectIdleCpu)(SearchEnv&, bool, uint32_t)>
class MergedSearch final : public LlcSearch {
 public:
  uint32_t search(SearchEnv& e, uint32_t prev, uint32_t target) override {
    bool has_idle_core = false;
    uint32_t i = merged_prelude(e, prev, target, has_idle_core);
    if (i != kNoCpu) return i;
    return SelectIdleCpu(e, has_idle_core, target);
  }
};

/// The 2018 RFC's search (sis-fold-2018) and "Optimize SIS_FOLD" (sis-fold-opt): one folded
/// pass with SIS_FOLD, the separate 4.17 scans with the RFC's budget under NO_SIS_FOLD.
/// `optimized`: fold core-wise only when the hint says so (or SIS_FOLD_ALWAYS), and clear the
/// hint after a core-wise miss.
std::unique_ptr<LlcSearch> make_fold_search(bool optimized);
/// 4.17-5.11: select_idle_core, select_idle_cpu (SIS_PROP / SIS_AVG_CPU), select_idle_smt.
std::unique_ptr<LlcSearch> make_separate_scans();

/// A placement module that runs the kernel wake path in `era`. Its flag list is `own` (the
/// features.def default, or this module's own) followed by the wake_affine flags every kernel wake
/// path reads, and WA_IDLE_PREV where the era has wake_affine_idle()'s idle-prev step (5.11+,
/// Era::wa_idle_prev), so the era is named once.
PlacementModuleDef module_def(std::string name, std::string summary, const Era& era,
                              std::initializer_list<FlagDefault> own,
                              std::function<std::unique_ptr<LlcSearch>()> make_search);

/// An LlcSearch factory for a search type with a default constructor.
template <class Search>
std::unique_ptr<LlcSearch> make_search() {
  return std::make_unique<Search>();
}

}  // namespace schedsim::placement
