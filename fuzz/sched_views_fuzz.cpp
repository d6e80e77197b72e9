// Fuzz target: the perf-sched views (`schedsim sched latency|timehist|map`, `run --view`) over
// any trace text. The first byte chooses the view, latency's --pids and one of its sort keys;
// the rest is the trace, imported as `sched` imports it (all tasks, the events handed to
// SchedViews, restarted when the importer reads the trace again). Checks: the rendering ends
// with a newline or is empty, and rendering twice gives the same text (the map and timehist
// rows are read back from their temporary file).
// Seeds: fuzz/corpus/sched_views/; dictionary: fuzz/sched_views.dict.
#include <sstream>

#include "fuzz_common.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/traces/import.hpp"
#include "schedsim/traces/sched_views.hpp"

SCHEDSIM_FUZZ_TARGET(sched_views) {
  using namespace schedsim;
  if (size == 0) return 0;
  schedsim::fuzz::quiet_logs();
  const uint8_t mode = data[0];
  traces::SchedViewOptions so;
  so.view = mode % 3 == 0 ? traces::SchedView::kLatency : mode % 3 == 1 ? traces::SchedView::kTimehist : traces::SchedView::kMap;
  so.per_pid = so.view == traces::SchedView::kLatency && (mode & 4) != 0;
  if (so.view == traces::SchedView::kLatency) so.sort = {traces::latency_sort_keys()[(mode >> 3) % traces::latency_sort_keys().size()]};
  std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    traces::SchedViews views(so);
    traces::ExtractOptions opt;
    opt.all_tasks = true;
    opt.reorder_window = 64;
    opt.on_event = [&views](const traces::TraceEvent& ev) { views.on_event(ev); };
    opt.on_restart = [&views, &so] { views = traces::SchedViews(so); };
    traces::ImportReport rep;
    (void)traces::import_trace_buffer(text, "fuzz-input", opt, &rep);
    views.set_nr_cpus(rep.nr_cpus);
    const std::string once = views.render();
    if (!once.empty() && once.back() != '\n') schedsim::fuzz::finding("a sched view does not end with a newline");
    if (views.render() != once) schedsim::fuzz::finding("a sched view rendered twice differs");
  } catch (const InputError&) {
  }
  return 0;
}
