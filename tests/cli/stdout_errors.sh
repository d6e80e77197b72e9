#!/bin/bash
# A failed write to standard output is an error with a non-zero exit, for every command (issue
# #31, class 2): cli/main.cpp flushes and checks stdout after the command. Every command in
# `schedsim --help` needs a case here, so a new command cannot be left out. On a full file
# system (root: a tmpfs) also the views, and --trace-out refused before its run.
# Usage: stdout_errors.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"
trace=$SRC/tests/data/traces/tc316-report-R.txt.gz
"$S" gen messaging --group 1 -l 5 -o w.json > /dev/null
"$S" run w.json -t smp2 -f json -o r.json 2> /dev/null

declare -A cases=(
  [calibrate]="calibrate --check-only $trace -t smp2"  # exit 6: this trace is refused
  [compare]="compare r.json r.json"
  [gen]="gen messaging --group 1 -l 5 -o -"
  [help]="help run"
  [import]="import $trace -o -"
  [merge]="merge --help"
  [policies]="policies"
  [record]="record --help"
  [report]="report r.json -o -"
  [run]="run w.json -t smp2"
  [sched]="sched timehist $trace"
  [sweep]="sweep w.json --set placement=sis-fold-2018,sis-fold-opt --set topology=smp2 -o s.jsonl"
  [topology]="topology show smp2"
  [trace]="trace info $trace"
  [validate]="validate --list $SRC/validation"
)
commands=$("$S" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
for c in $commands; do
  if [ -z "${cases[$c]+x}" ]; then
    check "command '$c' has a case in stdout_errors.sh" false
    continue
  fi
  rm -f s.jsonl  # sweep refuses to overwrite its results
  # shellcheck disable=SC2086  # the case is a word list
  "$S" ${cases[$c]} > /dev/null 2> /dev/null; ok_rc=$?
  rm -f s.jsonl
  # shellcheck disable=SC2086
  "$S" ${cases[$c]} > /dev/full 2> err.txt; rc=$?
  check "$c: exit $ok_rc to /dev/null, $rc to /dev/full with a message" \
    bash -c "test $rc != 0 && grep -q -e '^-: error: cannot write ' err.txt"
done
"$S" --version > /dev/full 2> err.txt; rc=$?
check "--version to /dev/full: exit 1" test "$rc" = 1
"$S" --help > /dev/full 2> err.txt; rc=$?
check "--help to /dev/full: exit 1 and the message" test "$rc" = 1 -a \
  "$(cat err.txt)" = "-: error: cannot write standard output: a write failed (disk full?); what was printed is incomplete"

# A full disk: a 64 KiB tmpfs filled up (root only). The views stream, so what reached the file
# is cut anywhere; what matters is the exit code.
pp=$SRC/tests/data/traces/smp2-quiet/perf-pipe-l2000.r3.ftrace.gz
if [ "$(id -u)" = 0 ] && mkdir -p small && mount -t tmpfs -o size=64k tmpfs small 2> /dev/null; then
  dd if=/dev/zero of=small/filler bs=4k 2> /dev/null
  for view in timehist latency map; do
    "$S" sched $view "$pp" > small/out.txt 2> err.txt; rc=$?
    check "sched $view on a full disk: exit 1 and the message" \
      bash -c "test $rc = 1 && grep -q '^-: error: cannot write standard output' err.txt"
    rm -f small/out.txt
  done
  # --trace-out on a full file system: refused before the run with the lower bound of its
  # size (fork's 1,000 forks and exits: 4,002 lines), and nothing left behind.
  "$S" run --workload-gen fork -t smp2 --trace-out small/t.txt > /dev/null 2> err.txt; rc=$?
  check "--trace-out without room: exit 1 before the run, no file" \
    bash -c "test $rc = 1 && grep -q 'the trace would take at least .* (4002 lines' err.txt && ! ls small/ | grep -q '^t.txt\|schedsim-tmp'"
  umount small
else
  echo "skip full-disk cases: not root or tmpfs cannot be mounted here"
fi
exit $fail
