#!/usr/bin/env bash
# `schedsim record` killed with SIGKILL cannot run its own cleanup. Its watchdog must: within
# a few seconds the recorded command and every process it started are gone, the tracefs
# instance is removed and stderr says so. An instance left by a dead recorder (the watchdog
# killed too) is removed by the next `record`, with a warning naming it.
# Needs root and tracefs; without them it exits 77 (skipped) with the reason.
#   usage: record_sigkill.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -uo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"
# shellcheck source=../lib/tracefs.sh
. "$src/tests/lib/tracefs.sh"
tracefs_require
tracefs=$TRACEFS
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# Unique sleep lengths name the command's processes (a shell and two children).
marker='sleep 6131'
alive() { pgrep -f "^sleep 613[17]" >/dev/null; }
pkill -9 -f "^sleep 613[17]" 2>/dev/null

# 1. SIGKILL while the command runs.
"$schedsim" record -o k.txt -- sh -c "$marker & sleep 6137 & wait" 2>rec.err >rec.out &
rec=$!
for _ in $(seq 100); do
  [ -d "$tracefs/instances/schedsim-$rec" ] && alive && break
  sleep 0.05
done
alive || fail "the command did not start: $(cat rec.err)"
kill -9 "$rec"
wait "$rec" 2>/dev/null
for _ in $(seq 100); do
  alive || [ -d "$tracefs/instances/schedsim-$rec" ] || break
  sleep 0.05
done
if alive; then
  fail "the command's processes outlived the killed recorder: $(pgrep -af '^sleep 613[17]' | tr '\n' ';')"
  pkill -9 -f "^sleep 613[17]"
fi
[ -d "$tracefs/instances/schedsim-$rec" ] && fail "tracefs instance schedsim-$rec left behind"
# The watchdog's message comes when it has cleaned up (it may lag the checks above by a moment).
for _ in $(seq 40); do grep -q "ended without cleaning up" rec.err && break; sleep 0.05; done
grep -q "the recorder (pid $rec) ended without cleaning up (killed by SIGKILL, or it crashed): stopped the command and its descendants (3 process(es)) and removed the tracefs instance $tracefs/instances/schedsim-$rec" rec.err ||
  fail "no watchdog message on stderr: $(cat rec.err)"

# 2. An instance of a recorder that no longer runs (watchdog and all): removed at the next start.
sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir "$tracefs/instances/schedsim-$dead" || fail "cannot create a test instance"
"$schedsim" record -o t.txt -- true 2>rec2.err >rec2.out || fail "record failed: $(cat rec2.err)"
[ -d "$tracefs/instances/schedsim-$dead" ] && { fail "stale instance schedsim-$dead not removed"; rmdir "$tracefs/instances/schedsim-$dead"; }
grep -q "removed the tracefs instance schedsim-$dead left by a recorder that no longer runs" rec2.err ||
  fail "no warning about the stale instance: $(cat rec2.err)"

# 3. A normal recording leaves no watchdog behind (it is reaped before record exits).
"$schedsim" record -o n.txt -- sleep 0.2 2>rec3.err >rec3.out &
rec3=$!
wait "$rec3" || fail "record of sleep 0.2 failed: $(cat rec3.err)"
pgrep -f "record -o n.txt" >/dev/null && fail "a process of the recorder (its watchdog) outlived it"
grep -q "ended without cleaning up" rec3.err && fail "the watchdog acted after a clean exit: $(cat rec3.err)"

[ "$failures" -eq 0 ] || exit 1
echo "PASS"
