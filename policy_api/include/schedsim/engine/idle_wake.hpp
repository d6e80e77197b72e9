#pragma once
/// The idle-wake cost model: how long a wakeup takes to reach a task placed on an idle CPU, as a
/// function of how long that CPU had been idle. A named mechanism of the cost model, chosen with
/// `--cost idle_wake=MODE` (or "idle_wake" in a cost file); docs/fidelity.md ("Idle-wake cost
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
#include <string>
#include <vector>

#include "schedsim/base/time.hpp"

namespace schedsim {

struct CostModel;

enum class IdleWakeMode : uint8_t { kConstant, kVmHaltPoll };

/// "constant", "vm-halt-poll".
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
