#!/bin/bash
# Syscall marks in plain trace replays (docs/model.md "Syscall marks in plain replays"):
# import --syscall-marks keeps them through a JSON and a CBOR workload file, and run --preempt
# none acts on them there as on the trace itself; without the marks it changes nothing.
# Usage: syscall_marks.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"
trace=$SRC/tests/data/traces/smp2-quiet/syscalls/perf-msg-g1-l20.r2.ftrace.gz
opts=(-t smp2 --kernel 6.18 --progress never -f json)
deferred() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"].get("preempt_deferred", 0))' "$1"; }

"$S" import "$trace" --background-comm '^schedsim$' --syscall-marks -o marks.json > /dev/null
"$S" import "$trace" --background-comm '^schedsim$' --syscall-marks -o marks.cbor > /dev/null
"$S" import "$trace" --background-comm '^schedsim$' -o plain.json > /dev/null
check "import --syscall-marks writes runs flagged syscall" grep -q '"syscall"' marks.json
check "a plain import writes none" bash -c "! grep -q '\"syscall\"' plain.json"
"$S" run "$trace" --background-comm '^schedsim$' "${opts[@]}" --preempt none -o t.json 2>/dev/null
"$S" run marks.json "${opts[@]}" --preempt none -o j.json 2>/dev/null
"$S" run marks.cbor "${opts[@]}" --preempt none -o c.json 2>/dev/null
"$S" run plain.json "${opts[@]}" --preempt none -o p.json 2> p.err
check "run --preempt none on the trace holds preemptions back" test "$(deferred t.json)" -gt 0
check "the JSON workload holds as many back" test "$(deferred j.json)" = "$(deferred t.json)"
check "the CBOR workload holds as many back" test "$(deferred c.json)" = "$(deferred t.json)"
check "without the marks none is held back" test "$(deferred p.json)" = 0
check "without the marks the note says --preempt changes nothing" grep -q "changes nothing here" p.err
exit $fail
