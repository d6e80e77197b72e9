#!/usr/bin/env bash
# `schedsim sched` takes perf sched's abbreviation of latency: any prefix of three letters or
# more ("lat"), printing what `sched latency` prints; shorter ones are refused with the choices.
#   usage: sched_abbrev.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
. "$2/tests/lib/check.sh" "$@"
T=$SRC/tests/data/traces/perf-bench-pipe.ftrace.gz
"$S" sched latency "$T" > full.txt
for v in lat late latenc; do
  "$S" sched "$v" "$T" > "$v.txt" 2> /dev/null || true
  check "sched $v is sched latency" cmp -s full.txt "$v.txt"
done
rc=0; "$S" sched la "$T" > /dev/null 2> la.err || rc=$?
check "sched la is a usage error" test "$rc" = 2
check "the error lists the views" grep -q 'valid: latency, timehist, map' la.err
exit $fail
