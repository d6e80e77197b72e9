#pragma once
/// The self-contained HTML report of `schedsim report`: inline SVG plots and tables, inline CSS,
/// one tiny inline script that marks the page ready; no network, no external files.
///
/// Plots (each an <svg class="plot"> with a stable id):
///   pct-wakeup               wakeup latency percentiles p50..p99.99 (log latency axis against a
///                            "nines" axis), where policies differ
///   cdf-wakeup, cdf-rqwait   latency CDFs, one curve per run, logarithmic x axis; the run-queue
///                            wait legend gives each run's share of zero samples (not on a log axis)
///   placement-bars           placement outcomes as 100%-stacked bars, one per run
///   heatmap-<i>              per-CPU utilization timeline of run i (rows CPUs grouped by LLC,
///                            columns time; every run on the same time axis; LLC and NUMA
///                            boundaries drawn)
/// Tables: summary (one row per run), latency percentiles, per-CPU and per-LLC utilization,
/// migrations by level, the tasks with the largest maximum delay, simulated vs observed; with two or
/// more runs, each later run's changes against the first (compare-<i>-0, compare's one-run mode).
#include <string>
#include <vector>

#include "schedsim/metrics/results.hpp"

namespace schedsim {

/// What `report` warns about before it renders (also shown at the top of the page): runs that
/// share a label (the page could not tell them apart), and runs whose provenance says they
/// simulated a different workload or machine than the first run (workload_hash, topology_hash),
/// so their differences are not the policies' alone. `sources` as for render_html_report.
std::vector<std::string> report_warnings(const std::vector<RunResults>& runs,
                                         const std::vector<std::string>& sources = {});

/// Renders the report. `runs` must not be empty; `sources` (same size, may be empty) names the
/// file each run came from.
std::string render_html_report(const std::vector<RunResults>& runs, const std::string& title,
                               const std::vector<std::string>& sources = {});

}  // namespace schedsim
