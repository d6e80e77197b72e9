#!/usr/bin/env bash
# Builds the libFuzzer targets (cmake --preset fuzz: clang++-14, ASan+UBSan, assertions on) and
# runs them on the corpus in fuzz/corpus/<target>/ (docs/reliability.md "Fuzzing").
#   scripts/fuzz.sh --ci                  every target for $FUZZ_SECONDS (default 8) seconds each
#   scripts/fuzz.sh --seconds 600 [TARGET...]   a longer run (all targets when none is named)
#   scripts/fuzz.sh --merge [TARGET...]   fold what the runs found into fuzz/corpus/ (-merge=1;
#                                         hand-named seeds are kept)
#   scripts/fuzz.sh --list                the target names
# Options: --no-build (use build-fuzz as it is). Runs one target at a time, one job each.
# Exit status: 0 when no target found anything; 1 on any crash, sanitizer report, timeout
# (> 5 s on one input, tracedat 30 s) or out-of-memory (> 2 GB RSS), with the reproducer's path printed.
# New inputs are kept in build-fuzz/fuzz-runs/<target>/corpus; findings in .../artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
seconds=""
ci=0
merge=0
build=1
targets=()
all_targets=(ftrace tracecmd tracedat perf perfdata trace_import line_parser workload_json workload_cbor engine_ab topology_json sysfs
  lscpu cost results sweep_results sweep_spec validation sched_views)
while [ $# -gt 0 ]; do
  case "$1" in
    --ci) ci=1 ;;
    --seconds) seconds=${2:?--seconds needs a number}; shift ;;
    --merge) merge=1 ;;
    --no-build) build=0 ;;
    --list) printf '%s\n' "${all_targets[@]}"; exit 0 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
    *)
      if [[ ! " ${all_targets[*]} " =~ " $1 " ]]; then
        echo "fuzz.sh: unknown target '$1' (scripts/fuzz.sh --list)" >&2; exit 2
      fi
      targets+=("$1") ;;
  esac
  shift
done
[ ${#targets[@]} -eq 0 ] && targets=("${all_targets[@]}")
# Seconds one input may take before libFuzzer calls it a hang. tracedat's one seed is a real
# 152 KB trace.dat: the forked child's libtracecmd parses every event format the file saved,
# with every malloc and strcmp going through the sanitizer and fuzzer hooks: 3.3 s on an idle
# machine (the Release build: 0.2 s), over 5 s on a loaded one; a real hang still shows in 30 s.
timeout_of() { if [ "$1" = tracedat ]; then echo 30; else echo 5; fi; }
if [ -z "$seconds" ]; then
  if [ "$ci" = 1 ]; then seconds=${FUZZ_SECONDS:-8}; else seconds=600; fi
fi

if [ "$build" = 1 ]; then
  cmake --preset fuzz >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target fuzz_targets
fi
runs=$root/build-fuzz/fuzz-runs
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

if [ "$merge" = 1 ]; then
  for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    # -merge=1 keeps the smallest set of inputs reaching all the coverage of both directories.
    tmp=$(mktemp -d)
    sources=("fuzz/corpus/$t")
    [ -d "$runs/$t/corpus" ] && sources+=("$runs/$t/corpus")
    mkdir -p "$runs"
    # Inputs are cut to a few hundred bytes (a sysfs archive needs more) so the committed corpus
    # stays small (~600 KB for all targets) and loads in a fraction of a CI run's seconds.
    case $t in
      ftrace|tracecmd|perf|trace_import) max_len=400 ;;
      sysfs) max_len=1000 ;;
      *) max_len=256 ;;
    esac
    "build-fuzz/fuzz/${t}_fuzz" -merge=1 -max_len=$max_len -timeout="$(timeout_of "$t")" -rss_limit_mb=2048 "$tmp" "${sources[@]}" \
      >"$runs-merge-$t.log" 2>&1 || {
      echo "fuzz.sh: merge of $t failed, see $runs-merge-$t.log" >&2; rm -rf "$tmp"; exit 1; }
    # The merge names what it keeps by a hash of its content: the hand-named seeds
    # (docs/reliability.md names them) are put back under their own names, whatever it chose.
    for f in "fuzz/corpus/$t"/*; do
      [ -f "$f" ] || continue
      n=$(basename "$f")
      [[ $n =~ ^[0-9a-f]{40}$ ]] && continue
      rm -f "$tmp/$(sha1sum "$f" | cut -d' ' -f1)"
      cp "$f" "$tmp/$n"
    done
    rm -rf "fuzz/corpus/$t"
    mv "$tmp" "fuzz/corpus/$t"
    echo "fuzz.sh: $t corpus: $(ls "fuzz/corpus/$t" | wc -l) inputs, $(du -sk "fuzz/corpus/$t" | cut -f1) KB"
  done
  exit 0
fi

failed=()
for t in "${targets[@]}"; do
  work=$runs/$t
  mkdir -p "$work/corpus" "$work/artifacts"
  dict=()
  [ -f "fuzz/$t.dict" ] && dict=(-dict="fuzz/$t.dict")
  log=$work/last.log
  echo "fuzz.sh: $t for ${seconds}s" >&2
  # The first directory receives new inputs; fuzz/corpus/<target> is only read.
  set +e
  "build-fuzz/fuzz/${t}_fuzz" "$work/corpus" "fuzz/corpus/$t" "${dict[@]}" \
    -max_total_time="$seconds" -timeout="$(timeout_of "$t")" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1 || true)
  cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -1 | cut -d' ' -f2)
  echo "fuzz.sh: $t: rc $rc, ${execs:-?} executions, coverage ${cov:-?} edges" >&2
  if [ "$rc" != 0 ]; then
    repro=$( (sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" || true) | tail -1)
    grep -E 'ERROR: |SUMMARY: |runtime error|schedsim fuzz finding|Assertion|assert|ALARM|out-of-memory' "$log" | head -5 >&2 || true
    echo "fuzz.sh: FINDING in $t: reproducer ${repro:-(none written)}; log $log" >&2
    echo "fuzz.sh: replay with: build-fuzz/fuzz/${t}_fuzz ${repro:-FILE}" >&2
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz.sh: findings in: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz.sh: ${#targets[@]} targets, ${seconds}s each: no finding" >&2
