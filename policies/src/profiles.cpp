// Kernel profiles: every slot and the placement/util sched_feat flags at one kernel version's
// defaults (kernel-model.md §5 table). Explicit --feature / slot options override a profile.
//
// Only the flags of the placement and util slots are listed here; the queue module's own
// defaults (GENTLE_FAIR_SLEEPERS, PLACE_LAG, ...) follow the module chosen (cfs <= 6.1, eevdf
// >= 6.6). A flag a version lacks is set off when the chosen module would otherwise read it
// (UTIL_EST_FASTUP in 4.17).
#include <string>
#include <vector>

#include "schedsim/base/error.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace {

std::map<std::string, std::string> slots(const std::string& placement, const std::string& queue) {
  return {{"placement", placement},
          {"idle-cores", "kernel"},
          {"util", "pelt-util-est"},
          {"queue", queue},
          {"balance", "kernel"}};
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
       slots("sis-5.12", "eevdf"),
       {{"SIS_PROP", false},
        {"SIS_UTIL", true},
        {"WA_IDLE", true},
        {"WA_WEIGHT", true},
        {"WA_BIAS", true},
        {"UTIL_EST", true},
        {"UTIL_EST_FASTUP", true}}},
      {"6.12", "SIS_UTIL only (SIS_PROP removed), cluster aware, EEVDF",
       slots("sis-util", "eevdf"),
       {{"SIS_UTIL", true},
        {"WA_IDLE", true},
        {"WA_WEIGHT", true},
        {"WA_BIAS", true},
        {"UTIL_EST", true},
        // The flag is gone in 6.12 but its behaviour became unconditional.
        {"UTIL_EST_FASTUP", true}}},
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

std::map<std::string, std::string> default_modules() { return kernel_profile("6.12").modules; }

}  // namespace schedsim
