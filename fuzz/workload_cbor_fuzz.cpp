// Fuzz target: the native workload reader on binary (CBOR) workloads, the same schema as JSON
// read by the same SAX handler (workload/src/workload_read.cpp). Seeds: the JSON seeds written as
// CBOR by `schedsim`; inputs start with the CBOR magic tag or a map head, as real files do.
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/workload/workload.hpp"

SCHEDSIM_FUZZ_TARGET(workload_cbor) {
  using namespace schedsim;
  fuzz::quiet_logs();
  std::string_view bytes = fuzz::as_text(data, size);
  try {
    Workload w = read_workload_buffer(bytes, "fuzz.cbor");
    (void)traces::describe_workload(w);
  } catch (const InputError&) {
  }
  return 0;
}
