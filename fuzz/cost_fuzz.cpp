// Fuzz target: cost files (policy_api/src/cost_model.cpp): the JSON object form (`--cost file.json`,
// CostModel::load_json) on the whole input, then every line as a `name=value` assignment
// (`--cost name=value`, CostModel::set: durations with ns/us/ms/s suffixes, permille integers).
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/engine/cost_model.hpp"

SCHEDSIM_FUZZ_TARGET(cost) {
  using namespace schedsim;
  fuzz::quiet_logs();
  std::string_view text = fuzz::as_text(data, size);
  CostModel json_cost;
  try {
    json_cost.load_json(text, "fuzz-cost.json");
  } catch (const InputError&) {
  }
  CostModel line_cost;
  for (std::string_view line : fuzz::split_lines(text)) {
    try {
      line_cost.set(std::string(line), "fuzz-cost");
    } catch (const InputError&) {
    }
  }
  (void)json_cost.describe();
  (void)line_cost.describe();
  return 0;
}
