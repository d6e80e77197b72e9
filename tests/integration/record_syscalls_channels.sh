#!/usr/bin/env bash
# Records hackbench in process mode with `schedsim record --extra-events syscalls` and checks what
# --channels needs from such a recording: the TGID column, the read/write/close syscall events,
# and an import with --channels pipe that joins the receivers' pipes (fd tables inherited across
# fork), keeps conservation and replays to completion (docs/traces.md "Channels from syscalls").
# Exit 77 = skipped, with the reason printed.
#   usage: record_syscalls_channels.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"

# shellcheck source=../lib/tracefs.sh
. "$src/tests/lib/tracefs.sh"
tracefs_require
command -v hackbench >/dev/null || tracefs_skip "hackbench (rt-tests) is not installed: scripts/install-deps.sh --test"

# Up to 20 receivers' pipes are joined (one whose reader never slept in the trace is joined by no
# wakeup and stays as recorded), plus the ready pipe; how many depends on the run. A run whose
# senders filled every pipe before any receiver read has no wakeup inside a read or write at all
# (seen once on a fresh CI machine: 74 wakes, all of them the start-up's and the exits'): the
# recording is then repeated, up to three times; none of three with a joined pipe fails.
for attempt in 1 2 3; do
  rm -f hb.ftrace.gz
  tracefs_record record "$schedsim" -o hb.ftrace.gz --extra-events syscalls -- hackbench -g 1 -l 10 --pipe
  if grep -q "syscalls/sys_enter_read" record.err; then tracefs_skip "this kernel has no syscall trace events: $(head -1 record.err)"; fi
  # The TGID column: "comm-pid (  tgid) [cpu]". (Not `zcat | grep -q`: with pipefail, grep's early
  # exit would fail the pipeline through zcat's SIGPIPE.)
  zcat hb.ftrace.gz >hb.txt
  grep -q -- '-[0-9]* *( *[0-9]*) \[' hb.txt || { echo "FAIL: no TGID column in the recording"; exit 1; }
  grep -q 'sys_close(fd: ' hb.txt || { echo "FAIL: no close enter events"; exit 1; }

  "$schedsim" trace info hb.ftrace.gz --channels pipe >info.txt
  cat info.txt
  grep -q "^conservation:  ok" info.txt || { echo "FAIL: conservation check failed"; exit 1; }
  chans=$(sed -n 's/^channels: .* join [0-9]* fd groups: \([0-9]*\) replayed as channels.*/\1/p' info.txt)
  [ "${chans:-0}" -ge 1 ] && break
  echo "recording $attempt: no wakeup inside a pipe read or write (no receiver slept): recording again"
done
[ "${chans:-0}" -ge 1 ] || { echo "FAIL: expected channels in one of 3 recordings, got '${chans}'"; exit 1; }
"$schedsim" run hb.ftrace.gz -t host --channels pipe --progress never -f json -o run.json
python3 -c "
import json, sys
s = json.load(open('run.json'))['summary']
assert s['complete'], 'replay incomplete'
assert s['channel_writes'] > 0 and s['channel_writes'] == s['channel_reads'], (s['channel_writes'], s['channel_reads'])
print('channels replay ok:', s['channel_writes'], 'writes,', s['channel_wakes'], 'channel wakes')
"
echo "PASS"
