#!/usr/bin/env bash
# Records hackbench (or perf bench sched messaging) with `schedsim record`, imports the command
# and its descendants, and checks conservation (every wake has a matching block, total run ==
# on-CPU time). Exit 77 = skipped, with the reason printed.
#   usage: record_hackbench.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"

# shellcheck source=../lib/tracefs.sh
. "$src/tests/lib/tracefs.sh"
tracefs_require
if command -v hackbench >/dev/null; then
  cmd=(hackbench -g 2 -l 50 -p)
elif command -v perf >/dev/null && perf bench sched messaging -g 1 -l 1 >/dev/null 2>&1; then
  cmd=(perf bench sched messaging -g 2 -l 50 -p)
else
  tracefs_skip "neither hackbench (rt-tests) nor perf (linux-perf) is installed: scripts/install-deps.sh --test"
fi

# 1. Record the trace (gzip-compressed ftrace text).
tracefs_record record "$schedsim" -o hb.ftrace.gz -- "${cmd[@]}"
root=$(sed -n 's/.*(root pid \([0-9]*\)).*/\1/p' record.out)
[ -n "$root" ] || { echo "FAIL: no root pid in: $(cat record.out)"; exit 1; }
if grep -q "events were lost" record.err; then echo "note: the recording lost events (see above)"; fi

# 2. Import the command and its descendants; conservation must hold.
"$schedsim" trace info hb.ftrace.gz --descendants-of "$root" >info.txt
cat info.txt
grep -q "^conservation:  ok" info.txt || { echo "FAIL: conservation check failed"; exit 1; }
tasks=$(sed -n 's/^workload: *\([0-9]*\) tasks.*/\1/p' info.txt)
[ "${tasks:-0}" -ge 41 ] || { echo "FAIL: expected >= 41 tasks (the command, its groups), got $tasks"; exit 1; }
"$schedsim" import hb.ftrace.gz --descendants-of "$root" -o hb.json >/dev/null
[ -s hb.json ] || { echo "FAIL: import wrote nothing"; exit 1; }

# 3. record --workload writes the extracted workload directly.
"$schedsim" record --workload -o direct.json -- "${cmd[@]}" >direct.out 2>/dev/null
grep -q "^workload:" direct.out || { echo "FAIL: record --workload printed no summary"; exit 1; }
[ -s direct.json ] || { echo "FAIL: record --workload wrote nothing"; exit 1; }

# 4. Replay on the host topology: the simulated work equals the trace's on-CPU time, and every
#    task ends (a wake without its block, or a block without its wake, would leave one stuck).
trace_run=$(sed -n 's/^conservation: .* run \([0-9]*\) ns = on-CPU.*/\1/p' info.txt)
"$schedsim" run hb.json --topology host --format json -o run.json >/dev/null 2>run.err || {
  echo "FAIL: replay failed:"; cat run.err; exit 1; }
work=$(grep -o '"work_done_ns": *[0-9]*' run.json | head -1 | grep -o '[0-9]*$')
ntasks=$(grep -o '"tasks": *[0-9]*' run.json | head -1 | grep -o '[0-9]*$')
exited=$(grep -o '"tasks_exited": *[0-9]*' run.json | head -1 | grep -o '[0-9]*$')
echo "replay on host: work ${work} ns (trace: ${trace_run} ns), ${exited} of ${ntasks} tasks exited"
[ "$work" = "$trace_run" ] || { echo "FAIL: simulated work ${work} ns != trace on-CPU ${trace_run} ns"; exit 1; }
[ "$exited" = "$ntasks" ] || { echo "FAIL: ${exited} of ${ntasks} tasks exited (a wake/block mismatch?)"; exit 1; }
echo "PASS"
