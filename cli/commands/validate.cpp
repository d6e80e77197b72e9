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

namespace {

namespace fs = std::filesystem;
using driver::Entry;

po::options_description validate_options() {
  po::options_description d = option_group("options");
  d.add_options()
      ("half", po::value<std::string>()->default_value("all"), "dev (commit ids starting with an even hex digit), val (odd) or all")
      ("filter", po::value<std::string>(), "only entries whose file name or commit matches this regular expression")
      ("repeat,r", po::value<uint32_t>()->default_value(5), "repetitions per side and row, with run --repeat's noise model (2..1000)")
      ("seed", po::value<uint64_t>()->default_value(1), "base seed of the repetitions and of the bootstrap")
      ("jobs,j", po::value<unsigned>(), "simulations at once (default: the CPUs this process may use; at most 4 per CPU)")
      ("format,f", po::value<std::string>(), "markdown, json or html (default: by -o's extension, .json or .html, else markdown)")
      ("output,o", po::value<std::string>()->default_value("-"), "write here (atomically) instead of stdout")
      ("cost", po::value<std::vector<std::string>>()->composing(), "NAME=VALUE or a cost file, as run --cost, for every run (after each machine's cost profile); the report names them")
      ("gen-option", po::value<std::vector<std::string>>()->composing(), "GEN:OPTIONS, repeatable: OPTIONS appended to the spec of every row whose generator is GEN (e.g. 'messaging:--channel-model pipe'); the report names them")
      ("list", po::bool_switch(), "list the corpus (entries, halves, machine families, benchmarks) without running it")
      ("progress", po::value<std::string>()->default_value("auto"), "auto (on a terminal), always or never: runs done on stderr");
  return d;
}

const char* kDescription =
    "Runs the validation corpus: per published before/after table of a merged scheduler change\n"
    "(one JSON file each, validation/README.md), every row's benchmark on the entry's machine under\n"
    "the two kernels' run options, --repeat times per side with run --repeat's noise model, and\n"
    "sets the simulated change (mean after / mean before - 1, 95% bootstrap interval) and its\n"
    "verdict beside the published change and verdict. The summary counts, per half, the rows whose\n"
    "published change exceeds its published noise, how many verdicts agree and how many changes are\n"
    "within 30% (or 2 percentage points) of the published size; also curves over a parameter.\n"
    "The corpus is split once by commit id: even first hex digit = development, odd = validation;\n"
    "the validation half is for reporting only (docs/validation.md).\n"
    "DIR defaults to ./validation. Same inputs and seed, same output, whatever --jobs.\n\n"
    "exit status: 0 every row simulated; 4 a row's simulation did not complete (the report says\n"
    "which, and the row is left out of the goals); 1 bad input; 2 usage.\n\n"
    "examples:\n"
    "  schedsim validate --list\n"
    "  schedsim validate --half dev --repeat 5 -o validation-dev.md\n"
    "  schedsim validate validation/cluster-scan-8881e1639f1f-kunpeng920-node0.json -o v.html";

}  // namespace

std::string help_validate() {
  return format_help("schedsim validate [DIR|FILE...] [options]", kDescription, validate_options());
}

int run_validate(const std::vector<std::string>& args) {
  po::options_description d = validate_options();
  d.add_options()("input", po::value<std::vector<std::string>>(), "");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  if (!parse_args(args, d, pos, vm, help_validate)) return kExitOk;
  refuse_empty_values(vm, {"half", "filter", "format", "output", "progress"}, "validate");

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
  if (half != "dev" && half != "val" && half != "all")
    throw po::error(unknown_choice_message("--half", half, {"dev", "val", "all"}));
  const std::string output = vm["output"].as<std::string>();
  std::string format;
  if (vm.count("format")) {
    format = vm["format"].as<std::string>();
    if (format != "markdown" && format != "json" && format != "html")
      throw po::error(unknown_choice_message("--format", format, {"markdown", "json", "html"}));
  } else {
    format = output.ends_with(".json") ? "json" : output.ends_with(".html") ? "html" : "markdown";
  }
  const uint32_t repeat = vm["repeat"].as<uint32_t>();
  if (repeat < 2 || repeat > 1000)
    throw po::error(fmt::format("--repeat {} is out of range; allowed 2..1000 (a verdict needs repetitions on each side)", repeat));
  const uint64_t seed = vm["seed"].as<uint64_t>();
  const std::vector<std::string> costs = vm.count("cost") ? vm["cost"].as<std::vector<std::string>>() : std::vector<std::string>{};
  for (const auto& c : costs)
    if (c.empty()) throw po::error("--cost '' is empty; expected NAME=VALUE or a cost file");
  const std::string progress = vm["progress"].as<std::string>();
  if (progress != "auto" && progress != "always" && progress != "never")
    throw po::error(unknown_choice_message("--progress", progress, {"auto", "always", "never"}));
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
