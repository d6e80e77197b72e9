#!/usr/bin/env bash
# `schedsim record` of a command that passes the PATH check but whose exec fails (a file with
# execute permission that is no executable format: ENOEXEC; no #! script fallback through
# /bin/sh): exit 1 with the exact error below, no trace written (an existing output file is kept
# byte for byte), no temporary left, no tracefs instance left, tracing_on as it was.
# Needs root and tracefs; without them it exits 77 (skipped) with the reason.
#   usage: record_exec_failure.sh SCHEDSIM SOURCE_DIR WORK_DIR
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
printf '\177ELF not really\n' >badelf
printf 'echo no shebang\n' >script
chmod 755 badelf script
echo "old trace" >keep.gz
on_before=$(cat "$tracefs/tracing_on")
for cmd in badelf script; do
  for out in new.gz keep.gz; do
    cp keep.gz keep.orig
    PATH=$work:$PATH "$schedsim" record -o "$out" -- "$cmd" arg >out.stdout 2>out.stderr
    rc=$?
    want="error: record: cannot run command '$cmd': Exec format error (exec of $work/$cmd failed; a script needs a #! line, or record 'sh FILE')"
    [ "$rc" = 1 ] || fail "$cmd -o $out: exit $rc, expected 1"
    [ "$(cat out.stderr)" = "$want" ] || fail "$cmd -o $out: stderr '$(cat out.stderr)', expected '$want'"
    [ -s out.stdout ] && fail "$cmd -o $out: printed on stdout: $(cat out.stdout)"
    [ -e new.gz ] && fail "$cmd -o $out: a trace was written"
    cmp -s keep.gz keep.orig || fail "$cmd -o $out: the existing output was changed"
    left=$(find . -maxdepth 1 -name '.*.schedsim-tmp.*' | wc -l)
    [ "$left" = 0 ] || fail "$cmd -o $out: $left temporaries left"
    inst=$(find "$tracefs/instances" -maxdepth 1 -name 'schedsim-*' | wc -l)
    [ "$inst" = 0 ] || fail "$cmd -o $out: $inst tracefs instances of schedsim left"
    [ "$(cat "$tracefs/tracing_on")" = "$on_before" ] || fail "$cmd -o $out: tracing_on changed"
    echo "record -- $cmd (-o $out): rc $rc, $(cat out.stderr)"
  done
done
# The same command through sh records (the hint's way).
"$schedsim" record -o sh.gz -- sh ./script >/dev/null 2>&1 || fail "record -- sh ./script failed"
gzip -t sh.gz 2>/dev/null || fail "record -- sh ./script wrote no complete trace"
if [ "$failures" != 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all record exec-failure checks passed"
