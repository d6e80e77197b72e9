# shellcheck shell=bash
# group_digits N [SEP]: N with its thousands separated by SEP (default ","), as the docs write
# counts ("17,766"; the README's "5 259"). Sourced by scripts/doc-figures.sh and
# tests/readme_demo.sh, which look such figures up in the prose.
group_digits() { echo "$1" | sed -e ':a' -e "s/\([0-9]\)\([0-9]\{3\}\)\(\$\|[^0-9]\)/\1${2:-,}\2\3/" -e 'ta'; }
