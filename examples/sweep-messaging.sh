#!/usr/bin/env bash
# A parameter sweep: perf bench sched messaging (hackbench) at 1, 2, 5, 10, 20 and 40 groups on
# the 2-socket 40-CPU Xeon E5-2690 v2, for two placement modules, printed as one table.
#
#   examples/sweep-messaging.sh [SCHEDSIM] [LOOPS]
#
# SCHEDSIM defaults to build/cli/schedsim (scripts/demo.sh builds it); LOOPS (default 20) is
# --nr_loops per run. Runs go in parallel, one per CPU; each writes CSV that is merged at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/cli/schedsim}
loops=${2:-20}
placements=(sis-util sis-fold-opt)
groups=(1 2 5 10 20 40)
[ -x "$bin" ] || { echo "sweep-messaging.sh: no schedsim at $bin (run scripts/demo.sh first)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

jobs=()
for p in "${placements[@]}"; do
  for g in "${groups[@]}"; do
    "$bin" run --workload-gen "messaging --group $g --nr_loops $loops --pipe" \
      --topology xeon-e5-2690v2 --kernel 6.12 --placement "$p" --label "$p g=$g" \
      --progress never --format csv -o "$out/$p-$g.csv" &
    jobs+=($!)
    # At most nproc runs at once.
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
  done
done
for j in "${jobs[@]}"; do wait "$j"; done

printf '%-14s %6s %12s %12s %12s %12s %10s\n' placement groups makespan_ms wake_p50_us wake_p99_us probes_mean migrations
for p in "${placements[@]}"; do
  for g in "${groups[@]}"; do
    awk -F, -v p="$p" -v g="$g" '
      $2=="summary" && $4=="makespan_ns" {ms=$5/1e6}
      $2=="latency_ns" && $3=="wakeup" && $4=="p50" {p50=$5/1e3}
      $2=="latency_ns" && $3=="wakeup" && $4=="p99" {p99=$5/1e3}
      $2=="placement" && $3=="probes" && $4=="mean" {pr=$5}
      $2=="summary" && $4=="migrations" {mig=$5}
      END {printf "%-14s %6d %12.3f %12.2f %12.2f %12.2f %10d\n", p, g, ms, p50, p99, pr, mig}' "$out/$p-$g.csv"
  done
done
