#!/usr/bin/env bash
# Runs clang-tidy with the checks in .clang-tidy over C++ sources, using build-ci's
# compile_commands.json (configured here if missing). Any finding is an error (exit 1).
#   scripts/lint.sh            the default set (below), about a minute on 2 cores
#   scripts/lint.sh --all      every source file in compile_commands.json (~10 minutes on 2 cores)
#   scripts/lint.sh FILE...    those files
# The default set keeps scripts/test.sh under a few minutes: the policy modules and the policy
# contract (policies/src, policy_api/src), plus every .cpp
# file changed since the merge base with `main` (committed or not), when that branch exists.
set -euo pipefail
cd "$(dirname "$0")/.."
tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -z "$tidy" ]; then
  echo "lint.sh: clang-tidy not found (scripts/install-deps.sh --test installs it)" >&2
  exit 1
fi
if [ ! -f build-ci/compile_commands.json ]; then
  cmake --preset ci >/dev/null
fi
jobs=$(nproc)
files=()
if [ "${1:-}" = "--all" ]; then
  mapfile -t files < <(python3 -c 'import json; print("\n".join(sorted({e["file"] for e in json.load(open("build-ci/compile_commands.json"))})))')
elif [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(
    {
      ls policies/src/*.cpp policies/src/*/*.cpp policy_api/src/*.cpp
      if git rev-parse --verify -q main >/dev/null && base=$(git merge-base HEAD main 2>/dev/null); then
        git diff --name-only --diff-filter=d "$base" -- '*.cpp'
        git ls-files --others --exclude-standard -- '*.cpp'
      fi
    } | sort -u)
fi
# Only files the build compiles have compile commands (benches and tests are included).
known=$(python3 -c 'import json,os; print("\n".join(os.path.relpath(e["file"]) for e in json.load(open("build-ci/compile_commands.json"))))')
todo=()
for f in "${files[@]}"; do
  rel=$(realpath --relative-to=. "$f")
  if grep -qxF "$rel" <<<"$known"; then todo+=("$rel"); fi
done
echo "lint.sh: clang-tidy ($("$tidy" --version | grep -o 'version [0-9.]*')) on ${#todo[@]} files, $jobs jobs"
[ ${#todo[@]} -eq 0 ] && exit 0
# GCC-only warning flags in the compile commands are unknown to clang: ignore them. Findings go
# to stdout; clang-tidy's "N warnings generated" chatter (suppressed ones) to stderr, dropped.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
printf '%s\n' "${todo[@]}" |
  xargs -P"$jobs" -n1 "$tidy" -p build-ci --quiet --extra-arg=-Wno-unknown-warning-option >"$out" 2>/dev/null ||
  status=$?
cat "$out"
if [ "$status" -ne 0 ] || grep -q "error:" "$out"; then
  echo "lint.sh: clang-tidy findings above (exit $status)" >&2
  exit 1
fi
echo "lint.sh: clean"
