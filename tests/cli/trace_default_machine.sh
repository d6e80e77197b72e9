#!/usr/bin/env bash
# Without --topology a trace is replayed on the machine it was recorded on, as far as the trace
# says: a topology file beside it (topology.json, lscpu-p.txt, sysfs/), else smpN for its CPU
# count; a generated workload keeps xeon-e5-2690v2. Each choice is named in a note on stderr and
# in the results' notes. The replay used to default to the 40-CPU Xeon for every input.
#   usage: trace_default_machine.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
. "$2/tests/lib/check.sh" "$@"
hb=$SRC/tests/data/traces/hackbench-pipe-g2.ftrace.gz   # a 2-CPU recording, no topology beside

"$S" run "$hb" --progress never -o r.json 2> r.err
check "a 2-CPU trace replays on smp2" grep -q '"topology": "smp2"' r.json
check "the note names the choice" grep -q "no --topology: replayed on smp2, the 2 CPUs the trace's events show" r.err
check "the results keep the note" grep -q 'no --topology: replayed on smp2' r.json

# -q leaves notes off stderr, never warnings; the results keep both.
"$S" run "$hb" -q --progress never -o q.json 2> q.err
check "-q: no note on stderr" sh -c '! grep -q "note:" q.err'
check "-q: the warning stays" grep -q "warning: .* banked as tokens" q.err
check "-q: the results keep the note" grep -q 'no --topology: replayed on smp2' q.json

# A topology file beside the trace wins over its CPU count.
mkdir beside
cp "$hb" beside/
"$S" topology export smt2x2 -o beside/topology.json
"$S" run beside/hackbench-pipe-g2.ftrace.gz --progress never -o b.json 2> b.err
check "topology.json beside the trace is the machine" grep -q '"topology": "smt2x2"' b.json
check "its note names the file" grep -q 'replayed on the recording machine that beside/topology.json describes' b.err
check "4 CPUs, the file's" grep -q '"nr_cpus": 4' b.json

# The 16-CPU recordings come with the lscpu -p output of their machine.
"$S" run "$SRC/tests/data/traces/xeon-vm-16cpu/periodic-t24.trace.gz" --progress never --stop-at 20ms -o x.json 2> x.err
check "lscpu-p.txt beside the trace is the machine" grep -q '"nr_cpus": 16' x.json

# An explicit -t is obeyed; a generated workload keeps the default Xeon.
"$S" run "$hb" -t smt2x2 --progress never -o t.json 2> t.err
check "-t wins" grep -q '"topology": "smt2x2"' t.json
check "no default-machine note with -t" sh -c '! grep -q "no --topology" t.err'
"$S" run --workload-gen 'pipe --loops 5' --progress never -o g.json 2> g.err
check "a generated workload runs on xeon-e5-2690v2" grep -q '"topology": "xeon-e5-2690v2"' g.json

# --smt-normalize needs the recording machine named.
rc=0; "$S" run "$hb" --smt-normalize --progress never > /dev/null 2> s.err || rc=$?
check "--smt-normalize without a machine is an input error" test "$rc" = 1
check "it says what to give" grep -q 'give --recorded-on MACHINE or --topology' s.err
exit $fail
