#!/bin/bash
# Run-to-run variation of real workloads: for each workload recorded several times
# (files DIR/NAME.rN.ftrace.gz, as `schedsim record` was run for tests/data/traces/smp2-quiet/),
# prints the observed makespan, wakeups and wake-latency p50/p90/p99 of every repeat, their mean
# and coefficient of variation (sample standard deviation / mean), and which repeat is the median
# by makespan. The CV says how much of a simulated-vs-observed error one recording can be off by
# noise alone (docs/model.md, "Measurement caveats of the traces").
#
#   scripts/fidelity-repeats.sh SCHEDSIM DIR [TOPOLOGY] [KERNEL]   (defaults: smp2, 6.18)
#
# The observed figures come from the trace alone (the `observed` array of `run -f json`); the
# replay is only the means of reading them, so the topology and kernel do not change them.
# Workloads with fewer than two repeats are skipped. Deterministic. Requires python3.
set -euo pipefail
SCHEDSIM=${1:?usage: scripts/fidelity-repeats.sh SCHEDSIM DIR [TOPOLOGY] [KERNEL]}
DIR=${2:?usage: scripts/fidelity-repeats.sh SCHEDSIM DIR [TOPOLOGY] [KERNEL]}
TOPO=${3:-smp2}
K=${4:-6.18}
[ -x "$SCHEDSIM" ] || { echo "fidelity-repeats: $SCHEDSIM is not an executable" >&2; exit 2; }
[ -d "$DIR" ] || { echo "fidelity-repeats: $DIR is not a directory" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
manifest=$work/manifest.tsv
: >"$manifest"
shopt -s nullglob
for f in "$DIR"/*.r[0-9]*.ftrace.gz; do
  b=$(basename "$f" .ftrace.gz)
  name=${b%.r*}
  rep=${b##*.r}
  out=$work/$b.json
  "$SCHEDSIM" run "$f" -t "$TOPO" --kernel "$K" --progress never -f json -o "$out" 2>"$work/$b.err" ||
    { echo "fidelity-repeats: run failed on $f" >&2; cat "$work/$b.err" >&2; exit 1; }
  printf '%s\t%s\t%s\n' "$name" "$rep" "$out" >>"$manifest"
done
[ -s "$manifest" ] || { echo "fidelity-repeats: no NAME.rN.ftrace.gz files in $DIR" >&2; exit 2; }

python3 - "$manifest" <<'EOF'
import json, statistics, sys
from collections import defaultdict

runs = defaultdict(dict)
for line in open(sys.argv[1]):
    name, rep, path = line.rstrip("\n").split("\t")
    runs[name][int(rep)] = {o["metric"]: o["observed"] for o in json.load(open(path))["observed"]}

METRICS = [("makespan", "makespan_ns", True), ("wakeups", "wakeups", False),
           ("wake p50", "wakeup_latency.p50_ns", True), ("wake p90", "wakeup_latency.p90_ns", True),
           ("wake p99", "wakeup_latency.p99_ns", True)]


def fmt(v, t):
    if v is None:
        return "-"
    if not t:
        return f"{v:.0f}"
    return f"{v / 1e6:.2f} ms" if v >= 1e6 else f"{v / 1e3:.1f} us"


if not any(len(r) >= 2 for r in runs.values()):
    sys.exit("fidelity-repeats: no workload has two or more repeats (NAME.r1..., NAME.r2...)")
print("| workload | metric | " + " | ".join(f"r{r}" for r in (1, 2, 3)) + " | mean | CV |")
print("|---|---|---|---|---|---|---|")
for name in sorted(runs):
    reps = runs[name]
    if len(reps) < 2:
        continue
    keys = sorted(reps)
    for label, m, t in METRICS:
        vals = [reps[k].get(m) for k in keys]
        cells = [fmt(v, t) for v in vals] + ["-"] * (3 - len(vals))
        vs = [v for v in vals if v is not None]
        mean = statistics.fmean(vs) if vs else None
        cv = statistics.stdev(vs) / mean * 100 if len(vs) >= 2 and mean else None
        print(f"| {name} | {label} | " + " | ".join(cells[:3]) + f" | {fmt(mean, t)} | "
              + ("-" if cv is None else f"{cv:.0f}%") + " |")
    spans = sorted(keys, key=lambda k: reps[k]["makespan_ns"])
    print(f"| {name} | median repeat by makespan | r{spans[len(spans) // 2]} | | | | |")
EOF
