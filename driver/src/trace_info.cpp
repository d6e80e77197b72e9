// `trace info --format json` (inputs.hpp): what the text report says, as data.
#include <cmath>

#include <nlohmann/json.hpp>

#include "schedsim/driver/inputs.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/traces/trace_event.hpp"

namespace schedsim::driver {

namespace {
nlohmann::ordered_json hist_json(const Histogram& h) {
  nlohmann::ordered_json j = {{"count", h.count()}};
  if (h.empty()) return j;
  j["mean_ns"] = std::round(h.mean() * 1000) / 1000;
  j["p50_ns"] = h.percentile(50);
  j["p90_ns"] = h.percentile(90);
  j["p99_ns"] = h.percentile(99);
  j["max_ns"] = h.max();
  return j;
}

}  // namespace

std::string trace_info_json(const traces::ImportReport& r, const Workload& w) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["schema"] = "schedsim-trace-info";
  j["version"] = 1;
  j["path"] = r.path;
  j["format"] = r.format;
  j["compression"] = r.compression;
  j["bytes"] = r.bytes;
  if (r.rendered_bytes > 0) j["rendered_bytes"] = r.rendered_bytes;
  j["lines"] = r.lines;
  j["kernel_hints"] = r.kernel_hints;
  j["cpus"] = {{"seen", r.nr_cpus}, {"header", r.header_cpus >= 0 ? ordered_json(r.header_cpus) : ordered_json()}};
  j["time_ns"] = {{"first", r.first_ts}, {"last", r.last_ts}, {"span", r.last_ts - r.first_ts}};
  ordered_json ev = ordered_json::object();
  for (int i = 0; i < traces::kNumEventTypes; ++i) {
    const auto t = static_cast<traces::EventType>(i);
    if (t != traces::EventType::kOther && r.events_by_type[static_cast<size_t>(i)] > 0)
      ev[traces::event_type_name(t)] = r.events_by_type[static_cast<size_t>(i)];
  }
  for (const auto& [name, n] : r.other_events) ev[name] = n;
  j["events"] = {{"total", r.events}, {"by_type", ev}};
  j["tasks"] = {{"seen", r.tasks_seen}, {"selected", r.tasks_selected}, {"background", r.tasks_background}};
  j["selection"] = r.selection;
  j["wakeups"] = {{"noop", r.wakeups_noop}, {"paired_with_later_switch_out", r.early_wakes_paired}};
  j["inferred_switch_ins"] = r.inferred_switch_ins;
  ordered_json lost = ordered_json::array();
  for (const auto& l : r.lost)
    lost.push_back({{"line", l.line}, {"cpu", l.cpu}, {"events", l.events >= 0 ? ordered_json(l.events) : ordered_json()},
                    {"buffer_started", l.buffer_started}, {"tasks_resynced", l.tasks_resynced}});
  j["lost_events"] = lost;
  ordered_json repairs = ordered_json::object();
  for (const auto& [k, rc] : r.repairs)
    repairs[k] = {{"count", rc.count}, {"first_line", rc.first_line}, {"reason", rc.reason}};
  j["repairs"] = repairs;
  j["conservation"] = {{"ok", r.conservation_ok},        {"wakes", r.wakes_total},
                       {"blocks", r.blocks_total},       {"blocked_at_start", r.blocked_at_start},
                       {"run_ns", r.run_total.count()}, {"oncpu_ns", r.oncpu_total.count()}};
  j["warnings"] = r.warnings;
  auto c = w.expanded_action_counts();
  j["workload"] = {{"tasks", w.tasks.size()},
                   {"background_tasks", w.background_count()},
                   {"actions", {{"run", c[0]}, {"wake", c[1]}, {"fork", c[2]}, {"block", c[3]}, {"sleep", c[4]},
                                {"exit", c[5]}, {"exec", c[6]},
                                {"write", c[static_cast<size_t>(ActionKind::kWrite)]},
                                {"read", c[static_cast<size_t>(ActionKind::kRead)]}}},
                   {"work_ns", w.total_work().count()},
                   {"measured_work_ns", w.total_work(/*measured_only=*/true).count()}};
  const ObservedStats& o = w.observed;
  if (o.present)
    j["observed"] = {{"wakeup_latency", hist_json(o.wakeup_latency)},
                     {"wakeup_latency_lower_bounds", o.wakeup_latency_inferred},
                     {"runqueue_wait", hist_json(o.runqueue_wait)},
                     {"wakeups", o.wakeups},
                     {"migrations", o.migrations},
                     {"context_switches", o.context_switches},
                     {"cpus", o.nr_cpus},
                     {"span_ns", o.span.count()},
                     {"runtime_ns", o.total_runtime.count()}};
  else
    j["observed"] = nullptr;
  return j.dump(2) + "\n";
}

}  // namespace schedsim::driver
