#!/usr/bin/env bash
# A sweep run as a Slurm job array on a real one-node Slurm (scripts/slurm-local.sh: munged as
# the munge user, slurmctld, slurmd), merged by a dependent job, must equal the same sweep run
# locally byte for byte. The daemons are stopped by PID on exit, whatever happens.
# Exit 77 = skipped (not root, or the daemons cannot run in this sandbox), with the reason.
#   usage: slurm_sweep.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"

# Outside WORK_DIR (which is wiped above), so a run that was killed can still be stopped by PID.
# One Slurm per machine: runs of this test from several build trees wait for each other (the
# daemons' ports are fixed), and each starts from an empty job database, so jobs of a run that was
# killed cannot keep the node allocated ("alloc") and starve this run's array.
state=/tmp/schedsim-slurm-test
exec 9>/tmp/schedsim-slurm-test.lock
flock 9
"$src/scripts/slurm-local.sh" stop "$state" >/dev/null 2>&1 || true
rm -rf "$state/ctld" "$state/spool"
trap '"$src/scripts/slurm-local.sh" stop "$state" || true' EXIT
set +e
env_line=$("$src/scripts/slurm-local.sh" start "$state")
rc=$?
set -e
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || { echo "FAIL: scripts/slurm-local.sh start failed (exit $rc)"; exit 1; }
eval "$env_line"
sinfo

args=(--set "workload-gen=messaging --pipe --thread" --set gen.loops=5 --set gen.group=1,2,5
      --set placement=sis-fold-2018,sis-fold-opt --set jitter=5% --repeat 3 --progress never)

# 1. The local reference (18 runs).
"$schedsim" sweep "${args[@]}" --summary none -o local.jsonl

# 2. The same sweep as a 4-task array plus a merge job, submitted and waited for.
timeout 600 "$schedsim" sweep "${args[@]}" --slurm --array-size 4 -o slurm.jsonl --submit --wait > submit.out
cat submit.out
grep -q "^submitted array job [0-9]* and merge job [0-9]* (afterok:" submit.out || { echo "FAIL: no submission line"; exit 1; }
for k in 1 2 3 4; do
  f=slurm.jsonl.slurm/shards/shard-$k.jsonl
  [ -s "$f" ] || { echo "FAIL: shard $k wrote nothing"; cat slurm.jsonl.slurm/logs/shard-$k.out; exit 1; }
  head -1 "$f" | grep -q "\"shard\":\"$k/4\"" || { echo "FAIL: $f is not shard $k/4"; exit 1; }
done
cmp slurm.jsonl local.jsonl || { echo "FAIL: the merged Slurm records differ from the local run"; exit 1; }
# The summary printed after --wait is the local one.
"$schedsim" merge slurm.jsonl.slurm/shards/shard-{1,2,3,4}.jsonl -o remerged.jsonl --summary table > local-summary.txt
tail -n 7 submit.out | diff - local-summary.txt

# 3. A failed array task cancels the merge (afterok + --kill-on-invalid-dep) and --wait says so:
# shard 2 cannot write its file (a directory is in the way).
mkdir -p failing.jsonl.slurm/shards/shard-2.jsonl
set +e
timeout 600 "$schedsim" sweep "${args[@]}" --slurm --array-size 4 -o failing.jsonl --submit --wait > failing.out 2> failing.err
rc=$?
set -e
cat failing.out failing.err
[ $rc -eq 1 ] || { echo "FAIL: a failed shard gave exit $rc, expected 1"; exit 1; }
grep -q "did not write .*failing.jsonl (state CANCELLED" failing.err || { echo "FAIL: no cancelled-merge error"; exit 1; }
grep -q "is a directory" failing.jsonl.slurm/logs/shard-2.out || { echo "FAIL: shard 2's log does not say why"; exit 1; }
[ ! -e failing.jsonl ] || { echo "FAIL: a merged file exists although a shard failed"; exit 1; }
echo "ok: 18 runs as a 4-task Slurm array, merged, identical to the local sweep; a failed shard cancels the merge"
