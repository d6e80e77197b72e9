#!/usr/bin/env bash
# The first half of scripts/demo.sh: the job schedsim is for. Two placement policies, the 6.12
# kernel's select_idle_sibling (sis-util, SIS_UTIL) and the optimized SIS_FOLD search
# (sis-fold-opt), each run 10 times on the same hackbench-like workload (perf bench sched
# messaging, 10 groups of 20 threads over pipes, 50 loops) on the modeled 40-CPU Xeon E5-2690 v2
# with the 6.12 profile, then `schedsim compare`: per metric the change of the mean, its bootstrap
# interval, Welch and Mann-Whitney p-values (Holm-corrected) and a verdict. About 2 s.
#   scripts/demo-compare.sh SCHEDSIM
set -euo pipefail
SCHEDSIM=${1:?usage: scripts/demo-compare.sh SCHEDSIM}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
W='messaging --group 10 --nr_loops 50 --pipe --thread'
for p in sis-util sis-fold-opt; do
  "$SCHEDSIM" run --workload-gen "$W" -t xeon-e5-2690v2 --kernel 6.12 --placement "$p" --repeat 10 \
    --progress never -q -o "$work/$p.jsonl"
done
echo "== sis-util (BASE) against sis-fold-opt (NEW): $W on xeon-e5-2690v2, kernel 6.12, 10 runs each"
"$SCHEDSIM" compare "$work/sis-util.jsonl" "$work/sis-fold-opt.jsonl" \
  --metrics benchmark_time,wakeup.p50,wakeup.p99,probes.mean,migrations | sed "s|$work/||g"
echo "== what the model predicts for that machine; how often such verdicts match published ones: docs/validation.md"
