#!/usr/bin/env bash
# Before/after table of two placement modules with repetitions: the 2018 SIS_FOLD idle search
# (sis-fold-2018) against the optimized one (sis-fold-opt) on perf bench sched messaging
# (--pipe --thread) at 1, 2, 5, 10, 20 and 40 groups on the 2-socket 40-CPU Xeon E5-2690 v2.
#
#   examples/compare-fold.sh [SCHEDSIM] [REPEATS] [LOOPS] [FORMAT]
#
# SCHEDSIM defaults to build/cli/schedsim (scripts/demo.sh builds it); REPEATS (default 10)
# repetitions per point with the default noise model (docs/compare.md); LOOPS (default 20)
# --nr_loops per run; FORMAT table (default), markdown, json or csv. Each point's repetitions are
# one `run --repeat --format jsonl`; the points of a side are concatenated into one JSON Lines file
# and `schedsim compare` matches them on their workload. Exit status is compare's.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/cli/schedsim}
reps=${2:-10}
loops=${3:-20}
format=${4:-table}
groups=(1 2 5 10 20 40)
[ -x "$bin" ] || { echo "compare-fold.sh: no schedsim at $bin (run scripts/demo.sh first)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for p in sis-fold-2018 sis-fold-opt; do
  for g in "${groups[@]}"; do
    "$bin" run --workload-gen "messaging --group $g --nr_loops $loops --pipe --thread" \
      --topology xeon-e5-2690v2 --kernel 6.12 --placement "$p" --repeat "$reps" \
      --progress never --format jsonl -o "$out/$p-$g.jsonl" &
    # At most nproc runs at once.
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
  done
done
wait
for p in sis-fold-2018 sis-fold-opt; do
  for g in "${groups[@]}"; do cat "$out/$p-$g.jsonl"; done > "$out/$p.jsonl"
done
"$bin" compare "$out/sis-fold-2018.jsonl" "$out/sis-fold-opt.jsonl" --format "$format"
