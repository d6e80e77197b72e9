#!/bin/bash
# Calibrates the per-operation CPU costs of `schedsim gen messaging` (docs/generators.md).
#
#   scripts/calibrate-messaging.sh [SCHEDSIM] [GROUPS] [LOOPS] [MODE...]
#     SCHEDSIM  the schedsim binary (default: schedsim on PATH, else build/cli/schedsim)
#     GROUPS    hackbench groups (default 4), LOOPS loops (default 100)
#     MODE      hackbench mode flags (default: --pipe --threads)
#
# Runs hackbench under a sched_switch/sched_waking trace (with `schedsim record` when it works,
# else straight through tracefs), then sums every task's on-CPU time from sched_switch:
#   cost-write = mean sender on-CPU time   / (fds * loops)
#   cost-read  = mean receiver on-CPU time / (fds * loops)
# The children are told apart by creation order: hackbench creates, per group, 20 receivers
# and then 20 senders, so their pids (tids) are consecutive in that order. The on-CPU time of a
# write includes the wakeup path the sender runs in its own context (try_to_wake_up), so the
# wakeup cost is already inside cost-write. Also printed: the wall time hackbench reports, the
# number of context switches and sched_waking events, for comparison with `schedsim run`.
# Needs root, tracefs and hackbench (apt-get install -y rt-tests).
set -euo pipefail

SCHEDSIM=${1:-$(command -v schedsim || echo build/cli/schedsim)}
GROUPS_=${2:-4}
LOOPS=${3:-100}
shift $(( $# < 3 ? $# : 3 )) || true
MODE=("$@")
[ ${#MODE[@]} -eq 0 ] && MODE=(--pipe --threads)
FDS=20

command -v hackbench >/dev/null || { echo "calibrate: hackbench missing (apt-get install -y rt-tests)" >&2; exit 77; }
[ "$(id -u)" = 0 ] || { echo "calibrate: needs root for tracefs" >&2; exit 77; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trace=$work/trace.txt
cmd=(hackbench -g "$GROUPS_" -l "$LOOPS" -f "$FDS" "${MODE[@]}")

if [ -x "$SCHEDSIM" ] && "$SCHEDSIM" record -o "$trace" --events sched_switch sched_waking -- "${cmd[@]}" \
     >"$work/out" 2>"$work/err"; then
  echo "recorded with $SCHEDSIM record" >&2
else
  echo "schedsim record unavailable; tracing through tracefs directly" >&2
  T=/sys/kernel/tracing
  [ -e $T/trace ] || mount -t tracefs nodev $T
  inst=$T/instances/schedsim-calib-$$
  mkdir "$inst"
  trap 'echo 0 > "$inst/tracing_on" 2>/dev/null; rmdir "$inst" 2>/dev/null; rm -rf "$work"' EXIT
  echo 65536 > "$inst/buffer_size_kb"
  echo 1 > "$inst/events/sched/sched_switch/enable"
  echo 1 > "$inst/events/sched/sched_waking/enable"
  echo 1 > "$inst/tracing_on"
  "${cmd[@]}" > "$work/out"
  echo 0 > "$inst/tracing_on"
  cat "$inst/trace" > "$trace"
fi

hb_time=$(awk '/^Time:/ {print $2}' "$work/out")
# Per-pid on-CPU time from sched_switch: a task runs from its switch-in to its switch-out.
awk -v mode="${MODE[*]}" -v fds="$FDS" -v loops="$LOOPS" -v groups="$GROUPS_" -v wall="$hb_time" '
  function ts(s) { sub(":", "", s); return s + 0 }
  / sched_switch: / {
    t = 0
    for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = ts($i); break }
    prev = ""; next_ = ""; comm = ""
    for (i = 1; i <= NF; i++) {
      if ($i ~ /^prev_pid=/) { prev = substr($i, 10) }
      if ($i ~ /^next_pid=/) { next_ = substr($i, 10) }
      if ($i ~ /^next_comm=/) { comm = substr($i, 11) }
    }
    # sched_switch without key=value (older raw formats) are not handled
    split($0, cpu_f, "[][]"); cpu = cpu_f[2] + 0
    if (prev in since) { run[prev] += t - since[prev]; delete since[prev] }
    if (comm == "hackbench") { since[next_] = t; seen[next_] = 1 }
    switches++
  }
  / sched_waking: / { wakings++ }
  END {
    n = 0
    for (p in seen) pids[n++] = p + 0
    # sort pids ascending
    for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (pids[j] < pids[i]) { x = pids[i]; pids[i] = pids[j]; pids[j] = x }
    children = groups * 2 * fds
    first = n - children   # the main task (and anything older) comes first
    if (first < 0) { print "calibrate: found " n " hackbench tasks, expected " children "+1" > "/dev/stderr"; exit 1 }
    sr = 0; ss = 0
    for (k = 0; k < children; k++) {
      p = pids[first + k]
      if ((k % (2 * fds)) < fds) sr += run[p]; else ss += run[p]
    }
    msgs = fds * loops
    per = groups * fds
    printf "hackbench wall time: %s s\n", wall
    printf "context switches (all CPUs): %d, sched_waking: %d\n", switches, wakings
    printf "mean receiver on-CPU: %.3f ms, mean sender on-CPU: %.3f ms\n", sr / per * 1e3, ss / per * 1e3
    printf "cost-read  = %.0f ns\n", sr / per / msgs * 1e9
    printf "cost-write = %.0f ns\n", ss / per / msgs * 1e9
    printf "schedsim gen messaging -g %d -l %d %s --cost-read %dns --cost-write %dns\n", groups, loops, mode, sr / per / msgs * 1e9, ss / per / msgs * 1e9
  }' "$trace"
