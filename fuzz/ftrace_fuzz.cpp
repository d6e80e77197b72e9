// Fuzz target: ftrace text: the tracefs 'trace' file, trace_pipe output and systrace HTML (the ftrace text
// inside its <script class="trace-data"> block), through the whole import pipeline
// (fuzz::import_small_window: sniffing, line parser, reorder window of 64, extraction).
// Seeds: fuzz/corpus/ftrace/; dictionary: fuzz/ftrace.dict.
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(ftrace) {
  schedsim::fuzz::import_small_window(data, size);
  return 0;
}
