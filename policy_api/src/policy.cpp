#include "schedsim/engine/policy.hpp"

namespace schedsim {

const char* to_string(PlaceOutcome o) {
  switch (o) {
    case PlaceOutcome::kTarget: return "target";
    case PlaceOutcome::kPrev: return "prev";
    case PlaceOutcome::kRecent: return "recent";
    case PlaceOutcome::kKthread: return "kthread";
    case PlaceOutcome::kIdleCore: return "idle_core";
    case PlaceOutcome::kIdleCpu: return "idle_cpu";
    case PlaceOutcome::kIdleSibling: return "idle_sibling";
    case PlaceOutcome::kCapacity: return "capacity";
    case PlaceOutcome::kFallback: return "fallback";
    case PlaceOutcome::kDelayed: return "delayed";
    case PlaceOutcome::kSlowPath: return "slow_path";
    case PlaceOutcome::kPinned: return "pinned";
    case PlaceOutcome::kCount: break;
  }
  return "?";
}

}  // namespace schedsim
