#pragma once
// Scheduler tunables shared by the CFS and EEVDF queue models (docs/sources.md, Units and constants).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>

#include "schedsim/base/int128.hpp"
#include "schedsim/base/time.hpp"

namespace schedsim::queue {

/// sysctl_sched_tunable_scaling = LOG: factor = 1 + ilog2(min(nr_cpus, 8)) (update_sysctl()).
inline int64_t tunable_factor(uint32_t nr_cpus) {
  uint32_t n = std::min<uint32_t>(std::max<uint32_t>(nr_cpus, 1), 8);
  return 1 + static_cast<int64_t>(std::bit_width(n) - 1);
}

/// calc_delta_fair(): d x NICE_0 / w, in table units (NICE_0 = 1024).
inline int64_t calc_delta_fair(int64_t d, uint32_t weight) {
  if (weight == 1024) return d;
  Int128 v = static_cast<Int128>(d) * 1024 / weight;
  return static_cast<int64_t>(v);
}

/// update_min_vruntime()'s candidate: the smaller of curr's vruntime and the leftmost queued one,
/// whichever exist; nullopt when the queue is empty (min_vruntime then stays where it is).
inline std::optional<int64_t> min_vruntime_candidate(const int64_t* curr, const int64_t* leftmost) {
  if (curr && leftmost) return std::min(*curr, *leftmost);
  if (curr) return *curr;
  if (leftmost) return *leftmost;
  return std::nullopt;
}

}  // namespace schedsim::queue
