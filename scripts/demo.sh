#!/usr/bin/env bash
# Installs what is missing, builds Release, and replays the bundled real trace (hackbench -g 2
# with pipes, recorded through tracefs on a 2-vCPU VM running Linux 6.18) on the machine it was
# recorded on (the 2-CPU `smp2` preset) with the 6.18 kernel's policy modules, so the observed
# column is comparable. Extra arguments are passed to `schedsim run` (e.g. --kernel 4.17,
# --format json; a later --topology replays it on another machine, with a caveat that the
# observed column then comes from a different one).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build build -j"$(nproc)" --target schedsim
exec build/cli/schedsim run tests/data/traces/hackbench-pipe-g2.ftrace.gz --topology smp2 --kernel 6.18 "$@"
