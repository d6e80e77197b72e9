#pragma once
// Measures idle-exit and IPI latencies, and the reschedule-IPI delay of remote preempting wakes,
// from a trace's own events (IdleWakeObserved): fed every event in time order, whatever the task
// selection. Written from the event semantics in docs/traces.md "Idle wakes measured from the
// trace" and "The reschedule IPI measured from the trace".
#include <unordered_map>
#include <vector>

#include "schedsim/traces/import.hpp"
#include "schedsim/traces/trace_event.hpp"

namespace schedsim::traces {

class IdleWakeProbe {
 public:
  explicit IdleWakeProbe(IdleWakeObserved& out) : out_(out) {}
  void on_event(const TraceEvent& ev);

 private:
  struct Cpu {
    bool idle = false;
    int64_t since = -1;   // switch to idle
    int64_t state = -1;   // last idle state entered (power:cpu_idle), -1 unknown
    int64_t ipi_at = -1;  // an IPI sent to it while idle, not yet answered by an event on it
    int64_t curr = -1;       // the task running on it (last switch-in or event header), -1 unknown
    int64_t curr_from = -1;  // since when `curr` is known to run there
    int64_t last_waking = -1;    // wakee of the latest sched_waking emitted here (owner of its next IPI)
    int64_t resched_wakee = -1;  // wakee whose IPI to this CPU awaits its reschedule_entry
  };
  struct Waking {
    int64_t ts;
    int32_t cpu;
    int32_t ipi_cpu = -1;  // target of the first ipi_send_cpu from the waker's CPU after the waking
    int64_t ipi = -1;      // its time
    int64_t entry = -1;    // the first reschedule_entry on ipi_cpu after it
    bool was_running = false;  // the wakee switched out after the waking (woken before it slept)
  };
  Cpu& cpu(int32_t c);
  IdleWakeObserved& out_;
  std::vector<Cpu> cpus_;
  std::unordered_map<int64_t, Waking> pending_;  // wakee pid -> its sched_waking
};

}  // namespace schedsim::traces
