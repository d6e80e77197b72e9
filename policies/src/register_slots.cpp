// The idle-cores, util, queue and balance slots' module lists: each folder's modules.def names,
// one line per module, the function (in the module's own file) that returns its ModuleDef, and
// the modules are registered in that order. The placement slot's list is placement/modules.def
// (placement/register.cpp: a PlacementModuleDef says more).
#include <vector>

#include "features.hpp"
#include "schedsim/policies/registry.hpp"

namespace schedsim {

#define SCHEDSIM_IDLE_CORES_MODULE(fn) ModuleDef<IdleCoresPolicy> fn();
#include "idle_cores/modules.def"
#undef SCHEDSIM_IDLE_CORES_MODULE
#define SCHEDSIM_UTIL_MODULE(fn) ModuleDef<UtilPolicy> fn();
#include "util/modules.def"
#undef SCHEDSIM_UTIL_MODULE
#define SCHEDSIM_QUEUE_MODULE(fn) ModuleDef<QueuePolicy> fn();
#include "queue/modules.def"
#undef SCHEDSIM_QUEUE_MODULE
#define SCHEDSIM_BALANCE_MODULE(fn) ModuleDef<BalancePolicy> fn();
#include "balance/modules.def"
#undef SCHEDSIM_BALANCE_MODULE

namespace {

template <class Policy, class Factory>
void add_each(PolicyRegistry& reg, const std::vector<ModuleDef<Policy>>& defs,
              void (PolicyRegistry::*add)(ModuleInfo, Factory)) {
  for (const auto& d : defs) (reg.*add)(d.info, d.make);
}

}  // namespace

void register_idle_cores_modules(PolicyRegistry& reg) {
  add_each<IdleCoresPolicy>(reg,
                {
#define SCHEDSIM_IDLE_CORES_MODULE(fn) fn(),
#include "idle_cores/modules.def"
#undef SCHEDSIM_IDLE_CORES_MODULE
                },
                &PolicyRegistry::add_idle_cores);
}

void register_util_modules(PolicyRegistry& reg) {
  add_each<UtilPolicy>(reg,
                {
#define SCHEDSIM_UTIL_MODULE(fn) fn(),
#include "util/modules.def"
#undef SCHEDSIM_UTIL_MODULE
                },
                &PolicyRegistry::add_util);
}

void register_queue_modules(PolicyRegistry& reg) {
  add_each<QueuePolicy>(reg,
                {
#define SCHEDSIM_QUEUE_MODULE(fn) fn(),
#include "queue/modules.def"
#undef SCHEDSIM_QUEUE_MODULE
                },
                &PolicyRegistry::add_queue);
}

void register_balance_modules(PolicyRegistry& reg) {
  add_each<BalancePolicy>(reg,
                {
#define SCHEDSIM_BALANCE_MODULE(fn) fn(),
#include "balance/modules.def"
#undef SCHEDSIM_BALANCE_MODULE
                },
                &PolicyRegistry::add_balance);
}

}  // namespace schedsim
