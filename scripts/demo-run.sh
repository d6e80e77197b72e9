#!/usr/bin/env bash
# The replay of scripts/demo.sh with a given binary (demo.sh builds it first; the test
# docs.readme-demo runs this with the test build and checks the README's excerpt against it).
#   scripts/demo-run.sh SCHEDSIM [RUN ARGS...]
# Replays tests/data/traces/smp2-quiet/hb-pipe-proc-g2-l100.r3.ftrace.gz on `smp2` with the 6.18
# profile and that machine's cost file. `-t/--topology` replaces smp2 (the replay then runs on
# another machine, with a caveat that the observed column comes from a different one) and
# `-k/--kernel` replaces 6.18; `-c/--cost` adds to the machine's cost file; every other argument
# goes to `schedsim run` as given.
set -euo pipefail
SCHEDSIM=${1:?usage: scripts/demo-run.sh SCHEDSIM [RUN ARGS...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
Q=tests/data/traces/smp2-quiet
# Relative from the repository's top (as demo.sh runs it: the results' command line names it so).
[ "$(pwd -P)" = "$(cd "$here" && pwd -P)" ] || Q=$here/$Q
# run takes --topology and --kernel once: the defaults apply only where the caller gave none.
topology=(--topology smp2)
kernel=(--kernel 6.18)
for arg in "$@"; do
  case "$arg" in
    -t | -t?* | --topology | --topology=*) topology=() ;;
    -k | -k?* | --kernel | --kernel=*) kernel=() ;;
  esac
done
exec "$SCHEDSIM" run "$Q/hb-pipe-proc-g2-l100.r3.ftrace.gz" "${topology[@]}" "${kernel[@]}" --cost "$Q/costs.json" "$@"
