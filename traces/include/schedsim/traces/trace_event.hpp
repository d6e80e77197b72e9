#pragma once
/// The neutral event model every trace parser produces (docs/traces.md). One flat struct rather
/// than a variant: the importer streams millions of these through a small reorder window, and a
/// flat record with short-string comms (TASK_COMM_LEN is 16, so SSO keeps them off the heap) is
/// the cheapest thing to move around. Parsers never build workload or engine objects.
#include <cstdint>
#include <string>
#include <string_view>

namespace schedsim::traces {

enum class EventType : uint8_t {
  kSwitch,     ///< sched_switch: prev -> next on `cpu`
  kWaking,     ///< sched_waking (>= 4.3): waker context, at try_to_wake_up() start
  kWakeup,     ///< sched_wakeup: the wakee is on a runqueue (pre-4.3: the only wakeup event)
  kWakeupNew,  ///< sched_wakeup_new: end of fork, parent context
  kFork,       ///< sched_process_fork: parent `pid`, child `other_pid` (threads too)
  kExit,       ///< sched_process_exit: do_exit() started; the task still runs after it
  kExec,       ///< sched_process_exec
  kMigrate,    ///< sched_migrate_task
  kOther,      ///< any other event (counted, otherwise ignored)
};
inline constexpr int kNumEventTypes = 9;
const char* event_type_name(EventType t);
/// The type of the tracepoint named `name` ("sched_switch", ...); kOther for any other name.
EventType classify_event(std::string_view name);

/// prev_state decoded into the 4.14+ meaning (bits are ours, not the kernel's, so every kernel
/// era and text/number rendering maps onto one set).
enum TaskStateBits : uint16_t {
  kStateRunnable = 0,        ///< "R": no sleep bit set
  kStateSleeping = 1 << 0,   ///< S
  kStateDisk = 1 << 1,       ///< D
  kStateStopped = 1 << 2,    ///< T
  kStateTraced = 1 << 3,     ///< t
  kStateDead = 1 << 4,       ///< X (EXIT_DEAD)
  kStateZombie = 1 << 5,     ///< Z (EXIT_ZOMBIE)
  kStateParked = 1 << 6,     ///< P
  kStateIdle = 1 << 7,       ///< I (TASK_IDLE, 4.14+)
  kStateTaskDead = 1 << 8,   ///< x (TASK_DEAD, < 4.14)
  kStateWakekill = 1 << 9,   ///< K (< 4.14, only with D)
  kStateWaking = 1 << 10,    ///< W (TASK_WAKING, < 4.14)
  kStateNoload = 1 << 11,    ///< N (TASK_NOLOAD, 4.2-4.13)
  kStatePreempted = 1 << 12, ///< the "+" suffix
};
/// How the extractor treats a switch-out state.
enum class StateClass : uint8_t { kRunnable, kBlocked, kDead };
StateClass classify_state(uint16_t state);
/// "R", "R+", "S", "D|K", ... (for messages and reports).
std::string state_to_string(uint16_t state);

/// One parsed trace event. Which fields are meaningful depends on `type`:
///   kSwitch:   pid=prev_pid comm=prev_comm, other_pid=next_pid other_comm=next_comm,
///              state=prev_state, prio=prev_prio, other_prio=next_prio
///   kWaking/kWakeup/kWakeupNew: other_pid/other_comm = wakee, prio = wakee prio,
///              target_cpu, success (-1 when absent; pre-4.3 "success=0" is a no-op)
///   kFork:     other_pid/other_comm = child (pid = parent)
///   kExit:     pid/comm of the exiting task (payload), prio
///   kExec:     pid, other_pid = old_pid, other_comm = basename of filename
///   kMigrate:  other_pid/other_comm = migrated task, orig_cpu, target_cpu = dest_cpu
/// `line_pid`/`line_comm` are the task current on `cpu` when the event fired (the prefix).
struct TraceEvent {
  EventType type = EventType::kOther;
  bool irq_context = false;  ///< flags column says hard/soft irq or NMI (h, s, H, z, Z)
  uint16_t state = 0;
  int32_t cpu = -1;
  int32_t target_cpu = -1;
  int32_t orig_cpu = -1;
  int32_t prio = -1;
  int32_t other_prio = -1;
  int32_t success = -1;
  int64_t ts = 0;            ///< ns on the trace clock
  int64_t line_pid = -1;
  int64_t line_tgid = -1;    ///< TGID column (record-tgid), -1 when absent/unknown
  int64_t pid = -1;
  int64_t other_pid = -1;
  /// The thread group of other_pid when the reader tracks one (perf.data: its COMM and FORK
  /// records), -1 otherwise: `sched timehist` names threads tid/tgid.
  int64_t other_tgid = -1;
  long line = 0;             ///< 1-based line in the (decompressed) input
  std::string line_comm;
  std::string comm;
  std::string other_comm;
  std::string event_name;    ///< for kOther: the event's name
  /// The number a kOther event carries for extraction, 0 for the others:
  ///  * syscall events (event_name "sys_enter_NAME" / "sys_exit_NAME"): the first argument of an
  ///    enter (the fd of read/write/close; -1 when unreadable) or the return value of an exit
  ///    (negative: an errno);
  ///  * "cpu_idle" (power:cpu_idle): the idle state entered, -1 for the exit (PWR_EVENT_EXIT),
  ///    with the CPU (cpu_id) in target_cpu;
  ///  * "ipi_send_cpu": 0, with the destination CPU in target_cpu.
  int64_t other_value = 0;

  /// Back to a default-constructed event, keeping the strings' buffers: the line parser reuses
  /// one event per line, so a comm or event name longer than the small-string buffer costs no
  /// allocation per line. Every member is listed; the static_assert below catches a new one.
  void reset() {
    type = EventType::kOther;
    irq_context = false;
    state = 0;
    cpu = target_cpu = orig_cpu = prio = other_prio = success = -1;
    ts = 0;
    line_pid = line_tgid = pid = other_pid = other_tgid = -1;
    line = 0;
    line_comm.clear();
    comm.clear();
    other_comm.clear();
    event_name.clear();
    other_value = 0;
  }
};
// Update TraceEvent::reset() when a member is added (this size is the members above on LP64).
static_assert(sizeof(void*) != 8 || sizeof(TraceEvent) == 8 + 6 * 4 + 7 * 8 + 8 + 4 * sizeof(std::string),
              "TraceEvent changed: update reset()");

}  // namespace schedsim::traces
