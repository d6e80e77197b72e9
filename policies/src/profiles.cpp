// Kernel profiles: every slot and the placement/util sched_feat flags at one kernel version's
// defaults (docs/sources.md, sched_feat flags table). Explicit --feature / slot options override a profile.
//
// Only the flags of the placement and util slots are listed here; the queue module's own
// defaults (GENTLE_FAIR_SLEEPERS, PLACE_LAG, ...) follow the module chosen (cfs <= 6.1, eevdf
// >= 6.6). A flag a version lacks is set off when the chosen module would otherwise read it
// (UTIL_EST_FASTUP in 4.17).
#include <cstdio>
#include <string>
#include <vector>

#include "schedsim/base/error.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace {

std::map<std::string, std::string> slots(const std::string& placement, const std::string& queue,
                                         const std::string& balance = "kernel") {
  return {{"placement", placement},
          {"idle-cores", "kernel"},
          {"util", "pelt-util-est"},
          {"queue", queue},
          {"balance", balance}};
}

// The placement/util/queue flags of 6.12, unchanged up to 6.18.
std::map<std::string, bool> flags_6_12() {
  return {{"SIS_UTIL", true},
          {"WA_IDLE", true},
          {"WA_WEIGHT", true},
          {"WA_BIAS", true},
          {"UTIL_EST", true},
          // The flag is gone in 6.12 but its behaviour became unconditional.
          {"UTIL_EST_FASTUP", true},
          // EEVDF's delayed dequeue, on by default since v6.12 (152e11f6df29, 54a58a787791).
          {"DELAY_DEQUEUE", true},
          {"DELAY_ZERO", true},
          // Shorter custom slices may wake-up preempt, on by default since v6.12 (85e511df3cec).
          {"PREEMPT_SHORT", true}};
}

// 6.12's flags plus the balance flags of `kernel-6.14` (balance/features.def): the 6.14 runnable
// accounting always, then the newidle rule of the version.
std::map<std::string, bool> flags_6_14(bool ni_bump, bool ni_random) {
  auto f = flags_6_12();
  f["LB_RUNNABLE"] = true;
  f["NI_BUMP"] = ni_bump;
  f["NI_RANDOM"] = ni_random;
  return f;
}

}  // namespace

const std::vector<KernelProfile>& kernel_profiles() {
  static const std::vector<KernelProfile> profiles = {
      {"4.17", "separate core/CPU/SMT scans, SIS_PROP with avg_idle/512, CFS",
       slots("sis-4.17", "cfs"),
       {{"SIS_PROP", true},
        {"SIS_AVG_CPU", false},
        {"WA_IDLE", true},
        {"WA_WEIGHT", true},
        {"WA_BIAS", true},
        {"UTIL_EST", true},
        {"UTIL_EST_FASTUP", false}}},
      {"5.11", "separate scans plus kthread stacking and prev-idle affine, SIS_PROP, CFS",
       slots("sis-5.11", "cfs"),
       {{"SIS_PROP", true},
        {"SIS_AVG_CPU", false},
        {"WA_IDLE", true},
        {"WA_WEIGHT", true},
        {"WA_BIAS", true},
        {"UTIL_EST", true},
        {"UTIL_EST_FASTUP", true}}},
      {"5.15", "merged scan, SIS_UTIL (5.15.y stable backport; SIS_PROP off), CFS",
       slots("sis-5.12", "cfs"),
       {{"SIS_PROP", false},
        {"SIS_UTIL", true},
        {"WA_IDLE", true},
        {"WA_WEIGHT", true},
        {"WA_BIAS", true},
        {"UTIL_EST", true},
        {"UTIL_EST_FASTUP", true}}},
      {"6.1", "merged scan with SIS_UTIL, CFS",
       slots("sis-5.12", "cfs"),
       {{"SIS_PROP", false},
        {"SIS_UTIL", true},
        {"WA_IDLE", true},
        {"WA_WEIGHT", true},
        {"WA_BIAS", true},
        {"UTIL_EST", true},
        {"UTIL_EST_FASTUP", true}}},
      {"6.6", "merged scan with SIS_UTIL, first EEVDF release",
       slots("sis-5.12", "eevdf-6.6"),
       {{"DELAY_DEQUEUE", false},  // from 6.12
        {"DELAY_ZERO", false},
        {"PREEMPT_SHORT", false},  // from 6.12
        {"SIS_PROP", false},
        {"SIS_UTIL", true},
        {"WA_IDLE", true},
        {"WA_WEIGHT", true},
        {"WA_BIAS", true},
        {"UTIL_EST", true},
        {"UTIL_EST_FASTUP", true}}},
      {"6.12", "SIS_UTIL only (SIS_PROP removed), cluster aware, EEVDF with DELAY_DEQUEUE and PREEMPT_SHORT",
       slots("sis-util", "eevdf"),
       flags_6_12()},
      // ---- 6.13-6.18 (docs/kernel-versions.md). Modelled: the 6.14 runnable accounting for
      // balance (LB_RUNNABLE), the 6.15 base slice, the 6.17 slice protection (eevdf-6.17) and
      // newidle cost bump (NI_BUMP), the 6.18.y NI_RANDOM; PREEMPT_SHORT with the 6.17 rule
      // (eevdf-6.17). Not modelled: PREEMPT_LAZY as a profile default (run --preempt lazy).
      {"6.15", "6.12 plus the 6.14 runnable balance accounting and the 0.70 ms base slice (2ae891b82695)",
       slots("sis-util", "eevdf-6.15", "kernel-6.14"),
       flags_6_14(false, false)},
      {"6.17", "6.15 plus the 6.17 slice protection (vprot, resched at its end) and the newidle cost bump on failure (155213a2aed4); also 6.18.0 before the 6.18.y backports",
       slots("sis-util", "eevdf-6.17", "kernel-6.14"),
       flags_6_14(true, false)},
      // 6.18 as the 6.18.y stable kernels recorded here run it (6.18.44): the bump reverted
      // (d206fbad9328) and NI_RANDOM backported (33cf66d88306), Dec 2025-Jan 2026. A 6.18.0-early
      // 6.18.y kernel still has the bump: --kernel 6.17 models it.
      {"6.18", "6.17 rules as in 6.18.y stable: NI_RANDOM proportional newidle balance (33cf66d88306), bump reverted (d206fbad9328); 6.18.0 had the bump (use 6.17)",
       slots("sis-util", "eevdf-6.17", "kernel-6.14"),
       flags_6_14(false, true)},
      // 6.19: the 6.18.y newidle rules, and e837456fdca8's wakeup check (eevdf-6.19) as released:
      // NEXT_BUDDY off again (4f70f106bca1) and the reschedule of an ineligible curr removed
      // (15257cc2f905), both before v6.19.
      {"6.19", "6.18 plus the 6.19 wakeup check (e837456fdca8): fork wakes never preempt; NEXT_BUDDY off as released",
       slots("sis-util", "eevdf-6.19", "kernel-6.14"),
       [] {
         auto f = flags_6_14(false, true);
         f["NEXT_BUDDY"] = false;
         f["RESCHED_INELIGIBLE"] = false;
         return f;
       }()},
  };
  return profiles;
}

