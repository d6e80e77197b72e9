#pragma once
/// Slurm job arrays for sweeps (docs/sweep.md "On a Slurm cluster"): a directory with the
/// canonical spec, an array script whose task K runs `schedsim sweep --shard K/N`, and a merge
/// script submitted with --dependency=afterok on the array.
#include <string>
#include <vector>

#include "schedsim/sweep/spec.hpp"

namespace schedsim::sweep {

struct SlurmOptions {
  std::string dir;            ///< where spec.json, the scripts, shards/ and logs/ go
  std::string output;         ///< the merged results file
  std::string exe;            ///< absolute path of the schedsim binary the jobs run
  std::string workdir;        ///< the jobs cd here (relative paths in the spec resolve from it)
  uint32_t array_size = 0;    ///< number of shards (array tasks)
  unsigned cpus_per_task = 1; ///< each shard runs --jobs this many
  std::string partition;      ///< "" = the cluster's default
};

struct SlurmFiles {
  std::string spec, array_script, merge_script;
};

/// Writes (atomically) the spec and both scripts. Refuses (InputError) when `dir` already holds
/// the scripts of a different spec.
SlurmFiles write_slurm_files(const Spec& spec, const SlurmOptions& opts);

/// Runs a program (no shell) and returns its exit status; its stdout goes to `out`, stderr
/// passes through. Throws InputError when it cannot be started.
int run_program(const std::vector<std::string>& argv, std::string& out);

/// Submits the array, then the merge job with --dependency=afterok:<array id> and
/// --kill-on-invalid-dep=yes (so a failed shard cancels the merge instead of leaving it
/// pending); with `wait`, blocks until the merge job ends (sbatch --wait). Returns the two job ids
/// and the merge job's exit status (0 unless waiting). Throws InputError.
struct Submitted {
  std::string array_id, merge_id;
  int merge_status = 0;
};
Submitted submit_slurm(const SlurmFiles& files, bool wait);

/// Shell-quotes a word for a bash script.
std::string sh_quote(const std::string& word);

}  // namespace schedsim::sweep
