// `schedsim validate [DIR|FILE...]`: runs the validation corpus (validation/README.md) and sets
// every simulated before/after beside the published one (docs/validation.md).
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/progress_line.hpp"
#include "schedsim/base/run_control.hpp"
#include "schedsim/driver/validation.hpp"
#include "schedsim/driver/validation_run.hpp"
#include "schedsim/sweep/executor.hpp"

namespace schedsim::cli {

namespace fs = std::filesystem;
using driver::Entry;

int run_validate(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "validate", vm)) return kExitOk;

  ValidateRequest req;
  if (vm.count("input")) {
    req.inputs = vm["input"].as<std::vector<std::string>>();
  } else if (std::error_code ec; !fs::is_directory("validation", ec)) {
    throw po::error("no corpus given and no ./validation directory here: name the corpus directory or files");
  }
  req.half = vm["half"].as<std::string>();
  if (vm.count("filter")) req.filter = vm["filter"].as<std::string>();
  if (vm.count("gen-option")) req.gen_options = vm["gen-option"].as<std::vector<std::string>>();
  req.output = vm["output"].as<std::string>();
  req.run.repeat = vm["repeat"].as<uint32_t>();
  req.run.seed = vm["seed"].as<uint64_t>();
  if (vm.count("cost")) req.run.costs = vm["cost"].as<std::vector<std::string>>();
  req.run.jobs = vm.count("jobs") ? vm["jobs"].as<unsigned>() : sweep::available_cpus();
  std::cerr << sweep::jobs_cap_note(req.run.jobs);
  const std::vector<Entry> corpus = prepare_validation(req);
  if (vm["list"].as<bool>()) {
    write_output(req.output, driver::render_list(corpus));
    return kExitOk;
  }
  const std::string format = vm.count("format") ? vm["format"].as<std::string>()
                                                : format_by_name(req.output, {{".json", "json"}, {".html", "html"}}, "markdown");
  const std::string progress = vm["progress"].as<std::string>();
  std::optional<ProgressLine> bar;
  req.run.on_progress = [&](size_t delivered, size_t total) {
    if (!bar) bar.emplace(progress, "validate", total);
    bar->update(delivered);
  };
  ValidationRun run;
  try {
    CooperativeInterrupts interrupts;
    run = run_corpus(corpus, req.run);
    bar.reset();
  } catch (const Interrupted& e) {
    bar.reset();
    std::cerr << "schedsim: " << e.what() << "; no output written\n";
    return 128 + e.signal();
  }
  write_output(req.output, render_validation(run, req, format));
  // The runs' caveats once each, with how many runs gave them.
  for (const auto& [n, count] : run.note_counts) std::cerr << fmt::format("schedsim: {} ({} runs)\n", n, count);
  if (run.any_failed) {
    std::cerr << "schedsim: some rows' simulations did not complete or gave no figure; they are reported as failed and left out of the goals\n";
    return kExitIncomplete;
  }
  return kExitOk;
}

}  // namespace schedsim::cli
