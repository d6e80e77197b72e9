// Fuzz target: a sweep's JSON Lines results file as `merge`, `sweep --summary` and
// `sweep --resume` read it (sweep/src/jsonl.cpp read_results, record_key, scan_existing).
// The input is written to a scratch file (the readers take a path). What read_results accepts
// must also pass the resume scan against its own header, and its spec must expand.
// Seeds: fuzz/corpus/sweep_results/ (outputs of small sweeps, sharded and not).
#include "fuzz_common.hpp"

#include "schedsim/base/error.hpp"
#include "schedsim/sweep/jsonl.hpp"

SCHEDSIM_FUZZ_TARGET(sweep_results) {
  using namespace schedsim;
  fuzz::quiet_logs();
  static fuzz::ScratchDir dir;
  dir.reset();
  if (!dir.write("results.jsonl", fuzz::as_text(data, size))) return 0;
  const std::string path = dir.path() + "/results.jsonl";
  sweep::ResultsFile f;
  try {
    f = sweep::read_results(path);
  } catch (const InputError&) {
    return 0;
  }
  for (size_t i = 0; i < f.records.size(); ++i) {
    try {
      (void)sweep::record_key(f.records[i], path + ":" + std::to_string(f.lines[i]));
    } catch (const InputError&) {
    }
  }
  if (f.spec.nr_points() > 4096) return 0;  // the grid bound is the spec target's business
  (void)sweep::expand(f.spec);
  try {
    sweep::Shard shard;
    std::vector<uint64_t> units = sweep::shard_units(f.spec, shard);
    (void)sweep::scan_existing(path, sweep::header_line(f.spec, shard), f.spec, units);
  } catch (const InputError&) {
  }
  return 0;
}
