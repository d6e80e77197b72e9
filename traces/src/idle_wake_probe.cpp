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
  // Every event names the task current on its CPU: a switch from idle the trace did not record
  // shows here first (as in scripts/analysis/wake_latency.py).
  if (ev.line_pid > 0 && ev.line_pid != here.curr && ev.type != EventType::kSwitch) {
    here.curr = ev.line_pid;
    here.curr_from = ev.ts;
  }
  switch (ev.type) {
    case EventType::kSwitch: {
      const int64_t prev_curr = here.curr, prev_from = here.curr_from;
      // A task woken while still on its CPU (it had not reached __schedule() yet): its later
      // switch-in is no wakeup's preemption.
      if (auto it = pending_.find(ev.pid); ev.pid > 0 && it != pending_.end()) it->second.was_running = true;
      here.curr = ev.other_pid;
      here.curr_from = ev.ts;
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
        // A remote wakee switched in by preempting the task that was running on the target at
        // the waking (prev_state R/R+): wakeup_preempt() -> resched_curr() sent the target a
        // reschedule IPI, which the switch answers.
        if (w.cpu != ev.cpu && !w.was_running && ev.pid > 0 && ev.pid == prev_curr && prev_from <= w.ts &&
            classify_state(ev.state) == StateClass::kRunnable) {
          if (w.ipi_cpu == ev.cpu)
            out_.resched.push_back({ev.ts - w.ts, w.ipi - w.ts, w.entry >= 0 ? w.entry - w.ts : -1});
          else
            ++out_.resched_no_ipi;
        }
        // Idle already at the waking: a wake that had to bring the CPU out of idle. Not a task
        // woken while still running (ttwu_runnable(): it never slept): its later switch-in on a
        // CPU idle since before the waking follows a preemption or migration, not this wakeup.
        if (from_idle && !w.was_running && here.since >= 0 && here.since <= w.ts) {
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
      if (ev.other_pid > 0 && ev.success != 0) {
        pending_[ev.other_pid] = {ev.ts, ev.cpu};
        here.last_waking = ev.other_pid;
      }
      return;
    case EventType::kOther:
      if (ev.event_name == "cpu_idle" && ev.target_cpu >= 0) {
        ++out_.cpu_idle_events;
        Cpu& t = cpu(ev.target_cpu);
        if (ev.other_value >= 0) t.state = ev.other_value;
      } else if (ev.event_name == "ipi_send_cpu" && ev.target_cpu >= 0) {
        ++out_.ipi_events;
        const int64_t waking = here.last_waking;  // read before cpu() may grow cpus_
        Cpu& t = cpu(ev.target_cpu);
        if (t.idle && t.ipi_at < 0 && ev.target_cpu != ev.cpu) t.ipi_at = ev.ts;
        // The first IPI the waker's CPU sends after a waking belongs to that wakeup (ttwu runs
        // to its end on the waker's CPU before it can wake another task).
        if (auto it = pending_.find(waking);
            it != pending_.end() && it->second.cpu == ev.cpu && it->second.ipi < 0 && ev.target_cpu != ev.cpu) {
          it->second.ipi = ev.ts;
          it->second.ipi_cpu = ev.target_cpu;
          t.resched_wakee = waking;
        }
      } else if (ev.event_name == "reschedule_entry") {
        // x86's reschedule vector entered on this CPU: the delivery of the last IPI sent to it.
        ++out_.resched_entry_events;
        if (auto it = pending_.find(here.resched_wakee); it != pending_.end() && it->second.ipi_cpu == ev.cpu &&
                                                         it->second.entry < 0 && it->second.ipi <= ev.ts)
          it->second.entry = ev.ts;
        here.resched_wakee = -1;
      }
      return;
    default:
      return;
  }
}

}  // namespace schedsim::traces
