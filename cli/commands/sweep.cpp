// `schedsim sweep`: options -> a sweep::Spec -> points run in parallel through execute_run ->
// ordered JSON Lines records -> a summary. The logic lives in sweep/ and driver/src/sweep_params.cpp.
#include <iostream>
#include <optional>

#include <fmt/format.h>

#include "../command.hpp"
#include "schedsim/driver/sweep_params.hpp"
#include "schedsim/base/log.hpp"
#include "schedsim/base/progress_line.hpp"
#include "schedsim/base/error.hpp"
#include "schedsim/base/gzip.hpp"
#include "schedsim/sweep/executor.hpp"
#include "schedsim/sweep/summary.hpp"

namespace schedsim::cli {

namespace {

void print_summary(const sweep::Spec& spec, const std::vector<std::string>& records, const std::string& format) {
  if (format == "none") return;
  std::vector<std::string> warnings;
  std::cout << sweep::render_summary(spec, records, summary_options(format), warnings);
  std::cout.flush();
  for (const auto& w : warnings) std::cerr << "schedsim: warning: " << log::brief(w) << "\n";
}

// --slurm: writes the array job and the merge job; with --submit submits them, with --wait
// waits for the merge and prints the summary.
int run_on_slurm(const po::variables_map& vm, const sweep::Spec& spec, size_t nr_points, const std::string& output,
                 const std::string& summary) {
  if (vm.count("shard")) throw InputError(SourceLoc{"--slurm"}, "the array runs every shard; drop --shard");
  SlurmRequest r;
  r.output = output;
  if (vm.count("slurm-dir")) r.dir = vm["slurm-dir"].as<std::string>();
  if (vm.count("array-size")) r.array_size = vm["array-size"].as<uint32_t>();
  if (vm.count("jobs")) r.cpus_per_task = vm["jobs"].as<unsigned>();
  if (vm.count("partition")) r.partition = vm["partition"].as<std::string>();
  r.submit = vm["submit"].as<bool>();
  r.wait = vm["wait"].as<bool>();
  r.say = [](const std::string& line) { std::cout << line << "\n" << std::flush; };
  if (auto merged = sweep_on_slurm(spec, nr_points, r)) print_summary(merged->spec, merged->records, summary);
  return kExitOk;
}

}  // namespace

int run_sweep(const std::vector<std::string>& args) {
  po::variables_map vm;
  if (!parse_command(args, "sweep", vm)) return kExitOk;
  const std::string summary = vm["summary"].as<std::string>();
  const std::string progress = vm["progress"].as<std::string>();

  SweepSpecParts parts;
  if (vm.count("spec")) parts.spec_file = vm["spec"].as<std::string>();
  if (vm.count("set")) parts.sets = vm["set"].as<std::vector<std::string>>();
  if (vm.count("zip")) parts.zips = vm["zip"].as<std::vector<std::string>>();
  if (vm.count("input")) parts.input = vm["input"].as<std::string>();
  if (vm.count("repeat")) parts.repeat = vm["repeat"].as<uint32_t>();
  if (vm.count("seed")) parts.seed = vm["seed"].as<uint64_t>();
  const sweep::Spec spec = build_sweep_spec(parts);
  std::vector<sweep::Point> points = sweep::expand(spec);
  if (vm["dry-run"].as<bool>()) {
    std::cout << render_points(spec, points);
    return kExitOk;
  }
  for (const auto& n : validate_points(points, spec.repeat)) std::cerr << "schedsim: " << n << "\n";

  const std::string output = vm.count("output") ? vm["output"].as<std::string>() : "";
  check_records_output(output, "sweep");
  if (vm["slurm"].as<bool>()) return run_on_slurm(vm, spec, points.size(), output, summary);

  SweepRunOptions so;
  so.output = output;
  so.resume = vm["resume"].as<bool>();
  if (vm.count("shard")) so.shard = sweep::parse_shard(vm["shard"].as<std::string>(), "--shard");
  so.jobs = vm.count("jobs") ? vm["jobs"].as<unsigned>() : sweep::available_cpus();
  if (so.jobs == 0) throw InputError(SourceLoc{"--jobs"}, "must be at least 1");
  std::cerr << sweep::jobs_cap_note(so.jobs);
  so.on_note = [](const std::string& note) { std::cerr << "schedsim: " << note << "\n"; };
  SweepRunResult res;
  {
    std::optional<ProgressLine> bar;  // ended (a newline) before anything else is printed
    so.on_progress = [&](size_t runs_done, size_t runs, size_t points_done, size_t nr_points) {
      if (!bar) bar.emplace(progress, "sweep", runs, runs_done);
      bar->update(runs_done, fmt::format("{}/{} points", points_done, nr_points));
    };
    res = execute_sweep(spec, points, so);
  }
  if (res.signal) {
    if (output.empty())
      std::cerr << "schedsim: " << res.interrupted << "; no output written\n";
    else
      std::cerr << fmt::format("schedsim: {}; {} of {} runs are in {} (whole records): continue with --resume\n",
                               res.interrupted, res.runs_written, res.runs, output);
    return 128 + res.signal;
  }
  print_summary(spec, res.records, summary);
  return kExitOk;
}

}  // namespace schedsim::cli
