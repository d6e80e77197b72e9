// schedsim report FILE... -o report.html [--title T]: one self-contained HTML report of runs, or
// of a study (repetitions, sweeps).
#include <iostream>

#include "../command.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/metrics/html_report.hpp"

namespace schedsim::cli {

int run_report(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "report", vm)) return kExitOk;
  if (!vm.count("results")) throw po::error("report needs at least one results, repetitions or sweep file");
  std::vector<std::string> paths = vm["results"].as<std::vector<std::string>>();
  refuse_output_over_inputs(vm["output"].as<std::string>(), paths);
  std::vector<std::string> warnings;
  const std::string html = render_report_files(paths, vm["title"].as<std::string>(), warnings);
  for (const auto& w : warnings) log::get("metrics")->warn("{}", log::brief(w));
  std::string out = vm["output"].as<std::string>();
  write_output(out, html);
  if (out != "-" && !out.empty())
    log::get("metrics")->info("wrote {} ({} bytes, {} file{})", out, html.size(), paths.size(),
                              paths.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace schedsim::cli
