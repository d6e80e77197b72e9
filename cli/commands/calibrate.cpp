// `schedsim calibrate`: options -> a CalibrateRequest -> calibrate() -> the cost file (atomic)
// and the fit report.
#include <iostream>
#include <optional>

#include <fmt/format.h>
#include <unistd.h>

#include "schedsim/driver/calibrate.hpp"
#include "../command.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/error.hpp"

namespace schedsim::cli {

int run_calibrate(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "calibrate", vm)) return kExitOk;
  if (!vm.count("input") && !vm.count("workload-gen"))
    throw po::error("give at least one TRACE to calibrate on, or --workload-gen SPEC --benchmark-time T");
  if (!vm.count("topology")) throw po::error("--topology is required: the machine the traces were recorded on");
  const bool check_only = vm["check-only"].as<bool>();
  if (!vm.count("output") && !check_only) throw po::error("--output is required: the cost file to write");
  const std::string progress = vm["progress"].as<std::string>();

  CalibrateRequest req;
  if (vm.count("input")) req.traces = vm["input"].as<std::vector<std::string>>();
  if (vm.count("workload-gen")) req.workload_gen = vm["workload-gen"].as<std::string>();
  if (vm.count("benchmark-time")) req.benchmark_time_ns = parse_benchmark_time(vm["benchmark-time"].as<std::string>());
  req.topology = vm["topology"].as<std::string>();
  if (vm.count("kernel")) req.kernel = vm["kernel"].as<std::string>();
  if (vm.count("cost")) req.costs = vm["cost"].as<std::vector<std::string>>();
  if (vm.count("fit")) req.fit = parse_fit_list(vm["fit"].as<std::string>());
  req.max_evals = vm["max-evals"].as<uint32_t>();
  req.seed = vm["seed"].as<uint64_t>();
  if (vm.count("prior")) req.priors = vm["prior"].as<std::vector<std::string>>();
  req.prior_weight = parse_prior_weight(vm["prior-weight"].as<std::string>());
  req.extract = trace_selection(vm);
  apply_run_options(vm, req.model, {std::string_view("jitter"), "slice", "preempt", "update-curr"}, "calibrate");
  req.smt_normalize = vm["smt-normalize"].as<bool>();
  const bool cross = vm["cross-validate"].as<bool>();
  if (check_only) {
    // The check fits nothing: an output file or a cross-validation would be a fit.
    if (vm.count("output"))
      throw InputError(SourceLoc{"--output"}, "not with --check-only: the check fits nothing and writes no cost file");
    if (cross) throw InputError(SourceLoc{"--cross-validate"}, "not with --check-only: the check fits nothing");
    const std::string format = vm.count("format") ? vm["format"].as<std::string>() : "text";
    const CalibrateCheck c = check_calibrate(req);
    for (const auto& n : c.notes) std::cerr << "schedsim: " << log::brief(n) << "\n";
    std::cout << render_calibrate_check(c, format);
    return c.all_usable() ? kExitOk : kExitRefused;
  }
  const std::string output = vm["output"].as<std::string>();

  check_cost_file_output(req, output);

  const bool show = progress == "always" || (progress == "auto" && isatty(STDERR_FILENO));
  if (show)
    req.progress = [](uint32_t n, uint32_t budget, double best) {
      if (n == 1 || n % 10 == 0 || n == budget)
        std::cerr << fmt::format("schedsim: calibrate: evaluation {}/{}, objective {:.4f}\n", n, budget, best);
    };
  if (cross) check_cross_validate(req);  // before the fit, not after it
  CalibrateResult r = calibrate(req);
  if (std::string why = fit_refusal(r); !why.empty()) {
    std::cout << render_calibration_report(r);
    throw InputError("calibrate: " + why);
  }
  std::optional<CrossValidation> cv;
  if (cross) cv = cross_validate(req);
  write_output(output, render_cost_file(r));
  std::cout << render_calibration_report(r);
  if (cv) std::cout << render_cross_validation(*cv);
  std::cout << fmt::format("\nwrote {} ({} parameter(s))\n", output, r.cost_json_keys.size());
  if (cv && cv->worse) std::cerr << "schedsim calibrate: warning: " << cross_validation_warning(*cv) << "\n";
  return kExitOk;
}

}  // namespace schedsim::cli
