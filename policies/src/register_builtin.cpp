#include "schedsim/policies/registry.hpp"

namespace schedsim {

void register_builtin_policies(PolicyRegistry& reg) {
  register_placement_modules(reg);
  register_idle_cores_modules(reg);
  register_util_modules(reg);
  register_queue_modules(reg);
  register_balance_modules(reg);
}

const PolicyRegistry& builtin_registry() {
  static const PolicyRegistry reg = [] {
    PolicyRegistry r;
    register_builtin_policies(r);
    return r;
  }();
  return reg;
}

}  // namespace schedsim
