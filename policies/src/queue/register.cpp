// The queue slot's module list (modules.def), registered in that order.
#include <vector>

#include "features.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {

#define SCHEDSIM_QUEUE_MODULE(fn) ModuleDef<QueuePolicy> fn();
#include "modules.def"
#undef SCHEDSIM_QUEUE_MODULE

void register_queue_modules(PolicyRegistry& reg) {
  const std::vector<ModuleDef<QueuePolicy>> defs = {
#define SCHEDSIM_QUEUE_MODULE(fn) fn(),
#include "modules.def"
#undef SCHEDSIM_QUEUE_MODULE
  };
  for (const auto& d : defs) reg.add_queue(d.info, d.make);
}

}  // namespace schedsim
