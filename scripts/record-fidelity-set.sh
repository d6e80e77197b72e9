#!/bin/bash
# Records the fidelity set of issue 12 on this machine with `schedsim record`, then measures it:
# the machine's idle-wake cost file and the held-out error of `schedsim calibrate` (calibrated on
# half of the recordings, tested on the other half).
#
#   scripts/record-fidelity-set.sh SCHEDSIM OUTDIR [--quick] [--repeats N] [--only REGEX]
#                                  [--max-load L] [--force] [--extra-events LIST]
#     SCHEDSIM      the schedsim binary (e.g. build-ci/cli/schedsim); needs root (tracefs)
#     OUTDIR        where the traces, manifest.tsv, lscpu-p.txt, costs.json and report.md go;
#                   created if missing; an OUTDIR that already holds traces or one of the files
#                   this script writes is refused (exit 3), nothing in it is touched
#     --quick       every workload shrunk to a smoke size (about a second or less each), for tests;
#                   the names say the sizes (hb-pipe-proc-g2-l10 instead of -l100)
#     --repeats N   record each workload N times, NAME.r1 .. NAME.rN (default 3, as the committed
#                   set; 1 with --quick)
#     --only REGEX  only the workloads whose name matches (bash regex, e.g. '^hb-')
#     --max-load L  the 1-minute load average above which the machine is not quiet (default 0.5:
#                   the committed set was recorded at 0.2; every runnable task another program
#                   adds is CPU time the recorded workload competes with, and the trace measures it)
#     --force       record on a machine that is not quiet (the manifest says so: forced yes)
#     --extra-events LIST  `schedsim record --extra-events` (default idle,ipi; e.g. idle,ipi,syscalls
#                   adds the read/write syscall events `--channels` and the syscall marks replay);
#                   a group schedsim record does not know is refused before recording (exit 2)
#
# The set (tests/data/traces/smp2-quiet/README.md lists the committed recordings of it):
#   family messaging  hackbench pipes and sockets, processes and threads, groups 1, 2 and 4, and
#                     perf bench sched messaging
#   family pipe       perf bench sched pipe (ping-pong between two tasks)
#   family fork       a shell loop forking /bin/true
#   family periodic   cyclictest: timer-driven threads
#   family mix        cyclictest beside hackbench threads
# Each is recorded with `schedsim record -o NAME.rN.ftrace.gz --extra-events idle,ipi -- COMMAND`
# (--extra-events LIST replaces idle,ipi)
# (the idle and ipi events feed `trace info --idle-wake-costs`; a replay does not read them).
#
# Then: costs.json from `schedsim trace info TRACE --idle-wake-costs` on the first recording
# (pipe family first: its many short idle periods give the most remote wakes to an idle CPU)
# whose file has an idle-exit table, else the first that writes a file at all (resched_ipi or
# timer_wake_local only); none when no recording has 20 such wakes, preemptions or local timer
# wakes (the report then starts from
# the machine's default costs). When the chosen file has no resched_ipi, the one written by the
# recording with the most remote preempting wakes is added, and likewise timer_wake_local (the
# recording with the most local timer wakes) when it has no timer_wake_table (at least 20
# samples each; the manifest's costs line names every source). Last, `scripts/calibrate-holdout.sh SCHEDSIM --set OUTDIR`
# (its header says how the halves are made) into OUTDIR/report.md, printed too: per held-out
# trace the observed, simulated and relative errors against the goals of issue 12 (makespan
# 10%, wakeups 15%, wake p50/p90 25%, p99 50%) and an overview table as scripts/fidelity.sh's.
#
# manifest.tsv: lines '# KEY<TAB>VALUE' (machine, kernel, date, record options, load threshold,
# forced, topology file, cost file), then a header line and one tab-separated row per trace:
#   name family workload repeat file load_before load_after start_utc end_utc lost record_options command
# (load = 1-minute load average from /proc/loadavg; lost = the recorder's overrun + lost markers).
# Only the load average at the start decides whether the machine is quiet: the later ones include
# the set's own earlier recordings (hackbench's 40 to 160 tasks raise it for a minute or more).
#
# Exit status: 0 recorded and measured; 1 a recording failed (OUTDIR is left as
# it was: the recordings are made in a scratch directory beside it and moved in only at the
# end); 2 usage; 3 OUTDIR already holds a recorded set; 4 the machine is not quiet (no --force);
# 5 a needed program is missing or tracefs cannot be used (the message names it); 6 recorded, but
# the held-out measurement failed: the recordings, manifest, lscpu-p.txt and costs.json are in
# OUTDIR without report.md (rerun `scripts/calibrate-holdout.sh SCHEDSIM --set OUTDIR`).
# env: RECORD_SET_LOADAVG  file read for the load average (default /proc/loadavg; for tests)
set -euo pipefail
usage="usage: scripts/record-fidelity-set.sh SCHEDSIM OUTDIR [--quick] [--repeats N] [--only REGEX] [--max-load L] [--force] [--extra-events LIST]"
die() {
  local code=$1
  shift
  echo "record-fidelity-set: $*" >&2
  exit "$code"
}
[ $# -ge 2 ] || die 2 "$usage"
SCHEDSIM=$1
OUTDIR=$2
shift 2
quick=0 repeats='' only='' max_load=0.5 force=0 extra_events=idle,ipi
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --repeats) [ $# -ge 2 ] || die 2 "--repeats needs a value ($usage)"; repeats=$2; shift ;;
    --only) [ $# -ge 2 ] || die 2 "--only needs a value ($usage)"; only=$2; shift ;;
    --max-load) [ $# -ge 2 ] || die 2 "--max-load needs a value ($usage)"; max_load=$2; shift ;;
    --force) force=1 ;;
    --extra-events) [ $# -ge 2 ] || die 2 "--extra-events needs a value ($usage)"; extra_events=$2; shift ;;
    *) die 2 "unknown argument '$1' ($usage)" ;;
  esac
  shift
