// `schedsim merge`: joins the shard files of one sweep into the file an unsharded run writes.
#include <iostream>

#include "../command.hpp"
#include "schedsim/driver/sweep_params.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/sweep/jsonl.hpp"
#include "schedsim/sweep/summary.hpp"

namespace schedsim::cli {

namespace {

po::options_description merge_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("output,o", po::value<std::string>(), "the merged results file (written atomically; required)")
      ("summary", po::value<std::string>()->default_value("none"), "also print the sweep summary: table, csv, markdown or none");
  return d;
}

}  // namespace

std::string help_merge() {
  return format_help("schedsim merge SHARD.jsonl... -o ALL.jsonl",
                     "Joins the results files of `schedsim sweep --shard K/N` runs of one sweep. Checks that\n"
                     "every file holds the same spec (the header's spec hash) and that every (point,\n"
                     "repetition) is present exactly once, then writes the header and the records in order:\n"
                     "the same bytes an unsharded `schedsim sweep -o` writes.",
                     merge_options());
}

int run_merge(const std::vector<std::string>& args) {
  po::options_description d = merge_options();
  d.add_options()("inputs", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("inputs", -1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_merge)) return kExitOk;
  if (!vm.count("inputs")) throw po::error("no input files (schedsim merge SHARD.jsonl... -o ALL.jsonl)");
  if (!vm.count("output")) throw po::error("the option '--output' is required (where the merged records go)");
  refuse_empty_values(vm, {"output"}, "merge");
  std::string summary = vm["summary"].as<std::string>();
  if (summary != "table" && summary != "csv" && summary != "markdown" && summary != "none")
    throw InputError(SourceLoc{"--summary"}, unknown_choice_message("summary value", summary, {"table", "csv", "markdown", "none"}));
  std::string output = vm["output"].as<std::string>();
  if (output == "-") throw InputError(SourceLoc{"--output"}, "merge writes a file; '-' is not supported");
  if (gzip_name(output))
    throw InputError(SourceLoc{"--output"}, "merge writes plain JSON Lines, which sweep --resume and merge read back; "
                                            "name the file without .gz and compress it afterwards");
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