const KernelProfile& kernel_profile(const std::string& version) {
  std::vector<std::string> names;
  for (const auto& p : kernel_profiles()) {
    if (p.version == version) return p;
    names.push_back(p.version);
  }
  throw InputError(unknown_choice_message("kernel version", version, names));
}

namespace {
// "6.18.44-fc" -> {6, 18}; false if it does not start with MAJOR.MINOR.
bool major_minor(const std::string& text, int& major, int& minor) {
  return std::sscanf(text.c_str(), "%d.%d", &major, &minor) == 2 && major >= 0 && minor >= 0;
}
}  // namespace

const KernelProfile* newest_profile_not_newer(const std::string& version, bool* parsed) {
  int maj = 0, min = 0;
  const bool ok = major_minor(version, maj, min);
  if (parsed) *parsed = ok;
  if (!ok) return nullptr;
  const KernelProfile* best = nullptr;
  int bmaj = -1, bmin = -1;
  for (const auto& p : kernel_profiles()) {
    int pm = 0, pn = 0;
    if (!major_minor(p.version, pm, pn)) continue;
    bool not_newer = pm < maj || (pm == maj && pn <= min);
    bool later = pm > bmaj || (pm == bmaj && pn > bmin);
    if (not_newer && later) {
      best = &p;
      bmaj = pm;
      bmin = pn;
    }
  }
  return best;
}

const KernelProfile& kernel_profile_for_release(const std::string& release, std::string& note, bool* exact) {
  int maj = 0, min = 0, bmaj = 0, bmin = 0;
  if (!major_minor(release, maj, min))
    throw InputError(SourceLoc{"--kernel host"}, "cannot read a version from the running kernel's release '" + release + "'");
  const KernelProfile* best = newest_profile_not_newer(release);
  if (best) major_minor(best->version, bmaj, bmin);
  if (!best)
    throw InputError(SourceLoc{"--kernel host"}, "the running kernel " + release + " is older than every profile (oldest " +
                                                     kernel_profiles().front().version + ")");
  const bool same = bmaj == maj && bmin == min;
  if (exact) *exact = same;
  note = "--kernel host: running " + release + ", profile " + best->version +
         (same ? "" : " (the newest profile not newer than it)") + ": " + best->summary;
  return *best;
}

std::map<std::string, std::string> default_modules() { return kernel_profile(kDefaultKernel).modules; }

}  // namespace schedsim
