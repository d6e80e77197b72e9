// Fuzz target: the native workload reader on binary (CBOR) workloads, the same schema as JSON
// read by the same SAX handler (workload/src/workload_read.cpp). Seeds: the JSON seeds written as
// CBOR by `schedsim`; inputs start with the CBOR magic tag or a map head, as real files do.
#include "fuzz_common.hpp"

SCHEDSIM_FUZZ_TARGET(workload_cbor) {
  schedsim::fuzz::read_workload_and_describe(data, size, "fuzz.cbor");
  return 0;
}
