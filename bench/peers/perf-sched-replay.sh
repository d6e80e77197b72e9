#!/usr/bin/env bash
# Peer benchmark: `perf sched replay -r 1` against `schedsim run` on the same recorded trace, in
# one run, as a ratio of wall times (and of CPU times); median of three interleaved rounds.
#
#   bench/peers/perf-sched-replay.sh SCHEDSIM [--perf-data FILE] [--groups 4] [--loops 200]
#
# Without --perf-data it records one with `perf sched record -- hackbench -g G -l L -p -T`
# (needs root, linux-perf and rt-tests: scripts/install-deps.sh --test); the recording stays in a
# temporary directory and is removed at the end. Both read the same perf.data:
#   perf sched replay  parses perf.data, then re-runs every task's recorded run/sleep/wake
#                      pattern as real threads on this machine (so it takes at least the traced
#                      run's own duration, on the real CPUs);
#   schedsim run       decodes the perf.data (imports it: extraction, repairs, observed
#                      latency), then simulates it on the host's topology (-t host).
# `perf script` (untimed) only counts the sched events for the report line.
# Prints key=value lines; bench/run-all.sh collects them.
set -euo pipefail

schedsim=${1:?usage: perf-sched-replay.sh SCHEDSIM [--perf-data FILE] [--groups G] [--loops L]}
shift
data="" groups=4 loops=200
while [ $# -gt 0 ]; do
  case "$1" in
    --perf-data) data=$2; shift 2 ;;
    --groups) groups=$2; shift 2 ;;
    --loops) loops=$2; shift 2 ;;
    *) echo "perf-sched-replay.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done

skip() { echo "perf_replay=skipped reason=\"$1\""; exit 0; }
command -v perf >/dev/null || skip "perf not installed (scripts/install-deps.sh --test)"

tmp=$(mktemp -d /tmp/schedsim-peer.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$data" ]; then
  command -v hackbench >/dev/null || skip "hackbench not installed (rt-tests)"
  [ "$(id -u)" -eq 0 ] || skip "perf sched record needs root"
  data=$tmp/hb.data
  if ! perf sched record -o "$data" -- hackbench -g "$groups" -l "$loops" -p -T >"$tmp/record.log" 2>&1; then
    skip "perf sched record failed: $(tail -1 "$tmp/record.log")"
  fi
fi
perf script -i "$data" >"$tmp/hb.perf-script" 2>/dev/null
events=$(grep -c 'sched:sched_' "$tmp/hb.perf-script" || true)

# timed CMD...: runs CMD; prints "wall cpu" in seconds (bash's time, ms resolution).
timed() {
  local TIMEFORMAT='%3R %3U %3S' t
  t=$( { time "$@" >"$tmp/out" 2>"$tmp/err"; } 2>&1 ) || {
    echo "perf-sched-replay.sh: failed: $* ($(tail -1 "$tmp/err"))" >&2
    exit 1
  }
  awk '{printf "%s %.3f\n", $1, $2 + $3}' <<<"$t"
}
# Three rounds, interleaved (perf's replay, then schedsim); the medians are kept.
pws=() pcs=() sws=() scs=()
for _ in 1 2 3; do
  read -r w c < <(timed perf sched replay -r 1 -i "$data")
  pws+=("$w") pcs+=("$c")
  replay_ms=$(awk '/^#1 *:/ {print $3; exit}' "$tmp/out" | tr -d ,)
  read -r w c < <(timed "$schedsim" run "$data" -t host --progress never --format json -o "$tmp/r.json")
  sws+=("$w") scs+=("$c")
done
median() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
pw=$(median "${pws[@]}") pc=$(median "${pcs[@]}") sw=$(median "${sws[@]}") sc=$(median "${scs[@]}")
sim_events=$(grep -o '"events": *[0-9]*' "$tmp/r.json" | head -1 | grep -o '[0-9]*$')
echo "trace=hackbench-g${groups}-l${loops}-pipe-thread perf_data_bytes=$(stat -c %s "$data") script_bytes=$(stat -c %s "$tmp/hb.perf-script") sched_events=$events"
echo "perf_replay_wall_s=$pw perf_replay_cpu_s=$pc perf_replay_last_run_ms=${replay_ms:-?} (walls: ${pws[*]})"
echo "schedsim_wall_s=$sw schedsim_cpu_s=$sc schedsim_events=${sim_events:-?} (walls: ${sws[*]})"
awk -v a="$pw" -v b="$sw" -v c="$pc" -v d="$sc" 'BEGIN {
  printf "ratio_wall=%.1f ratio_cpu=%.1f\n", a / (b > 0 ? b : 0.001), c / (d > 0 ? d : 0.001) }'
