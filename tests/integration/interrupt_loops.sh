#!/bin/bash
# Every long loop inside `run` looks up (issue #31, class 1): the engine polls SIGINT/SIGTERM,
# the memory budget and progress every Simulation::kPollEvery events whatever the events are,
# and the generators, workload checks and trace readers poll per task or per 65536 lines.
# Usage: interrupt_loops.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"

# 1. One task running back-to-back run() actions 2 x 10^11 times (about 4 hours): no wake,
# switch or enqueue ever reaches an observer. It must show progress and stop at SIGTERM.
cat > spin.json <<'EOF'
{"schedsim_workload": 1, "name": "spin", "tasks": [{"name": "a", "program": [["run", 1], ["run", 1], ["loop", 2, 100000000000]]}]}
EOF
"$S" run spin.json -t smp2 --progress always > spin.out 2> spin.err &
pid=$!
for _ in $(seq 600); do
  grep -q '\[schedsim\] [0-9]* events' spin.err && break
  sleep 0.1
done
check "spin: a progress line within 60 s" grep -q '\[schedsim\] [0-9]* events' spin.err
kill -TERM $pid
# Unfixed, the run ignored the signal for the rest of its 4 hours.
timeout 60 tail --pid=$pid -f /dev/null; alive=$?
kill -KILL $pid 2> /dev/null
wait $pid; rc=$?
check "spin: SIGTERM ends it (exit 143, within 60 s; got $rc)" test "$alive" = 0 -a "$rc" = 143
check "spin: 'terminated' and no output" bash -c "grep -q 'terminated (SIGTERM); no output written' spin.err && ! test -s spin.out"

# 2. A signal while a large workload is generated and checked (800,001 tasks, ~14 s before the
# first event here): acted on within the generator's or the check's next task.
"$S" run --workload-gen 'messaging --group 20000 -l 1' -t smp2 --progress never > gen.out 2> gen.err &
pid=$!
sleep 2
kill -TERM $pid
timeout 5 tail --pid=$pid -f /dev/null; alive=$?
kill -KILL $pid 2> /dev/null
wait $pid; rc=$?
check "generation: SIGTERM ends it within 5 s (exit 143; got $rc)" test "$alive" = 0 -a "$rc" = 143
exit $fail
