#pragma once
/// Running the validation corpus (validation.hpp reads and judges it): the selection of entries,
/// one simulation per (row, side, repetition) through execute_run() on sweep's ordered executor,
/// and the judgement of each row. `schedsim validate` parses the options and renders the rows.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "schedsim/driver/validation.hpp"

namespace schedsim::driver {

/// Keeps the entries whose file name or commit matches `filter` (a regular expression; nullopt:
/// every entry) and that belong to `half` ("dev", "val" or "all"). Throws InputError for a bad
/// expression or a selection that keeps nothing.
void select_entries(std::vector<Entry>& corpus, const std::optional<std::string>& filter, const std::string& half);

/// `--gen-option GEN:OPTIONS` values as (generator, options) pairs; GEN must be the generator of a
/// row of `corpus`. Throws InputError naming --gen-option.
std::vector<std::pair<std::string, std::string>> parse_gen_options(const std::vector<Entry>& corpus,
                                                                   const std::vector<std::string>& values);

struct ValidationOptions {
  uint32_t repeat = 5;  ///< repetitions per side and row (run --repeat's noise model)
  uint64_t seed = 1;
  std::vector<std::string> costs;                               ///< as run --cost, for every run
  std::vector<std::pair<std::string, std::string>> gen_options;  ///< parse_gen_options()
  unsigned jobs = 1;
  /// Called as runs are delivered, in order: (runs done, runs in all).
  std::function<void(size_t, size_t)> on_progress;
};

struct ValidationRun {
  std::vector<RowResult> rows;                ///< in corpus order
  std::map<std::string, size_t> note_counts;  ///< each run's caveat, with the runs that gave it
  bool any_failed = false;                    ///< a row's simulation did not complete
};

/// Simulates every row of `corpus` on both sides, `repeat` times each, and judges it. Throws
/// InputError naming the row for a row the simulator refuses, Interrupted on SIGINT/SIGTERM.
ValidationRun run_corpus(const std::vector<Entry>& corpus, const ValidationOptions& o);

/// `schedsim validate`: which corpus and entries, how to run them, and the report's options.
struct ValidateRequest {
  std::vector<std::string> inputs = {"validation"};  ///< corpus directories or entry files
  std::string half = "all";                          ///< dev, val or all
  std::optional<std::string> filter;                 ///< a regex on file names and commits
  std::vector<std::string> gen_options;              ///< GEN:OPTIONS, as --gen-option
  std::string output = "-";                          ///< the report, which must not be an input
  ValidationOptions run;                             ///< repeat, seed, costs, jobs
};
/// Checks `r` (repeat 2..1000, no empty --cost, jobs >= 1), reads the corpus, refuses an output
/// that is one of its files or cost files, selects the entries and parses the --gen-option values
/// into `r.run.gen_options`. Throws InputError naming the option or the file.
std::vector<Entry> prepare_validation(ValidateRequest& r);
/// The report of `run` for `r` in `format` (markdown, json or html).
std::string render_validation(const ValidationRun& run, const ValidateRequest& r, const std::string& format);

}  // namespace schedsim::driver
