#!/usr/bin/env bash
# scripts/record-fidelity-set.sh --quick: records the smoke-size fidelity set through tracefs into a
# fresh directory and checks that the manifest, the topology file, every trace and the held-out
# report are there and well-formed; that a second run into the same directory is refused (exit 3)
# and leaves it as it was; that a machine above the load threshold is refused without --force
# (exit 4) and nothing is written; that an unknown --extra-events group is refused (exit 2) before
# anything is recorded. Exit 77 = skipped, with the reason printed.
#   usage: record_fidelity_set.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
no_report=
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"
# shellcheck source=../lib/tracefs.sh
. "$src/tests/lib/tracefs.sh"
script=$src/scripts/record-fidelity-set.sh
fail() {
  echo "FAIL: $*"
  exit 1
}

# Refusals that record nothing come first: they need neither tracefs nor the workloads' programs.
# A busy machine (load read from a stand-in for /proc/loadavg) without --force: exit 4, no OUTDIR.
echo "9.50 9.00 8.00 3/200 12345" >loadavg
rc=0
RECORD_SET_LOADAVG=$work/loadavg "$script" "$schedsim" busy --quick --only '^fork' >busy.out 2>busy.err || rc=$?
cat busy.err
if [ "$rc" -ne 5 ]; then # 5: a program is missing or not root, checked before the load
  [ "$rc" -eq 4 ] || fail "a busy machine without --force: expected exit 4, got $rc"
  grep -q 'load average 9.50 is above 0.5' busy.err || fail "the refusal does not name the load average and the threshold"
  [ ! -e busy ] || fail "a refused run created its OUTDIR"
fi
rc=0
"$script" "$schedsim" bad --repeats 0 >/dev/null 2>bad.err || rc=$?
[ "$rc" -eq 2 ] || fail "--repeats 0: expected exit 2 (usage), got $rc"
# An unknown --extra-events group is refused before anything is recorded (not at the first
# recording): exit 2, the message names it, and no OUTDIR.
rc=0
"$script" "$schedsim" bad --quick --force --extra-events idle,bogus >/dev/null 2>bad.err || rc=$?
cat bad.err
[ "$rc" -eq 2 ] || fail "--extra-events idle,bogus: expected exit 2 (usage), got $rc"
grep -q "^record-fidelity-set: --extra-events 'idle,bogus': unknown --extra-events group 'bogus'; valid: " bad.err ||
  fail "the --extra-events refusal does not name the unknown group"
! grep -q 'recording ' bad.err || fail "--extra-events idle,bogus started recording"
[ ! -e bad ] || fail "a refused --extra-events created its OUTDIR"

tracefs_require
for p in hackbench cyclictest perf; do
  command -v "$p" >/dev/null || tracefs_skip "$p is not installed (hackbench, cyclictest: rt-tests; perf: linux-perf): scripts/install-deps.sh --test"
done
perf bench sched pipe -l 1 >/dev/null 2>&1 || tracefs_skip "'perf bench sched pipe' does not run on this machine"

# 1. Record the smoke-size set. --force: the test must run on a busy CI machine too (the manifest
#    says so).
rc=0
"$script" "$schedsim" set --quick --force >run.out 2>run.err || rc=$?
if [ "$rc" -ne 0 ]; then
  if grep -qE 'needs root|tracefs is unavailable|cannot create a tracefs instance' run.err; then
    tracefs_skip "$(grep -m1 -E 'needs root|tracefs is unavailable|cannot create a tracefs instance' run.err)"
  fi
  # Exit 6 when calibrate refused both halves of this machine's recordings (e.g. every training
  # trace's wakeups banked as tokens): the recordings must be kept and no report written; the
  # report's checks below cannot run then, and the output says so.
  if [ "$rc" -eq 6 ] && grep -q 'calibrate refused every fold' run.err; then
    grep -q 'the recordings are in set, ' run.err || fail "exit 6 does not say where the recordings are"
    [ ! -e set/report.md ] || fail "exit 6 left a report.md"
    no_report=yes
  else
    cat run.out run.err
    fail "record-fidelity-set.sh --quick exited $rc"
  fi
fi
grep -v '^schedsim: note:' run.err || true
[ -z "$(find . -maxdepth 1 -name '.record-set.*')" ] || fail "the scratch directory was left behind"

