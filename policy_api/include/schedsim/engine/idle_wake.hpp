#pragma once
/// The idle-wake cost model: how long a wakeup takes to reach a task placed on an idle CPU, as a
/// function of how long that CPU had been idle. A named mechanism of the cost model, chosen with
/// `--cost idle_wake=MODE` (or "idle_wake" in a cost file); docs/model.md ("Idle-wake cost
/// model") gives the measurements and sources.
///
///   constant      ipi + idle_exit whenever the target is idle, whatever its idleness and
///                 whoever wakes (the model before this mechanism existed; the default).
///   vm-halt-poll  a KVM guest whose idle is HLT: the host polls for a wakeup for up to
///                 halt_poll_ns before it deschedules the vCPU thread (KVM's halt polling,
///                 Documentation/virt/kvm/halt-polling.rst, x86 default window 200 us).
///                 A wake after `d` of idleness costs, after the IPI:
///                   d <= halt_poll_min                idle_exit_polled
///                   d >= halt_poll_window             idle_exit_halted
///                   in between                        linear from polled to halted
///                 (the per-vCPU adaptive window blurs the step into that ramp). A timer wake of
///                 a task on its own idle CPU pays its idle exit before the waking (the CPU must
///                 leave idle to take the timer interrupt); after the waking it costs
///                 timer_wake_local (interrupt exit and switch from idle), with no IPI.
///   table         the exit cost after the IPI is a step function of `d` measured on the machine
///                 (`trace info --idle-wake-costs` writes it): idle_exit_table's step with the
///                 largest idle_from <= d. A timer wake on its own idle CPU costs
///                 timer_wake_table's step the same way, or timer_wake_local when that table is
///                 empty. Steps, not a ramp: the 16-vCPU guest's exit cost is flat to ~150 us of
///                 idle and then steps up (docs/model.md "fork-2000 hold-out"); a table
///                 measured by idle class carries whatever shape the machine has.
#include <cstddef>
#include <string>
#include <vector>

#include "schedsim/base/time.hpp"

namespace schedsim {

struct CostModel;

enum class IdleWakeMode : uint8_t { kConstant, kVmHaltPoll, kTable };

/// One step of an idle-duration cost table: a target idle for at least `idle_from` (and less
/// than the next step's idle_from) costs `cost` after the IPI.
struct IdleCostStep {
  Duration idle_from;
  Duration cost;
  bool operator==(const IdleCostStep&) const = default;
};
/// Steps in strictly increasing idle_from, the first at 0, at most kMaxIdleCostSteps, every cost
/// in 0..kMaxCost (CostModel::set and load_json check this; an empty table = not set).
using IdleCostTable = std::vector<IdleCostStep>;
inline constexpr size_t kMaxIdleCostSteps = 32;

/// The cost of `t`'s last step whose idle_from <= idle_for; zero for an empty table.
Duration idle_table_lookup(const IdleCostTable& t, Duration idle_for);
/// "0:3400,150000:13400" (ns), the form `--cost NAME=...` accepts and `--cost list` prints; "-"
/// for an empty table.
std::string format_idle_cost_table(const IdleCostTable& t);

/// "constant", "vm-halt-poll", "table".
const char* idle_wake_mode_name(IdleWakeMode m);
/// Every mode name, in a fixed order.
std::vector<std::string> idle_wake_mode_names();
/// False if `text` names no mode.
bool parse_idle_wake_mode(const std::string& text, IdleWakeMode& out);

/// The wake delay's part that belongs to the target being idle, for a target idle for
/// `idle_for`: everything after the IPI (constant: idle_exit). `timer_local` = a timer wakeup
/// placed on the CPU whose interrupt ran it (its idle exit happened before the waking).
Duration idle_wake_cost(const CostModel& c, Duration idle_for, bool timer_local);

}  // namespace schedsim
