#!/bin/bash
# Token against recorded wake matching (run --wake-match, docs/traces.md "Wake matching") on every
# real recording in the repository: the wakeup count and makespan of each replay against the
# trace's, under each matching, with the machine's cost file and profile 6.18 (the fidelity
# tables' settings), and the sum over each group of traces.
#
#   scripts/analysis/wake_match.sh SCHEDSIM
#
# Recordings: the fidelity set (docs/fidelity.md: smp2-quiet, xeon-vm-16cpu and the loaded 2-vCPU
# fixtures), tests/data/traces/smp2-set (30) and tests/data/traces/syscalls (4). Prints two
# markdown tables on stdout: one row per recording, then the sums per group that docs/model.md
# quotes (checked by scripts/doc-figures.sh); takes about 10 s. Exit status 2 when a run fails.
set -euo pipefail
SCHEDSIM=${1:?usage: scripts/analysis/wake_match.sh SCHEDSIM}
[ -x "$SCHEDSIM" ] || { echo "wake_match: $SCHEDSIM is not an executable" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=scripts/lib/fidelity-traces.sh
. "$here/scripts/lib/fidelity-traces.sh"
S=$D/smp2-set

# name|trace|topology|selection|cost file: the fidelity set (its recordings without a group
# prefix are the loaded 2-vCPU fixtures), then the recorded set and the syscall recordings.
entries=()
for e in "${TRACES[@]}"; do
  IFS='|' read -r name trace topo sel _machine cost <<<"$e"
  [[ $name == quiet\ * || $name == xeon16\ * ]] || name="loaded $name"
  entries+=("$name|$trace|$topo|$sel|$cost")
done
for f in "$S"/*.ftrace.zst; do
  entries+=("set $(basename "$f" .ftrace.zst)|$f|smp2|$QB|$S/costs.json")
done
for f in "$D"/syscalls/*.ftrace.gz; do
  entries+=("syscalls $(basename "$f" .ftrace.gz)|$f|smp2||$Q/costs.json")
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
i=0
: >"$work/manifest"
for e in "${entries[@]}"; do
  IFS='|' read -r name trace topo sel cost <<<"$e"
  # shellcheck disable=SC2206
  sel_args=($sel)
  cost_args=()
  [ -n "$cost" ] && cost_args=(--cost "$cost")
  for m in token recorded; do
    if ! "$SCHEDSIM" run "$trace" -t "$topo" "${sel_args[@]}" --kernel 6.18 "${cost_args[@]}" --wake-match "$m" \
         --progress never -f json -o "$work/$i-$m.json" 2>"$work/$i-$m.err"; then
      echo "wake_match: run failed: $name --wake-match $m" >&2
      cat "$work/$i-$m.err" >&2
      exit 2
    fi
  done
  printf '%s\t%s\n' "$name" "$i" >>"$work/manifest"
  i=$((i + 1))
done

python3 - "$work" <<'EOF'
import json, sys
from collections import OrderedDict

work = sys.argv[1]


def observed(d, metric):
    for e in d.get("observed", []):
        if e["metric"] == metric:
            return int(e["observed"]), int(e["simulated"])
    return None, None


def pct(sim, obs):
    return "-" if not obs else f"{(sim - obs) / obs * 100:+.0f}%"


groups = OrderedDict()
LABELS = {"loaded": "loaded 2-vCPU guest", "quiet": "quiet 2-vCPU guest", "xeon16": "16-CPU guest",
          "set": "`smp2-set`", "syscalls": "`syscalls/`"}
print("| trace | wakeups | token | recorded | makespan | token | recorded |")
print("|---|---|---|---|---|---|---|")
for line in open(f"{work}/manifest"):
    name, i = line.rstrip("\n").split("\t")
    tok = json.load(open(f"{work}/{i}-token.json"))
    rec = json.load(open(f"{work}/{i}-recorded.json"))
    ow, tw = observed(tok, "wakeups")
    _, rw = observed(rec, "wakeups")
    om, tm = observed(tok, "makespan_ns")
    _, rm = observed(rec, "makespan_ns")
    print(f"| {name} | {ow} | {tw} ({pct(tw, ow)}) | {rw} ({pct(rw, ow)}) | {om / 1e6:.2f} ms | {pct(tm, om)} | {pct(rm, om)} |")
    g = groups.setdefault(name.split()[0], [0, 0, 0, 0, 0, 0])
    within = [abs(tw - ow) <= 0.15 * ow, abs(rw - ow) <= 0.15 * ow]
    for k, v in enumerate([ow, tw, rw, 1, within[0], within[1]]):
        g[k] += v
# The sums per group, as docs/model.md "Recorded wake matching" quotes them (scripts/doc-figures.sh).
print()
print("| recordings | wakeups in the traces | token | recorded | within 15%: token | recorded |")
print("|---|---|---|---|---|---|")
for name, (ow, tw, rw, n, wt, wr) in groups.items():
    print(f"| {LABELS[name]} ({n}) | {ow:,} | {tw:,} ({pct(tw, ow)}) | {rw:,} ({pct(rw, ow)}) | {wt} of {n} | {wr} of {n} |")
EOF
