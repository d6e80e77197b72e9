#!/usr/bin/env bash
# Figures quoted in the prose of docs/ (outside their generated blocks) that the binary prints
# (the README's are checked by tests/readme_demo.sh beside its excerpts): each is computed here from the command the prose names, written as the sentence
# fragment the document must contain, and looked up in that document with its line breaks and
# runs of spaces taken as one space. A model change that moves one fails the test
# docs.prose-figures until the prose says the new figure.
#
#   scripts/doc-figures.sh SCHEDSIM            check every figure (exit 1 naming what differs)
#
# Exit status: 0 all found, 1 a figure differs (the expected fragment is printed), 2 usage.
set -euo pipefail
[ $# -ge 1 ] || { echo "doc-figures: usage: scripts/doc-figures.sh SCHEDSIM" >&2; exit 2; }
SCHEDSIM=$1
[ -x "$SCHEDSIM" ] || { echo "doc-figures: $SCHEDSIM is not an executable" >&2; exit 2; }
[ $# -eq 1 ] || { echo "doc-figures: unexpected argument '$2' (usage: scripts/doc-figures.sh SCHEDSIM)" >&2; exit 2; }
SCHEDSIM=$(cd "$(dirname "$SCHEDSIM")" && pwd)/$(basename "$SCHEDSIM")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'echo "doc-figures: line $LINENO failed (exit $?): $BASH_COMMAND" >&2' ERR

failed=0
# expect DOC FRAGMENT: DOC, whitespace-normalised, must contain FRAGMENT.
expect() {
  # (grep reads to the end, -c rather than -q: an early exit would end tr with SIGPIPE.)
  if [ "$(tr '\n' ' ' < "$1" | tr -s ' ' | grep -cF -- "$2")" -gt 0 ]; then
    echo "doc-figures: $1: ok: $2"
  else
    echo "doc-figures: $1 does not say: $2" >&2
    failed=1
  fi
}
# The rel error (a signed percentage) of METRIC in `run`'s simulated-vs-observed table.
rel_error() { awk -v m="$1" '$1 == m && $NF ~ /%$/ { v = $NF; sub(/%$/, "", v); print v; exit }'; }
. scripts/lib/group-digits.sh

# docs/model.md "Channels in trace replay": perf pipe replayed with tokens and with the channel,
# under smp2's default costs and the quiet guest's cost file.
T=tests/data/traces/syscalls/perf-pipe-l2000.ftrace.gz
declare -A err
for costs in default quiet; do
  c=(); [ "$costs" = quiet ] && c=(--cost tests/data/traces/smp2-quiet/costs.json)
  for ch in off pipe; do
    "$SCHEDSIM" run "$T" -t smp2 --kernel 6.18 --channels "$ch" "${c[@]}" > "$work/pipe.txt" 2> /dev/null
    err[$costs.$ch.w]=$(rel_error wakeups < "$work/pipe.txt")
    err[$costs.$ch.c]=$(rel_error context_switches < "$work/pipe.txt")
  done
done
# The channel's largest error, rounded up; the tokens' loss, the mean of the two, rounded.
within=$(printf '%s\n' "${err[default.pipe.w]}" "${err[default.pipe.c]}" "${err[quiet.pipe.w]}" "${err[quiet.pipe.c]}" |
  awk '{ a = $1 < 0 ? -$1 : $1; if (a > m) m = a } END { printf "%d", (m == int(m)) ? m : int(m) + 1 }')
loss() { awk -v w="$1" -v c="$2" 'BEGIN { printf "%.0f", -(w + c) / 2 }'; }
expect docs/model.md "switches within ${within}% (CI guard"
expect docs/model.md "token replay loses $(loss "${err[default.off.w]}" "${err[default.off.c]}")% of both under the first and $(loss "${err[quiet.off.w]}" "${err[quiet.off.c]}")% under the second"

# docs/model.md "Recorded wake matching": the sums per group of scripts/analysis/wake_match.sh,
# and on quiet hb-pipe-thr-g1-l400 the share of the held wakes that found their wakee asleep
# (the engine's debug log of each held wake: "off CPU").
scripts/analysis/wake_match.sh "$SCHEDSIM" > "$work/wm.md"
while IFS= read -r row; do
  expect docs/model.md "$row"
done < <(sed -n '/^| recordings |/,$p' "$work/wm.md" | tail -n +3)
# docs/fidelity.md's messaging bullet quotes the quiet guest's row: recorded, then token.
read -r qrec qtok < <(awk -F'|' '$2 ~ /^ quiet 2-vCPU guest/ { t = $4; r = $5; gsub(/.*\(|\).*/, "", t);
  gsub(/.*\(|\).*/, "", r); print r, t }' "$work/wm.md")
expect docs/fidelity.md "loses more (docs/model.md \"Recorded wake matching\": $qrec against $qtok on the quiet guest's eight recordings)"
Q=tests/data/traces/smp2-quiet
"$SCHEDSIM" --log engine=debug run "$Q/hb-pipe-thr-g1-l400.r2.ftrace.zst" -t smp2 --background-comm '^schedsim$' \
  --kernel 6.18 --cost "$Q/costs.json" --wake-match recorded --progress never 2> "$work/held.log" > /dev/null
held=$(grep -c 'banked as a token' "$work/held.log" || true)
asleep=$(grep -c 'banked as a token: off CPU' "$work/held.log" || true)
expect docs/model.md "$(awk -v a="$asleep" -v h="$held" 'BEGIN { printf "%.0f", 100 * a / h }')% of the $(group_digits "$held") held wakes found their receiver asleep"

# docs/generators.md "Compact": the size of a generated messaging workload.
gen_size() {
  "$SCHEDSIM" gen messaging -g 4 -l "$1" -o "$work/gen.json" 2>&1 |
    sed -n 's/.* \([0-9]*\) actions (\([0-9]*\) after loop expansion).*/\1 \2/p'
}
read -r a100 e100 <<< "$(gen_size 100)"
read -r a1m e1m <<< "$(gen_size 1000000)"
expect docs/generators.md "\`messaging -g 4 -l 100\` is $(group_digits "$a100") actions standing for $(group_digits "$e100") executed ones; \`-l 1000000\` is $(group_digits "$a1m") standing for $(group_digits "$e1m")."

# docs/calibrate.md "The 40-CPU Xeon": the seed workload's benchmark time under the reference
# costs, and the fitted costs' factor over them.
# (awk reads the whole listing: an early exit would end schedsim with SIGPIPE.)
cost_of() { "$SCHEDSIM" run --cost list -t "$1" | awk -v p="$2" '$1 == p && !n++ { print $2 }'; }
ref_w=$(cost_of smp2 msg_write_pipe_thread) ref_r=$(cost_of smp2 msg_read_pipe_thread)
fit_w=$(cost_of xeon-e5-2690v2 msg_write_pipe_thread)
"$SCHEDSIM" run --workload-gen 'messaging --pipe --thread --group 4 --nr_loops 50000' -t xeon-e5-2690v2 --kernel 4.17 \
  --cost "msg_write_pipe_thread=${ref_w}ns" --cost "msg_read_pipe_thread=${ref_r}ns" -f json > "$work/seed.json" 2> /dev/null
bt=$(sed -n 's/.*"benchmark_time_ns": *\([0-9]*\).*/\1/p' "$work/seed.json" | head -1)
expect docs/calibrate.md "give $(awk -v n="$bt" 'BEGIN { printf "%.2f", n / 1e9 }') s, the fit $(awk -v f="$fit_w" -v r="$ref_w" 'BEGIN { printf "%.2f", f / r }')x them."

exit "$failed"
