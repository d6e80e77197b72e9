#!/bin/bash
# Fidelity guard on a fresh recording (issue 12): records a small sleep-dominated workload on
# this machine with `schedsim record` (8 x fork+exec of `sleep 0.05` from sh, ~0.4 s), replays
# it on this machine (`-t host --kernel host`) with the committed calibration of this machine
# type where it is one (a 2-vCPU KVM guest, the development and CI machines: the cost file
# tests/data/traces/smp2-quiet/costs.json measured from their own recordings), the default costs
# elsewhere (which pick the idle-wake model of a KVM guest by themselves), and fails when the
# makespan is off by more than 20% (the bound) or the wakeup count by more than 15% (its
# goal; each sleep's timer wake and each child's exit wake are replayed as wakes: 24 of 24 on the
# 2-vCPU guest) (tests/fidelity_guard.cmake does the check). Skips (exit 77, with the reason) where tracefs
# cannot be used: not root, tracefs not mountable, no instances.
#
# Why this workload: its makespan is set by the sleeps and the fork/exec/exit chain, which the
# replay reproduces, and not by CPU contention from other processes, which a replay of only the
# recorded command cannot (docs/fidelity.md, "The traces and the machines that recorded them");
# on the 2-vCPU development VM under builds, the error varied from -3% to -35% (see the skip
# below); a quiet machine is what this test can judge.
#
#   tests/fidelity_record.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -uo pipefail
schedsim=$1
src=$2
work=$3
mkdir -p "$work"
cd "$work"
trace=$work/rec.ftrace.gz
rm -f "$trace"
# shellcheck source=lib/tracefs.sh
. "$src/tests/lib/tracefs.sh"
tracefs_require
tracefs_record record "$schedsim" -o "$trace" -- sh -c 'for i in 1 2 3 4 5 6 7 8; do sleep 0.05; done'

# A replay of the command alone cannot reproduce waits behind other load (docs/fidelity.md): on
# a machine that was busy during the recording (CPUs idle less than half the time; a quiet one
# is ~97% idle during this sleep-dominated workload) the comparison would measure the load, so
# the test skips and says so. Measured on the development VM while 8 builds ran (CPUs idle
# 0.0-0.2% of the recording): makespan errors from -3% to -35% between runs, also with nice -20.
if command -v python3 >/dev/null; then
  idle=$(python3 "$src/scripts/analysis/cpu_share.py" "$trace" --comm '^(sh|sleep)$' 2>/dev/null |
    sed -n 's/^| idle (or unknown) | [^|]* | \([0-9.]*\)% |$/\1/p')
  if [ -n "$idle" ] && python3 -c "import sys; sys.exit(0 if float('$idle') < 50 else 1)"; then
    echo "fidelity-record: skipped: the machine was busy during the recording (CPUs idle ${idle}% of the time, under 50%)"
    exit 77
  fi
fi
cost=
if [ "$(nproc)" = 2 ] && lscpu 2>/dev/null | grep -q '^Hypervisor vendor: *KVM'; then
  cost=$src/tests/data/traces/smp2-quiet/costs.json
  echo "fidelity-record: a 2-vCPU KVM guest: replaying with its committed cost file ${cost#"$src"/}"
else
  echo "fidelity-record: not a 2-vCPU KVM guest: replaying with the default costs"
fi
cmake -DSCHEDSIM="$schedsim" -DTRACE="$trace" -DTOPOLOGY=host -DKERNEL=host -DCOST="$cost" \
  -DBOUNDS="makespan_ns=0.20;wakeups=0.15" -DWORK_DIR="$work" -P "$src/tests/fidelity_guard.cmake"
