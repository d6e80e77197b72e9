#!/bin/bash
# Fidelity baseline: replays the real traces bundled in tests/data/traces/ on the machine each
# was recorded on, with one or more kernel profiles, and prints a markdown table per trace of
# observed (what the real kernel did, from the trace) against simulated, with relative error.
#
#   scripts/fidelity.sh SCHEDSIM [KERNEL...]        (default kernel: 6.18, the traces' own)
#     SCHEDSIM  the schedsim binary to measure (e.g. build-ci/cli/schedsim)
#     KERNEL    --kernel profiles to replay with, one column group each
#   Each trace is replayed with its recording machine's cost file when it has one (the 16-CPU
#   guest: tests/data/traces/xeon-vm-16cpu/costs.json, its idle-wake model; the quiet 2-vCPU
#   recordings: tests/data/traces/smp2-quiet/costs.json, measured from their own idle and ipi
#   events; the loaded 2-vCPU traces have none); FIDELITY_NO_MACHINE_COST=1
#   replays every trace with the default costs instead (the "before" of a cost-model change).
#   Each row's selection options are printed with its table ("replayed on ... with ..."). The
#   quiet 2-vCPU rows recorded by `schedsim record` replay the recorder itself (comm schedsim,
#   the command's parent, a quarter to half of CPU 0 during the messaging runs) as a background
#   task, `--background-comm ^schedsim$`: load the command competed with, left out of every
#   metric (docs/model.md, "The recorder as background load").
#   env: FIDELITY_COST='name=value ...'  extra --cost arguments for every run (model changes)
#        FIDELITY_EXTRA='...'            extra run options for every run (e.g. -F NO_X); the run
#                                        choices the results record (--preempt, --update-curr
#                                        when not the default) are named under the first line
#        FIDELITY_ONLY='REGEX'           only the traces whose name matches (bash regex, e.g. '^quiet ')
#
# Metrics (docs/fidelity.md explains each and the known measurement caveats):
#   makespan          first to last event of the selected tasks
#   wakeups           wakeups of sleeping tasks (simulated: wakes that found the wakee blocked)
#   wake p50/p90/p99  waking to switch-in, over wakeups and forks
#   rq-wait p50/p90/p99/n  run-queue wait of preempted tasks (R switch-out to next switch-in;
#                     the simulator's "preempt delay")
#   migrations        switch-ins on another CPU than the task's previous one
#   tokens            (simulated only) the trace's wakes that found the wakee not yet blocked in
#                     the simulation and were banked as a token, against those that woke it
# Requires python3 (standard library only). Output is deterministic for a given binary.
set -euo pipefail

