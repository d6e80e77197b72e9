#!/usr/bin/env bash
# The classic SIS_FOLD study as one sweep: the optimized fold (sis-fold-opt) against the 2018 RFC
# (sis-fold-2018) on the 2-socket 40-CPU Xeon E5-2690 v2 with the 4.17 kernel's other policies,
# perf bench sched messaging with pipes and threads at 1, 2, 5, 10, 20 and 40 groups, 10
# repetitions each (seeds derived from the sweep seed, the point and the repetition; run-to-run
# noise as run --repeat models it: a 1% machine-speed factor per repetition and 5% jitter on every
# run()). 120 simulations on every CPU.
#
#   examples/sweep-fold.sh [SCHEDSIM] [LOOPS] [OUT.jsonl]
#
# SCHEDSIM defaults to build/cli/schedsim (scripts/demo.sh builds it); LOOPS (default 500) is
# --nr_loops per run (a few minutes on 2 CPUs); OUT (default sweep-fold.jsonl) keeps the records.
# Interrupted, it continues where it stopped when run again (--resume); finished, running it again
# only prints the table. Prints the summary as Markdown (the README's table).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/cli/schedsim}
loops=${2:-500}
out=${3:-sweep-fold.jsonl}
[ -x "$bin" ] || { echo "sweep-fold.sh: no schedsim at $bin (run scripts/demo.sh first)" >&2; exit 1; }
exec "$bin" sweep \
  --set workload-gen='messaging --pipe --thread' --set gen.loops="$loops" \
  --set topology=xeon-e5-2690v2 --set kernel=4.17 \
  --set placement=sis-fold-2018,sis-fold-opt --set gen.group=1,2,5,10,20,40 \
  --set jitter=5% --repeat 10 -o "$out" --resume --summary markdown
