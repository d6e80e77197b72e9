// Fuzz target: the native workload reader on JSON (workload/src/workload_read.cpp, streaming SAX
// reader with comments allowed, then validate_workload). Seeds: workloads written by
// `schedsim gen` and `schedsim trace import`; dictionary: the format's keys and action names.
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/workload/workload.hpp"

SCHEDSIM_FUZZ_TARGET(workload_json) {
  using namespace schedsim;
  fuzz::quiet_logs();
  std::string_view text = fuzz::as_text(data, size);
  try {
    Workload w = read_workload_buffer(text, "fuzz.json");
    (void)traces::describe_workload(w);
  } catch (const InputError&) {
  }
  return 0;
}
