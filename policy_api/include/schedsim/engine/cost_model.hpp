#pragma once
/// The cost model: every simulated overhead is a named, documented, overridable parameter with its
/// source (docs/sources.md, "Cost figures"). `--cost name=value` or a JSON file overrides;
/// `--cost list` prints them.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "schedsim/base/time.hpp"
#include "schedsim/engine/idle_wake.hpp"
#include "schedsim/workload/gen_costs.hpp"

namespace schedsim {

/// The largest value any duration cost may take (docs/engine.md cost table): one second, far
/// above any real per-event cost, so that costs summed per event never approach int64.
inline constexpr Duration kMaxCost = Duration::s(1);

/// How a replayed trace's switch and refill costs are counted (`--cost replay_overheads=MODE`).
enum class ReplayOverheads : uint8_t { kRecorded, kCharged, kMigrationDelta };

/// How a replayed trace's wake costs are counted (`--cost replay_wakes=MODE`).
enum class ReplayWakes : uint8_t { kRecorded, kModelled };

struct CostModel {
  Duration context_switch = Duration::ns(1500);     ///< per switch-in of a new task
  Duration ipi_same_package = Duration::ns(600);    ///< remote wakeup to a CPU in the waker's package
  Duration ipi_cross_package = Duration::ns(750);   ///< remote wakeup across packages
  /// A wakeup preemption of another CPU's running task takes effect this long after the
  /// decision (resched_curr() -> smp_send_reschedule(), the target's scheduler_ipi() and
  /// __schedule()); 0 = at once, the behaviour before the parameter (engine.cpp preempt_from()).
  Duration resched_ipi = Duration::ns(0);
  Duration idle_exit = Duration::us(2);             ///< waking an idle CPU out of its idle state
  Duration probe_cpu = Duration::ns(40);            ///< per CPU probed by the plain idle scan
  Duration probe_core_cpu = Duration::ns(120);      ///< per CPU visited by the core-wise scan
  Duration refill_smt = Duration::ns(0);            ///< cache refill after migrating to an SMT sibling
  Duration refill_cluster = Duration::ns(500);      ///< ... within the cluster
  Duration refill_llc = Duration::us(2);            ///< ... within the LLC
  Duration refill_package = Duration::us(10);       ///< ... across LLCs in one package
  Duration refill_numa = Duration::us(15);          ///< ... across NUMA nodes
  /// The wakee's first touch of what its waker wrote (the message, the pipe or socket buffer,
  /// the wait-queue entry), charged at its switch-in when the waker ran on another CPU, by the
  /// distance between the two: cache lines that move between the two CPUs' caches. 0 (the
  /// default) leaves the mechanism out, as before these parameters.
  Duration xfer_smt = Duration::ns(0);
  Duration xfer_cluster = Duration::ns(0);
  Duration xfer_llc = Duration::ns(0);
  Duration xfer_package = Duration::ns(0);
  Duration xfer_numa = Duration::ns(0);
  Duration tick = Duration::ms(4);                  ///< scheduler tick (HZ=250)
  int64_t smt_corun_permille = 650;                 ///< work rate of a thread while a sibling is busy
  // ---- idle-wake cost model (idle_wake.hpp): which mechanism, and its parameters ----
  IdleWakeMode idle_wake = IdleWakeMode::kConstant;  ///< constant: ipi + idle_exit
  bool idle_wake_set = false;                        ///< chosen by --cost or a cost file
  Duration halt_poll_min = Duration::us(50);         ///< vm-halt-poll: idle this short -> polled cost
  Duration halt_poll_window = Duration::us(200);     ///< vm-halt-poll: idle this long -> halted cost
  Duration idle_exit_polled = Duration::ns(3400);    ///< vm-halt-poll: exit while the host still polls
  Duration idle_exit_halted = Duration::ns(13400);   ///< vm-halt-poll: exit after the host descheduled the vCPU
  Duration timer_wake_local = Duration::us(2);       ///< vm-halt-poll: timer wake on its own idle CPU, after the waking
  IdleCostTable idle_exit_table;                     ///< table: exit cost after the IPI by the target's idle time
  IdleCostTable timer_wake_table;                    ///< table: local timer wake by idle time (empty: timer_wake_local)
  // ---- what a replayed trace's recorded on-CPU time already contains ----
  /// `replay_overheads=recorded` (the default): a task replayed from a kernel trace is not
  /// charged context_switch and refill_* again, because `sched_switch` is emitted before the
  /// switch and the recorded interval already holds the recording machine's switch and refill
  /// work (docs/calibrate.md "Switch and refill costs in replays"). `charged`: the former
  /// behaviour, charging them on top. `migration-delta`: like `recorded` for the switch, but the
  /// refill follows the replay's own placement: a simulated migration pays refill_*, and a run
  /// whose recorded segment started on another CPU than the task's previous recorded segment gets
  /// that recorded refill taken off its recorded time (the trace's CPU per run action, Action::body).
  /// Generated and native workloads are always charged.
  ReplayOverheads replay_overheads = ReplayOverheads::kRecorded;
  /// `replay_wakes=recorded` (the default): a replayed waker's recorded time holds the
  /// try_to_wake_up() work of every wake the recording made, whatever the replay does with the
  /// wake. `modelled`: that recorded wake work is taken off the waker's recorded time (the run
  /// after the wake action, or after the channel write/read whose recorded wake a channel replay
  /// replaced; wake_local or wake_remote by the recording's CPUs, Action::reserved), and each
  /// wake the replay performs charges the waker wake_local or wake_remote by the replay's
  /// placement; a banked wake (the wakee was not asleep) charges nothing (docs/model.md "The
  /// waker's wake cost in replays"). Generated and native workloads are never modelled.
  ReplayWakes replay_wakes = ReplayWakes::kRecorded;
  /// Waker CPU time of a try_to_wake_up() whose wakee goes to (recorded: had last run on) the
  /// waker's CPU (replay_wakes=modelled only).
  Duration wake_local = Duration::ns(2500);
  /// ... to another CPU (the remote enqueue or wake-list IPI included).
  Duration wake_remote = Duration::ns(4700);
  // ---- generator per-operation costs (gen_costs.hpp): values that differ from the reference ----
  GenCosts gen_ops;
  /// The machine cost profile applied (cost_profile.hpp), "" = none (the built-in defaults).
  std::string profile;

