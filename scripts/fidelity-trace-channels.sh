#!/bin/bash
# Trace replays with and without channels (`--channels`, docs/traces.md "Channels from
# syscalls"): replays each trace that carries read/write syscall events (recorded with
# `schedsim record --extra-events syscalls`) on the recording machine once with `--channels off`
# (every wakeup a wake/block token) and once with `--channels pipe`, and prints a markdown table
# per trace: observed (from the trace), off, pipe, and their relative errors.
#
#   scripts/fidelity-trace-channels.sh SCHEDSIM [KERNEL]     (default kernel: 6.18)
#
# env: CHANNELS_SET=loaded (default: tests/data/traces/syscalls/, recorded while builds ran) or
#      quiet (tests/data/traces/smp2-quiet/syscalls/, recorded on the idle machine, replayed with
#      its cost file smp2-quiet/costs.json); with quiet, QUIET_SYSCALL_DIR=DIR adds the median
#      repeats of the hackbench pipe recordings that are too large to commit, when DIR has them
#      (DIR/hb-pipe-proc-g2-l100.r2.ftrace.gz, hb-pipe-thr-g1-l400.r3, hb-pipe-thr-g4-l50.r2).
#
#      PREEMPT=MODEL (default none: the recording guest's preemption model, docs/kernel-versions.md
#      section 7) adds a third replay, channels with `--preempt MODEL`; PREEMPT= (empty) leaves it out.
#      CHANNELS_COST='name=value ...' extra --cost arguments for every replay, after the cost file
#      (e.g. CHANNELS_COST='resched_ipi=4us' to judge a cost the machine's file does not have yet).
#      CHANNELS_RUN='OPTIONS' extra run options for every replay (e.g. '--update-curr events').
#      CHANNELS_SEEDS=N (N >= 2) also replays each column N times with `--repeat N --noise none`
#      (N derived seeds, no noise) and prints the wakeups and context switches of the N replays
#      (median, quartiles, range): a channel replay of a messaging recording moves by a factor of
#      2-4 with the seed alone (docs/model.md, "Socket channel replays under `--update-curr
#      events`"), so one seed's figure does not judge an option there.
#
# Output is deterministic for a given binary. Requires python3.
set -euo pipefail

SCHEDSIM=${1:?usage: scripts/fidelity-trace-channels.sh SCHEDSIM [KERNEL]}
K=${2:-6.18}
[ -x "$SCHEDSIM" ] || { echo "fidelity-trace-channels: $SCHEDSIM is not an executable" >&2; exit 2; }

here=$(cd "$(dirname "$0")/.." && pwd)
D=$here/tests/data/traces/syscalls
Q=$here/tests/data/traces/smp2-quiet
LOADED="Recorded on the 2-vCPU KVM guest (Linux 6.18) while other builds ran"
QUIET="Recorded on the 2-vCPU KVM guest (Linux 6.18.44) with nothing else running (load 0.2); cost file \`smp2-quiet/costs.json\`"

# name | trace | topology | channel kind (the trace does not say which fds are pipes) | description | cost file
case ${CHANNELS_SET:-loaded} in
  loaded)
    CASES=(
      "hackbench -g 1 -l 25 --pipe --threads|$D/hb-pipe-threads-g1-l25.ftrace.gz|smp2|pipe|$LOADED|"
      "hackbench -g 1 -l 25 --pipe (processes)|$D/hb-pipe-procs-g1-l25.ftrace.gz|smp2|pipe|$LOADED|"
      "perf bench sched pipe -l 2000|$D/perf-pipe-l2000.ftrace.gz|smp2|pipe|$LOADED|"
      "perf bench sched messaging -g 1 -l 20 (sockets)|$D/perf-msg-sock-g1-l20.ftrace.gz|smp2|socket|$LOADED|"
    ) ;;
  quiet)
    CASES=(
      "quiet perf bench sched pipe -l 2000|$Q/syscalls/perf-pipe-l2000.r3.ftrace.gz|smp2|pipe|$QUIET|$Q/costs.json"
      "quiet perf bench sched messaging -g 1 -l 20 (sockets, processes)|$Q/syscalls/perf-msg-g1-l20.r2.ftrace.gz|smp2|socket|$QUIET|$Q/costs.json"
      "quiet hackbench -g 1 -l 100 (sockets, processes)|$Q/syscalls/hb-sock-proc-g1-l100.r2.ftrace.gz|smp2|socket|$QUIET|$Q/costs.json"
    )
    if [ -n "${QUIET_SYSCALL_DIR:-}" ]; then
      for x in "hackbench -g 2 -l 100 -p (pipes, processes)|hb-pipe-proc-g2-l100.r2" \
               "hackbench -g 1 -l 400 -p -T (pipes, threads)|hb-pipe-thr-g1-l400.r3" \
               "hackbench -g 4 -l 50 -p -T (pipes, threads)|hb-pipe-thr-g4-l50.r2"; do
        f=$QUIET_SYSCALL_DIR/${x#*|}.ftrace.gz
        [ -f "$f" ] && CASES+=("quiet ${x%|*} (not committed: ${x#*|})|$f|smp2|pipe|$QUIET|$Q/costs.json")
      done
    fi ;;
  *) echo "fidelity-trace-channels: CHANNELS_SET must be loaded or quiet" >&2; exit 2 ;;
esac

