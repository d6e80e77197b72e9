#!/usr/bin/env bash
# Installs what is missing, builds (Release, warnings as errors) and runs the whole test suite,
# runs clang-tidy (scripts/lint.sh), then builds the suite again under ASan+UBSan with assertions
# on and runs it there too, then runs every fuzz target for a bounded time (scripts/fuzz.sh --ci:
# clang + libFuzzer, 8 s per target).
#   scripts/test.sh             all of it
#   scripts/test.sh --no-fuzz   without the fuzz run
#   scripts/test.sh --no-asan   the Release build only (quick local iteration; implies --no-fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
asan=1
fuzz=1
for arg in "$@"; do
  case "$arg" in
    --no-asan) asan=0; fuzz=0 ;;
    --no-fuzz) fuzz=0 ;;
    *) echo "test.sh: unknown option '$arg' (expected --no-asan or --no-fuzz)" >&2; exit 2 ;;
  esac
done
jobs=$(nproc)
scripts/install-deps.sh --test
cmake --preset ci >/dev/null
cmake --build build-ci -j"$jobs"
ctest --test-dir build-ci --output-on-failure -j"$jobs"
# clang-tidy (.clang-tidy) on the policy sources and the files changed since main (lint.sh).
scripts/lint.sh
if [ "$asan" = 1 ]; then
  cmake --preset asan >/dev/null
  cmake --build build-asan -j"$jobs"
  # Tests labelled 'slow' (trace recording, browser rendering) already ran in the Release build.
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE slow
fi
if [ "$fuzz" = 1 ]; then
  scripts/fuzz.sh --ci
fi
