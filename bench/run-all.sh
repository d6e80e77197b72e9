#!/usr/bin/env bash
# Runs every benchmark in one go and prints a summary (bench/README.md explains each figure).
#
#   bench/run-all.sh [--build-dir DIR] [--out DIR] [--quick] [--only LIST] [--callgrind]
#
#   --build-dir DIR  a Release build tree (default build-ci; configured and built here with the
#                    `ci` preset when it is the default and missing)
#   --out DIR        keep every benchmark's full output there (default: a temporary directory,
#                    removed at the end)
#   --quick          smaller sizes everywhere (the seed workload at --nr_loops 5000, not 50000):
#                    a smoke run of a few minutes, not figures to quote
#   --only LIST      comma-separated sections: seed,placement,scaling,import,engine,peers,
#                    sweep,metrics (default: all)
#   --callgrind      also count instructions with valgrind --tool=callgrind (slow: a reduced
#                    seed run per module and the heap loop; repeatable on a noisy machine)
#
# Timings are CPU time of the measured process or thread where the benchmark can get it, and
# wall time beside it: the development machine is shared, so wall time alone is noisy. Nothing
# here asserts a time; the benchmarks are not tests.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
build=build-ci out="" quick=0 only="seed,placement,scaling,import,engine,peers,sweep,metrics" callgrind=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run-all.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cd "$here"
case "$build" in /*) ;; *) build=$here/$build ;; esac
if [ -z "$out" ]; then
  out=$(mktemp -d /tmp/schedsim-bench.XXXXXX)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
py=/usr/bin/python3
[ -x "$py" ] || py=python3
want() { [[ ",$only," == *",$1,"* ]]; }

benches=(engine_bench heap_hold_bench placement_bench scaling_bench trace_import_bench sweep_bench
         metrics_overhead_bench)
if [ "$build" = "$here/build-ci" ] && [ ! -f "$build/CMakeCache.txt" ]; then
  cmake --preset ci >/dev/null
fi
grep -q 'CMAKE_BUILD_TYPE:STRING=Release' "$build/CMakeCache.txt" ||
  echo "run-all.sh: warning: $build is not a Release build; figures will not be comparable" >&2
cmake --build "$build" -j2 --target schedsim "${benches[@]}" >"$out/build.log" 2>&1 || {
  tail -20 "$out/build.log" >&2
  exit 1
}
ss=$build/cli/schedsim
bb=$build/bench
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
section() { echo; echo "== $* ($(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg))"; }

note "schedsim benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), git $(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo '?')"

# ---- 1. the seed workload end to end ------------------------------------------------------------
if want seed; then
  section "seed workload end to end"
  loops=50000
  [ $quick -eq 1 ] && loops=5000
  seed="messaging --pipe --thread --group 4 --nr_loops $loops"
  real_s=15.7831  # commit 765cc3a4b224 changelog, 2 x E5-2690 v2, mean of 30 (docs/compare.md)
  # --quick runs a tenth of the loops; the real figure is scaled by a tenth too (an estimate:
  # the real run was not measured at 5000 loops), so its "vs real" column is only a smoke value.
  [ $quick -eq 1 ] && real_s=$(awk -v r=$real_s 'BEGIN {print r / 10}')
  echo "workload: $seed on xeon-e5-2690v2 (schedsim run, with workload generation and metrics)"
  "$bb/heap_hold_bench" --events 20000000 --sizes 40,80,160 | tee "$out/heap-before.txt"
  printf '%-22s %8s %8s %8s %9s %11s %12s %12s %9s %9s\n' module "wall s" "CPU s" "sim s" "sim/CPU" \
    "events" "events/s" "wakeups/s" "peak MB" "vs real"
  for cfg in "4.17|--kernel 4.17" "sis-fold-opt|--kernel 4.17 --placement sis-fold-opt" "6.12|--kernel 6.12"; do
    name=${cfg%%|*}
    # shellcheck disable=SC2086
    /usr/bin/time -f '%e %U %S %M' -o "$out/seed-$name.time" "$ss" run --workload-gen "$seed" \
      -t xeon-e5-2690v2 ${cfg#*|} --progress never --format json -o "$out/seed-$name.json"
    "$py" - "$out/seed-$name.json" "$out/seed-$name.time" "$name" "$real_s" <<'EOF' | tee -a "$out/seed.txt"
import json, sys
d = json.load(open(sys.argv[1]))
wall, user, sys_, rss = open(sys.argv[2]).read().split()[-4:]
wall, cpu, rss = float(wall), float(user) + float(sys_), int(rss)
s = d["summary"]
ev, wk, sim = s["events"], d["placement"]["wakeups"], s["makespan_ns"] / 1e9
real = float(sys.argv[4])
print(f"{sys.argv[3]:<22} {wall:8.2f} {cpu:8.2f} {sim:8.3f} {sim / cpu:9.3f} {ev:11d} {ev / cpu:12.0f} "
      f"{wk / cpu:12.0f} {rss / 1024:9.1f} {real / cpu:8.2f}x"
      + ("" if s["complete"] else "  (incomplete!)"))
EOF
  done
  "$bb/heap_hold_bench" --events 20000000 --sizes 40,80,160 >"$out/heap-after.txt"
  tail -3 "$out/heap-after.txt"
  "$py" - "$out/seed.txt" "$out/heap-before.txt" "$out/heap-after.txt" <<'EOF' | tee -a "$summary"
import sys
rows = [l.split() for l in open(sys.argv[1])]
heap = {}
for f in sys.argv[2:]:
    for l in open(f):
        p = l.split()
        if p and p[0].isdigit():
            heap[int(p[0])] = max(heap.get(int(p[0]), 0), float(p[4]))  # best CPU events/s
for r in rows:
    evs = float(r[6])
    print(f"seed {r[0]}: CPU {r[2]} s (wall {r[1]} s), {r[9]} the real machine's speed (real s / CPU s), "
          f"sim/CPU {r[4]}, {evs / 1e6:.1f} M events/s = {evs / heap[80]:.2f}x the bare heap loop at 80 pending "
          f"({evs / heap[40]:.2f}x at 40, {evs / heap[160]:.2f}x at 160), peak {r[8]} MB")
EOF
fi

# ---- 2. placement ns per decision -------------------------------------------------------------
if want placement; then
  section "placement ns per decision (40, 80, 256, 1024 CPUs)"
  "$bb/placement_bench" | tee "$out/placement.txt"
  awk '$2 == "dense-2s-1024" && $1 ~ /^sis-(4.17|fold-opt|util)$/ {
         printf "placement %s on 1024 CPUs: idle %s, mixed %s, busy %s ns\n", $1, $3, $4, $5 }' \
    "$out/placement.txt" >>"$summary"
fi

# ---- 3. cost per wakeup against machine size and task count; table memory -----------------------
if want scaling; then
  section "messaging at 1..40 groups on 2..1024 CPUs; per-CPU table memory"
  msgs=400000
  [ $quick -eq 1 ] && msgs=40000
  "$bb/scaling_bench" --messages $msgs | tee "$out/scaling.txt"
  awk '$1 ~ /^(smp2|xeon-e5-2690v2|dense-2s-1024)$/ && ($3 == 1 || $3 == 40) {
         printf "scaling %s groups %s: %s CPU ns per message (wake action), %s per event\n", $1, $3, $10, $12 }
       $1 ~ /^(1024|4096)$/ && NF == 6 { printf "domain tables at %s CPUs: %s MB (%s bytes/CPU)\n", $1, $3, $4 }' \
    "$out/scaling.txt" >>"$summary"
fi

# ---- 4. trace import MB/s per format ---------------------------------------------------------------
if want import; then
  section "trace import MB/s per format"
  mb=512
  [ $quick -eq 1 ] && mb=64
  "$bb/trace_import_bench" --mb $mb --formats | tee "$out/import.txt"
  grep '^format ' "$out/import.txt" >>"$summary" || true
fi

# ---- 5. engine throughput and memory per action ---------------------------------------------------
if want engine; then
  section "engine events and wakeups per second; bytes per stored action"
  "$bb/engine_bench" --reps 3 | tee "$out/engine.txt"
  grep -E '^(workload heap|peak RSS)' "$out/engine.txt" >>"$summary" || true
fi

# ---- 6. peers: perf sched replay and SimPy ---------------------------------------------------------
if want peers; then
  section "peer: perf sched replay -r 1 vs schedsim run, same recorded trace"
  bench/peers/perf-sched-replay.sh "$ss" | tee "$out/perf-replay.txt"
  grep -E '^(ratio|perf_replay=skipped)' "$out/perf-replay.txt" | sed 's/^/perf sched replay: /' >>"$summary"
  section "peer: SimPy model of messaging --pipe --thread (40 CPUs)"
  sl=100 ml=10000
  [ $quick -eq 1 ] && sl=20 ml=400
  if "$py" -c 'import simpy' 2>/dev/null; then
    "$py" bench/peers/simpy_messaging.py --group 4 --nr_loops $sl | tee "$out/simpy.txt"
    /usr/bin/time -f '%e %U %S' -o "$out/simpy-ss.time" "$ss" run --workload-gen \
      "messaging --pipe --thread --group 4 --nr_loops $ml" -t xeon-e5-2690v2 --kernel 4.17 --progress never \
      --format json -o "$out/simpy-ss.json"
    "$py" - "$out/simpy.txt" "$out/simpy-ss.json" "$out/simpy-ss.time" $ml <<'EOF' | tee -a "$summary"
import json, sys
kv = dict(x.split("=", 1) for x in open(sys.argv[1]).read().split())
d = json.load(open(sys.argv[2]))
wall, user, sys_ = (float(x) for x in open(sys.argv[3]).read().split()[-3:])
cpu = user + sys_
ev = d["summary"]["events"]
msgs = 4 * 400 * int(sys.argv[4])
sp_ev, sp_msg = float(kv["events_per_cpu_s"]), float(kv["messages_per_cpu_s"])
print(f"simpy {kv['simpy']}: {sp_ev:.0f} events/s, {sp_msg:.0f} messages/s (CPU); schedsim --kernel 4.17: "
      f"{ev / cpu:.0f} events/s, {msgs / cpu:.0f} messages/s (CPU {cpu:.2f} s, whole process); "
      f"ratio events/s {ev / cpu / sp_ev:.1f}x, messages/s {msgs / cpu / sp_msg:.1f}x")
EOF
  else
    note "simpy: skipped (python3-simpy3 not installed: scripts/install-deps.sh --test)"
  fi
fi

# ---- 7. sweep and metrics overhead ------------------------------------------------------------------
if want sweep; then
  section "sweep points/s at 1 and 2 jobs"
  "$bb/sweep_bench" --loops 20 --repeat 2 --rounds 2 | tee "$out/sweep.txt"
fi
if want metrics; then
  section "metrics observer overhead"
  "$bb/metrics_overhead_bench" | tee "$out/metrics.txt"
fi

# ---- instruction counts -----------------------------------------------------------------------------
if [ $callgrind -eq 1 ]; then
  section "callgrind instruction counts"
  if command -v valgrind >/dev/null; then
    cg="messaging --pipe --thread --group 4 --nr_loops 500"
    for cfg in "4.17|--kernel 4.17" "sis-fold-opt|--kernel 4.17 --placement sis-fold-opt" "6.12|--kernel 6.12"; do
      name=${cfg%%|*}
      # shellcheck disable=SC2086
      valgrind --tool=callgrind --callgrind-out-file="$out/cg-$name.out" "$ss" run --workload-gen "$cg" \
        -t xeon-e5-2690v2 ${cfg#*|} --progress never --format json -o "$out/cg-$name.json" 2>"$out/cg-$name.log"
      ir=$(grep -o 'Collected : [0-9]*' "$out/cg-$name.log" | grep -o '[0-9]*$')
      ev=$(grep -o '"events": *[0-9]*' "$out/cg-$name.json" | head -1 | grep -o '[0-9]*$')
      note "callgrind seed/100 ($cg) $name: $ir instructions, $ev events, $((ir / ev)) per event (whole process)"
    done
    valgrind --tool=callgrind --callgrind-out-file="$out/cg-heap.out" "$bb/heap_hold_bench" --events 2000000 \
      --sizes 80 >/dev/null 2>"$out/cg-heap.log"
    ir=$(grep -o 'Collected : [0-9]*' "$out/cg-heap.log" | grep -o '[0-9]*$')
    note "callgrind heap hold loop, 80 pending, 2000000 events: $((ir / 2000000)) instructions per event"
  else
    note "callgrind: skipped (valgrind not installed: scripts/install-deps.sh --test)"
  fi
fi

echo
echo "== summary"
cat "$summary"
