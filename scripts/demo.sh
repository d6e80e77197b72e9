#!/usr/bin/env bash
# Installs what is missing, builds Release, and replays a bundled real trace (hackbench -g 2 -l 100
# with pipes, recorded with `schedsim record` on a quiet 2-vCPU KVM guest running Linux 6.18:
# tests/data/traces/smp2-quiet/) on the machine it was recorded on (the 2-CPU `smp2` preset) with
# the 6.18 kernel's policy modules and that machine's idle-wake cost file (measured from the
# trace's own idle and IPI events), so the observed column is comparable. Extra arguments are passed to `schedsim run` (e.g. --kernel 4.17,
# --format json; a later --topology replays it on another machine, with a caveat that the
# observed column then comes from a different one).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build build -j"$(nproc)" --target schedsim
Q=tests/data/traces/smp2-quiet
exec build/cli/schedsim run $Q/hb-pipe-proc-g2-l100.r3.ftrace.gz --topology smp2 --kernel 6.18 --cost $Q/costs.json "$@"
