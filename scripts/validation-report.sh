#!/usr/bin/env bash
# docs/validation.md's generated blocks, from `schedsim validate` (issue 27):
#   corpus   the corpus listing (`validate --list`)
#   results  the whole corpus run (`validate --repeat 5`), headings demoted one level
#
#   scripts/validation-report.sh SCHEDSIM --update        rewrite both blocks (the whole run: a few
#                                                         minutes on 2 cores)
#   scripts/validation-report.sh SCHEDSIM --check         fail unless the listing equals the corpus
#                                                         block and a fast subset of the run (the
#                                                         entries matching CHECK_FILTER) prints rows
#                                                         identical to the results block's
# A row's figures depend only on its entry, its runs and the seed, so the subset's rows must
# appear verbatim in the whole run's block; any change of the model or of the corpus that moves
# a figure fails --check until the document is regenerated.
set -euo pipefail
schedsim=${1:?usage: validation-report.sh SCHEDSIM --update|--check}
mode=${2:?usage: validation-report.sh SCHEDSIM --update|--check}
cd "$(dirname "$0")/.."
doc=docs/validation.md
repeat=5
check_filter=${CHECK_FILTER:-i7-4790|wa-weight}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The text between <!-- begin NAME --> and <!-- end NAME --> in the document.
block() { awk -v b="<!-- begin $1 -->" -v e="<!-- end $1 -->" '$0==e{f=0} f{print} $0==b{f=1}' "$doc"; }
# Replaces that text with the contents of file $2.
replace_block() {
  awk -v b="<!-- begin $1 -->" -v e="<!-- end $1 -->" -v src="$2" '
    $0==b {print; while ((getline l < src) > 0) print l; skip=1; next}
    $0==e {skip=0}
    !skip {print}' "$doc" > "$tmp/doc" && cp "$tmp/doc" "$doc"
}
listing() { printf '```\n'; "$schedsim" validate --list validation; printf '```\n'; }
demote() { sed 's/^#/##/'; }

case "$mode" in
  --update)
    listing > "$tmp/corpus"
    "$schedsim" validate validation --repeat "$repeat" --progress never 2> "$tmp/stderr" | demote > "$tmp/results" || {
      rc=$?; cat "$tmp/stderr" >&2; exit "$rc"; }
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
    "$schedsim" validate validation --filter "$check_filter" --repeat "$repeat" --progress never 2>/dev/null \
      | demote | grep '^| ' | grep -v '^| [-a-z ]*|---' > "$tmp/rows" || true
    # The per-row lines: the only table lines with a published "before -> after".
    n=0; missing=0
    while IFS= read -r line; do
      case "$line" in *"->"*) ;; *) continue ;; esac
      n=$((n + 1))
      if ! grep -qxF -- "$line" "$tmp/doc-results"; then
        missing=$((missing + 1))
        echo "validation-report.sh: not in $doc: $line" >&2
      fi
    done < "$tmp/rows"
    if [ "$n" -eq 0 ]; then echo "validation-report.sh: the subset '$check_filter' printed no rows" >&2; exit 1; fi
    if [ "$missing" -gt 0 ]; then
      echo "validation-report.sh: $missing of $n rows differ from $doc (run --update)" >&2
      exit 1
    fi
    echo "validation-report.sh: corpus listing and $n rows of '$check_filter' match $doc"
    ;;
  *) echo "validation-report.sh: unknown mode '$mode' (expected --update or --check)" >&2; exit 2 ;;
esac