PREEMPT=${PREEMPT-none}
SEEDS=${CHANNELS_SEEDS:-1}
[[ $SEEDS =~ ^[0-9]+$ ]] || { echo "fidelity-trace-channels: CHANNELS_SEEDS must be a whole number" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
manifest=$work/manifest.tsv
: >"$manifest"
i=0
for entry in "${CASES[@]}"; do
  IFS='|' read -r name trace topo kind desc cost <<<"$entry"
  [ -f "$trace" ] || { echo "fidelity-trace-channels: missing $trace" >&2; exit 2; }
  cost_args=()
  [ -n "$cost" ] && cost_args=(--cost "$cost")
  for c in ${CHANNELS_COST:-}; do cost_args+=(--cost "$c"); done
  read -r -a run_args <<<"${CHANNELS_RUN:-}"
  # name | run options of each column
  cols=("off|--channels off" "chan|--channels $kind")
  [ -n "$PREEMPT" ] && cols+=("preempt|--channels $kind --preempt $PREEMPT")
  for col in "${cols[@]}"; do
    c=${col%%|*}
    read -r -a opts <<<"${col#*|}"
    "$SCHEDSIM" run "$trace" -t "$topo" --kernel "$K" "${opts[@]}" "${cost_args[@]}" "${run_args[@]}" --progress never \
      -f json -o "$work/$i-$c.json" 2>"$work/$i-$c.err" || { cat "$work/$i-$c.err" >&2; exit 1; }
    if [ "$SEEDS" -ge 2 ]; then
      "$SCHEDSIM" run "$trace" -t "$topo" --kernel "$K" "${opts[@]}" "${cost_args[@]}" "${run_args[@]}" --progress never \
        --repeat "$SEEDS" --noise none -f json -o "$work/$i-$c.seeds.json" 2>"$work/$i-$c.seeds.err" ||
        { cat "$work/$i-$c.seeds.err" >&2; exit 1; }
    fi
  done
  printf '%s\t%s\t%s\t%s\n' "$name" "$work/$i" "$kind" "$desc" >>"$manifest"
  i=$((i + 1))
done

SCHEDSIM_ANALYSIS="$(dirname "$0")/analysis" python3 - "$manifest" "$K" "$PREEMPT" <<'EOF'
import json, os, statistics, sys
sys.path.insert(0, os.environ["SCHEDSIM_ANALYSIS"])
from fidelity_fmt import err, fmt_n, fmt_ns, obs_metrics, sim_metrics  # noqa: E402

TIME = {"makespan", "wake p50", "wake p90", "wake p99", "rq-wait (preempted) p50", "rq-wait (preempted) p90",
        "rq-wait (preempted) p99"}
for line in open(sys.argv[1]):
    name, base, kind, desc = line.rstrip("\n").split("\t")
    joff, jpipe = json.load(open(base + "-off.json")), json.load(open(base + "-chan.json"))
    pm = sys.argv[3]
    jpre = json.load(open(base + "-preempt.json")) if pm else None
    o, a, b = obs_metrics(joff), sim_metrics(joff), sim_metrics(jpipe)
    c = sim_metrics(jpre) if jpre else None
    print(f"#### {name}, kernel {sys.argv[2]} profile\n")
    extra = f" and `--channels {kind} --preempt {pm}`" if pm else ""
    print(f"{desc}; replayed on `smp2` with `--channels off|{kind}`{extra}.\n")
    print(f"| metric | observed | off | err | {kind} | err |" + (f" {kind}, preempt={pm} | err |" if c else ""))
    print("|---|---|---|---|---|---|" + ("---|---|" if c else ""))
    for m in o:
        f = fmt_ns if m in TIME else fmt_n
        row = f"| {m} | {f(o[m])} | {f(a[m])} | {err(a[m], o[m])} | {f(b[m])} | {err(b[m], o[m])} |"
        if c:
            row += f" {f(c[m])} | {err(c[m], o[m])} |"
        print(row)
    s = jpipe["summary"]
    print(f"\noff: {joff['summary']['tokens_banked']} tokens banked; {kind}: {s['channel_writes']} writes, "
          f"{s['channel_reads']} reads, {s['channel_wakes']} channel wakes, {s['channel_sleeps']} channel sleeps, "
          f"{s['tokens_banked']} tokens banked" + ("." if not c else ""))
    if c:
        p = jpre["summary"]
        print(f"; preempt={pm}: {p['channel_wakes']} channel wakes, {p.get('preempt_deferred', 0)} preemptions held "
              f"back to a syscall's return, {p.get('preempt_deferred_slept', 0)} of them ended by curr sleeping first.")
    print()
    cols = [("off", "off"), ("chan", kind)] + ([("preempt", f"{kind}, preempt={pm}")] if c else [])
    if os.path.exists(base + "-off.seeds.json"):
        n = json.load(open(base + "-off.seeds.json"))["repeat"]
        print(f"Over {n} seeds (`--repeat {n} --noise none`): median (quartiles; range) and its error:\n")
        print("| metric | observed | " + " | ".join(f"{t} | err" for _, t in cols) + " |")
        print("|---|---|" + "---|---|" * len(cols))
        for m, key in (("wakeups", "wakeups"), ("context switches", "context_switches")):
            row = f"| {m} | {fmt_n(o[m])} |"
            for col, _ in cols:
                v = sorted(r["metrics"][key] for r in json.load(open(f"{base}-{col}.seeds.json"))["repetitions"])
                q = lambda f: v[int(f * (len(v) - 1))]
                med = statistics.median(v)
                row += f" {med:.0f} ({q(0.25):.0f}-{q(0.75):.0f}; {v[0]:.0f}-{v[-1]:.0f}) | {err(med, o[m])} |"
            print(row)
        print()
EOF
