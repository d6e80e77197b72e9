#!/usr/bin/env bash
# The replay of scripts/demo.sh with a given binary (demo.sh builds it first; the test
# docs.readme-demo runs this with the test build and checks the README's excerpt against it).
#   scripts/demo-run.sh SCHEDSIM [RUN ARGS...]
# Replays tests/data/traces/smp2-quiet/hb-pipe-proc-g2-l100.r3.ftrace.gz on `smp2` with the 6.18
# profile and that machine's cost file. `-t/--topology` replaces smp2 and its cost file (the
# replay then runs on another machine with that machine's own cost profile, with a caveat that
# the observed column comes from a different one), `-k/--kernel` replaces 6.18, `-c/--cost` adds
# to the cost file; every other argument goes to `schedsim run` as given.
set -euo pipefail
SCHEDSIM=${1:?usage: scripts/demo-run.sh SCHEDSIM [RUN ARGS...]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
Q=tests/data/traces/smp2-quiet
# Relative from the repository's top (as demo.sh runs it: the results' command line names it so).
[ "$(pwd -P)" = "$(cd "$here" && pwd -P)" ] || Q=$here/$Q
# run takes --topology and --kernel once: the defaults apply only where the caller gave none.
# The 2-vCPU guest's measured costs belong to smp2: another machine replays with its own profile.
topology=(--topology smp2 --cost "$Q/costs.json")
kernel=(--kernel 6.18)
for arg in "$@"; do
  case "$arg" in
    # run also takes unique prefixes of a long option (--topo); no other run option starts --to.
    -t | -t?* | --to | --top | --topo | --topol | --topolo | --topolog | --topology | --to=* | --top=* | \
      --topo=* | --topol=* | --topolo=* | --topolog=* | --topology=*) topology=() ;;
    -k | -k?* | --kernel | --kernel=*) kernel=() ;;
  esac
done
[ ${#topology[@]} -gt 0 ] || echo "demo-run: another machine than smp2: replayed with its own cost profile, not the 2-vCPU guest's $Q/costs.json" >&2
exec "$SCHEDSIM" run "$Q/hb-pipe-proc-g2-l100.r3.ftrace.gz" "${topology[@]}" "${kernel[@]}" "$@"
