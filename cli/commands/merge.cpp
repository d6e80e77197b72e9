// `schedsim merge`: joins the shard files of one sweep into the file an unsharded run writes.
#include <iostream>

#include "../command.hpp"
#include "schedsim/driver/sweep_params.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/sweep/jsonl.hpp"

namespace schedsim::cli {

int run_merge(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "merge", vm)) return kExitOk;
  if (!vm.count("inputs")) throw po::error("no input files (schedsim merge SHARD.jsonl... -o ALL.jsonl)");
  if (!vm.count("output")) throw po::error("the option '--output' is required (where the merged records go)");
  std::string summary = vm["summary"].as<std::string>();
  std::string output = vm["output"].as<std::string>();
  check_records_output(output, "merge");
  std::vector<std::string> lines = sweep::merge_results(vm["inputs"].as<std::vector<std::string>>(), output);
  if (summary != "none") {
    sweep::ResultsFile merged = sweep::read_results(output);
    std::vector<std::string> warnings;
    std::cout << sweep::render_summary(merged.spec, merged.records, summary_options(summary), warnings);
    for (const auto& w : warnings) std::cerr << "schedsim: warning: " << log::brief(w) << "\n";
  }
  return kExitOk;
}

}  // namespace schedsim::cli
