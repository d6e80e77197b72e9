// Fuzz target: sweep spec files (`sweep --spec FILE`, sweep/src/spec.cpp spec_from_json). What
// the reader accepts is expanded into its points (labels, seeds) and its canonical JSON form
// (what result headers store, and a valid spec file itself) must read back to the same hash.
// Seeds: fuzz/corpus/sweep_spec/; dictionary: fuzz/sweep_spec.dict.
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/sweep/spec.hpp"

SCHEDSIM_FUZZ_TARGET(sweep_spec) {
  using namespace schedsim;
  fuzz::quiet_logs();
  const std::string text(fuzz::as_text(data, size));
  sweep::Spec spec;
  try {
    spec = sweep::spec_from_json(text, "fuzz-spec.json");
  } catch (const InputError&) {
    return 0;
  }
  // Expansion is linear in the points; the reader bounds the grid (kMaxPoints), the harness a
  // little more to keep each input fast.
  const size_t points = spec.nr_points();
  if (points <= 4096) {
    (void)sweep::expand(spec);
  } else if (points > sweep::kMaxPoints) {
    try {
      (void)sweep::expand(spec);
      fuzz::finding("a grid past kMaxPoints was expanded");
    } catch (const InputError&) {
    }
  }
  const std::string canonical = spec.to_json().dump();
  try {
    sweep::Spec again = sweep::spec_from_json(canonical, "canonical");
    if (again.hash() != spec.hash()) fuzz::finding("a spec's canonical JSON reads back to another hash: " + canonical);
  } catch (const InputError& e) {
    fuzz::finding("a spec's canonical JSON does not read back: " + e.render());
  }
  return 0;
}
