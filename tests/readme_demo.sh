#!/usr/bin/env bash
# The README's quick start is true to the code: scripts/demo-compare.sh and scripts/demo-run.sh
# (what scripts/demo.sh runs after building) print every line of the README's two excerpts, the README's
# figures in its prose (the replay's makespan error and banked wakes, the makespan with the recorder
# as background load), and accepts the README's
# `-t xeon-e5-2690v2` (another machine: the caveat line) and a `--kernel` of the caller's.
#   tests/readme_demo.sh SCHEDSIM SOURCE_DIR
set -euo pipefail
SCHEDSIM=$1
cd "$2"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0

# The fenced block after the paragraph starting $1 in README.md, each of whose lines the script
# $2 must print.
check_excerpt() {
  awk -v start="$1" 'index($0, start) == 1 {f = 1; next} f && /^```/ {n++; if (n == 2) exit; next} f && n == 1' \
    README.md >"$out/excerpt"
  [ -s "$out/excerpt" ] || { echo "README.md: no excerpt found after '$1'"; exit 1; }
  while IFS= read -r line; do
    grep -qxF -- "$line" "$3" || { echo "README excerpt line not printed by $2: '$line'"; fail=1; }
  done <"$out/excerpt"
}
scripts/demo-compare.sh "$SCHEDSIM" >"$out/compare" 2>"$out/compare.err"
check_excerpt "The comparison (excerpt)" scripts/demo-compare.sh "$out/compare"
scripts/demo-run.sh "$SCHEDSIM" >"$out/default" 2>"$out/default.err"
check_excerpt "The replay's comparison block" scripts/demo-run.sh "$out/default"

# The README prose on that replay ("The makespan is X% short", "B of the W wakes replayed from the
# trace (P%)"), looked up with its line breaks taken as spaces.
. scripts/lib/group-digits.sh
readme=$(tr '\n' ' ' < README.md | tr -s ' ')
says() { case "$readme" in *"$1"*) ;; *) echo "README.md does not say: '$1' (what scripts/demo-run.sh prints)"; fail=1 ;; esac; }
makespan=$(awk '$1 == "makespan" && $2 == "(ms)" && NF == 5 {print $5}' "$out/default" | tail -1)
says "The makespan is ${makespan#-} short"
read -r share banked replayed <<< "$(sed -n 's/.*warning: \([0-9]*\)% of the wakes replayed from the trace (\([0-9]*\) of \([0-9]*\)) were banked.*/\1 \2 \3/p' "$out/default.err")"
says "$(group_digits "$banked" ' ') of the $(group_digits "$replayed" ' ') wakes replayed from the trace (${share}%)"

# "scripts/demo.sh --background-comm '^schedsim$' ... gives -X%": the figure in the README prose.
want=$(grep -A2 -F -- "--background-comm '^schedsim\$'" README.md | tr '\n' ' ' | grep -oE -- 'gives +-?[0-9.]+%' | head -1 | sed 's/gives *//')
[ -n "$want" ] || { echo "README.md: no 'gives N%' after the --background-comm demo command"; exit 1; }
scripts/demo-run.sh "$SCHEDSIM" --background-comm '^schedsim$' >"$out/bg" 2>/dev/null
got=$(awk '$1 == "makespan" && $2 == "(ms)" && NF == 5 {print $5}' "$out/bg" | tail -1)
[ "$got" = "$want" ] || { echo "README says the background replay's makespan error is $want, demo-run prints '$got'"; fail=1; }

if ! scripts/demo-run.sh "$SCHEDSIM" -t xeon-e5-2690v2 >"$out/xeon" 2>"$out/xeon.err"; then
  echo "scripts/demo-run.sh -t xeon-e5-2690v2 failed:"; cat "$out/xeon.err"; fail=1
elif ! grep -q "observed figures are from another machine" "$out/xeon.err"; then
  echo "scripts/demo-run.sh -t xeon-e5-2690v2 printed no caveat about the observed column"; fail=1
fi
if ! scripts/demo-run.sh "$SCHEDSIM" --kernel 6.12 -f json -o "$out/k.json" 2>"$out/k.err"; then
  echo "scripts/demo-run.sh --kernel 6.12 failed:"; cat "$out/k.err"; fail=1
fi
exit $fail
