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

namespace {

po::options_description compare_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("by", po::value<std::vector<std::string>>()->composing(), "match points on these parameters only (comma-separated or repeated); default: every parameter but module.*, feature.*, cost.*, seed, label")
      ("ignore", po::value<std::vector<std::string>>()->composing(), "drop these parameters from matching and from the consistency checks")
      ("allow-mismatch", po::bool_switch(), "compare points whose workload, workload_source, topology, nr_cpus, noise, workload_hash or topology_hash differ (printed as a note)")
      ("metrics", po::value<std::string>(), "comma-separated metrics to compare, or 'all' (default: makespan, benchmark_time where every record has one, wakeup.mean/p50/p99, runqueue_wait.mean/p99, probes.mean, migrations)")
      ("min-effect", po::value<std::string>()->default_value("1%"), "smallest |change| that can be a verdict")
      ("alpha", po::value<double>()->default_value(0.05, "0.05"), "significance level after correction")
      ("correction", po::value<std::string>()->default_value("holm"), "multiple-comparison correction: holm (family-wise) or bh (Benjamini-Hochberg, false discovery rate)")
      ("confidence", po::value<double>()->default_value(0.95, "0.95"), "bootstrap interval level")
      ("resamples", po::value<size_t>()->default_value(2000), "bootstrap resamples (100 to 1000000)")
      ("seed", po::value<uint64_t>()->default_value(1), "bootstrap seed (same seed, same output)")
      ("fail-on", po::value<std::vector<std::string>>()->composing(), "exit 7 when a significant change crosses this, e.g. 'wakeup.p99>+5%' (repeatable)")
      ("format,f", po::value<std::string>(), "table, markdown, json or csv (default: the -o name's extension: .md, .json, .csv, each also .gz; else table)")
      ("output,o", po::value<std::string>()->default_value("-"), "write here (atomically) instead of stdout");
  return d;
}

const char* kDescription =
    "Compares two result files point by point: `run` JSON (with or without --repeat) or JSON Lines\n"
    "records (run --format jsonl). Per metric: count, mean, std, min, p50, p99, max on each side, the\n"
    "change of the mean in % with a bootstrap confidence interval, Welch's t and Mann-Whitney U\n"
    "p-values corrected for the number of rows (Holm by default), and a verdict: improved, regressed,\n"
    "changed (no better direction) or no significant change. With one run per side it compares the\n"
    "latency histograms (percentile changes with bootstrap intervals, Kolmogorov-Smirnov) and says\n"
    "that run-to-run noise is not covered. docs/compare.md explains every column.\n\n"
    "exit status: 0 no --fail-on tripped, 7 a significant change crossed a --fail-on threshold,\n"
    "1 bad input (unmatched points, mismatched setups, missing metrics, malformed files, a --fail-on\n"
    "on a row without repetitions), 2 usage (unknown option, missing argument).\n\n"
    "examples:\n"
    "  schedsim run --repeat 10 --placement sis-fold-2018 --workload-gen 'messaging -g 4' -o base.jsonl\n"
    "  schedsim run --repeat 10 --placement sis-fold-opt --workload-gen 'messaging -g 4' -o new.jsonl\n"
    "  schedsim compare base.jsonl new.jsonl -o table.md --fail-on 'wakeup.p99>+5%'";

int compare_main(const po::variables_map& vm) {
  if (!vm.count("base") || !vm.count("new")) throw po::error("compare needs two files: BASE and NEW");
  refuse_empty_values(vm, {"metrics", "output"}, "compare");
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
  if (format != "table" && format != "markdown" && format != "json" && format != "csv")
    throw InputError(SourceLoc{"--format"}, unknown_choice_message("format", format, {"table", "markdown", "json", "csv"}));
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

}  // namespace

std::string help_compare() {
  return format_help("schedsim compare BASE NEW [options]", kDescription, compare_options());
}

int run_compare(const std::vector<std::string>& args) {
  po::options_description d = compare_options();
  d.add_options()("base", po::value<std::string>(), "")("new", po::value<std::string>(), "");
  po::positional_options_description pos;
  pos.add("base", 1).add("new", 1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_compare)) return kExitOk;
  try {
    return compare_main(vm);
  } catch (const InputError& e) {
    std::cerr << e.render() << "\n";
    return kExitInputError;
  }
}

}  // namespace schedsim::cli
