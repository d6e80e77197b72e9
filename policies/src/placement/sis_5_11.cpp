// sis-5.11: the 4.17 LLC search (sis_4_17.cpp) on the 5.11 wake path: per-CPU kthread stacking,
// wake_affine_idle's prev-idle step, asymmetric capacity, and select_idle_cpu() intersecting
// the affinity before the SIS_PROP budget is spent (docs/sources.md, Wake path, LLC search variants).
#include "placement/sis_shared.hpp"

namespace schedsim::placement {

PlacementModuleDef sis_5_11() {
  return module_def("sis-5.11", "5.11: separate scans as 4.17, plus kthread stacking, prev-idle affine, asym capacity",
                    era_5_11(), {Feature::SIS_PROP, Feature::SIS_AVG_CPU}, make_separate_scans);
}

}  // namespace schedsim::placement
