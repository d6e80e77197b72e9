// Fuzz target: perf.data read directly (traces/src/perfdata.cpp): the file header, attribute
// table, feature sections (tracing data and its event formats, os release, CPU count, command
// line), the records (zstd-compressed ones included) and the tracepoint samples' fields, then
// the rest of the import (reorder window of 64, extraction) on the decoded events. An input that
// does not start with the magic "PERFILE2" gets it prepended, so the fuzzer spends its time past
// the magic rather than in finding it.
// Seeds: fuzz/corpus/perfdata/, small files recorded with perf 6.1 on kernel 6.18
// (perf record -e sched:..., perf sched record, perf record -z).
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(perfdata) {
  schedsim::fuzz::import_with_magic(data, size, std::string_view{"PERFILE2", 8});
  return 0;
}
