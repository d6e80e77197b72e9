#!/usr/bin/env bash
# Interrupts `schedsim run` (with -o and --trace-out), `schedsim sweep -o` and `schedsim record` with SIGKILL, SIGTERM
# and SIGINT at pseudo-random points (a fixed seed list, so every run of this test picks the same
# points relative to the measured length of an uninterrupted run) and checks, after each:
#   - each output is either the old file, intact, or the complete new one (byte-identical to an
#     uninterrupted run for `run`; a complete gzip stream for `record`), and the results and the
#     trace of one run are both old or both new;
#   - the exit code is 0 (the run ended before the signal) or 128 + signal (130, 143, 137);
#   - no temporary is left after SIGTERM/SIGINT, nor after the next run writing into the directory
#     once SIGKILL left one behind;
#   - `sweep`: the results file is a prefix of an uninterrupted sweep's, ends with a whole record
#     after SIGTERM/SIGINT, and `--resume` completes it to the same bytes;
#   - `record`: no tracefs instance of ours is left (after the next `record` for SIGKILL).
# The `record` part needs root and tracefs; without them it is skipped with a printed reason
# (the script then exits 77 if nothing else ran, else 0 after the `run` part).
#   usage: interrupt_outputs.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -uo pipefail
# shellcheck source=../lib/workdir.sh
. "$2/tests/lib/workdir.sh" "$@"
set -m  # background jobs get default SIGINT handling (non-interactive shells ignore it otherwise)

seeds=(11 23 37 41)
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# A deterministic point in [0, 1.2 * len_ms) for (seed, salt).
delay_of() {
  local seed=$1 salt=$2 len_ms=$3
  local h=$(((seed * 2654435761 + salt * 40503) % 1000))
  echo $((h * len_ms * 12 / 10000))
}
sleep_ms() { sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"; }
# Starts "$@" in the background (stdout, stderr to $out_prefix.stdout/.stderr), sends SIG$sig
# after $delay ms, and sets rc to its exit code.
interrupt_after() {
  local delay=$1 sig=$2 out_prefix=$3
  shift 3
  "$@" >"$out_prefix.stdout" 2>"$out_prefix.stderr" &
  local pid=$!
  last_pid=$pid
  sleep_ms "$delay"
  kill -"$sig" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rc=$?
}
# The results record their command line (provenance), which names this run's own output paths:
# compared without that line.
same_results() { cmp -s <(grep -v '^  command ' "$1") <(grep -v '^  command ' "$2"); }
leftovers() { find "$1" -maxdepth 1 -name '.*.schedsim-tmp.*' | wc -l; }
expected_rc() {
  case $1 in KILL) echo 137 ;; TERM) echo 143 ;; INT) echo 130 ;; esac
}

# ---- run --------------------------------------------------------------------------------------
run_args=(run --workload-gen 'messaging --group 10 --pipe --loops 600' -t xeon-gold-6248 --progress never)
mkdir ref
t0=$(now_ms)
"$schedsim" "${run_args[@]}" -o ref/r.txt --trace-out ref/t.txt || { echo "FAIL: reference run"; exit 1; }
len=$(($(now_ms) - t0))
echo "reference run: ${len} ms, trace $(stat -c %s ref/t.txt) bytes"

