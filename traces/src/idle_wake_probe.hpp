#pragma once
// Measures idle-exit and IPI latencies from a trace's own events (IdleWakeObserved): fed every
// event in time order, whatever the task selection. Written from the event semantics in
// docs/traces.md "Idle wakes measured from the trace".
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
  };
  struct Waking {
    int64_t ts;
    int32_t cpu;
  };
  Cpu& cpu(int32_t c);
  IdleWakeObserved& out_;
  std::vector<Cpu> cpus_;
  std::unordered_map<int64_t, Waking> pending_;  // wakee pid -> its sched_waking
};

}  // namespace schedsim::traces
