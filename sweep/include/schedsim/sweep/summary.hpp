#pragma once
/// The sweep summary: one row per point, grouped by the swept parameters, with the mean and
/// standard deviation across repetitions of a few metrics read from the records by JSON pointer.
#include <string>
#include <vector>

#include "schedsim/sweep/spec.hpp"

namespace schedsim::sweep {

struct MetricColumn {
  std::string name;      ///< column title, e.g. "wakeup p99 us"
  std::string pointer;   ///< JSON pointer into a record, e.g. "/results/latency_ns/wakeup/p99"
  double scale = 1;      ///< multiply the value (ns -> us: 0.001)
  int decimals = 1;
  /// For a statistic of a distribution (a mean, a percentile): the pointer to its sample count.
  /// A run with no samples has no such statistic (the record holds 0): it is left out of the
  /// column, and a point where no run has samples shows "-" (an empty CSV cell). Empty: every
  /// value counts.
  std::string count_pointer;
  /// A figure only some records carry (the benchmark time: only workloads with a benchmark
  /// timer): a record without it is left out of the column (never read as 0) and a point where
  /// no run has it shows "-" (an empty CSV cell). The column is there whether or not any record
  /// has it: the columns depend on the options alone. Otherwise a record without a number at
  /// `pointer` is an error.
  bool optional = false;
  std::string absent_why;  ///< for the warning naming the points without it, e.g. "no benchmark timer"
};

struct SummaryOptions {
  std::string format = "table";          ///< table, csv, markdown
  std::vector<MetricColumn> columns;
  std::string complete_pointer;          ///< a boolean member: false = the run did not finish
  std::string incomplete_pointer;        ///< an array of strings: why (the first is quoted)
  /// An array of strings: the run's caveats; a run with one starting "warning:" is counted per
  /// point and its point named (the first such warning quoted). Empty = not checked.
  std::string notes_pointer;
};

/// Renders the summary of `records` (record lines in any order; several per point). Appends to
/// `warnings` what the reader must know (incomplete runs, runs printed with a warning, points
/// without records). Throws
/// InputError on a record without a column's metric.
std::string render_summary(const Spec& spec, const std::vector<std::string>& records, const SummaryOptions& opts,
                           std::vector<std::string>& warnings);

}  // namespace schedsim::sweep
