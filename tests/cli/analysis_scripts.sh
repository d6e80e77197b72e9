#!/usr/bin/env bash
# scripts/analysis/local_preempt.py, wake_placement.py and banked_wakes.py on committed recordings:
# the figures docs/model.md quotes ("Local wakeup preemption", "Placement on the 2-vCPU guest",
# "Where the banked wakes start"), the same counts on a replay's --trace-out, and clear errors
# (exit 1, nothing on stdout) for bad input.
set -uo pipefail
. "$2/tests/lib/check.sh" "$@"
command -v python3 >/dev/null || { echo "SKIP: python3 is not installed"; exit 0; }
LP=$SRC/scripts/analysis/local_preempt.py
WP=$SRC/scripts/analysis/wake_placement.py
BW=$SRC/scripts/analysis/banked_wakes.py
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
# The engine's debug log of banked wakes: one line per banked wake of a foreground task (as many
# as the run's "tokens banked"), summed up by banked_wakes.py.
"$S" --log engine=debug run "$Q/perf-sched-messaging.perf-script.gz" -t smp2 -c "$Q/costs.json" \
  --comm sched-messaging --kernel 6.18 >bw.out 2>bw.log
check "the debug run exits 0" test $? -eq 0
check "it reports 93 banked wakes" grep -q '^  tokens banked     93 ' bw.out
check "the debug log has one line per banked wake" test "$(grep -c 'banked as a token' bw.log)" -eq 93
python3 "$BW" bw.log >bw.txt 2>&1
check "banked_wakes exits 0" test $? -eq 0
# 32 first banks (the wakee held no token), 61 to a queued wakee that already held one.
check "banked_wakes splits first and held banks" grep -q '| bw.log | 93 | 32 (34%) | held: queued | 61 | 65.6% |' bw.txt
python3 "$BW" bad.txt >bwbad.out 2>bwbad.err
rc=$?
check "banked_wakes refuses a log without banked-wake lines (exit 1)" test $rc -eq 1
check "... with nothing on stdout" test ! -s bwbad.out
check "... naming the file and the option" grep -q 'bad.txt: no banked-wake lines.*--log engine=debug' bwbad.err
printf 'x wake of task3 banked as a token: running, one token held\n' >bwgarbled.txt
python3 "$BW" bwgarbled.txt >/dev/null 2>bwg.err
rc=$?
check "banked_wakes: a garbled line is exit 1 naming file:line" \
  bash -c "test $rc -eq 1 && grep -q 'bwgarbled.txt:1: a banked-wake line in an unknown format' bwg.err"
exit $fail
