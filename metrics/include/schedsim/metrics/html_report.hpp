#pragma once
/// The self-contained HTML report of `schedsim report`: inline SVG plots and tables, inline CSS,
/// one tiny inline script that marks the page ready; no network, no external files.
///
/// Plots (each an <svg class="plot"> with a stable id):
///   pct-wakeup               wakeup latency percentiles p50..p99.99 (log latency axis against a
///                            "nines" axis), where policies differ
///   cdf-wakeup, cdf-rqwait   latency CDFs, one curve per run, logarithmic x axis from the decade
///                            of the 1st percentile of positive samples; zero samples (and any
///                            under that decade) rise in a strip of their own, their share in the
///                            legend
///   placement-bars           placement outcomes as 100%-stacked bars, one per run
///   heatmap-<i>              per-CPU utilization timeline of run i (rows CPUs grouped by LLC,
///                            columns time over the run's own span; LLC and NUMA boundaries drawn)
/// Tables: summary (one row per run), latency percentiles, per-CPU and per-LLC utilization,
/// migrations by level, the tasks with the largest maximum delay, simulated vs observed; with two or
/// more runs, each later run's changes against the first (compare-<i>-0, compare's one-run mode).
#include <string>
#include <vector>

#include "schedsim/metrics/records.hpp"
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

/// The report of a study: records of repetitions (`run --repeat N -f jsonl|json`) and sweeps
/// (`sweep -o FILE`), pooled from `files` (a plain results file is one record). Points are a
/// sweep's points, else each file's label. With a numeric parameter that differs between points
/// (gen.group, cost.X), each metric is drawn against it (plot study-<i>), one line per
/// combination of the other parameters, with the 95% confidence band of the mean (Student t)
/// and a dot per run; without one, a row per point with the runs as dots, the mean and its
/// interval. Then a table of every point. Appends what the reader must know to `warnings`
/// (incomplete runs, runs that came with a warning, points with one run).
std::string render_study_report(const std::vector<RecordFile>& files, const std::string& title,
                                const std::vector<std::string>& sources, std::vector<std::string>& warnings);

/// `schedsim report FILE...`: the run report of results files, or, when one of them holds
/// repetitions or a sweep's records, the study report of them all (a results file as one
/// record). Files are named by their base name only, so the page does not depend on where they
/// were stored. Appends report_warnings() or the study's warnings to `warnings`. Throws
/// InputError for a file that is neither (the records reader's message for a JSON Lines file).
std::string render_report_files(const std::vector<std::string>& paths, const std::string& title,
                                std::vector<std::string>& warnings);

}  // namespace schedsim
