// A sweep's spec from the command line's parts, its dry-run listing, and its Slurm jobs
// (sweep_params.hpp): what `schedsim sweep` does besides running points.
#include <filesystem>

#include <fmt/format.h>

#include "schedsim/base/error.hpp"
#include "schedsim/driver/sweep_params.hpp"
#include "schedsim/sweep/slurm.hpp"

namespace schedsim::driver {

sweep::Spec build_sweep_spec(const SweepSpecParts& parts) {
  sweep::Spec spec;
  if (!parts.spec_file.empty()) spec = sweep::load_spec_file(parts.spec_file);
  const sweep::Spec cli = sweep::spec_from_cli(parts.sets, parts.zips);
  for (const auto& [k, v] : cli.fixed) sweep::set_param(spec, k, {v}, cli.origin(k));
  for (const auto& a : cli.axes) {
    if (a.keys.size() == 1) {
      sweep::set_param(spec, a.keys[0], a.values[0], cli.origin(a.keys[0]));
      continue;
    }
    for (const auto& k : a.keys)
      for (const auto& existing : spec.keys())
        if (existing == k) throw InputError(SourceLoc{"--zip"}, "parameter '" + k + "' is also in the spec file");
    spec.axes.push_back(a);
    for (const auto& k : a.keys) spec.origins.emplace_back(k, cli.origin(k));
  }
  if (parts.input) sweep::set_param(spec, "input", {*parts.input}, "WORKLOAD argument");
  if (parts.repeat) spec.repeat = *parts.repeat;
  if (spec.repeat == 0) throw InputError(SourceLoc{"--repeat"}, "must be at least 1");
  if (parts.seed) spec.seed = *parts.seed;
  check_sweep_keys(spec);
  return spec;
}

std::string render_points(const sweep::Spec& spec, const std::vector<sweep::Point>& points) {
  std::string out = fmt::format("{} points x {} repetitions = {} runs; spec hash {}\n", points.size(), spec.repeat,
                                points.size() * spec.repeat, spec.hash());
  for (const auto& p : points) {
    std::string params;
    for (const auto& [k, v] : p.params) params += (params.empty() ? "" : " ") + k + "=" + sweep::sh_quote(v);
    out += fmt::format("{:>4}  seed {:016x}  {}\n", p.index, p.seed, p.label.empty() ? params : p.label);
  }
  return out;
}

namespace {

std::string self_exe() {
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("schedsim") : p.string();
}

// The state of a Slurm job while scontrol still remembers it, else "unknown".
std::string job_state(const std::string& id) {
  std::string state;
  try {
    sweep::run_program({"scontrol", "show", "job", "-o", id}, state);
  } catch (const InputError&) {
  }
  const size_t at = state.find("JobState=");
  return at == std::string::npos ? "unknown" : state.substr(at + 9, state.find(' ', at) - at - 9);
}

}  // namespace

std::optional<sweep::ResultsFile> sweep_on_slurm(const sweep::Spec& spec, size_t nr_points, const SlurmRequest& r) {
  namespace fs = std::filesystem;
  if (r.output.empty()) throw InputError(SourceLoc{"--slurm"}, "needs -o FILE (where the merge job writes the records)");
  sweep::SlurmOptions so;
  so.output = fs::absolute(r.output).lexically_normal().string();
  so.dir = fs::absolute(r.dir.empty() ? r.output + ".slurm" : r.dir).lexically_normal().string();
  so.exe = self_exe();
  so.workdir = fs::current_path().string();
  const uint64_t runs = static_cast<uint64_t>(nr_points) * spec.repeat;
  so.array_size = r.array_size ? *r.array_size : static_cast<uint32_t>(std::min<uint64_t>(runs, 100));
  if (so.array_size == 0 || so.array_size > runs)
    throw InputError(SourceLoc{"--array-size"}, fmt::format("must be between 1 and the number of runs ({})", runs));
  so.cpus_per_task = std::max(1u, r.cpus_per_task);
  so.partition = r.partition;
  std::error_code ec;
  if (fs::exists(so.output, ec))
    throw InputError(SourceLoc{r.output}, "exists; the merge job would not overwrite it: remove it or choose another -o");
  const sweep::SlurmFiles files = sweep::write_slurm_files(spec, so);
  r.say(fmt::format("wrote {} ({} shards of {} runs), {} and {}", files.array_script, so.array_size, runs,
                    files.merge_script, files.spec));
  if (!r.submit) {
    r.say(fmt::format("submit: jid=$(sbatch --parsable {}) && sbatch --dependency=afterok:$jid --kill-on-invalid-dep=yes {}",
                      sweep::sh_quote(files.array_script), sweep::sh_quote(files.merge_script)));
    return std::nullopt;
  }
  const sweep::Submitted s = sweep::submit_slurm(files, r.wait);
  r.say(fmt::format("submitted array job {} and merge job {} (afterok:{})", s.array_id, s.merge_id, s.array_id));
  if (!r.wait) return std::nullopt;
  // sbatch --wait exits 0 for a merge job cancelled because a shard failed (it never ran), so
  // the merged file is the evidence.
  if (s.merge_status != 0 || !fs::exists(so.output, ec))
    throw InputError(fmt::format("the merge job {} did not write {} (state {}, sbatch --wait exit {}): a shard failed? see {}/logs/",
                                 s.merge_id, r.output, job_state(s.merge_id), s.merge_status, so.dir));
  return sweep::read_results(so.output);
}

}  // namespace schedsim::driver