done
[ -n "$repeats" ] || repeats=$((quick ? 1 : 3))
[[ $repeats =~ ^[1-9][0-9]*$ ]] || die 2 "--repeats: '$repeats' is not a positive integer"
[[ $max_load =~ ^[0-9]+(\.[0-9]+)?$ ]] || die 2 "--max-load: '$max_load' is not a non-negative number"
[[ $extra_events =~ ^[a-z_]+(,[a-z_]+)*$ ]] || die 2 "--extra-events: '$extra_events' is not a comma-separated list of event groups (schedsim record --help lists them)"
[ -x "$SCHEDSIM" ] || die 2 "$SCHEDSIM is not an executable"
SCHEDSIM=$(cd "$(dirname "$SCHEDSIM")" && pwd)/$(basename "$SCHEDSIM")
# An unknown group: `schedsim record` checks the groups before anything else (record_trace), so it
# is asked now, with a command that cannot run, instead of failing at the first recording.
probe=$("$SCHEDSIM" record -o /dev/null --extra-events "$extra_events" -- /nonexistent/record-fidelity-set-probe 2>&1 >/dev/null || true)
if grep -q -- '--extra-events group' <<<"$probe"; then
  die 2 "--extra-events '$extra_events': ${probe#error: }"
fi
here=$(cd "$(dirname "$0")/.." && pwd)
# calibrate-holdout.sh's fold list separates fields with | ; = and spaces.
case "$OUTDIR" in *[\|\;=\ ]*) die 2 "OUTDIR '$OUTDIR' contains one of '|;= ' (the hold-out's fold list separators)" ;; esac

# name | family | command: the sizes of the committed set (smp2-quiet/README.md), and --quick's.
if [ "$quick" = 1 ]; then
  WORKLOADS=(
    "hb-pipe-proc-g2-l10|messaging|hackbench -g 2 -l 10 -p"
    "hb-pipe-thr-g1-l40|messaging|hackbench -g 1 -l 40 -p -T"
    "hb-sock-proc-g1-l10|messaging|hackbench -g 1 -l 10"
    "hb-sock-thr-g1-l10|messaging|hackbench -g 1 -l 10 -T"
    "hb-pipe-thr-g4-l5|messaging|hackbench -g 4 -l 5 -p -T"
    "perf-msg-g1-l2|messaging|perf bench sched messaging -g 1 -l 2"
    "perf-pipe-l200|pipe|perf bench sched pipe -l 200"
    "fork-10|fork|sh -c 'for i in \$(seq 10); do /bin/true; done'"
    "periodic-t4-l50|periodic|cyclictest -q -t 4 -i 1000 -l 50 -m"
    "mix-t2-l30-hb-g1-l20|mix|sh -c 'cyclictest -q -t 2 -i 1000 -l 30 -m & hackbench -g 1 -l 20 -p -T; wait'"
  )
