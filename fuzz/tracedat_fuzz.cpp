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
  schedsim::fuzz::import_with_magic(data, size, std::string_view{"\x17\x08\x44tracing", 10});
  return 0;
}
