// schedsim report RESULTS.json... -o report.html [--title T]: one self-contained HTML report.
#include <filesystem>
#include <iostream>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/metrics/html_report.hpp"
#include "schedsim/metrics/results.hpp"

namespace schedsim::cli {

namespace {

po::options_description report_options() {
  po::options_description desc = option_group("options");
  desc.add_options()
      ("output,o", po::value<std::string>()->default_value("report.html"), "HTML file to write ('-' = stdout)")
      ("title", po::value<std::string>()->default_value("schedsim report"), "page title")
      ("help,h", "this help");
  return desc;
}

}  // namespace

std::string help_report() {
  return format_help(
      "schedsim report RESULTS.json... [-o report.html] [--title T]",
      "Renders one or more results files (schedsim run --format json) into one self-contained HTML\n"
      "page: latency CDFs per run on a log axis, placement-outcome bars, a per-CPU utilization\n"
      "timeline heatmap per run, and the summary tables. The page needs no network: inline SVG,\n"
      "inline CSS, no external scripts or fonts. The file is written atomically.",
      report_options());
}

int run_report(const std::vector<std::string>& args) {
  po::options_description desc = report_options();
  po::options_description all;
  all.add(desc).add_options()("results", po::value<std::vector<std::string>>(), "results files");
  po::positional_options_description pos;
  pos.add("results", -1);
  po::variables_map vm;
  if (!parse_args(args, all, pos, vm, help_report)) return kExitOk;
  if (!vm.count("results")) throw po::error("report needs at least one RESULTS.json file");
  refuse_empty_values(vm, {"output"}, "report");
  std::vector<std::string> paths = vm["results"].as<std::vector<std::string>>();
  refuse_output_over_inputs(vm["output"].as<std::string>(), paths);
  std::vector<RunResults> runs;
  runs.reserve(paths.size());
  for (const auto& p : paths) runs.push_back(load_results_json(p));
  // File names only: the page must not depend on where the results were stored.
  std::vector<std::string> names;
  names.reserve(paths.size());
  for (const auto& p : paths) names.push_back(std::filesystem::path(p).filename().string());
  for (const auto& w : report_warnings(runs, names)) log::get("metrics")->warn("{}", log::brief(w));
  std::string html = render_html_report(runs, vm["title"].as<std::string>(), names);
  std::string out = vm["output"].as<std::string>();
  write_output(out, html);
  if (out != "-" && !out.empty())
    log::get("metrics")->info("wrote {} ({} bytes, {} run{})", out, html.size(), runs.size(),
                              runs.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace schedsim::cli