salt=0
for seed in "${seeds[@]}"; do
  for sig in KILL TERM INT; do
    salt=$((salt + 1))
    d=run-$seed-$sig
    mkdir "$d"
    echo "old results" >"$d/r.txt"
    echo "old trace" >"$d/t.txt"
    delay=$(delay_of "$seed" "$salt" "$len")
    interrupt_after "$delay" "$sig" "$d/out" "$schedsim" "${run_args[@]}" -o "$d/r.txt" --trace-out "$d/t.txt"
    r_new=0 t_new=0
    if same_results "$d/r.txt" ref/r.txt; then r_new=1
    elif [ "$(cat "$d/r.txt")" != "old results" ]; then fail "$d: results neither old nor the complete new file"; fi
    if cmp -s "$d/t.txt" ref/t.txt; then t_new=1
    elif [ "$(cat "$d/t.txt")" != "old trace" ]; then fail "$d: trace neither old nor the complete new file"; fi
    [ "$r_new" = "$t_new" ] || fail "$d: results new=$r_new but trace new=$t_new (not committed together)"
    want=$(expected_rc "$sig")
    if [ "$rc" != 0 ] && [ "$rc" != "$want" ]; then fail "$d: exit $rc after SIG$sig, expected $want (or 0)"; fi
    [ "$rc" = 0 ] && [ "$r_new" = 0 ] && fail "$d: exit 0 without the new outputs"
    left_after_signal=$(leftovers "$d")
    if [ "$sig" != KILL ] && [ "$left_after_signal" != 0 ]; then fail "$d: $left_after_signal temporaries left after SIG$sig"; fi
    # The next run writing into the directory removes what a SIGKILL left.
    "$schedsim" run --workload-gen 'pipe --loops 10' -t smp2 --progress never -o "$d/next.txt" >/dev/null ||
      fail "$d: next run failed"
    left=$(leftovers "$d")
    [ "$left" = 0 ] || fail "$d: $left temporaries left after the next run"
    echo "run SIG$sig at ${delay} ms: rc $rc, outputs $([ "$r_new" = 1 ] && echo new || echo old), temporaries left by the signal: $left_after_signal (0 after the next run)"
    rm -rf "$d"
  done
done

# ---- run --repeat of a short workload ----------------------------------------------------------
# Each repetition makes fewer engine callbacks than the in-run poll interval, so only the check
# between repetitions sees the signal: SIGTERM must end the run (143, nothing written), not be
# ignored until the last of 10^8 repetitions. 60 s is a liveness bound, not a timing.
d=repeat-term
mkdir "$d"
"$schedsim" run --workload-gen 'pipe --loops 10' -t smp2 --progress never --repeat 100000000 -o "$d/r.json" \
  >"$d/out.stdout" 2>"$d/out.stderr" &
pid=$!
sleep 1
kill -TERM "$pid" 2>/dev/null
waited=0
while kill -0 "$pid" 2>/dev/null && [ "$waited" -lt 60 ]; do
  sleep 1
  waited=$((waited + 1))
done
if kill -0 "$pid" 2>/dev/null; then
  fail "$d: run --repeat still running 60 s after SIGTERM"
  kill -KILL "$pid"
fi
wait "$pid" 2>/dev/null
rc=$?
[ "$rc" = 143 ] || fail "$d: run --repeat exit $rc after SIGTERM, expected 143"
[ -e "$d/r.json" ] && fail "$d: run --repeat wrote its output after SIGTERM"
[ "$(leftovers "$d")" = 0 ] || fail "$d: temporaries left after SIGTERM"
echo "run --repeat SIGTERM: rc $rc"
rm -rf "$d"

# ---- sweep -------------------------------------------------------------------------------------
# The results file is always a byte prefix of an uninterrupted sweep's; after SIGTERM/SIGINT it
# ends with a whole record (the workers stop, the writer syncs), nothing else is left in the
# directory, and --resume completes it to the uninterrupted file byte for byte.
sweep_args=(sweep --set "workload-gen=messaging --pipe --thread" --set gen.loops=150 --set topology=xeon-e5-2690v2
            --set placement=sis-fold-2018,sis-fold-opt --set gen.group=1,5,10 --set jitter=5% --repeat 3
            --jobs 2 --progress never --summary none)
