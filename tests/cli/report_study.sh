#!/usr/bin/env bash
# `schedsim report` of a study: a sweep file draws each metric against the swept numeric
# parameter with a band per series; repetition files become rows of runs; a file that is neither
# results nor records keeps the results reader's error; the page is the same bytes on a rerun.
set -uo pipefail
. "$2/tests/lib/check.sh" "$@"

"$S" sweep --set workload-gen='messaging --pipe --thread -l 20' --set gen.group=1,2,4 \
  --set placement=sis-util,prev --set topology=smp2 --repeat 3 -o sw.jsonl -j2 >/dev/null 2>&1
check "the sweep ran" test -s sw.jsonl
"$S" report sw.jsonl -o sw.html --title 'study' 2>sw.err
check "report of a sweep exits 0" test $? -eq 0
check "a plot of the benchmark time against gen.group" grep -q 'aria-label="benchmark_time against gen.group"' sw.html
check "one band per placement and metric (6 metrics x 2)" test "$(grep -o 'class="band"' sw.html | wc -l)" -eq 12
check "the series are named by the placement" grep -q '>placement=prev</text>' sw.html
check "18 runs in 6 points" grep -q '18 runs in 6 points' sw.html
check "a table row per point" test "$(grep -c '<tr><td>gen.group=' sw.html)" -eq 6
check "nothing to warn about" test ! -s sw.err
"$S" report sw.jsonl -o sw2.html --title 'study' 2>/dev/null
check "the same bytes on a rerun" cmp -s sw.html sw2.html

"$S" run --workload-gen 'messaging -g 1 -l 20' -t smp2 --repeat 3 -q -o a.jsonl
"$S" run --workload-gen 'messaging -g 1 -l 20' -t smp2 --placement prev -q -o b.json
"$S" run --workload-gen 'messaging -g 1 -l 20' -t smp2 --placement prev -q --format json -o one.json
"$S" report a.jsonl b.json one.json -o rep.html 2>rep.err
check "report of repetitions and a results file exits 0" test $? -eq 0
check "rows per point: the makespan per point" grep -q 'aria-label="makespan per point"' rep.html
check "a results file joins as a one-run point, said on stderr" grep -q 'have one run: no confidence interval' rep.err

head -c 20000 sw.jsonl > trunc.jsonl
"$S" report trunc.jsonl -o trunc.html 2>trunc.err
check "a truncated sweep file: exit 1" test $? -eq 1
check "the error names the broken line" grep -q '^trunc.jsonl:[0-9]*:[0-9]*: error: malformed JSON Lines record' trunc.err
check "no page for it" test ! -e trunc.html

printf '{"not": "results"}\n' > bad.json
"$S" report a.jsonl bad.json -o bad.html 2>bad.err
check "a file that is neither results nor records: exit 1" test $? -eq 1
check "the results reader's message names the file" grep -q '^bad.json: error: ' bad.err
check "no page written" test ! -e bad.html
exit $fail
