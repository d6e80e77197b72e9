#!/bin/bash
# Every point of a sweep is checked before its results file is created (issue #31, class 8): an
# option value that only execute_run parsed (stop-at, preempt, ...) used to fail after the header
# was written, and the leftover file blocked the rerun ("exists; --resume ...").
# Usage: sweep_points_first.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"
"$S" gen messaging --group 1 -l 5 -o w.json > /dev/null
for bad in "stop-at=1ms,xyz" "max-sim-time=1s,-3s" "preempt=full,bogus" "update-curr=actions,sometimes" "jitter=5%,lots"; do
  rm -f b.jsonl
  "$S" sweep w.json --set placement=sis-fold-2018 --set topology=smp2 --set "$bad" -o b.jsonl --summary none 2> err.txt; rc=$?
  check "$bad: exit 1 with the point named, and no results file" \
    bash -c "test $rc = 1 && grep -q 'point 1 (' err.txt && ! test -e b.jsonl"
done
exit $fail
