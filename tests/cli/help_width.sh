#!/usr/bin/env bash
# Every command's help fits in 100 columns (cli/command.hpp kHelpWidth): Boost wraps option
# descriptions at that width, format_help() wraps the usage line, and the hand-written
# description and examples must stay inside it. At Boost's default 80 columns descriptions had 40
# and words were split across lines. No default prints as a binary fraction (0.050000000000000003).
#   usage: help_width.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
. "$2/tests/lib/check.sh" "$@"
commands=$("$S" help | awk '/^  [a-z]+ /{print $1}')
check "help lists the commands" test -n "$commands"
for c in $commands; do
  "$S" help "$c" > "$c.txt"
  check "$c: help is not empty" test -s "$c.txt"
  check "$c: every line fits in 100 columns" sh -c "! awk 'length > 100' '$c.txt' | grep -q ."
  check "$c: no default prints as a long binary fraction" sh -c "! grep -Eq '\(=[0-9]*\.[0-9]{8,}\)' '$c.txt'"
done
"$S" help > top.txt 2>&1 || true
check "the top-level help fits in 100 columns" sh -c "! awk 'length > 100' top.txt | grep -q ."
exit $fail