else
  WORKLOADS=(
    "hb-pipe-proc-g2-l100|messaging|hackbench -g 2 -l 100 -p"
    "hb-pipe-thr-g1-l400|messaging|hackbench -g 1 -l 400 -p -T"
    "hb-sock-proc-g1-l100|messaging|hackbench -g 1 -l 100"
    "hb-sock-thr-g1-l100|messaging|hackbench -g 1 -l 100 -T"
    "hb-pipe-thr-g4-l50|messaging|hackbench -g 4 -l 50 -p -T"
    "perf-msg-g1-l20|messaging|perf bench sched messaging -g 1 -l 20"
    "perf-pipe-l2000|pipe|perf bench sched pipe -l 2000"
    "fork-40|fork|sh -c 'for i in \$(seq 40); do /bin/true; done'"
    "periodic-t4|periodic|cyclictest -q -t 4 -i 1000 -l 200 -m"
    "mix-t2-l100-hb-g1-l200|mix|sh -c 'cyclictest -q -t 2 -i 1000 -l 100 -m & hackbench -g 1 -l 200 -p -T; wait'"
  )
fi
RECORD_OPTS="--extra-events $extra_events"

selected=()
for w in "${WORKLOADS[@]}"; do
  name=${w%%|*}
  if [ -n "$only" ] && ! [[ $name =~ $only ]]; then continue; fi
  selected+=("$w")
done
[ ${#selected[@]} -gt 0 ] || die 2 "--only '$only' matches no workload"

# Refuse an OUTDIR that already holds a set before anything else (nothing there is touched).
if [ -e "$OUTDIR" ]; then
  [ -d "$OUTDIR" ] || die 3 "$OUTDIR exists and is not a directory"
  for f in "$OUTDIR"/manifest.tsv "$OUTDIR"/*.ftrace* "$OUTDIR"/lscpu-p.txt "$OUTDIR"/costs.json "$OUTDIR"/report.md; do
    [ ! -e "$f" ] ||
      die 3 "$OUTDIR already holds a recorded set (${f##*/}); not overwriting it: remove it or choose another OUTDIR"
  done
fi

# Programs: every selected workload's, and what the measurement needs.
need=(python3 lscpu)
for w in "${selected[@]}"; do
  case "$w" in
    *hackbench*) need+=(hackbench) ;;
  esac
  case "$w" in
    *cyclictest*) need+=(cyclictest) ;;
  esac
  case "$w" in
    *"|perf "*) need+=(perf) ;;
  esac
done
for p in "${need[@]}"; do
  command -v "$p" >/dev/null || die 5 "$p is not installed (hackbench and cyclictest: rt-tests; perf: linux-perf; scripts/install-deps.sh --test)"
done
if printf '%s\n' "${selected[@]}" | grep -q '|perf '; then
  perf bench sched pipe -l 1 >/dev/null 2>&1 || die 5 "'perf bench sched pipe' does not run here (perf without the bench subcommand?)"
fi
[ "$(id -u)" -eq 0 ] || die 5 "recording needs root (tracefs)"

loadavg() { cut -d' ' -f1 "${RECORD_SET_LOADAVG:-/proc/loadavg}"; }
above() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'; }
load0=$(loadavg)
if above "$load0" "$max_load"; then
  if [ "$force" = 1 ]; then
    echo "record-fidelity-set: warning: load average $load0 is above $max_load: the machine is not quiet, recording anyway (--force; noted in the manifest)" >&2
  else
    die 4 "load average $load0 is above $max_load: the machine is not quiet (other programs' CPU time would be in the traces); wait, raise --max-load, or --force"
  fi
fi

# Record into a scratch directory beside OUTDIR (same file system: the final move is a rename).
mkdir -p "$(dirname "$OUTDIR")"
stage=$(mktemp -d "$(dirname "$OUTDIR")/.record-set.XXXXXX")
trap 'rm -rf "$stage"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