  /// The model a simulation of `from_trace` input uses: for a replayed trace with
  /// replay_overheads=recorded, context_switch and every refill_* are zero (already recorded); with
  /// migration-delta, context_switch is zero and the refills stay (the engine credits the recorded
  /// ones back); any other input is charged everything (replay_overheads becomes charged) and
  /// has no recorded wakes (replay_wakes becomes recorded: nothing credited, nothing charged).
  CostModel for_input(bool from_trace) const;

  struct Param {
    std::string name, unit, doc, source;
  };
  /// Every parameter with its doc and source, in a fixed order.
  static const std::vector<Param>& params();
  /// True for the idle-duration tables (idle_exit_table, timer_wake_table): get() gives their
  /// text form, not a number.
  static bool is_table(const std::string& name);
  /// Current value of a parameter as text (ns, or permille for the co-run factor).
  std::string get(const std::string& name) const;
  /// Sets "name=value" (durations accept ns/us/ms/s suffixes). Throws InputError naming `source`.
  void set(const std::string& assignment, const std::string& source = "--cost");
  /// Applies a JSON object {"name": value, ...} from a file; returns the names it set, in the
  /// file's order (so a caller need not parse the file again: the JSON type of this library is
  /// built with JSON_DIAGNOSTICS, json_input.hpp).
  std::vector<std::string> load_json_file(const std::string& path);
  /// The same on the file's text (`path` names it in errors).
  std::vector<std::string> load_json(std::string_view text, const std::string& path);
  /// Checks what single assignments cannot: idle_wake=table needs an idle_exit_table. Throws
  /// InputError naming `source`.
  void validate(const std::string& source = "--cost") const;
  /// The table `--cost list` prints.
  std::string describe() const;
};

}  // namespace schedsim
