// Fuzz target: trace-cmd's binary trace.dat read through libtracecmd (traces/src/tracedat.cpp),
// then the whole text import pipeline on its rendering (import_trace_buffer). An input that
// does not start with the trace.dat magic gets it prepended, so the fuzzer spends its time in
// the file's headers, sections and ring-buffer pages rather than in finding the magic. A
// build without libtracecmd exercises the refusal only. Findings inside libtracecmd itself are
// findings too (a crash in a library we call is a crash of schedsim): report them upstream
// and refuse such input before the call if it can be recognised.
// Seeds: fuzz/corpus/tracedat/ (a real 2-CPU trace.dat from trace-cmd extract, 3.1.6).
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(tracedat) {
  schedsim::fuzz::quiet_logs();
  static constexpr std::string_view kMagic{"\x17\x08\x44tracing", 10};
  std::string_view in = schedsim::fuzz::as_text(data, size);
  std::string buf;
  if (!in.starts_with(kMagic)) {
    buf.reserve(kMagic.size() + in.size());
    buf.append(kMagic).append(in);
    in = buf;
  }
  schedsim::traces::ExtractOptions opt;
  opt.reorder_window = 64;
  schedsim::fuzz::import_and_check(in, opt);
  return 0;
}
