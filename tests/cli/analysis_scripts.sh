#!/usr/bin/env bash
# scripts/analysis/local_preempt.py and wake_placement.py on committed recordings: the figures
# docs/fidelity.md quotes ("Local wakeup preemption", "Placement on the 2-vCPU guest"), the same
# counts on a replay's --trace-out, and clear errors (exit 1, nothing on stdout) for bad input.
set -uo pipefail
. "$2/tests/lib/check.sh" "$@"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 0; }
LP=$SRC/scripts/analysis/local_preempt.py
WP=$SRC/scripts/analysis/wake_placement.py
Q=$SRC/tests/data/traces/smp2-quiet

python3 "$LP" "$Q/syscalls/perf-pipe-l2000.r3.ftrace.gz" >lp.txt 2>lp.err
check "local_preempt exits 0 on a recording" test $? -eq 0
# 2303 local wakes, 1608 with need-resched at the wakeup, the waker preempted next at 1604.
check "local_preempt counts perf pipe's local wakes and preempted wakers" \
  grep -q '| perf-pipe-l2000.r3.ftrace.gz | 2303 | 1608 | 2303 | 1604 (70%) | 699 |' lp.txt

"$S" run "$Q/syscalls/perf-pipe-l2000.r3.ftrace.gz" -t smp2 -c "$Q/costs.json" --background-comm '^schedsim$' \
  --kernel 6.18 --placement prev --trace-out replay.txt -o /dev/null 2>/dev/null
python3 "$LP" replay.txt >lpr.txt 2>&1
check "local_preempt reads a replay's --trace-out" test $? -eq 0
# The replay with the wakes kept local: the waker keeps the CPU (57 of 841 preempted).
check "the replay's local wakes and preempted wakers" grep -q '| replay.txt | 841 | - | 841 | 57 (7%) |' lpr.txt

python3 "$WP" "$Q/perf-pipe-l2000.r3.ftrace.gz" >wp.txt 2>&1
check "wake_placement exits 0" test $? -eq 0
check "wake_placement: 2053 wakes stayed local beside the recorder" \
  grep -q '2053  ran on the waker.s CPU, prev = waker.s CPU, other CPU(s) busy, one with the recorder' wp.txt

printf 'not a trace\n' >bad.txt
python3 "$LP" bad.txt >bad.out 2>bad.err
rc=$?
check "local_preempt refuses a file without events (exit 1)" test $rc -eq 1
check "... with nothing on stdout" test ! -s bad.out
check "... and a message naming the file" grep -q 'bad.txt' bad.err
python3 "$LP" nosuch.txt >/dev/null 2>ns.err
check "local_preempt: a missing file is exit 1" test $? -eq 1
# A zstd trace without zstdcat: exit 1, and the message names zstdcat, not the (present) trace.
env PATH=/nonexistent "$(python3 -c 'import sys; print(sys.executable)')" "$LP" "$Q/hb-pipe-thr-g1-l400.r2.ftrace.zst" >/dev/null 2>nz.err
rc=$?
check "local_preempt: a .zst trace without zstdcat is exit 1, naming zstdcat" \
  bash -c "test $rc -eq 1 && grep -q 'zstdcat is not installed' nz.err"
exit $fail
