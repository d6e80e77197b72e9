#pragma once
// Wraps a placement module so that each decision is logged at trace level ("policy" logger).
#include <memory>
#include <string>

#include "schedsim/engine/policy.hpp"

namespace schedsim::placement {

/// `p` itself unless the "policy" logger is at trace level (`--log policy=trace`), then a wrapper
/// that logs each select_task_rq() decision of module `name` and forwards everything else.
std::unique_ptr<PlacementPolicy> traced_if_logging(std::unique_ptr<PlacementPolicy> p, const std::string& name);

}  // namespace schedsim::placement