# 2. The manifest: its header lines, then one 12-column row per trace, every trace readable.
m=set/manifest.tsv
[ -s "$m" ] || fail "no $m"
for key in date_utc kernel cpus topology record_options quick repeats max_load forced costs; do
  grep -q "^# $key	." "$m" || fail "$m has no '# $key' line"
done
grep -q "^# kernel	$(uname -r)\$" "$m" || fail "$m: the kernel line is not uname -r"
grep -q "^# quick	yes\$" "$m" || fail "$m: quick is not yes"
grep -q "^# forced	" "$m" || fail "$m: no forced line"
header=$(grep -v '^#' "$m" | head -1)
[ "$header" = "$(printf 'name\tfamily\tworkload\trepeat\tfile\tload_before\tload_after\tstart_utc\tend_utc\tlost\trecord_options\tcommand')" ] ||
  fail "$m: unexpected column header: $header"
rows=$(grep -v '^#' "$m" | tail -n +2)
n=$(wc -l <<<"$rows")
[ "$n" -eq 10 ] || fail "$m: expected 10 traces (10 workloads, 1 repeat), got $n"
families=$(cut -f2 <<<"$rows" | sort -u | paste -sd' ')
[ "$families" = "fork messaging mix periodic pipe" ] || fail "$m: families are '$families'"
while IFS=$'\t' read -r name _ _ repeat file lb la _ _ lost opts cmd; do
  [ "$repeat" = 1 ] || fail "$name: repeat '$repeat'"
  [ "$file" = "$name.ftrace.gz" ] || fail "$name: file '$file'"
  [[ $lb =~ ^[0-9]+\.[0-9]+$ && $la =~ ^[0-9]+\.[0-9]+$ ]] || fail "$name: load averages '$lb' '$la'"
  [[ $lost =~ ^[0-9]+$ ]] || fail "$name: lost '$lost'"
  [ "$opts" = "--extra-events idle,ipi" ] || fail "$name: record options '$opts'"
  [ -n "$cmd" ] || fail "$name: no command"
  gzip -t "set/$file" || fail "set/$file is not a complete gzip file"
  "$schedsim" trace info "set/$file" >info.txt 2>&1 || { cat info.txt; fail "trace info failed on set/$file"; }
  grep -q '^format: *ftrace' info.txt || fail "set/$file: not read as ftrace"
  grep -q '^selection: *descendants of' info.txt || fail "set/$file: no recorded command in the header"
done <<<"$rows"
# The topology file is this machine's `lscpu -p`, and schedsim reads it.
diff <(lscpu -p) set/lscpu-p.txt >/dev/null || fail "set/lscpu-p.txt is not this machine's lscpu -p"
"$schedsim" topology show set/lscpu-p.txt >/dev/null || fail "schedsim cannot read set/lscpu-p.txt"
# A cost file, when written, is one `run --cost` reads, and the manifest names its trace.
if [ -e set/costs.json ]; then
  grep -qE '^# costs	schedsim trace info [^ ]+ --idle-wake-costs costs.json(; (resched_ipi|timer_wake_local) from schedsim trace info [^ ]+ --idle-wake-costs \([0-9]+ samples\))*$' "$m" ||
    fail "$m does not say where costs.json comes from"
  for key in resched_ipi timer_wake_local; do
    if grep -q "^# costs	.*; $key from " "$m"; then
      grep -q "\"$key\"" set/costs.json || fail "the manifest says $key was added, costs.json has none"
    fi
  done
  first=$(cut -f5 <<<"$rows" | head -1)
  "$schedsim" run "set/$first" -t set/lscpu-p.txt --cost set/costs.json --progress never -o /dev/null 2>/dev/null ||
    fail "run --cost set/costs.json failed"
else
  grep -q '^# costs	none' "$m" || fail "no costs.json, and the manifest does not say none"
fi

# 3. The report: printed and saved; the halves table lists every trace; every trace is held out
#    at least once in the overview (unless the fold that tests it was not fitted), whose header
#    has the goals; the goal counts are there.
if [ -n "$no_report" ]; then
  echo "NOTE: calibrate refused both halves of this machine's quick set; the report's checks were skipped:"
  grep 'calibrate refused\|Not fitted' run.err run.out || true