lscpu -p >"$stage/lscpu-p.txt"
kernel=$(uname -r)
{
  printf '# schedsim record-fidelity-set manifest\t1\n'
  printf '# date_utc\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf '# host\t%s\n' "$(uname -n)"
  printf '# kernel\t%s\n' "$kernel"
  printf '# cpus\t%s\n' "$(grep -vc '^#' "$stage/lscpu-p.txt")"
  printf '# model\t%s\n' "$(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  printf '# topology\tlscpu-p.txt\n'
  printf '# schedsim\t%s\n' "$("$SCHEDSIM" --version 2>/dev/null | head -1)"
  printf '# record_options\t%s\n' "$RECORD_OPTS"
  printf '# quick\t%s\n' "$([ "$quick" = 1 ] && echo yes || echo no)"
  printf '# repeats\t%s\n' "$repeats"
  printf '# max_load\t%s\n' "$max_load"
  printf '# forced\t%s\n' "$(above "$load0" "$max_load" && echo "yes (load average $load0 at the start)" || echo no)"
} >"$stage/manifest.tsv"
rows=$stage/rows.tsv
printf 'name\tfamily\tworkload\trepeat\tfile\tload_before\tload_after\tstart_utc\tend_utc\tlost\trecord_options\tcommand\n' >"$rows"

for w in "${selected[@]}"; do
  IFS='|' read -r wname family cmd <<<"$w"
  eval "argv=($cmd)"
  for r in $(seq "$repeats"); do
    name=$wname.r$r
    file=$name.ftrace.gz
    lb=$(loadavg)
    t0=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    echo "record-fidelity-set: recording $name: $cmd" >&2
    # shellcheck disable=SC2086,SC2154
    if ! (cd "$stage" && "$SCHEDSIM" record -o "$file" $RECORD_OPTS -- "${argv[@]}" >"$name.record.out" 2>"$name.record.err"); then
      cat "$stage/$name.record.out" "$stage/$name.record.err" >&2
      die 1 "recording $name failed (nothing written to $OUTDIR)"
    fi
    t1=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    la=$(loadavg)
    summary=$(grep '^schedsim record: pid' "$stage/$name.record.err" || true)
    lost=$(sed -n 's/.* \([0-9]*\) events overrun, \([0-9]*\) lost markers.*/\1+\2/p' <<<"$summary")
    lost=$((${lost:-0}))
    [ "$lost" -eq 0 ] || echo "record-fidelity-set: warning: $name lost $lost events (overrun + lost markers); calibrate refuses it, the hold-out only tests it" >&2
    rm -f "$stage/$name.record.out" "$stage/$name.record.err"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$family" "$wname" "$r" "$file" "$lb" "$la" \
      "$t0" "$t1" "$lost" "$RECORD_OPTS" "$cmd" >>"$rows"
  done
done

