// Fuzz target: ftrace text: the tracefs 'trace' file, trace_pipe output and systrace HTML (the ftrace text
// inside its <script class="trace-data"> block), through the whole import pipeline
// (import_trace_buffer: sniffing, line parser, reorder window, extraction) with default options
// except a reorder window of 64 events (the inputs are small; a 4096-event pool per input would
// cost more than the parse). trace_import_fuzz runs the default window.
// Seeds: fuzz/corpus/ftrace/; dictionary: fuzz/ftrace.dict.
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(ftrace) {
  schedsim::fuzz::quiet_logs();
  std::string_view text = schedsim::fuzz::as_text(data, size);
  schedsim::traces::ExtractOptions opt;
  opt.reorder_window = 64;
  schedsim::fuzz::import_and_check(text, opt);
  return 0;
}
