#!/bin/bash
# `-` for standard input and output, and outputs named *.cbor / *.gz, across the commands that
# read and write files (issue #16). Usage: stdio.sh SCHEDSIM SRCDIR WORKDIR
set -u
# shellcheck source=../lib/check.sh
. "$2/tests/lib/check.sh" "$@"
trace=$SRC/tests/data/traces/tc316-report-R.txt.gz

# gen | run -: the same results as through a file.
"$S" gen messaging --group 2 -l 5 -o w.json
"$S" run w.json -t smp2 -f json > via-file.json
"$S" gen messaging --group 2 -l 5 -o - | "$S" run - -t smp2 -f json > via-pipe.json
check "gen -o - | run - gives the results of a file" \
  bash -c "diff <(grep -v -e '\"command\"' -e '\"workload_source\"' -e '\"workload\"' via-file.json) <(grep -v -e '\"command\"' -e '\"workload_source\"' -e '\"workload\"' via-pipe.json) >/dev/null"
# A gzip-compressed workload on standard input, and a trace on standard input (read twice: --comm).
gzip -c w.json | "$S" run - -t smp2 -f json > via-gz.json
check "run - reads a gzip workload" bash -c "diff <(grep -v -e '\"command\"' -e '\"workload\"' -e '\"workload_source\"' via-file.json) <(grep -v -e '\"command\"' -e '\"workload\"' -e '\"workload_source\"' via-gz.json) >/dev/null"
"$S" run "$trace" -t smp2 --comm loadgen -f json 2>/dev/null > t-file.json
zcat "$trace" | "$S" run - -t smp2 --comm loadgen -f json 2>/dev/null > t-pipe.json
# The notes name the input (the file, or - for standard input) in the importer's warnings.
sed "s#$trace: #-: #" t-file.json > t-file-as-pipe.json
check "a trace on stdin with --comm (two passes)" bash -c "diff <(grep -v -e '\"command\"' -e '\"workload\"' -e '\"workload_source\"' -e '\"path\"' t-file-as-pipe.json) <(grep -v -e '\"command\"' -e '\"workload\"' -e '\"workload_source\"' -e '\"path\"' t-pipe.json) >/dev/null"
# An empty standard input, and --smt-normalize with a workload piped in: errors, exit 1.
"$S" run - -t smp2 < /dev/null > /dev/null 2> err.txt; rc=$?
check "run - on empty stdin: exit 1 and its message" test "$rc" = 1 -a "$(cat err.txt)" = "-: error: standard input is empty: expected a workload or a kernel trace"
# Standard input is read whole, so it is bounded (1 GiB): an endless pipe is refused, not buffered.
head -c 1100M /dev/zero | "$S" run - -t smp2 > /dev/null 2> err.txt; rc=$?
check "run - past 1 GiB of stdin: exit 1 and its message" test "$rc" = 1 -a "$(cat err.txt)" = "-: error: standard input holds more than 1024 MiB, the most it may (it is read whole, so it can be read twice); give a file name instead, which is read as a stream"
"$S" run - -t smt2x2 --smt-normalize < w.json > /dev/null 2> err.txt; rc=$?
check "--smt-normalize with a workload on stdin: exit 1" test "$rc" = 1 -a "$(cat err.txt)" = "--smt-normalize: error: normalises a kernel trace's on-CPU time; the input is not a trace"

# import: -o - writes the workload to stdout and the summary to stderr; TRACE '-'.
"$S" import "$trace" -o - > imp.json 2> imp.err
check "import -o -: a workload on stdout" grep -q schedsim_workload imp.json
check "import -o -: the summary on stderr" grep -q "^imported" imp.err
zcat "$trace" | "$S" import - -o imp2.json > /dev/null 2>&1
check "import - reads stdin as import reads the file" \
  bash -c "diff <(grep -v -e '\"name\"' -e '\"source\"' -e trace_compression imp.json) <(grep -v -e '\"name\"' -e '\"source\"' -e trace_compression imp2.json) > /dev/null"
# Names: .cbor is CBOR (self-describe tag d9d9f7), .gz is gzip (1f8b), and both read back.
"$S" import "$trace" -o w.cbor > /dev/null 2>&1
check "import -o w.cbor writes CBOR" test "$(head -c 3 w.cbor | od -An -tx1 | tr -d ' ')" = d9d9f7
"$S" import "$trace" -o w.cbor.gz > /dev/null 2>&1
check "import -o w.cbor.gz writes gzip of CBOR" test "$(zcat w.cbor.gz | head -c 3 | od -An -tx1 | tr -d ' ')" = d9d9f7
"$S" gen messaging --group 2 -l 5 -o g.json.gz > /dev/null
check "gen -o g.json.gz writes gzip" bash -c "zcat g.json.gz | cmp -s - w.json"
"$S" run w.cbor.gz -t smp2 -f json -o r.json.gz --trace-out t.txt.gz 2>/dev/null
check "run -o r.json.gz writes gzip" bash -c "zcat r.json.gz | grep -q schedsim"
check "--trace-out t.txt.gz writes gzip ftrace" bash -c "zcat t.txt.gz | head -1 | grep -q '# tracer'"
check "sched reads the gzip trace back" bash -c "'$S' sched latency t.txt.gz | grep -q Task"
check "compare reads gzip results" bash -c "'$S' compare r.json.gz r.json.gz > /dev/null"
"$S" report r.json.gz -o rep.html.gz > /dev/null 2>&1
check "report -o rep.html.gz writes gzip" bash -c "zcat rep.html.gz | grep -q '<html'"
"$S" topology export smp2 --format json -o topo.json.gz > /dev/null
check "topology export -o topo.json.gz writes gzip and reads back" bash -c "zcat topo.json.gz > /dev/null && '$S' run w.json -t topo.json.gz > /dev/null"
# A failed run keeps what the user had at the output path.
echo keep > r2.json.gz
"$S" run missing.json -o r2.json.gz 2>/dev/null
check "a failed run keeps the existing .gz output" test "$(cat r2.json.gz)" = keep
# run --view: the view of `schedsim sched` on the run's --trace-out, after the results.
"$S" run w.json -t smp2 --trace-out sim.txt > /dev/null
"$S" sched timehist sim.txt > sched-view.txt
"$S" run w.json -t smp2 --view timehist > run-view.txt
check "run --view timehist ends with sched timehist of its --trace-out" \
  bash -c "tail -n $(wc -l < sched-view.txt) run-view.txt | cmp -s - sched-view.txt"

# A workload `import` wrote from a trace replays as the trace does (same figures), so it comes
# with the trace replay's warnings too: perf pipe banks about 2/3 of its wakes as tokens.
pp=$SRC/tests/data/traces/smp2-quiet/perf-pipe-l2000.r3.ftrace.gz
"$S" import "$pp" -o pp.json > /dev/null 2>&1
"$S" run "$pp" -t smp2 --progress never 2> pp-trace.err | grep "^  wakeups  " > pp-trace.txt
"$S" run pp.json -t smp2 --progress never 2> pp-file.err | grep "^  wakeups  " > pp-file.txt
grep "banked as tokens" pp-trace.err > pp-trace.warn
grep "banked as tokens" pp-file.err > pp-file.warn
check "import -o W && run W: the trace's figures and its banked-token warning" \
  bash -c "test -s pp-trace.warn && cmp -s pp-trace.txt pp-file.txt && cmp -s pp-trace.warn pp-file.warn"
exit $fail