# The machine's idle-wake cost file, from the recordings' own idle and ipi events. Each recording
# is imported once (`trace info --idle-wake-costs`); its cost file and note (the sample counts)
# are kept in $tries for the choices below, by its row number in the manifest.
tries=$stage/idle-wake-costs
mkdir "$tries"
files=() pipe_first=() others=()
while IFS=$'\t' read -r _ family _ _ file _; do
  i=${#files[@]}
  files+=("$file")
  if [ "$family" = pipe ]; then pipe_first+=("$i"); else others+=("$i"); fi
  "$SCHEDSIM" trace info "$stage/$file" --idle-wake-costs "$tries/$i.json" >"$tries/$i.txt" 2>/dev/null ||
    rm -f "$tries/$i.json" "$tries/$i.txt"
done < <(awk -F'\t' 'NR > 1' "$rows")
# costs.json: the first recording (pipe family first: its many short idle periods give the most
# remote wakes to an idle CPU) whose file has an idle-exit table, else the first that wrote one.
costs_from=
for pass in table any; do
  for i in "${pipe_first[@]}" "${others[@]}"; do
    [ -s "$tries/$i.json" ] || continue
    if [ "$pass" = any ] || grep -q idle_exit_table "$tries/$i.json"; then
      cp "$tries/$i.json" "$stage/costs.json"
      costs_from=${files[$i]}
      break
    fi
  done
  [ -z "$costs_from" ] || break
done
# Two costs the file chosen above seldom measures come from the recording that measures them
# best, as that recording's own file writes them (its note names the sample count): the
# reschedule-IPI delay (resched_ipi: a remote wakeup preemption lands after it), from remote
# preempting wakes, which the perf pipe recording has few of (it wakes an idle CPU); and
# timer_wake_local, from local timer wakes (cyclictest's), when the file has no
# timer_wake_table. Each from the recording with the most samples (at least 20; the first in the
# manifest on a tie).
added=()
if [ -n "$costs_from" ]; then
  declare -A best_n=() best_i=()
  for i in "${!files[@]}"; do
    [ -e "$tries/$i.txt" ] || continue
    for key in resched_ipi timer_wake_local; do
      n=$(sed -n "s/.*; $key ([^)]*): [0-9]* ns of \([0-9]*\).*/\1/p" "$tries/$i.txt" | head -1)
      if [ -n "$n" ] && [ "$n" -gt "${best_n[$key]:-0}" ]; then
        best_n[$key]=$n
        best_i[$key]=$i
      fi
    done
  done
  for key in resched_ipi timer_wake_local; do
    [ -n "${best_i[$key]:-}" ] || continue
    i=${best_i[$key]}
    if python3 - "$stage/costs.json" "$tries/$i.json" "$key" <<'PY'; then
import json, sys
path, src, key = sys.argv[1:4]
costs = json.load(open(path))
# A measured table or value already in the file wins (timer_wake_table covers timer wakes).
if key in costs or (key == "timer_wake_local" and "timer_wake_table" in costs):
    sys.exit(1)
costs[key] = json.load(open(src))[key]
with open(path, "w") as f:
    json.dump(costs, f, indent=2)
    f.write("\n")
PY
      added+=("$key from schedsim trace info ${files[$i]} --idle-wake-costs (${best_n[$key]} samples)")
    fi
  done
fi
rm -rf "$tries"
if [ -n "$costs_from" ]; then
  extra=
  for a in "${added[@]}"; do extra+="; $a"; done
  printf '# costs\tschedsim trace info %s --idle-wake-costs costs.json%s\n' "$costs_from" "$extra" >>"$stage/manifest.tsv"
else
  printf '# costs\tnone (no recording has 20 remote wakes to an idle CPU, 20 remote preempting wakes or 20 local timer wakes)\n' >>"$stage/manifest.tsv"
  echo "record-fidelity-set: warning: no recording gives an idle-wake cost file; the hold-out starts from the machine's default costs" >&2
fi
cat "$rows" >>"$stage/manifest.tsv"
rm -f "$rows"

# Held-out error: calibrate on one half, test on the other (and the other way round).
if ! "$here/scripts/calibrate-holdout.sh" "$SCHEDSIM" --set "$stage" >"$stage/report.md" 2>"$stage/report.err"; then
  # The recordings took the machine's quiet time: they are kept (a complete set, without its
  # report), and the measurement can be rerun on them.
  cat "$stage/report.err" >&2
  rm -f "$stage/report.md" "$stage/report.err"
  mkdir -p "$OUTDIR"
  mv "$stage"/* "$OUTDIR"/
  die 6 "the recordings are in $OUTDIR, but scripts/calibrate-holdout.sh --set failed on them (above); no report.md was written; rerun it with: scripts/calibrate-holdout.sh $SCHEDSIM --set $OUTDIR"
fi
rm -f "$stage/report.err"
# The report names the scratch directory; it is OUTDIR once moved.
report=$(<"$stage/report.md")
printf '%s\n' "${report//"$stage"/"$OUTDIR"}" >"$stage/report.md"

mkdir -p "$OUTDIR"
mv "$stage"/* "$OUTDIR"/
cat "$OUTDIR/report.md"
echo "record-fidelity-set: wrote $OUTDIR (manifest.tsv, lscpu-p.txt, $(grep -vc '^#\|^name' "$OUTDIR/manifest.tsv") traces$([ -n "$costs_from" ] && echo ", costs.json"), report.md)" >&2