else
  r=set/report.md
  [ -s "$r" ] || fail "no $r"
  cmp -s run.out "$r" || fail "the printed report differs from $r"
  # shellcheck disable=SC2016 # the backquotes are markdown
  grep -qF 'Set: `set` (' "$r" || fail "$r does not name the set directory (or still names the scratch one)"
  grep -q '^### fit half A: ' "$r" || fail "$r has no fold 'fit half A'"
  grep -q '^### fit half B: ' "$r" || fail "$r has no fold 'fit half B'"
  grep -q '^### Overview: relative error of the held-out traces$' "$r" || fail "$r has no overview"
  grep -qF '| trace | costs | makespan (10%) | wakeups (15%) | p50 (25%) | p90 (25%) | p99 (50%) | rq p50 | migr. | lat. >= |' "$r" ||
    fail "$r: the overview's header is not fidelity.sh's with the goals"
  grep -qE '^Goals met, start: \*\*[0-9]+ of [0-9]+\*\*' "$r" || fail "$r: no goal count with the starting costs"
  grep -qE '^Goals met, calibrated: \*\*[0-9]+ of [0-9]+\*\*' "$r" || fail "$r: no goal count calibrated"
  overview=$(sed -n '/^### Overview/,$p' "$r")
  # The halves whose fit calibrate refused ("### fit half X: ..." followed by "Not fitted: ...").
  refused=$(awk '/^### fit half [AB]:/ { h = substr($4, 1, 1) } /^Not fitted: / && h != "" { printf "%s", h } /^### / && !/^### fit half/ { h = "" }' "$r")
  fitted_folds=$(grep -c '^Fitted: ' "$r" || true)
  [ "$fitted_folds" -ge 1 ] || fail "$r: no fold was fitted, yet the script exited 0"
  if [ -n "$refused" ]; then
    echo "NOTE: calibrate refused half $refused on this machine; its held-out traces have start rows only:"
    grep '^Not fitted: ' "$r"
  fi
  while read -r name; do
    line=$(grep -E "^\| $name \| (A|B) \| " "$r") || fail "$r: $name is not in the halves table"
    half=$(awk -F' \\| ' '{ print $2 }' <<<"$line")
    grep -qE "^\| $name \| start \|" <<<"$overview" || fail "$r: $name has no overview row with the starting costs"
    # Tested in the other half's fold, or in both when calibrate cannot fit it.
    tested_in=$([ "$half" = A ] && echo B || echo A)
    grep -qE "^\| $name \| (A|B) \| no: " <<<"$line" && tested_in=AB
    needs_fit_row=
    for f in A B; do
      [[ $tested_in == *$f* && $refused != *$f* ]] && needs_fit_row=yes
    done
    if [ -n "$needs_fit_row" ]; then
      grep -qE "^\| $name \| fit (A|B) \|" <<<"$overview" || fail "$r: $name is never held out"
    else
      ! grep -qE "^\| $name \| fit (A|B) \|" <<<"$overview" || fail "$r: $name has a calibrated row from a fold that was not fitted"
    fi
  done < <(cut -f1 <<<"$rows")
  # Every overview row has the 10 cells of the header: an error, "-" or "n<30" per metric, and the
  # share of lower-bound latency samples.
  bad=$(grep -E '^\| [a-z]' <<<"$overview" | grep -v '^| trace ' |
    awk -F' \\| ' '{ if (NF != 10) { print; next } for (i = 3; i <= NF; i++) { c = $i; sub(/ \|$/, "", c)
      if (c !~ (i < NF ? "^([+-][0-9]+%( ok)?|-|n<30)$" : "^[0-9]+%$")) { print; next } } }')
  [ -z "$bad" ] || fail "$r: malformed overview rows: $bad"
fi

# 4. A second run into the same directory is refused (exit 3) and leaves it as it was.
before=$(cd set && sha256sum ./*)
rc=0
"$script" "$schedsim" set --quick --force >again.out 2>again.err || rc=$?
cat again.err
[ "$rc" -eq 3 ] || fail "a second run into set/: expected exit 3, got $rc"
grep -q 'already holds a recorded set' again.err || fail "the refusal does not say why"
[ "$before" = "$(cd set && sha256sum ./*)" ] || fail "the refused run changed set/"
echo "PASS"
