#!/usr/bin/env bash
# A sweep of 2 x 6 points x 10 repetitions is killed with SIGKILL midway, resumed, and its final
# JSON Lines file must equal an uninterrupted run's byte for byte; then the same with a record cut
# in the middle (as a kill inside write() leaves it). The reference runs with --jobs 1, the
# interrupted sweep with --jobs 2, so this also checks that --jobs does not change the output.
#   usage: sweep_resume.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"

args=(--set "workload-gen=messaging --pipe --thread" --set gen.loops=5 --set topology=xeon-e5-2690v2
      --set placement=sis-fold-2018,sis-fold-opt --set gen.group=1,2,5,10,20,40 --set jitter=5%
      --repeat 10 --progress never --summary none)
total=120
records() { [ -f "$1" ] && echo $(( $(wc -l < "$1") - 1 )) || echo 0; }

"$schedsim" sweep "${args[@]}" --jobs 1 -o ref.jsonl
[ "$(records ref.jsonl)" -eq $total ] || { echo "FAIL: reference has $(records ref.jsonl) records, expected $total"; exit 1; }

# 1. SIGKILL once some records are written, well before the end.
"$schedsim" sweep "${args[@]}" --jobs 2 -o cut.jsonl &
pid=$!
for _ in $(seq 600); do
  [ "$(records cut.jsonl)" -ge 20 ] && break
  kill -0 $pid 2>/dev/null || break
  sleep 0.05
done
kill -KILL $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
done_before=$(records cut.jsonl)
echo "killed after $done_before of $total records ($(stat -c %s cut.jsonl) bytes)"
[ "$done_before" -lt $total ] || { echo "FAIL: the sweep finished before it was killed; the test needs a slower sweep"; exit 1; }
# What was written is a byte prefix of the reference (whole records, maybe a cut last line).
cmp -n "$(stat -c %s cut.jsonl)" cut.jsonl ref.jsonl || { echo "FAIL: the killed sweep's file is not a prefix of the reference"; exit 1; }
"$schedsim" sweep "${args[@]}" --jobs 2 -o cut.jsonl --resume 2> resume.err
cat resume.err
cmp cut.jsonl ref.jsonl || { echo "FAIL: resumed sweep differs from the uninterrupted one"; exit 1; }

# 2. A record cut in half (a kill inside write()): resume drops it and recomputes it.
size=$(stat -c %s ref.jsonl)
head -c $(( size * 2 / 5 + 17 )) ref.jsonl > half.jsonl
"$schedsim" sweep "${args[@]}" --jobs 2 -o half.jsonl --resume 2> half.err
cat half.err
grep -q "dropped a partial last record" half.err || { echo "FAIL: resume did not report the partial record"; exit 1; }
cmp half.jsonl ref.jsonl || { echo "FAIL: resumed sweep after a cut record differs"; exit 1; }

# 3. Resuming a complete file runs nothing and changes nothing; a changed spec is refused.
"$schedsim" sweep "${args[@]}" -o half.jsonl --resume 2>/dev/null
cmp half.jsonl ref.jsonl
if "$schedsim" sweep "${args[@]/--repeat/--seed}" -o half.jsonl --resume 2> changed.err; then
  echo "FAIL: a changed spec was resumed"; exit 1
fi
grep -q "spec changed" changed.err || { cat changed.err; echo "FAIL: no spec-changed error"; exit 1; }
cmp half.jsonl ref.jsonl
# 4. One writer per file (flock): a --resume, and a sweep that kills nothing of it, started while
# another sweep writes the file are refused at once, and the first sweep's file ends identical.
"$schedsim" sweep "${args[@]}" --jobs 1 -o locked.jsonl &
pid=$!
for _ in $(seq 600); do
  [ "$(records locked.jsonl)" -ge 5 ] && break
  sleep 0.05
done
if "$schedsim" sweep "${args[@]}" --jobs 1 -o locked.jsonl --resume 2> second.err; then
  echo "FAIL: a second writer was let in"; exit 1
fi
wait $pid
grep -q "another schedsim sweep is writing this file" second.err || { cat second.err; echo "FAIL: no lock error"; exit 1; }
cmp locked.jsonl ref.jsonl || { echo "FAIL: the first sweep's file changed under a refused --resume"; exit 1; }
# 5. An input edited between a kill and --resume: refused, naming it (it gave a point with 227
# records of the old workload and 73 of the new, exit 0); restored, the resume completes.
"$schedsim" gen messaging --group 1 -l 5 -o in.json > /dev/null
fargs=(in.json --set placement=sis-fold-2018,sis-fold-opt --set topology=smp2 --repeat 3 --progress never --summary none)
"$schedsim" sweep "${fargs[@]}" -o edit-ref.jsonl
head -n 3 edit-ref.jsonl > edit.jsonl
cp in.json in.orig
"$schedsim" gen messaging --group 1 -l 6 -o in.json > /dev/null
if "$schedsim" sweep "${fargs[@]}" -o edit.jsonl --resume 2> edited.err; then
  echo "FAIL: a sweep was resumed on an edited input"; exit 1
fi
grep -q "the input 'in.json' changed since this file was started" edited.err || { cat edited.err; echo "FAIL: no changed-input error"; exit 1; }
cp in.orig in.json
"$schedsim" sweep "${fargs[@]}" -o edit.jsonl --resume 2> /dev/null
cmp edit.jsonl edit-ref.jsonl || { echo "FAIL: the resume after restoring the input differs"; exit 1; }
echo "ok: killed at $done_before/$total, resumed to the identical file; a second writer and an edited input refused"