t0=$(now_ms)
"$schedsim" "${sweep_args[@]}" -o ref/s.jsonl || { echo "FAIL: reference sweep"; exit 1; }
slen=$(($(now_ms) - t0))
echo "reference sweep: ${slen} ms, $(($(wc -l <ref/s.jsonl) - 1)) records"
for seed in "${seeds[@]}"; do
  for sig in KILL TERM INT; do
    salt=$((salt + 1))
    d=sweep-$seed-$sig
    mkdir "$d"
    delay=$(delay_of "$seed" "$salt" "$slen")
    interrupt_after "$delay" "$sig" "$d/out" "$schedsim" "${sweep_args[@]}" -o "$d/s.jsonl"
    want=$(expected_rc "$sig")
    if [ "$rc" != 0 ] && [ "$rc" != "$want" ]; then fail "$d: sweep exit $rc after SIG$sig, expected $want (or 0)"; fi
    size=$(stat -c %s "$d/s.jsonl" 2>/dev/null || echo 0)
    cmp -s -n "$size" "$d/s.jsonl" ref/s.jsonl || fail "$d: the interrupted sweep's file is not a prefix of the reference"
    [ "$rc" = 0 ] && ! cmp -s "$d/s.jsonl" ref/s.jsonl && fail "$d: exit 0 without the complete file"
    records=0
    [ -f "$d/s.jsonl" ] && records=$(($(wc -l <"$d/s.jsonl") - 1))
    if [ "$sig" != KILL ] && [ "$rc" != 0 ]; then
      # A signal before the runs start (the file not yet created, or its header alone) or after
      # they ended exits at once; one while they run takes the cooperative path with the hint.
      if [ -s "$d/s.jsonl" ]; then
        [ "$(tail -c 1 "$d/s.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "$d: last record cut after SIG$sig"
      fi
      extra=$(find "$d" -mindepth 1 ! -name s.jsonl ! -name 'out.*' | wc -l)
      [ "$extra" = 0 ] && [ "$(leftovers "$d")" = 0 ] || fail "$d: files left next to the results after SIG$sig"
      if [ "$records" -gt 0 ] && [ "$records" -lt "$(($(wc -l <ref/s.jsonl) - 1))" ]; then
        grep -q -- "--resume" "$d/out.stderr" || fail "$d: no --resume hint after SIG$sig: $(cat "$d/out.stderr")"
      fi
    fi
    "$schedsim" "${sweep_args[@]}" -o "$d/s.jsonl" --resume 2>/dev/null || fail "$d: --resume failed"
    cmp -s "$d/s.jsonl" ref/s.jsonl || fail "$d: resumed sweep differs from the uninterrupted one"
    echo "sweep SIG$sig at ${delay} ms: rc $rc, $records records before --resume, identical after it"
    rm -rf "$d"
  done
done

# ---- record -----------------------------------------------------------------------------------
# shellcheck source=../lib/tracefs.sh
. "$src/tests/lib/tracefs.sh"
skip_reason=""
tracefs_find || skip_reason=$TRACEFS_UNUSABLE
tracefs=$TRACEFS
if [ -n "$skip_reason" ]; then
  echo "SKIP record part: $skip_reason"
else
  rec_len=1500
  for seed in "${seeds[@]}"; do
    for sig in KILL TERM INT; do
      salt=$((salt + 1))
      d=rec-$seed-$sig
      mkdir "$d"
      echo "old trace" >"$d/rec.gz"
      cp "$d/rec.gz" "$d/old"
      delay=$(delay_of "$seed" "$salt" "$rec_len")
      interrupt_after "$delay" "$sig" "$d/out" "$schedsim" record -o "$d/rec.gz" -- sleep 1
      pid=$last_pid
      new=0
      if cmp -s "$d/rec.gz" "$d/old"; then :
      elif gzip -t "$d/rec.gz" 2>/dev/null && [ "$( (gzip -dc "$d/rec.gz" || true) | head -1)" = "# tracer: nop" ]; then new=1
      else fail "$d: record output neither old nor a complete gzip trace"; fi
      want=$(expected_rc "$sig")
      if [ "$rc" != 0 ] && [ "$rc" != "$want" ]; then fail "$d: record exit $rc after SIG$sig, expected $want (or 0)"; fi
      [ "$rc" = 0 ] && [ "$new" = 0 ] && fail "$d: record exit 0 without the new trace"
      if [ "$sig" != KILL ]; then
        [ "$(leftovers "$d")" = 0 ] || fail "$d: temporaries left after SIG$sig"
        [ -e "$tracefs/instances/schedsim-$pid" ] && fail "$d: tracefs instance schedsim-$pid left after SIG$sig"
      fi
      # The next record removes a killed recorder's instance and the temporaries in the directory.
      "$schedsim" record -o "$d/next.gz" -- true >/dev/null 2>&1 || fail "$d: next record failed"
      [ -e "$tracefs/instances/schedsim-$pid" ] && fail "$d: tracefs instance schedsim-$pid left after the next record"
      [ "$(leftovers "$d")" = 0 ] || fail "$d: temporaries left after the next record"
      echo "record SIG$sig at ${delay} ms: rc $rc, output $([ "$new" = 1 ] && echo new || echo old)"
      rm -rf "$d"
    done
  done
fi

if [ "$failures" != 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all interruption checks passed"
