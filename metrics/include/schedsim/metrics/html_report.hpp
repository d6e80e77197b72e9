#pragma once
/// The self-contained HTML report of `schedsim report`: inline SVG plots and tables, inline CSS,
/// one tiny inline script that marks the page ready; no network, no external files.
///
/// Plots (each an <svg class="plot"> with a stable id):
///   cdf-wakeup, cdf-rqwait   latency CDFs, one curve per run, logarithmic x axis
///   placement-bars           placement outcomes as 100%-stacked bars, one per run
///   heatmap-<i>              per-CPU utilization timeline of run i (rows CPUs, columns time)
/// Tables: summary (one row per run), latency percentiles, per-CPU and per-LLC utilization,
/// migrations by level, the tasks with the largest maximum delay, simulated vs observed; with two or
/// more runs, each later run's changes against the first (compare-<i>-0, compare's one-run mode).
#include <string>
#include <vector>

#include "schedsim/metrics/results.hpp"

namespace schedsim {

/// Renders the report. `runs` must not be empty; `sources` (same size, may be empty) names the
/// file each run came from.
std::string render_html_report(const std::vector<RunResults>& runs, const std::string& title,
                               const std::vector<std::string>& sources = {});

}  // namespace schedsim
