#!/bin/bash
# The channel model against the real messaging traces: generates the workload each trace
# recorded (`gen messaging` with the trace's parameters) once with `--channel-model token` (the
# default: a message is a wake token, capacity as credits) and once with `--channel-model pipe`
# (write/read actions decided by the kernel's pipe/socket rules, docs/model.md "The pipe
# channel model"), simulates both on the recording machine, and prints a markdown table per
# trace and kernel: observed (from the trace), token, pipe, and their relative errors.
#
#   scripts/fidelity-channels.sh SCHEDSIM [KERNEL...]     (default kernels: 6.12 6.18)
#
# The generated workloads include the program's main task (fork, start barrier, join), as the
# traces' task selection does. Output is deterministic for a given binary. Requires python3.
set -euo pipefail

SCHEDSIM=${1:?usage: scripts/fidelity-channels.sh SCHEDSIM [KERNEL...]}
shift
KERNELS=("$@")
[ ${#KERNELS[@]} -eq 0 ] && KERNELS=(6.12 6.18)
[ -x "$SCHEDSIM" ] || { echo "fidelity-channels: $SCHEDSIM is not an executable" >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
D=$here/tests/data/traces
X=$D/xeon-vm-16cpu

# name | trace | topology | selection | generator arguments | machine cost file | machine
CASES=(
  "xeon16 msg-g1-l400|$X/msg-g1-l400.trace.gz|$X/lscpu-p.txt|--comm loadgen|messaging -g 1 -l 400 --pipe --thread|$X/costs.json|16-vCPU KVM guest (Intel Xeon), quiet"
  "hackbench-pipe-g2|$D/hackbench-pipe-g2.ftrace.gz|smp2||messaging -g 2 -l 100 --pipe --process||2-vCPU KVM guest, other builds running"
  "perf-bench-messaging|$D/perf-bench-messaging.ftrace.gz|smp2||messaging -g 1 -l 20 --process||2-vCPU KVM guest, other builds running (sockets)"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
manifest=$work/manifest.tsv
: >"$manifest"
i=0
for entry in "${CASES[@]}"; do
  IFS='|' read -r name trace topo sel gen mcost machine <<<"$entry"
  # shellcheck disable=SC2206
  sel_args=($sel)
  mcost_args=()
  [ -n "$mcost" ] && mcost_args=(--cost "$mcost")
  for k in "${KERNELS[@]}"; do
    obs=$work/$i-$k-obs.json
    "$SCHEDSIM" run "$trace" -t "$topo" "${sel_args[@]}" --kernel "$k" "${mcost_args[@]}" --progress never \
      -f json -o "$obs" 2>/dev/null
    for m in token pipe; do
      "$SCHEDSIM" run --workload-gen "$gen --channel-model $m" -t "$topo" --kernel "$k" "${mcost_args[@]}" \
        --progress never -f json -o "$work/$i-$k-$m.json" 2>"$work/$i-$k-$m.err" || {
        cat "$work/$i-$k-$m.err" >&2
        exit 1
      }
    done
    printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$k" "$work/$i-$k" "$gen" "$machine" >>"$manifest"
  done
  i=$((i + 1))
done

SCHEDSIM_ANALYSIS="$(dirname "$0")/analysis" python3 - "$manifest" <<'EOF'
import json, sys
import os
sys.path.insert(0, os.environ["SCHEDSIM_ANALYSIS"])
from fidelity_fmt import err, fmt_n, fmt_ns, obs_metrics, sim_metrics  # noqa: E402


TIME = {"makespan", "wake p50", "wake p90", "wake p99", "rq-wait (preempted) p50", "rq-wait (preempted) p90",
        "rq-wait (preempted) p99"}
for line in open(sys.argv[1]):
    name, k, base, gen, machine = line.rstrip("\n").split("\t")
    obs = obs_metrics(json.load(open(base + "-obs.json")))
    tok = sim_metrics(json.load(open(base + "-token.json")))
    pip = sim_metrics(json.load(open(base + "-pipe.json")))
    print(f"#### {name}, kernel {k}\n")
    print(f"{machine}; simulated: `gen {gen} --channel-model token|pipe`.\n")
    print("| metric | observed | token | err | pipe | err |")
    print("|---|---|---|---|---|---|")
    for m in obs:
        f = fmt_ns if m in TIME else fmt_n
        print(f"| {m} | {f(obs[m])} | {f(tok[m])} | {err(tok[m], obs[m])} | {f(pip[m])} | {err(pip[m], obs[m])} |")
    cw, cs = pip["channel wakes / sleeps"]
    print(f"\ntoken: {tok['tokens banked']} tokens banked; pipe: {cw} channel wakes, {cs} channel sleeps, "
          f"{pip['tokens banked']} tokens banked (start barrier and join only).\n")
EOF
