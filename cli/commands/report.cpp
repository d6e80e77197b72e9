// schedsim report FILE... -o report.html [--title T]: one self-contained HTML report of runs, or
// of a study (repetitions, sweeps).
#include <filesystem>
#include <iostream>
#include <optional>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/metrics/html_report.hpp"
#include "schedsim/metrics/records.hpp"
#include "schedsim/metrics/results.hpp"

namespace schedsim::cli {

int run_report(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "report", vm)) return kExitOk;
  if (!vm.count("results")) throw po::error("report needs at least one results, repetitions or sweep file");
  std::vector<std::string> paths = vm["results"].as<std::vector<std::string>>();
  refuse_output_over_inputs(vm["output"].as<std::string>(), paths);
  // File names only: the page must not depend on where the results were stored.
  std::vector<std::string> names;
  names.reserve(paths.size());
  for (const auto& p : paths) names.push_back(std::filesystem::path(p).filename().string());
  // Results of single runs make the run report; repetitions and sweeps (records) the study
  // report, which every file joins (a results file as one record).
  std::vector<RunResults> runs;
  std::vector<std::optional<RecordFile>> records(paths.size());  ///< the files that are not results
  bool study = false;
  for (size_t i = 0; i < paths.size(); ++i) {
    try {
      runs.push_back(load_results_json(paths[i]));
    } catch (const InputError& not_results) {
      try {
        records[i] = load_record_file(paths[i]);
      } catch (const InputError&) {
        // A JSON Lines file is records or nothing: the records reader says which line is wrong
        // (a truncated sweep file); anything else gets the results reader's message.
        if (not_results.message().find("JSON Lines") != std::string::npos) throw;
        throw not_results;
      }
      if (records[i]->kind == "results") throw not_results;
      study = true;
    }
  }
  std::string html;
  if (!study) {
    for (const auto& w : report_warnings(runs, names)) log::get("metrics")->warn("{}", log::brief(w));
    html = render_html_report(runs, vm["title"].as<std::string>(), names);
  } else {
    std::vector<RecordFile> files;
    size_t next_run = 0;
    for (size_t i = 0; i < paths.size(); ++i)
      files.push_back(records[i] ? std::move(*records[i]) : record_file_of(std::move(runs[next_run++]), paths[i]));
    std::vector<std::string> warnings;
    html = render_study_report(files, vm["title"].as<std::string>(), names, warnings);
    for (const auto& w : warnings) log::get("metrics")->warn("{}", log::brief(w));
  }
  std::string out = vm["output"].as<std::string>();
  write_output(out, html);
  if (out != "-" && !out.empty())
    log::get("metrics")->info("wrote {} ({} bytes, {} file{})", out, html.size(), paths.size(),
                              paths.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace schedsim::cli
