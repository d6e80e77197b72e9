// Slurm job-array scripts and their submission with sbatch.
#include "schedsim/sweep/slurm.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "schedsim/base/atomic_file.hpp"
#include "schedsim/base/error.hpp"

extern char** environ;

namespace schedsim::sweep {

std::string sh_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.,:/=%+@") == std::string::npos)
    return a;
  std::string q = "'";
  for (char c : a) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

SlurmFiles write_slurm_files(const Spec& spec, const SlurmOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(o.dir) / "shards", ec);
  if (!ec) fs::create_directories(fs::path(o.dir) / "logs", ec);
  if (ec) throw InputError(SourceLoc{o.dir}, "cannot create the Slurm directory: " + ec.message());
  SlurmFiles f;
  f.spec = (fs::path(o.dir) / "spec.json").string();
  f.array_script = (fs::path(o.dir) / "array.sbatch").string();
  f.merge_script = (fs::path(o.dir) / "merge.sbatch").string();
  std::string spec_text = spec.to_json().dump(2) + "\n";
  if (fs::exists(f.spec, ec)) {
    std::ifstream in(f.spec, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    if (ss.str() != spec_text)
      throw InputError(SourceLoc{f.spec}, "this Slurm directory holds another sweep's spec; choose another --slurm-dir or remove it");
  }
  std::string name = "schedsim-sweep-" + spec.hash().substr(0, 8);
  std::string dir = sh_quote(o.dir);
  std::string common = fmt::format(
      "#!/bin/bash\n"
      "# Written by `schedsim sweep --slurm` for the spec in {spec} (hash {hash}).\n",
      fmt::arg("spec", f.spec), fmt::arg("hash", spec.hash()));
  std::string part = o.partition.empty() ? "" : "#SBATCH --partition=" + o.partition + "\n";
  std::string array = common + fmt::format(
      "# Array task K runs shard K of {n}; rerunning a task resumes its shard (--resume).\n"
      "#SBATCH --job-name={name}\n"
      "#SBATCH --array=1-{n}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task={cpus}\n"
      "#SBATCH --output={logs}/shard-%a.out\n"
      "{part}"
      "set -euo pipefail\n"
      "cd {workdir}\n"
      "exec {exe} sweep --spec {spec} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" --jobs \"${{SLURM_CPUS_PER_TASK:-{cpus}}}\" \\\n"
      "  --resume --progress never --summary none -o {dir}/shards/shard-\"${{SLURM_ARRAY_TASK_ID}}\".jsonl\n",
      fmt::arg("name", name), fmt::arg("n", o.array_size), fmt::arg("cpus", o.cpus_per_task),
      fmt::arg("logs", sh_quote((fs::path(o.dir) / "logs").string())), fmt::arg("part", part),
      fmt::arg("workdir", sh_quote(o.workdir)), fmt::arg("exe", sh_quote(o.exe)), fmt::arg("spec", sh_quote(f.spec)),
      fmt::arg("dir", dir));
  std::string shards;
  for (uint32_t k = 1; k <= o.array_size; ++k) shards += " \\\n  " + sh_quote(fmt::format("{}/shards/shard-{}.jsonl", o.dir, k));
  std::string merge = common + fmt::format(
      "# Submitted with --dependency=afterok:<array job>: runs once every shard succeeded.\n"
      "#SBATCH --job-name={name}-merge\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --output={logs}/merge.out\n"
      "{part}"
      "set -euo pipefail\n"
      "cd {workdir}\n"
      "exec {exe} merge -o {output}{shards}\n",
      fmt::arg("name", name), fmt::arg("logs", sh_quote((fs::path(o.dir) / "logs").string())), fmt::arg("part", part),
      fmt::arg("workdir", sh_quote(o.workdir)), fmt::arg("exe", sh_quote(o.exe)), fmt::arg("output", sh_quote(o.output)),
      fmt::arg("shards", shards));
  write_file_atomic(f.spec, spec_text, "sweep spec");
  write_file_atomic(f.array_script, array, "Slurm array script");
  write_file_atomic(f.merge_script, merge, "Slurm merge script");
  return f;
}

int run_program(const std::vector<std::string>& argv, std::string& out) {
  int pipefd[2];
  if (::pipe(pipefd) != 0) throw InputError(std::string("cannot create a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  posix_spawn_file_actions_addclose(&fa, pipefd[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(pipefd[1]);
  if (rc != 0) {
    ::close(pipefd[0]);
    throw InputError(fmt::format("cannot run {}: {}", argv[0], std::strerror(rc)));
  }
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(pipefd[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

namespace {

std::string job_id(const std::string& parsable, const std::string& what) {
  // --parsable prints "ID" or "ID;CLUSTER".
  std::string id = parsable.substr(0, parsable.find_first_of(";\n"));
  if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw InputError(fmt::format("sbatch did not print a job id for the {} (got '{}')", what, parsable));
  return id;
}

}  // namespace

Submitted submit_slurm(const SlurmFiles& files, bool wait) {
  Submitted s;
  std::string out;
  int rc = 0;
  try {
    rc = run_program({"sbatch", "--parsable", files.array_script}, out);
  } catch (const InputError&) {
    throw InputError("cannot run sbatch (is Slurm installed here?); the scripts are written: submit " + files.array_script +
                     ", then " + files.merge_script + " with --dependency=afterok:<array job id>");
  }
  if (rc != 0) throw InputError(fmt::format("sbatch {} failed (exit {})", files.array_script, rc));
  s.array_id = job_id(out, "array job");
  out.clear();
  std::vector<std::string> argv = {"sbatch", "--parsable", "--dependency=afterok:" + s.array_id, "--kill-on-invalid-dep=yes"};
  if (wait) argv.push_back("--wait");
  argv.push_back(files.merge_script);
  rc = run_program(argv, out);
  if (!out.empty()) s.merge_id = job_id(out, "merge job");
  if (rc != 0 && s.merge_id.empty()) throw InputError(fmt::format("sbatch {} failed (exit {})", files.merge_script, rc));
  s.merge_status = rc;
  return s;
}

}  // namespace schedsim::sweep
