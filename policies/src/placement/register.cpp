// The placement slot's module list: modules.def names one PlacementModuleDef per module (an
// era's wake path, an LLC search, the sched_feat flags it reads with their defaults).
#include <memory>

#include "placement/sis_shared.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {
namespace placement {

#define SCHEDSIM_PLACEMENT_MODULE(fn) PlacementModuleDef fn();
#include "modules.def"
#undef SCHEDSIM_PLACEMENT_MODULE

const std::vector<PlacementModuleDef>& placement_module_defs() {
  static const std::vector<PlacementModuleDef> defs = {
#define SCHEDSIM_PLACEMENT_MODULE(fn) fn(),
#include "modules.def"
#undef SCHEDSIM_PLACEMENT_MODULE
  };
  return defs;
}

std::unique_ptr<KernelPlacement> PlacementModuleDef::make(const Features& flags) const {
  return std::make_unique<KernelPlacement>(make_search(), era, flags);
}

}  // namespace placement

void register_placement_module(PolicyRegistry& reg, const placement::PlacementModuleDef& d) {
  ModuleInfo info;
  info.name = d.name;
  info.summary = d.summary;
  info.features = d.features;
  reg.add_placement(std::move(info), [d](const Features& f) -> std::unique_ptr<PlacementPolicy> { return d.make(f); });
}

void register_placement_modules(PolicyRegistry& reg) {
  for (const auto& d : placement::placement_module_defs()) register_placement_module(reg, d);
}

}  // namespace schedsim
