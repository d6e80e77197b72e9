// sis-fold-2018: the 2018 RFC's select_idle_sibling() rework on the 4.17 wake path: one folded
// core-wise pass whenever SMT is present (the idle-core hint is never read), budgeted by the
// aged (SIS_AGE), cost-debited (SIS_ONCE) idle estimate. The pass itself is in fold.cpp.
#include "placement/sis_shared.hpp"

namespace schedsim::placement {

PlacementModuleDef sis_fold_2018() {
  return module_def("sis-fold-2018",
                    "2018 RFC SIS_FOLD: one folded core-wise pass, aged (SIS_AGE) cost-debited (SIS_ONCE) budget",
                    era_4_17(), {Feature::SIS_PROP, Feature::SIS_FOLD, Feature::SIS_AGE, Feature::SIS_ONCE},
                    [] { return make_fold_search(false); });
}

}  // namespace schedsim::placement
