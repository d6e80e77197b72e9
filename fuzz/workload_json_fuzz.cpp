// Fuzz target: the native workload reader on JSON (workload/src/workload_read.cpp, streaming SAX
// reader with comments allowed, then validate_workload). Seeds: workloads written by
// `schedsim gen` and `schedsim trace import`; dictionary: the format's keys and action names.
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(workload_json) {
  schedsim::fuzz::read_workload_and_describe(data, size, "fuzz.json");
  return 0;
}
