#!/usr/bin/env bash
# `schedsim compare` reads sweep files: two sweeps of the same grid that differ only in the
# placement module (the `prev` baseline against sis-fold-2018, 6 repetitions of 1 and 2 messaging
# groups on a 2x2 SMT machine) are matched point by point through the record each sweep line
# embeds; `prev` is known to lengthen the makespan by far more than the noise (about +90%), so
# the gate must trip (exit 7) and a gate on the same file against itself must pass (exit 0).
#   usage: sweep_compare.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"

grid=(--set "workload-gen=messaging --pipe --thread --nr_loops 5" --set gen.group=1,2 --set topology=smt2x2
      --set jitter=5% --repeat 6 --jobs 2 --progress never --summary none)
"$schedsim" sweep "${grid[@]}" --set placement=sis-fold-2018 -o base.jsonl
"$schedsim" sweep "${grid[@]}" --set placement=prev -o new.jsonl

rc=0
"$schedsim" compare base.jsonl new.jsonl --fail-on 'makespan>+5%' > cmp.txt 2> cmp.err || rc=$?
cat cmp.txt cmp.err
[ "$rc" = 7 ] || { echo "FAIL: expected the makespan gate to trip (exit 7), got $rc"; exit 1; }
grep -q '^point 2/2: ' cmp.txt || { echo "FAIL: expected two matched points"; exit 1; }
grep -Eq '^ +new +6 .* regressed$' cmp.txt || { echo "FAIL: expected a regressed row with 6 repetitions"; exit 1; }

rc=0
"$schedsim" compare base.jsonl base.jsonl --fail-on 'makespan>+5%' > same.txt 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat same.txt; echo "FAIL: a sweep against itself must pass the gate, got $rc"; exit 1; }
echo "sweep files compared: gate tripped on prev, passed on itself"
