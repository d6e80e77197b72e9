#!/bin/bash
# The sched views stream their rows through a temporary file (issue #31, class 7): `sched map`
# and `run --view map` keep a column per CPU in every row, and held them all in memory (1.5 GB
# for a 3.2 MB trace with a high CPU id). Here a 9,700-line trace with one event on CPU 4000
# (about 4,200 rows of 4,001 columns: 70 MB of output) must render within 150 MB of address
# space, where the in-memory rows took 222 MB. Not under ASan (its shadow memory needs more).
# Usage: view_memory.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"
zcat "$SRC/tests/data/traces/smp2-quiet/perf-pipe-l2000.r3.ftrace.gz" | sed '12a\          <idle>-0       [4000] d..2. 47936.270600: sched_switch: prev_comm=swapper/4000 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=x next_pid=5 next_prio=120' > wide.txt
"$S" sched map wide.txt > full.txt 2> /dev/null
check "the map is wide (4,001 columns)" test "$(head -c 20000 full.txt | head -1 | wc -c)" -gt 16000
for view in map timehist; do
  ( ulimit -v 150000; "$S" sched $view wide.txt > out-$view.txt 2> err-$view.txt ); rc=$?
  check "sched $view in 150 MB of address space: exit 0 (got $rc: $(tail -1 err-$view.txt))" test "$rc" = 0
done
check "the capped map equals the uncapped one" cmp -s out-map.txt full.txt
exit $fail
