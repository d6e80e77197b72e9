#!/usr/bin/env bash
# Installs what is missing, builds Release, compares two placement policies on a hackbench-like
# workload with 10 runs each and prints compare's verdicts (scripts/demo-compare.sh), then
# replays a bundled real trace (hackbench -g 2 -l 100
# with pipes, recorded with `schedsim record` on a quiet 2-vCPU KVM guest running Linux 6.18:
# tests/data/traces/smp2-quiet/) on the machine it was recorded on (the 2-CPU `smp2` preset) with
# the 6.18 kernel's policy modules and that machine's idle-wake cost file (measured from the
# trace's own idle and IPI events), so the observed column is comparable. Extra arguments are
# passed to `schedsim run` for the replay, which then runs alone (e.g. --format json). `-t/--topology` replaces smp2 and its cost file
# (the replay then runs on another machine with its own cost profile, with a caveat that the
# observed column comes from a different one) and `-k/--kernel` replaces 6.18; `-c/--cost` adds
# to the cost file (scripts/demo-run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
# The binary, and the Python module (docs/python.md: PYTHONPATH=build/python /usr/bin/python3).
cmake --build build -j"$(nproc)" --target schedsim _schedsim
if [ $# -eq 0 ]; then
  scripts/demo-compare.sh build/cli/schedsim
  echo
  echo "== the replay of a recorded trace beside the real kernel's figures (hackbench -g 2 -l 100 -p on a 2-vCPU VM)"
fi
exec scripts/demo-run.sh build/cli/schedsim "$@"
