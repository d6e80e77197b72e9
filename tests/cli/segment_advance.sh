#!/usr/bin/env bash
# The segment advance (engine/src/segment.cpp) folds completions where it should and nowhere
# else, and folding changes nothing a user sees. `--log engine=info` reports how many events were
# folded, or why the advance is off. (engine.ab-segment compares outputs of every generator and
# trace replays byte for byte; this checks that the comparisons fold at all.)
#   usage: segment_advance.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
. "$2/tests/lib/check.sh" "$@"
gen='messaging --pipe --thread --group 2 --nr_loops 100'
folded() {  # folded LOGFILE: the number of folded completions the info line reports (empty: none)
  sed -n 's/.*segment advance: \([0-9]*\) of the .*/\1/p' "$1"
}
"$S" --log engine=info run --workload-gen "$gen" -t xeon-e5-2690v2 --kernel 4.17 --progress never >on.out 2>on.err
n=$(folded on.err)
check "CFS (4.17): completions are folded" test "${n:-0}" -gt 1000
banked=$(sed -n 's/.*their steps banked \([0-9]*\) wakes.*/\1/p' on.err)
check "senders' wakes to running receivers are folded too" test "${banked:-0}" -gt 1000
SCHEDSIM_ENGINE_SEGMENT=0 "$S" --log engine=info run --workload-gen "$gen" -t xeon-e5-2690v2 --kernel 4.17 \
  --progress never >off.out 2>off.err
check "SCHEDSIM_ENGINE_SEGMENT=0: off, and says so" grep -q 'segment advance off (SCHEDSIM_ENGINE_SEGMENT=0)' off.err
check "the same results either way" cmp -s on.out off.out
"$S" --log engine=info run --workload-gen 'messaging --pipe --thread --group 1 --nr_loops 100' -t xeon-e5-2690v2 \
  --progress never >eevdf.out 2>eevdf.err
n=$(folded eevdf.err)
check "EEVDF (the default 6.18): a receiver alone on its CPU is folded" test "${n:-0}" -gt 1000
"$S" --log engine=info run --workload-gen "$gen" -t xeon-e5-2690v2 --kernel 4.17 --jitter 5% --progress never \
  >jitter.out 2>jitter.err
check "--jitter: off, and says why" grep -q 'segment advance off (jitter)' jitter.err
"$S" --log engine=info run "$SRC/tests/data/traces/smt2x2-msg-sim.ftrace.gz" -t xeon-e5-2690v2 --kernel 5.15 \
  --progress never >trace.out 2>trace.err
n=$(folded trace.err)
check "a trace replay is folded too" test "${n:-0}" -gt 100
# The channel models' reads and writes are folded only with SCHEDSIM_ENGINE_SEGMENT=channels.
chgen='messaging --pipe --thread --group 2 --nr_loops 100 --channel-model pipe'
"$S" --log engine=info run --workload-gen "$chgen" -t xeon-e5-2690v2 --kernel 4.17 --progress never >chdef.out 2>chdef.err
n=$(folded chdef.err)
check "channel model, by default: its steps are not folded" test "${n:-1}" -lt 100
SCHEDSIM_ENGINE_SEGMENT=channels "$S" --log engine=info run --workload-gen "$chgen" -t xeon-e5-2690v2 --kernel 4.17 \
  --progress never >ch.out 2>ch.err
n=$(folded ch.err)
check "SCHEDSIM_ENGINE_SEGMENT=channels: channel steps are folded" test "${n:-0}" -gt 1000
ops=$(sed -n 's/.*and made \([0-9]*\) channel reads and writes.*/\1/p' ch.err)
check "... and the info line counts their reads and writes" test "${ops:-0}" -gt 1000
check "... with the same results" cmp -s chdef.out ch.out
exit $fail
