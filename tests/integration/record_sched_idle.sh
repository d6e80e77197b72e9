#!/usr/bin/env bash
# `schedsim record --recorder-class idle` runs the recorder as SCHED_IDLE while the command runs
# and leaves the command in the normal class; by default (`normal`) the recorder stays
# SCHED_OTHER. The recorded command asks the kernel (chrt -p) for its parent's policy (the
# recorder's) and its own. The trace header names the recorder and the online CPU count. Exit 77 =
# skipped, with the reason.
#   usage: record_sched_idle.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"
# shellcheck source=../lib/tracefs.sh
. "$src/tests/lib/tracefs.sh"
tracefs_require
command -v chrt >/dev/null || tracefs_skip "chrt (util-linux) is not installed"
fail() {
  echo "FAIL: $*"
  exit 1
}
probe='echo "recorder: $(chrt -p $PPID)"; echo "command: $(chrt -p $$)"'
tracefs_record idle "$schedsim" --recorder-class idle -o idle.ftrace.gz -- sh -c "$probe"
grep -q "^recorder: .*SCHED_IDLE" idle.out || fail "the recorder is not SCHED_IDLE: $(cat idle.out)"
grep -q "^command: .*SCHED_OTHER" idle.out || fail "the command is not SCHED_OTHER: $(cat idle.out)"
(zcat idle.ftrace.gz || true) | head -6 >idle.head # zcat ends on SIGPIPE once head has its lines (pipefail)
grep -q "^# schedsim recorder: pid=[0-9]* class=SCHED_IDLE$" idle.head || fail "no recorder line in the header: $(cat idle.head)"
grep -q "^# schedsim record: cpus=$(getconf _NPROCESSORS_ONLN)$" idle.head || fail "no online CPU count in the header: $(cat idle.head)"
tracefs_record normal "$schedsim" -o normal.ftrace.gz -- sh -c "$probe"
grep -q "^recorder: .*SCHED_OTHER" normal.out || fail "default class: the recorder is not SCHED_OTHER: $(cat normal.out)"
(zcat normal.ftrace.gz || true) | head -6 | grep -q "class=SCHED_OTHER$" || fail "default class: header"
echo "recorder SCHED_OTHER by default, SCHED_IDLE with --recorder-class idle; the command SCHED_OTHER"
