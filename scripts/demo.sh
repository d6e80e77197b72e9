#!/usr/bin/env bash
# Installs what is missing, builds Release, and replays the bundled real trace (hackbench -g 2
# with pipes, recorded through tracefs on a 2-vCPU VM running Linux 6.18) on the 2-socket
# 40-CPU Xeon E5-2690 v2 preset with the 6.12 kernel's policy modules. Extra arguments are
# passed to `schedsim run` (e.g. --kernel 4.17, --format json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build build -j"$(nproc)" --target schedsim
exec build/cli/schedsim run tests/data/traces/hackbench-pipe-g2.ftrace.gz --topology xeon-e5-2690v2 --kernel 6.12 "$@"
