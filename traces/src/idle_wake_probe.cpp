#include "idle_wake_probe.hpp"

namespace schedsim::traces {

IdleWakeProbe::Cpu& IdleWakeProbe::cpu(int32_t c) {
  if (static_cast<size_t>(c) >= cpus_.size()) cpus_.resize(static_cast<size_t>(c) + 1);
  return cpus_[static_cast<size_t>(c)];
}

void IdleWakeProbe::on_event(const TraceEvent& ev) {
  if (ev.cpu < 0 || ev.cpu > 65535) return;
  Cpu& here = cpu(ev.cpu);
  // The first event on a CPU after an IPI was sent to it while idle answers the IPI.
  if (here.ipi_at >= 0 && ev.ts >= here.ipi_at) {
    out_.ipi_to_idle.push_back(ev.ts - here.ipi_at);
    here.ipi_at = -1;
  }
  switch (ev.type) {
    case EventType::kSwitch: {
      if (ev.other_pid == 0) {
        here.idle = true;
        here.since = ev.ts;
        here.state = -1;
        return;
      }
      // Left idle with no recorded switch from idle (a lost or unrecorded sched_switch).
      const bool from_idle = here.idle && ev.pid == 0;
      if (here.idle && ev.pid != 0) ++out_.unrecorded;
      if (auto it = pending_.find(ev.other_pid); it != pending_.end()) {
        const Waking w = it->second;
        pending_.erase(it);
        // Idle already at the waking: a wake that had to bring the CPU out of idle.
        if (from_idle && here.since >= 0 && here.since <= w.ts) {
          const int64_t d = w.ts - here.since, lat = ev.ts - w.ts;
          if (w.cpu == ev.cpu) {
            ++out_.local_wakes;
            out_.local.push_back({d, lat});
          } else {
            out_.remote.push_back({d, lat});
            size_t bin = 0;
            while (bin < 4 && d >= IdleWakeObserved::kBinEdges[bin]) ++bin;
            out_.by_idle[bin].push_back(lat);
            if (here.state >= 0) out_.by_state[here.state].push_back(lat);
          }
        }
      }
      here.idle = false;
      return;
    }
    case EventType::kWaking:
      if (ev.other_pid > 0 && ev.success != 0) pending_[ev.other_pid] = {ev.ts, ev.cpu};
      return;
    case EventType::kOther:
      if (ev.event_name == "cpu_idle" && ev.target_cpu >= 0) {
        ++out_.cpu_idle_events;
        Cpu& t = cpu(ev.target_cpu);
        if (ev.other_value >= 0) t.state = ev.other_value;
      } else if (ev.event_name == "ipi_send_cpu" && ev.target_cpu >= 0) {
        ++out_.ipi_events;
        Cpu& t = cpu(ev.target_cpu);
        if (t.idle && t.ipi_at < 0 && ev.target_cpu != ev.cpu) t.ipi_at = ev.ts;
      }
      return;
    default:
      return;
  }
}

}  // namespace schedsim::traces
