#!/bin/bash
# Calibrate on some traces, measure on the others: the held-out fidelity of `schedsim calibrate`.
#
#   scripts/calibrate-holdout.sh SCHEDSIM [KERNEL]      (default kernel 6.18, the traces' kernel)
#   scripts/calibrate-holdout.sh SCHEDSIM --set DIR [KERNEL]
#                         a set recorded by scripts/record-fidelity-set.sh (DIR/manifest.tsv, its
#                         traces, lscpu-p.txt and costs.json if any); default kernel: the
#                         manifest's, MAJOR.MINOR
#
# Folds (docs/fidelity.md "Calibrated on half, tested on the other half"):
#   16-CPU KVM guest (quiet machine, 3 traces): leave one out: fit on two, test on the third.
#   quiet 2-vCPU KVM guest (tests/data/traces/smp2-quiet/, nothing else running): two folds,
#   each fitting on three of the six calibratable recordings (hackbench pipe processes + perf
#   pipe + cyclictest, or hackbench pipe threads + hackbench sockets + perf messaging) and
#   testing on the other three and on fork-40 (83 wakeups, under calibrate's minimum of 100);
#   starting costs: the machine's measured smp2-quiet/costs.json; the recorder (comm schedsim)
#   is replayed as background load (--background-comm ^schedsim$), as in scripts/fidelity.sh.
#   2-vCPU KVM guest (builds running beside the recording): fit on hackbench-pipe-g2 and
#   perf-bench-messaging, test on perf-bench-pipe and perf-sched-messaging (fork-loop has 85
#   wakeups, under calibrate's minimum of 100, and is refused).
# For each held-out trace it prints observed, simulated with the machine's starting costs
# ("before": the 16-CPU machine's costs.json, smp2-quiet/costs.json for the quiet 2-vCPU set, or
# idle_wake=vm-halt-poll for the loaded 2-vCPU traces)
# and with the fitted cost file ("after"), and the relative errors. Goals of issue 12: makespan
# 10%, wakeups 15%, wake p50/p90 25%, p99 50%; per fold and in total, the goals met before and
# after. Every fit runs with `--prior start` (the starting costs are the machine's measured ones,
# docs/calibrate.md "Priors"). Deterministic for a given binary.
# With --set the folds come from the manifest: the traces are cut into halves A and B by
# alternating units in manifest order (A, B, A, ...), a unit being a workload with all its repeats
# in a family of several workloads (manifest column family: a held-out trace's workload was not
# fitted, only others of its family), or one repeat in a family of one workload (its repeats
# alternate between the halves; with one repeat it is tested only on costs fitted on other
# families). Two folds: fit on A and test on B, fit on B and test on A. A trace calibrate refuses
# (lost events, import not conserved, under 100 wakeups or 10 ms, a start replay that does not
# complete: asked of calibrate itself with `calibrate --check-only` and the folds' options, so
# SCHEDSIM must have it) is not fitted but tested in both folds; the halves table gives its
# reasons as --check-only's tsv prints them, joined by "; ". The starting costs are DIR/costs.json (the machine's
# defaults without it); the recorder is replayed as background load, as for the quiet 2-vCPU
# set. After the folds it prints an overview table as scripts/fidelity.sh's (relative error per
# held-out trace against the goals, with the starting and the calibrated costs) and the goal
# counts.
# Exit status: 0 done; 2 a usage error (no SCHEDSIM, one that is not an executable, --set without
# DIR, too many arguments) or a --set DIR that is not a recorded set; else the
# status of the run, calibration or check that failed (its message is printed; a check that
# refuses traces, exit 6, is no failure).
# A fold whose training traces calibrate refuses (exit 1) is printed "Not fitted" with the reason; its
# held-out traces are still replayed with the starting costs (counted in the starting totals and
# the overview's start rows, left out of the calibrated ones); when every fold is refused the
# script exits 1.
# env: HOLDOUT_ONLY='REGEX'  only the folds whose name matches (bash regex, e.g. '^quiet ')
#      HOLDOUT_CALIBRATE_ARGS  replaces '--prior start' (e.g. '' for a binary without --prior)
set -euo pipefail
usage="usage: scripts/calibrate-holdout.sh SCHEDSIM [--set DIR] [KERNEL]"
usage_error() { echo "calibrate-holdout: $1 ($usage)" >&2; exit 2; }
[ $# -ge 1 ] || usage_error "give the schedsim binary"
SCHEDSIM=$1
shift
[ -x "$SCHEDSIM" ] || usage_error "$SCHEDSIM is not an executable"
SET=
if [ "${1:-}" = --set ]; then
  [ -n "${2:-}" ] || usage_error "--set needs a directory"
  SET=$2
  shift 2
fi
[ $# -le 1 ] || usage_error "too many arguments"
KERNEL=${1:-6.18}
here=$(cd "$(dirname "$0")/.." && pwd)
D=$here/tests/data/traces
X=$D/xeon-vm-16cpu
Q=$D/smp2-quiet
# The quiet recordings made by `schedsim record` replay the recorder as background load, as
# scripts/fidelity.sh does (docs/model.md "The recorder as background load").
QB='--background-comm ^schedsim$'
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# fold name | topology | start costs | selection | train traces (space separated) | test traces (name=path[=selection])
FOLDS=(
  "xeon16 fit msg+fork|$X/lscpu-p.txt|$X/costs.json|--comm loadgen|$X/msg-g1-l400.trace.gz $X/fork-2000.trace.gz|periodic-t24=$X/periodic-t24.trace.gz=--comm loadgen"
  "xeon16 fit msg+periodic|$X/lscpu-p.txt|$X/costs.json|--comm loadgen|$X/msg-g1-l400.trace.gz $X/periodic-t24.trace.gz|fork-2000=$X/fork-2000.trace.gz=--comm loadgen"
  "xeon16 fit fork+periodic|$X/lscpu-p.txt|$X/costs.json|--comm loadgen|$X/fork-2000.trace.gz $X/periodic-t24.trace.gz|msg-g1-l400=$X/msg-g1-l400.trace.gz=--comm loadgen"
  "quiet 2-vCPU fit hb-pipe-proc+perf-pipe+periodic|smp2|$Q/costs.json|$QB|$Q/hb-pipe-proc-g2-l100.r3.ftrace.gz $Q/perf-pipe-l2000.r3.ftrace.gz $Q/periodic-t4.r3.ftrace.gz|hb-pipe-thr-g1-l400=$Q/hb-pipe-thr-g1-l400.r2.ftrace.zst=$QB;hb-sock-proc-g1-l100=$Q/hb-sock-proc-g1-l100.r1.ftrace.gz=$QB;perf-msg-g1-l20=$Q/perf-msg-g1-l20.r1.ftrace.gz=$QB;fork-40=$Q/fork-40.r1.ftrace.gz=$QB"
  "quiet 2-vCPU fit hb-pipe-thr+hb-sock-proc+perf-msg|smp2|$Q/costs.json|$QB|$Q/hb-pipe-thr-g1-l400.r2.ftrace.zst $Q/hb-sock-proc-g1-l100.r1.ftrace.gz $Q/perf-msg-g1-l20.r1.ftrace.gz|hb-pipe-proc-g2-l100=$Q/hb-pipe-proc-g2-l100.r3.ftrace.gz=$QB;perf-pipe-l2000=$Q/perf-pipe-l2000.r3.ftrace.gz=$QB;periodic-t4=$Q/periodic-t4.r3.ftrace.gz=$QB;fork-40=$Q/fork-40.r1.ftrace.gz=$QB"
  "2-vCPU fit hackbench+messaging|smp2|idle_wake=vm-halt-poll||$D/hackbench-pipe-g2.ftrace.gz $D/perf-bench-messaging.ftrace.gz|perf-bench-pipe=$D/perf-bench-pipe.ftrace.gz=;perf-sched-messaging=$D/perf-sched-messaging.perf-script.gz=--comm sched-messaging"
)

if [ -n "$SET" ]; then
  M=$SET/manifest.tsv
  [ -f "$M" ] || { echo "calibrate-holdout: $M: no such file (a set recorded by scripts/record-fidelity-set.sh)" >&2; exit 2; }
  [ -f "$SET/lscpu-p.txt" ] || { echo "calibrate-holdout: $SET/lscpu-p.txt: no such file (the set's topology)" >&2; exit 2; }
  case "$SET" in *[\|\;=\ ]*) echo "calibrate-holdout: --set '$SET' contains one of '|;= ' (the fold list's separators)" >&2; exit 2 ;; esac
  if [ $# -eq 0 ]; then
    KERNEL=$(sed -n 's/^# kernel\t\([0-9]*\.[0-9]*\).*/\1/p' "$M")
    [ -n "$KERNEL" ] || { echo "calibrate-holdout: $M: no '# kernel' line with MAJOR.MINOR; give KERNEL" >&2; exit 2; }
  fi
  start=
  [ -f "$SET/costs.json" ] && start=$SET/costs.json
  # Which traces calibrate accepts: `calibrate --check-only` makes calibrate's own checks (lost
  # events, import not conserved, under 100 wakeups or 10 ms of the selected tasks, a start replay
  # that does not complete) with the folds' options, on every trace of the set at once; exit 6
  # when it refuses some. Its rows are in the order of its arguments, the manifest's.
  tnames=() tfiles=()
  while IFS=$'\t' read -r tname _ _ _ tfile _; do
    case "$tname" in name | "#"*) continue ;; esac
    [ -f "$SET/$tfile" ] || { echo "calibrate-holdout: $M: $tfile: no such file in $SET" >&2; exit 2; }
    tnames+=("$tname")
    tfiles+=("$SET/$tfile")
  done <"$M"
  [ ${#tnames[@]} -gt 0 ] || { echo "calibrate-holdout: $M lists no traces" >&2; exit 2; }
  check_args=()
  [ -z "$start" ] || check_args=(-c "$start")
  rc=0
  # shellcheck disable=SC2086
  "$SCHEDSIM" calibrate "${tfiles[@]}" -t "$SET/lscpu-p.txt" --kernel "$KERNEL" "${check_args[@]}" $QB \
    ${HOLDOUT_CALIBRATE_ARGS---prior start} --check-only -f tsv >"$work/check.tsv" 2>"$work/check.err" || rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 6 ]; then
    cat "$work/check.err" >&2
    echo "calibrate-holdout: calibrate --check-only failed on the traces of $M" >&2
    exit "$rc"
  fi
  # name <TAB> the reasons calibrate refuses it ("" = fitted); `# set` rows (the set as a whole
  # refused) are left to the folds' own calibrate runs, which report them.
  grep -v '^#' "$work/check.tsv" | tail -n +2 | cut -f4 >"$work/why.txt"
  rows=$(wc -l <"$work/why.txt")
  [ "$rows" -eq ${#tnames[@]} ] ||
    { echo "calibrate-holdout: calibrate --check-only printed $rows rows for ${#tnames[@]} traces" >&2; exit 1; }
  paste <(printf '%s\n' "${tnames[@]}") "$work/why.txt" >"$work/fit-ok.tsv"
  # Halves: alternate the workloads of a family, or the repeats of a one-workload family.
  awk -F'\t' 'FNR == NR { why[$1] = $2; next }
    /^#/ || $1 == "name" { next }
    { rows[++n] = $0; fam[n] = $2; wl[n] = $3
      if (!((fam[n], wl[n]) in seen)) { seen[fam[n], wl[n]] = 1; nw[fam[n]]++ } }
    END { for (i = 1; i <= n; i++) {
            split(rows[i], c, "\t")
            if (nw[fam[i]] == 1 || !((fam[i], wl[i]) in unit)) unit[fam[i], wl[i]] = u++
            print c[1] "\t" c[5] "\t" (unit[fam[i], wl[i]] % 2 ? "B" : "A") "\t" why[c[1]] } }' "$work/fit-ok.tsv" "$M" >"$work/halves.tsv"
  [ -s "$work/halves.tsv" ] || { echo "calibrate-holdout: $M lists no traces" >&2; exit 2; }
  FOLDS=()
  for fit in A B; do
    train='' tests='' names=''
    while IFS=$'\t' read -r tname tfile half why; do
      if [ "$half" = "$fit" ] && [ -z "$why" ]; then
        train+="${train:+ }$SET/$tfile"
        names+="${names:+, }$tname"
      else
        tests+="${tests:+;}$tname=$SET/$tfile=$QB"
      fi
    done <"$work/halves.tsv"
    FOLDS+=("fit half $fit: $names|$SET/lscpu-p.txt|$start|$QB|$train|$tests")
  done
fi

# The version without the commit: this block lives in docs/fidelity.md and must not change with every commit.
echo "Binary: $("$SCHEDSIM" --version 2>/dev/null | head -1 | sed "s/ (commit .*)//"); kernel profile $KERNEL; errors are (simulated - observed) / observed."
if [ -n "$SET" ]; then
  mf() { sed -n "s/^# $1\t//p" "$M"; }
  costs_note="the machine's defaults (no costs.json)"
  [ -z "$start" ] || costs_note="\`costs.json\` (\`$(mf costs)\`)"
  echo
  echo "Set: \`$SET\` (recorded $(mf date_utc), kernel $(mf kernel), $(mf cpus) CPUs, forced: $(mf forced)); topology \`lscpu-p.txt\`; starting costs $costs_note; replayed with \`$QB\`."
  echo
  echo "| trace | half | fitted |"
  echo "|---|---|---|"
  awk -F'\t' '{ print "| " $1 " | " $3 " | " ($4 == "" ? "yes" : "no: " $4 " (tested in both folds)") " |" }' "$work/halves.tsv"
fi
i=0
refused=0
nfitted=0
for fold in "${FOLDS[@]}"; do
  IFS='|' read -r name topo start sel train tests <<<"$fold"
  i=$((i + 1))
  if [ -n "${HOLDOUT_ONLY:-}" ] && ! [[ $name =~ $HOLDOUT_ONLY ]]; then continue; fi
  if [ -z "$train" ]; then
    echo
    echo "### ${name%: } (nothing to fit)"
    echo
    echo "skipped: no trace of this half can be calibrated on (see the table above)"
    continue
  fi
  start_args=()
  [ -z "$start" ] || start_args=(-c "$start")
  fitted=yes
  rc=0
  # shellcheck disable=SC2086
  "$SCHEDSIM" calibrate $train -t "$topo" --kernel "$KERNEL" "${start_args[@]}" $sel --progress never ${HOLDOUT_CALIBRATE_ARGS---prior start} \
    -o "$work/fit$i.json" >"$work/fit$i.txt" 2>"$work/fit$i.err" || rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    # Only exit 1 (an input error: the traces refused) is a refusal; a usage error (2), a crash
    # (3) or a signal is a failure of the measurement, not a finding about the traces.
    cat "$work/fit$i.err" >&2
    echo "calibrate-holdout: calibrate failed (exit $rc) on fold '$name'" >&2
    exit "$rc"
  fi
  if [ "$rc" -ne 0 ]; then
    # A fold calibrate refuses (e.g. every training trace's metrics excluded by token banking)
    # is reported; its held-out traces are still replayed with the starting costs, so every
    # trace of a set keeps its row (a CI machine's quick set had half A refused and half B's
    # traces vanished from the overview), and the calibrated totals leave the fold out.
    fitted=
    refused=$((refused + 1))
  else
    cat "$work/fit$i.err" >&2
    nfitted=$((nfitted + 1))
  fi
  echo
  echo "### $name"
  echo
  if [ -n "$fitted" ]; then
    echo "Fitted: \`$(tr -d '\n ' <"$work/fit$i.json")\`"
  else
    echo "Not fitted: calibrate refused the training traces of this fold: $(tr '\n' ' ' <"$work/fit$i.err" | sed 's/ *$//')"
    echo "(the held-out traces below are replayed with the starting costs only; left out of the calibrated totals)"
  fi
  echo
  IFS=';' read -ra tlist <<<"$tests"
  for t in "${tlist[@]}"; do
    IFS='=' read -r tname tpath tsel <<<"$t"
    # shellcheck disable=SC2086
    "$SCHEDSIM" run "$tpath" -t "$topo" --kernel "$KERNEL" "${start_args[@]}" $tsel --progress never -f json >"$work/b$i-$tname.json"
    after=
    if [ -n "$fitted" ]; then
      after=$work/a$i-$tname.json
      # shellcheck disable=SC2086
      "$SCHEDSIM" run "$tpath" -t "$topo" --kernel "$KERNEL" -c "$work/fit$i.json" $tsel --progress never -f json >"$after"
    fi
    python3 - "$tname" "$work/b$i-$tname.json" "$after" "$work/met$i" "$work/overview.jsonl" "$name" <<'PY'
import json, sys
name, before = sys.argv[1], json.load(open(sys.argv[2]))
after = json.load(open(sys.argv[3])) if sys.argv[3] else None
met = [0, 0, 0, 0]  # goals met before, after; goals before, after
def cmp(r):
    return {c["metric"]: c for c in r["observed"]}
b = cmp(before)
a = cmp(after) if after else None
rows = [("makespan", "makespan_ns", 0.10), ("wakeups", "wakeups", 0.15), ("wake p50", "wakeup_latency.p50_ns", 0.25),
        ("wake p90", "wakeup_latency.p90_ns", 0.25), ("wake p99", "wakeup_latency.p99_ns", 0.50),
        ("rq-wait p50", "preempt_delay.p50_ns", None), ("migrations", "migrations", None)]
def fmt(m, v):
    if m.endswith("_ns"):
        return f"{v/1e6:.2f} ms" if v >= 1e6 else f"{v/1e3:.1f} us"
    return f"{v:.0f}"
def err(c, goal):
    if c["observed"] == 0:
        return "-"
    e = (c["simulated"] - c["observed"]) / c["observed"]
    return f"{100*e:+.0f}%" + (" ok" if goal is not None and abs(e) <= goal else "")
def ok(c, goal):
    return goal is not None and c["observed"] != 0 and abs((c["simulated"] - c["observed"]) / c["observed"]) <= goal
print(f"held out: **{name}** (rq-wait samples observed {b['preempt_delay.count']['observed']:.0f})")
print()
print("| metric (goal) | observed | before | err before | calibrated | err calibrated |")
print("|---|---|---|---|---|---|")
for label, m, goal in rows:
    g = f" ({goal*100:.0f}%)" if goal else ""
    lb = ">= " if b[m].get("note") else ""
    cal = f"{fmt(m, a[m]['simulated'])} | {err(a[m], goal)}" if a else "not fitted | -"
    print(f"| {label}{g} | {lb}{fmt(m, b[m]['observed'])} | {fmt(m, b[m]['simulated'])} | {err(b[m], goal)} | {cal} |")
    if goal is not None:
        met[0] += ok(b[m], goal)
        met[2] += 1
        if a:
            met[1] += ok(a[m], goal)
            met[3] += 1
print()
with open(sys.argv[4], "a") as f:
    f.write(" ".join(map(str, met)) + "\n")
with open(sys.argv[5], "a") as f:  # the --set overview's rows
    f.write(json.dumps({"trace": name, "fold": sys.argv[6], "start": b, "calibrated": a}) + "\n")
PY
  done
  read -r fb fa fnb fna < <(awk '{b+=$1; a+=$2; nb+=$3; na+=$4} END {print b, a, nb, na}' "$work/met$i")
  if [ -n "$fitted" ]; then
    echo "goals met on the held-out traces of this fold: $fb of $fnb with the starting costs, $fa of $fna calibrated"
  else
    echo "goals met on the held-out traces of this fold: $fb of $fnb with the starting costs (not fitted)"
  fi
  echo "$fb $fa $fnb $fna" >>"$work/total"
done
if [ -f "$work/total" ]; then
  read -r tb ta tnb tna < <(awk '{b+=$1; a+=$2; nb+=$3; na+=$4} END {print b, a, nb, na}' "$work/total")
  echo
  note=
  [ "$refused" -eq 0 ] || note=" ($refused fold(s) not fitted)"
  if [ "$nfitted" -eq 0 ]; then
    echo "goals met in total: $tb of $tnb with the starting costs; nothing calibrated$note"
  else
    echo "goals met in total: $tb of $tnb with the starting costs, $ta of $tna calibrated$note"
  fi
fi
if [ -n "$SET" ] && [ -f "$work/overview.jsonl" ]; then
  SCHEDSIM_ANALYSIS="$here/scripts/analysis" python3 - "$work/overview.jsonl" <<'PY'
import json, os, sys
sys.path.insert(0, os.environ["SCHEDSIM_ANALYSIS"])
from fidelity_fmt import OVERVIEW_GOALS, OVERVIEW_NOTE, overview_cells, overview_header  # noqa: E402

runs = [json.loads(line) for line in open(sys.argv[1])]
print()
print("### Overview: relative error of the held-out traces\n")
print(OVERVIEW_NOTE)
print("Costs: start = the starting costs; fit A / fit B = calibrated on half A / B (a trace no half")
print("can be calibrated on is tested in both folds).\n")
print(overview_header(["trace", "costs"]))
seen = set()
met = {"start": [0] * 5, "calibrated": [0] * 5}
rows = {"start": 0, "calibrated": 0}
for r in runs:
    label = "fit " + r["fold"].split(":")[0].split()[-1]
    for costs, tag in (("start", "start"), ("calibrated", label)):
        if costs == "start" and r["trace"] in seen:
            continue
        if r[costs] is None:  # a fold calibrate refused: no calibrated row
            continue
        cells = overview_cells(r[costs])
        print(f"| {r['trace']} | {tag} |" + "".join(f" {c} |" for c in cells))
        rows[costs] += 1
        for g in range(5):
            met[costs][g] += cells[g].endswith(" ok")
    seen.add(r["trace"])
print()
for costs in ("start", "calibrated"):
    n = rows[costs]
    if n == 0:
        print(f"Goals met, {costs}: none (no fold was fitted).")
        continue
    print(f"Goals met, {costs}: **{sum(met[costs])} of {n * 5}** ("
          + ", ".join(f"{g[1]} {m} of {n}" for g, m in zip(OVERVIEW_GOALS, met[costs])) + ").")
PY
fi
if [ "$refused" -gt 0 ] && [ "$nfitted" -eq 0 ]; then
  echo "calibrate-holdout: calibrate refused every fold ($refused): nothing was calibrated" >&2
  exit 1
fi
