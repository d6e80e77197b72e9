// Fuzz target: validation corpus files (driver/src/validation.cpp, `schedsim validate`): the
// entry reader on the whole input, then what validate does with an entry it accepted before
// running anything: every row's workload spec and published judgement, and the corpus listing.
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/driver/validation.hpp"

SCHEDSIM_FUZZ_TARGET(validation) {
  using namespace schedsim;
  fuzz::quiet_logs();
  const std::string text(fuzz::as_text(data, size));
  try {
    const driver::Entry e = driver::parse_entry(text, "fuzz-2ae891b82695.json");
    for (const auto& r : e.rows) {
      (void)driver::row_workload_spec(e, r);
      (void)driver::judge_published(r, e.benchmarks.at(r.benchmark).higher_better);
    }
    (void)driver::render_list({e});
  } catch (const InputError&) {
  }
  return 0;
}