SCHEDSIM=${1:?usage: scripts/fidelity.sh SCHEDSIM [KERNEL...]}
shift
KERNELS=("$@")
[ ${#KERNELS[@]} -eq 0 ] && KERNELS=(6.18)
[ -x "$SCHEDSIM" ] || { echo "fidelity: $SCHEDSIM is not an executable" >&2; exit 2; }
command -v python3 >/dev/null || { echo "fidelity: python3 is needed" >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib/fidelity-traces.sh
. "$here/scripts/lib/fidelity-traces.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cost_args=()
for c in ${FIDELITY_COST:-}; do cost_args+=(--cost "$c"); done
# shellcheck disable=SC2206
extra_args=(${FIDELITY_EXTRA:-})

i=0
manifest=$work/manifest.tsv
: >"$manifest"
for entry in "${TRACES[@]}"; do
  IFS='|' read -r name trace topo sel machine mcost <<<"$entry"
  if [ -n "${FIDELITY_ONLY:-}" ] && ! [[ $name =~ $FIDELITY_ONLY ]]; then continue; fi
  # shellcheck disable=SC2206
  sel_args=($sel)
  mcost_args=()
  if [ -n "$mcost" ] && [ -z "${FIDELITY_NO_MACHINE_COST:-}" ]; then
    mcost_args=(--cost "$mcost")
    machine="$machine; cost file \`${mcost#"$here"/}\`"
  fi
  for k in "${KERNELS[@]}"; do
    out=$work/$i-$k.json
    if ! "$SCHEDSIM" run "$trace" -t "$topo" "${sel_args[@]}" --kernel "$k" "${mcost_args[@]}" "${cost_args[@]}" \
         "${extra_args[@]}" --progress never -f json -o "$out" 2>"$work/$i-$k.err"; then
      echo "fidelity: run failed: $name --kernel $k" >&2
      cat "$work/$i-$k.err" >&2
      exit 1
    fi
    if [ -s "$work/$i-$k.err" ]; then
      echo "fidelity: warnings for $name --kernel $k:" >&2
      sed 's/^/  /' "$work/$i-$k.err" >&2
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$k" "$out" "$(basename "$topo")" "$sel" "$machine" >>"$manifest"
  done
  i=$((i + 1))
done

SCHEDSIM_ANALYSIS="$(dirname "$0")/analysis" python3 - "$manifest" "$SCHEDSIM" "${KERNELS[*]}" <<'EOF'
import json, sys
import os
sys.path.insert(0, os.environ["SCHEDSIM_ANALYSIS"])
from fidelity_fmt import OVERVIEW_NOTE, fmt_n, fmt_ns, lat, metric_row, overview_cells, overview_header  # noqa: E402
from collections import OrderedDict

manifest, binary, kernels = sys.argv[1], sys.argv[2], sys.argv[3].split()
runs = OrderedDict()
for line in open(manifest):
    name, k, path, topo, sel, machine = line.rstrip("\n").split("\t")
    runs.setdefault(name, {"topo": topo, "sel": sel, "machine": machine, "k": {}})["k"][k] = json.load(open(path))


# (label, observed metric name, simulated extractor, formatter)
ROWS = [
    ("makespan", "makespan_ns", lambda d: d["summary"]["makespan_ns"], fmt_ns),
    ("wakeups", "wakeups", None, fmt_n),
    ("wake latency p50", "wakeup_latency.p50_ns", lambda d: lat(d, "wakeup", "p50"), fmt_ns),
    ("wake latency p90", "wakeup_latency.p90_ns", lambda d: lat(d, "wakeup", "p90"), fmt_ns),
    ("wake latency p99", "wakeup_latency.p99_ns", lambda d: lat(d, "wakeup", "p99"), fmt_ns),
    ("rq-wait (preempted) n", "preempt_delay.count", None, fmt_n),
    ("rq-wait (preempted) p50", "preempt_delay.p50_ns", None, fmt_ns),
    ("rq-wait (preempted) p90", "preempt_delay.p90_ns", None, fmt_ns),
    ("rq-wait (preempted) p99", "preempt_delay.p99_ns", None, fmt_ns),
    ("migrations", "migrations", None, fmt_n),
    ("context switches", "context_switches", None, fmt_n),
]

print(f"Binary: `{binary}`; kernels: {', '.join(kernels)}. Errors are (simulated - observed) / observed.\n")
# The engine choices the results record beside their cost overrides when not the default
# (run --preempt, --update-curr; docs/results-schema.md), as every run's header shows them: a
# table made with FIDELITY_EXTRA='--preempt none' says so. Nothing for default runs.
choices = sorted({f"{key}={d['config']['cost_overrides'][key]}"
                  for r in runs.values() for d in r["k"].values()
                  for key in ("preempt", "update_curr") if key in d["config"].get("cost_overrides", {})})
if choices:
    print(f"Run choices recorded in the results: {', '.join(choices)}.\n")
summary = []
notes = {}
for name, r in runs.items():
    print(f"### {name}\n")
    print(f"{r['machine']}; replayed on `{r['topo']}`" + (f" with `{r['sel']}`" if r["sel"] else "") + ".\n")
    hdr = "| metric | observed |" + "".join(f" sim {k} | err {k} |" for k in kernels)
    print(hdr)
    print("|" + "---|" * (2 + 2 * len(kernels)))
    for label, oname, simf, f in ROWS:
        obs, bound, note, cells = metric_row([r["k"][k] for k in kernels], oname, simf)
        if note:
            notes[name] = note
        print(f"| {label} | {bound}{f(obs)} |" + "".join(f" {f(s)} | {e} |" for s, e in cells))
    print()
    if name in notes:
        print(f"Observed wake latency (>=) is a {notes[name]}.\n")
    for k in kernels:
        s = r["k"][k]["summary"]
        w = r["k"][k]["placement"]["wakeups"]
        tok = s.get("tokens_banked", 0)
        print(f"- {k}: of the {tok + w} wakes replayed from the trace, {tok} "
              f"({tok / max(tok + w, 1) * 100:.0f}%) found the wakee not yet blocked in the "
              f"simulation and were banked as tokens, {w} woke a blocked task "
              f"({s.get('tokens_left', 0)} tokens never consumed; simulation complete: "
              f"{s.get('complete')})")
    print()
    for k in kernels:
        om = {o["metric"]: o for o in r["k"][k].get("observed", [])}
        summary.append((name, k, om))

# one compact overview table: relative errors against the goals of issue 12
print("### Overview: relative error\n")
print(OVERVIEW_NOTE)
print(overview_header(["trace", "kernel"]))
for name, k, om in summary:
    print(f"| {name} | {k} |" + "".join(f" {c} |" for c in overview_cells(om)))
EOF
