// `schedsim compare BASE NEW`: two result files -> a before/after table with tests and verdicts;
// --fail-on turns it into a gate. Exit 0 = no gate tripped, 7 = a significant regression crossed
// a threshold, 1 = bad input, 2 = usage: a pipeline tells a regression from a broken file.
#include <iostream>

#include "../command.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/driver/compare.hpp"
#include "schedsim/metrics/compare.hpp"

namespace schedsim::cli {

int run_compare(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "compare", vm)) return kExitOk;
  if (!vm.count("base") || !vm.count("new")) throw po::error("compare needs two files: BASE and NEW");
  driver::CompareRequest req;
  if (vm.count("by")) req.by = vm["by"].as<std::vector<std::string>>();
  if (vm.count("ignore")) req.ignore = vm["ignore"].as<std::vector<std::string>>();
  req.allow_mismatch = vm["allow-mismatch"].as<bool>();
  if (vm.count("metrics")) req.metrics = vm["metrics"].as<std::string>();
  req.min_effect = vm["min-effect"].as<std::string>();
  req.alpha = vm["alpha"].as<double>();
  req.correction = vm["correction"].as<std::string>();
  req.confidence = vm["confidence"].as<double>();
  req.resamples = vm["resamples"].as<size_t>();
  req.seed = vm["seed"].as<uint64_t>();
  std::string format = vm.count("format") ? vm["format"].as<std::string>()
                                          : format_by_name(vm["output"].as<std::string>(),
                                                           {{".md", "markdown"}, {".json", "json"}, {".csv", "csv"}}, "table");
  if (vm.count("fail-on")) req.fail_on = vm["fail-on"].as<std::vector<std::string>>();
  const driver::CompareSetup setup = driver::compare_setup(req);

  refuse_output_over_inputs(vm["output"].as<std::string>(), {vm["base"].as<std::string>(), vm["new"].as<std::string>()});
  RecordFile base = load_record_file(vm["base"].as<std::string>());
  RecordFile next = load_record_file(vm["new"].as<std::string>());
  CompareResult c = compare_records(base, next, setup.options);
  std::string text = format == "markdown" ? render_compare_markdown(c)
                     : format == "json"   ? render_compare_json(c)
                     : format == "csv"    ? render_compare_csv(c)
                                          : render_compare_table(c);
  const driver::CompareVerdict verdict = driver::judge(c, setup.gates);
  for (const auto& w : verdict.warnings) std::cerr << "schedsim compare: warning: " << w << "\n";
  const GateOutcome& g = verdict.gates;
  if (!g.untestable.empty()) {
    // A condition on a row it cannot judge is a wrong option value (1), never a pass or a trip.
    for (const auto& u : g.untestable) std::cerr << "schedsim compare: error: " << u << "\n";
    return kExitInputError;
  }
  write_output(vm["output"].as<std::string>(), text);
  for (const auto& f : g.failures) std::cerr << "schedsim compare: FAIL " << f << "\n";
  if (!g.failures.empty()) return kExitGateTripped;
  if (!setup.gates.empty()) std::cerr << "schedsim compare: pass: " << setup.gates.size() << " --fail-on condition(s), no significant change crossed them\n";
  return kExitOk;
}

}  // namespace schedsim::cli
