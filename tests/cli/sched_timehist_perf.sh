#!/usr/bin/env bash
# `schedsim sched timehist` and `map` against the real perf 6.1.187 views of one
# recording: `perf sched record -- perf bench sched messaging -g 1 -l 5` on the 2-vCPU build
# machine, read as `perf script --ns` text (tests/data/traces/perf61-msg-g1-l5.perf-script.gz;
# perf's own outputs in tests/data/sched-views/). Plain, and
# with -w (a row per wake event) and -M (a row per migration): every row matches perf's but the
# known differences, counted here so a new one fails:
#   - 1 row for a task that had exited: perf names the sample's thread (":-1[-1]", wait 0) where
#     schedsim names prev_pid (sched-messaging[11888]);
#   - with -w, 6 wakees perf names by its own comm tracking ("kworker/0:2-eve", read from /proc
#     when recording began) and schedsim by the event's comm field ("kworker/0:2"); in map, the
#     same for 3 tasks' introductions.
set -uo pipefail
. "$2/tests/lib/check.sh" "$@"
T=$SRC/tests/data/traces/perf61-msg-g1-l5
P=$SRC/tests/data/sched-views/perf61-msg-g1-l5

differing() {  # differing OURS PERF: how many of PERF's lines OURS does not have at that place
  diff "$1" "$2" | grep -c '^>'
}
"$S" sched timehist "$T.perf-script.gz" >plain.txt 2>/dev/null
check "timehist exits 0" test $? -eq 0
gzip -dc "$P.timehist.txt.gz" >perf-plain.txt
check "timehist: as many rows as perf (602 lines, idle rows included)" test "$(wc -l <plain.txt)" -eq "$(wc -l <perf-plain.txt)"
check "timehist: 1 row differs from perf (the exited thread)" test "$(differing plain.txt perf-plain.txt)" -eq 1
check "timehist: perf's idle rows are there" test "$(grep -c '<idle>' plain.txt)" -eq "$(grep -c '<idle>' perf-plain.txt)"

"$S" sched timehist "$T.perf-script.gz" -w -M >wm.txt 2>/dev/null
check "timehist -w -M exits 0" test $? -eq 0
gzip -dc "$P.timehist-wM.txt.gz" >perf-wm.txt
check "timehist -w -M: as many rows as perf" test "$(wc -l <wm.txt)" -eq "$(wc -l <perf-wm.txt)"
check "timehist -w -M: 7 rows differ from perf (6 comms, the exited thread)" test "$(differing wm.txt perf-wm.txt)" -eq 7
check "530 awakened rows, as perf" test "$(grep -c 'awakened: ' wm.txt)" -eq 530
check "22 migrated rows, as perf" test "$(grep -c 'migrated: ' wm.txt)" -eq 22
check "a migration row" grep -qF '   57444.947213 [0000]  migration/0[18]                                                  migrated: perf[11868] cpu 0 => 1' wm.txt

# A threaded recording read as perf.data (hackbench -g 1 -l 10 --pipe --threads, Linux 6.18; perf
# 6.1.187's timehist -w -M of it): perf names a thread that is not its group's leader
# comm[tid/tgid], from its own thread table (the samples' pid field, COMM and FORK records), the
# woken and the not yet run included. Every row matches but the 40 of exited threads, which perf
# names ":-1[-1/7281]" where schedsim names prev_pid.
H=$SRC/tests/data/traces/perf618-hb-g1-l10-pipe-thread.data.gz
"$S" sched timehist "$H" -w -M >thr.txt 2>/dev/null
check "threads: timehist -w -M exits 0" test $? -eq 0
gzip -dc "$SRC/tests/data/sched-views/perf618-hb-g1-l10-pipe-thread.timehist-wM.txt.gz" >perf-thr.txt
check "threads: as many rows as perf" test "$(wc -l <thr.txt)" -eq "$(wc -l <perf-thr.txt)"
check "threads: 40 rows differ from perf, all perf's exited threads" \
  test "$(diff thr.txt perf-thr.txt | grep '^>' | grep -vc ':-1\[-1/7281\]')" -eq 0 -a "$(differing thr.txt perf-thr.txt)" -eq 40
check "threads: a thread woken before it first ran, named as perf" \
  grep -qF '   11852.847796 [0000]  hackbench[7281]                                                  awakened: hackbench[7283/7281]' thr.txt

# perf's summary parent column comes from its FORK records, the ones perf writes for tasks alive
# before the recording (from /proc) included.
"$S" sched timehist "$H" -s -M >thr-s.txt 2>/dev/null
check "threads: summary parent of a task forked before the recording, as perf (7279)" \
  grep -qE '^ +hackbench\[7281\] +7279 ' thr-s.txt
check "threads: summary parent of a kernel thread, as perf (kthreadd)" grep -qE '^ +rcu_preempt\[15\] +2 ' thr-s.txt

"$S" sched map "$T.perf-script.gz" >map.txt 2>/dev/null
gzip -dc "$P.map.txt.gz" >perf-map.txt
check "map: as many rows as perf" test "$(wc -l <map.txt)" -eq "$(wc -l <perf-map.txt)"
check "map: the idle task introduced once, as perf" grep -qF '  *.        57444.947221 secs .  => swapper:0' map.txt
check "map: 3 rows differ from perf (the comms perf tracked itself)" test "$(differing map.txt perf-map.txt)" -eq 3

"$S" sched latency "$T.perf-script.gz" -w >/dev/null 2>err.txt
check "-w on latency: usage error (exit 2)" test $? -eq 2
check "-w on latency: says where it applies" grep -q "applies to 'sched timehist' only" err.txt
exit $fail
