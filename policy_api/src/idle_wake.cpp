// The idle-wake cost model (policy_api/include/schedsim/engine/idle_wake.hpp has the formulas).
//
// Why it exists: on the 16-vCPU KVM guest whose traces are in tests/data/traces/xeon-vm-16cpu/,
// a remote wake to an idle CPU takes 4-5 us from the waking to the enqueue when the target had
// been idle < 50 us, 8-10 us at 50-200 us and 10-19 us beyond (docs/model.md, "Wake-to-run
// latency by target state"); a constant cannot produce that. The step is where KVM's default
// halt-polling window (halt_poll_ns = 200 us on x86) ends: a wake inside it resumes a vCPU
// that is still polling in the host, after it the host scheduler must first wake the vCPU
// thread. Every such wake went through an IPI (the sched_wakeup lines on the target carry the
// hard-irq flag), so the IPI is charged on top as before.
#include "schedsim/engine/idle_wake.hpp"

#include <algorithm>
#include <iterator>

#include "schedsim/base/int128.hpp"
#include "schedsim/engine/cost_model.hpp"

namespace schedsim {

namespace {
struct ModeName {
  IdleWakeMode mode;
  const char* name;
};
constexpr ModeName kModes[] = {
    {IdleWakeMode::kConstant, "constant"},
    {IdleWakeMode::kVmHaltPoll, "vm-halt-poll"},
    {IdleWakeMode::kTable, "table"},
};
}  // namespace

const char* idle_wake_mode_name(IdleWakeMode m) {
  for (const auto& e : kModes)
    if (e.mode == m) return e.name;
  return "?";
}

std::vector<std::string> idle_wake_mode_names() {
  std::vector<std::string> v;
  for (const auto& e : kModes) v.emplace_back(e.name);
  return v;
}

bool parse_idle_wake_mode(const std::string& text, IdleWakeMode& out) {
  for (const auto& e : kModes)
    if (text == e.name) {
      out = e.mode;
      return true;
    }
  return false;
}

Duration idle_table_lookup(const IdleCostTable& t, Duration idle_for) {
  // The steps are sorted by idle_from: the answer is the step before the first one that starts
  // after idle_for.
  auto after = std::upper_bound(t.begin(), t.end(), idle_for,
                                [](Duration d, const IdleCostStep& s) { return d < s.idle_from; });
  return after == t.begin() ? Duration::zero() : std::prev(after)->cost;
}

std::string format_idle_cost_table(const IdleCostTable& t) {
  if (t.empty()) return "-";
  std::string out;
  for (const auto& s : t)
    out += (out.empty() ? "" : ",") + std::to_string(s.idle_from.count()) + ":" + std::to_string(s.cost.count());
  return out;
}

Duration idle_wake_cost(const CostModel& c, Duration idle_for, bool timer_local) {
  switch (c.idle_wake) {
    case IdleWakeMode::kConstant:
      return c.idle_exit;
    case IdleWakeMode::kVmHaltPoll: {
      if (timer_local) return c.timer_wake_local;
      const Duration lo = c.halt_poll_min, hi = c.halt_poll_window;
      if (idle_for <= lo) return c.idle_exit_polled;
      if (idle_for >= hi || hi <= lo) return c.idle_exit_halted;
      // Linear ramp, in 128 bits: the product of two durations can exceed 2^63.
      const Int128 span = (hi - lo).count(), into = (idle_for - lo).count();
      const Int128 a = c.idle_exit_polled.count(), b = c.idle_exit_halted.count();
      return Duration::ns(static_cast<int64_t>(a + (b - a) * into / span));
    }
    case IdleWakeMode::kTable:
      if (timer_local) return c.timer_wake_table.empty() ? c.timer_wake_local : idle_table_lookup(c.timer_wake_table, idle_for);
      return idle_table_lookup(c.idle_exit_table, idle_for);
  }
  return c.idle_exit;
}

}  // namespace schedsim
