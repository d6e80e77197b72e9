// The placement slot's module list: each module is one LLC search on one era's wake path, with
// the sched_feat flags it reads and their defaults for that module (kernel-model.md §5).
#include <map>
#include <memory>

#include "schedsim/base/assert.hpp"
#include "schedsim/policies/registry.hpp"
#include "schedsim/policies/sis.hpp"

namespace schedsim {
namespace placement {
namespace {

/// The one-line doc of every placement flag, from features.def.
const std::string& feature_doc(const std::string& name) {
  static const std::map<std::string, std::string> docs = {
#define SCHEDSIM_FEAT(NAME, DOC) {#NAME, DOC},
#include "features.def"
#undef SCHEDSIM_FEAT
  };
  auto it = docs.find(name);
  SCHEDSIM_ASSERT(it != docs.end(), "placement flag {} missing from features.def", name);
  return it->second;
}

std::vector<FeatureDoc> flags(std::initializer_list<std::pair<const char*, bool>> list) {
  std::vector<FeatureDoc> out;
  for (const auto& [name, on] : list) out.push_back({name, on, feature_doc(name)});
  // wake_affine's parts are read by every module that runs the kernel wake path.
  for (const char* wa : {"WA_IDLE", "WA_WEIGHT", "WA_BIAS"}) out.push_back({wa, true, feature_doc(wa)});
  return out;
}

}  // namespace

const std::vector<PlacementModuleDef>& placement_module_defs() {
  static const std::vector<PlacementModuleDef> defs = {
      {"sis-4.17",
       "4.17: select_idle_core, select_idle_cpu (SIS_PROP, avg_idle/512, min 4), select_idle_smt",
       LlcSearch::kSeparate, era_4_17(), flags({{"SIS_PROP", true}, {"SIS_AVG_CPU", false}})},
      {"sis-5.11",
       "5.11: separate scans as 4.17, plus kthread stacking, prev-idle affine, asym capacity",
       LlcSearch::kSeparate, era_5_11(), flags({{"SIS_PROP", true}, {"SIS_AVG_CPU", false}})},
      {"sis-fold-2018",
       "2018 RFC SIS_FOLD: one folded core-wise pass, aged (SIS_AGE) cost-debited (SIS_ONCE) budget",
       LlcSearch::kFold2018, era_4_17(),
       flags({{"SIS_PROP", true}, {"SIS_FOLD", true}, {"SIS_AGE", true}, {"SIS_ONCE", true}})},
      {"sis-fold-opt",
       "\"Optimize SIS_FOLD\": fold only when the idle-core hint is set, else per-CPU; miss clears it",
       LlcSearch::kFoldOpt, era_4_17(),
       flags({{"SIS_PROP", true},
              {"SIS_FOLD", true},
              {"SIS_AGE", true},
              {"SIS_ONCE", true},
              {"SIS_FOLD_ALWAYS", false}})},
      {"sis-5.12",
       "5.12-6.6: select_idle_smt(prev) + merged core/CPU scan, SIS_PROP (aged) and/or SIS_UTIL",
       LlcSearch::kMerged, era_5_15(), flags({{"SIS_PROP", false}, {"SIS_UTIL", true}})},
      {"sis-util", "6.7+: merged scan limited by SIS_UTIL only, cluster aware",
       LlcSearch::kUtil, era_6_12(), flags({{"SIS_UTIL", true}})},
      {"prev", "baseline: always the previous CPU (no search, no slow path)", LlcSearch::kPrev,
       era_6_12(), {}},
      {"first-idle", "baseline: the lowest-numbered idle CPU of the target's LLC, else target",
       LlcSearch::kFirstIdle, era_6_12(), flags({})},
      {"full-scan", "baseline: unlimited LLC scan: first wholly idle core, else first idle CPU",
       LlcSearch::kFullScan, era_6_12(), flags({})},
      {"random-idle", "baseline: a uniformly random idle CPU of the LLC (deterministic seed)",
       LlcSearch::kRandomIdle, era_6_12(), flags({})},
  };
  return defs;
}

}  // namespace placement

void register_placement_modules(PolicyRegistry& reg) {
  for (const auto& d : placement::placement_module_defs()) {
    ModuleInfo info;
    info.name = d.name;
    info.summary = d.summary;
    info.features = d.features;
    const placement::LlcSearch search = d.search;
    const placement::Era era = d.era;
    reg.add_placement(std::move(info), [search, era](const FeatureSet& f) -> std::unique_ptr<PlacementPolicy> {
      return std::make_unique<placement::KernelPlacement>(search, era, f);
    });
  }
}

}  // namespace schedsim
