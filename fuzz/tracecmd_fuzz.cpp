// Fuzz target: 'trace-cmd report' text in its renderings (default plugin, -N, -R raw numeric states, -l
// latency prefix, -t nanoseconds, several buffers), through the whole import pipeline
// (fuzz::import_small_window: sniffing, line parser, reorder window of 64, extraction).
// Seeds: fuzz/corpus/tracecmd/; dictionary: fuzz/tracecmd.dict.
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(tracecmd) {
  schedsim::fuzz::import_small_window(data, size);
  return 0;
}
