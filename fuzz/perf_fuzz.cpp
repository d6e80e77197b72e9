// Fuzz target: 'perf script' text of 'perf sched record' (the "comm tid [cpu] ts: event: payload" form),
// through the whole import pipeline (fuzz::import_small_window: sniffing, line parser, reorder
// window of 64, extraction).
// Seeds: fuzz/corpus/perf/; dictionary: fuzz/perf.dict.
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(perf) {
  schedsim::fuzz::import_small_window(data, size);
  return 0;
}
