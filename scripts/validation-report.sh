#!/usr/bin/env bash
# docs/validation.md's generated blocks, from `schedsim validate` (issue 27):
#   corpus   the corpus listing's totals per half (`validate --list`)
#   results  the whole corpus run (`validate --repeat 5`), headings demoted one level, up to its
#            "Rows" heading: the goals, per-change and curve tables; the per-row tables are left
#            to the command (one sentence says how to print them), since validation/*.json holds
#            the published figures they repeat
#
#   scripts/validation-report.sh SCHEDSIM --update        rewrite both blocks (the whole run: a few
#                                                         minutes on 2 cores)
#   scripts/validation-report.sh SCHEDSIM --check         fail unless the listing equals the corpus
#                                                         block, the block ends in that sentence,
#                                                         and a fast subset of the run (the entries
#                                                         matching CHECK_FILTER) prints per-change
#                                                         and curve lines found in the results block
# A per-change line (counts of the entry's rows beyond noise, agreeing, of the right size) and a
# curve line (largest errors of the entry's curves, to 0.1%) depend only on their entry, its runs
# and the seed, so the subset's lines must appear verbatim in the whole run's block; a change of
# the model or of the corpus that moves them fails --check until the document is regenerated.
set -euo pipefail
schedsim=${1:?usage: validation-report.sh SCHEDSIM --update|--check}
mode=${2:?usage: validation-report.sh SCHEDSIM --update|--check}
cd "$(dirname "$0")/.."
doc=docs/validation.md
repeat=5
check_filter=${CHECK_FILTER:-i7-4790|wa-weight}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=scripts/lib/doc-blocks.sh
. scripts/lib/doc-blocks.sh
# The corpus listing's totals per half (its per-entry lines are those of the "Per change" table).
listing() { printf '```\n'; "$schedsim" validate --list validation | grep -E '^(dev|val|all): '; printf '```\n'; }
demote() { sed 's/^#/##/'; }
# The run of the entries matching $1 ('' for all) into file $2, demoted, without the per-row
# tables; stderr into $2.stderr.
results() {
  local filter=()
  if [ -n "$1" ]; then filter=(--filter "$1"); fi
  "$schedsim" validate validation "${filter[@]}" --repeat "$repeat" --progress never > "$2.raw" 2> "$2.stderr" || {
    local rc=$?; cat "$2.stderr" >&2; return "$rc"; }
  demote < "$2.raw" > "$2.demoted"
  if ! grep -qx '### Rows' "$2.demoted"; then
    echo "validation-report.sh: validate printed no '## Rows' heading" >&2; return 1
  fi
  awk '$0=="### Rows"{cut=1} !cut' "$2.demoted" > "$2"
}
# What stands for the per-row tables in the document.
rows_note() {
  cat <<'NOTE'
### Rows

The per-row tables (every row's published and simulated before -> after, change and verdict, under each entry's machine, kernels, source and notes) are not kept here: `schedsim validate validation --repeat 5` prints them (`-o FILE` writes them to a file, `-f markdown|json|html` or `-o`'s extension sets the format).
NOTE
}
# The table lines of the "Per change" and "Curves" sections, without header and rule lines.
change_lines() {
  awk '/^#/{f=($0=="### Per change" || $0=="### Curves")} f && /^\| / && !/^\| change \|/ && !/^\|---/' "$1"
}

case "$mode" in
  --update)
    listing > "$tmp/corpus"
    results '' "$tmp/results"
    rows_note >> "$tmp/results"
    replace_block corpus "$tmp/corpus"
    replace_block results "$tmp/results"
    echo "validation-report.sh: $doc updated"
    ;;
  --check)
    listing > "$tmp/corpus"
    if ! diff -u <(block corpus) "$tmp/corpus" > "$tmp/diff"; then
      cat "$tmp/diff" >&2
      echo "validation-report.sh: the corpus listing in $doc is stale (run --update)" >&2
      exit 1
    fi
    block results > "$tmp/doc-results"
    rows_note > "$tmp/note"
    if ! diff -u <(awk '$0=="### Rows"{f=1} f' "$tmp/doc-results") "$tmp/note" > "$tmp/diff"; then
      cat "$tmp/diff" >&2
      echo "validation-report.sh: the results block of $doc does not end in the Rows note (run --update)" >&2
      exit 1
    fi
    results "$check_filter" "$tmp/subset"
    change_lines "$tmp/subset" > "$tmp/lines"
    n=0; missing=0
    while IFS= read -r line; do
      n=$((n + 1))
      if ! grep -qxF -- "$line" "$tmp/doc-results"; then
        missing=$((missing + 1))
        echo "validation-report.sh: not in $doc: $line" >&2
      fi
    done < "$tmp/lines"
    if [ "$n" -eq 0 ]; then echo "validation-report.sh: the subset '$check_filter' printed no per-change lines" >&2; exit 1; fi
    if [ "$missing" -gt 0 ]; then
      echo "validation-report.sh: $missing of $n per-change and curve lines differ from $doc (run --update)" >&2
      exit 1
    fi
    echo "validation-report.sh: corpus listing and $n per-change and curve lines of '$check_filter' match $doc"
    ;;
  *) echo "validation-report.sh: unknown mode '$mode' (expected --update or --check)" >&2; exit 2 ;;
esac
