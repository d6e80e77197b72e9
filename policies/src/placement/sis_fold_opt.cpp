// sis-fold-opt: "Optimize SIS_FOLD", the RFC's follow-up: the folded pass is core-wise only when
// test_idle_cores() says an idle core may exist (or SIS_FOLD_ALWAYS, for SMT>2 machines), else
// per-CPU; a core-wise miss clears the hint at once. The pass itself is in fold.cpp.
#include "placement/sis_shared.hpp"

namespace schedsim::placement {

PlacementModuleDef sis_fold_opt() {
  return module_def(
      "sis-fold-opt", "\"Optimize SIS_FOLD\": fold only when the idle-core hint is set, else per-CPU; miss clears it",
      era_4_17(), {Feature::SIS_PROP, Feature::SIS_FOLD, Feature::SIS_AGE, Feature::SIS_ONCE, Feature::SIS_FOLD_ALWAYS},
      [] { return make_fold_search(true); });
}

}  // namespace schedsim::placement
