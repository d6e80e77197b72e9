// Fuzz target: 'perf script' text of 'perf sched record' (the "comm tid [cpu] ts: event: payload" form), through the whole import pipeline
// (import_trace_buffer: sniffing, line parser, reorder window, extraction) with default options
// except a reorder window of 64 events (the inputs are small; a 4096-event pool per input would
// cost more than the parse). trace_import_fuzz runs the default window.
// Seeds: fuzz/corpus/perf/; dictionary: fuzz/perf.dict.
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(perf) {
  schedsim::fuzz::quiet_logs();
  std::string_view text = schedsim::fuzz::as_text(data, size);
  schedsim::traces::ExtractOptions opt;
  opt.reorder_window = 64;
  schedsim::fuzz::import_and_check(text, opt);
  return 0;
}
