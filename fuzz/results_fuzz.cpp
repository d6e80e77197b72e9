// Fuzz target: the results readers of `compare` and `report` (metrics/src/records.cpp,
// metrics/src/results_json.cpp). The input goes through
//  - parse_record_text, as `compare` reads a side: a results JSON, a `run --repeat` JSON, JSON
//    Lines records of `run --format jsonl`, or a sweep's JSONL file; what it accepts is compared
//    with itself and rendered (table, JSON);
//  - parse_results_json, as `report` reads a run: what it accepts is rendered (table, JSON, CSV,
//    HTML report) and its JSON rendering must read back.
// Seeds: fuzz/corpus/results/ (tests/data/compare, tests/data/results, sweep outputs).
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/metrics/compare.hpp"
#include "schedsim/metrics/html_report.hpp"
#include "schedsim/metrics/records.hpp"
#include "schedsim/metrics/results.hpp"

SCHEDSIM_FUZZ_TARGET(results) {
  using namespace schedsim;
  fuzz::quiet_logs();
  const std::string text(fuzz::as_text(data, size));
  try {
    RecordFile f = parse_record_text(text, "fuzz-records");
    try {
      CompareResult c = compare_records(f, f, CompareOptions{});
      (void)render_compare_table(c);
      (void)render_compare_json(c);
    } catch (const InputError&) {
    }
  } catch (const InputError&) {
  }
  RunResults r;
  try {
    r = parse_results_json(text, "fuzz-results.json");
  } catch (const InputError&) {
    return 0;
  }
  (void)render_table(r);
  (void)render_csv(r);
  (void)render_html_report({r}, "fuzz");
  const std::string again = render_json(r);
  try {
    (void)parse_results_json(again, "re-rendered");
  } catch (const InputError& e) {
    fuzz::finding("an accepted results file does not survive its own JSON rendering: " + e.render());
  }
  return 0;
}
