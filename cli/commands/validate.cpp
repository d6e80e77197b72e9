// `schedsim validate [DIR|FILE...]`: runs the validation corpus (validation/README.md) and sets
// every simulated before/after beside the published one (docs/validation.md).
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/driver/run.hpp"
#include "schedsim/base/error.hpp"
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

  std::vector<std::string> inputs;
  if (vm.count("input")) {
    inputs = vm["input"].as<std::vector<std::string>>();
  } else {
    std::error_code ec;
    if (!fs::is_directory("validation", ec))
      throw po::error("no corpus given and no ./validation directory here: name the corpus directory or files");
    inputs = {"validation"};
  }
  const std::string half = vm["half"].as<std::string>();
  const std::string output = vm["output"].as<std::string>();
  const std::string format = vm.count("format") ? vm["format"].as<std::string>()
                                                : format_by_name(output, {{".json", "json"}, {".html", "html"}}, "markdown");
  const uint32_t repeat = vm["repeat"].as<uint32_t>();
  if (repeat < 2 || repeat > 1000)
    throw po::error(fmt::format("--repeat {} is out of range; allowed 2..1000 (a verdict needs repetitions on each side)", repeat));
  const uint64_t seed = vm["seed"].as<uint64_t>();
  const std::vector<std::string> costs = vm.count("cost") ? vm["cost"].as<std::vector<std::string>>() : std::vector<std::string>{};
  for (const auto& c : costs)
    if (c.empty()) throw po::error("--cost '' is empty; expected NAME=VALUE or a cost file");
  const std::string progress = vm["progress"].as<std::string>();
  unsigned jobs = vm.count("jobs") ? vm["jobs"].as<unsigned>() : sweep::available_cpus();
  if (jobs == 0) throw po::error("--jobs must be at least 1");
  std::cerr << sweep::jobs_cap_note(jobs);

  std::vector<Entry> corpus = driver::read_corpus(inputs);
  std::vector<std::string> input_files;
  input_files.reserve(corpus.size());
  for (const auto& e : corpus) input_files.push_back(e.path);
  add_spec_and_cost_files(input_files, "", costs);
  refuse_output_over_inputs(output, input_files, "--output");
  select_entries(corpus, vm.count("filter") ? std::optional<std::string>(vm["filter"].as<std::string>()) : std::nullopt, half);
  // --gen-option GEN:OPTIONS: a model switch of one generator for the whole corpus (the
  // messaging channel model, say), so the halves can be run under each model side by side.
  ValidationOptions vo;
  if (vm.count("gen-option")) vo.gen_options = parse_gen_options(corpus, vm["gen-option"].as<std::vector<std::string>>());
  if (vm["list"].as<bool>()) {
    write_output(output, driver::render_list(corpus));
    return kExitOk;
  }

  vo.repeat = repeat;
  vo.seed = seed;
  vo.costs = costs;
  vo.jobs = jobs;
  const bool show = progress == "always" || (progress == "auto" && ::isatty(2));
  vo.on_progress = [show](size_t delivered, size_t total) {
    if (show && (delivered == total || delivered % 10 == 0))
      std::cerr << fmt::format("\rschedsim validate: {}/{} runs", delivered, total) << (delivered == total ? "\n" : "")
                << std::flush;
  };
  ValidationRun run;
  try {
    CooperativeInterrupts interrupts;
    run = run_corpus(corpus, vo);
  } catch (const Interrupted& e) {
    std::cerr << "\nschedsim: " << e.what() << "; no output written\n";
    return 128 + e.signal();
  }
  driver::RenderOptions ro;
  ro.repeat = repeat;
  ro.seed = seed;
  ro.version = kSchedsimVersion;
  ro.half = half;
  ro.costs = costs;
  for (const auto& [gen, opts] : vo.gen_options) ro.gen_options.push_back(gen + ":" + opts);
  const std::string text = format == "json" ? driver::render_json(run.rows, ro)
                           : format == "html" ? driver::render_html(run.rows, ro)
                                              : driver::render_markdown(run.rows, ro);
  write_output(output, text);
  // The runs' caveats once each, with how many runs gave them.
  for (const auto& [n, count] : run.note_counts) std::cerr << fmt::format("schedsim: {} ({} runs)\n", n, count);
  if (run.any_failed) {
    std::cerr << "schedsim: some rows' simulations did not complete; they are reported as failed and left out of the goals\n";
    return kExitIncomplete;
  }
  return kExitOk;
}

}  // namespace schedsim::cli
