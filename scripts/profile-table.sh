#!/bin/bash
# Keeps the kernel profile table of docs/policies.md true to the code: the block is
# `schedsim policies --kernel table` (every profile's modules per slot and its flags, read from
# the registry), so a profile is described in one place, policies/src/profiles.cpp.
#
#   scripts/profile-table.sh SCHEDSIM [--check | --update] [DOC]
#     --check   (default) exit 1 with a diff when the block of DOC (default docs/policies.md)
#               differs from what SCHEDSIM prints
#     --update  rewrite the block
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib/report-args.sh
. "$here/scripts/lib/report-args.sh" profile-table "$here/docs/policies.md" "$@"

"$SCHEDSIM" policies --kernel table > "$work/table.md"
python3 - "$work/table.md" "$doc" "$mode" <<'PY'
import difflib, re, sys

table, doc, mode = sys.argv[1:4]
body = open(table).read()
src = open(doc).read()
pat = re.compile(r"(<!-- BEGIN generated: profiles[^\n]*-->\n)(.*?)(<!-- END generated: profiles -->)", re.S)
m = pat.search(src)
if not m:
    sys.exit(f"profile-table: {doc} has no 'BEGIN generated: profiles' block")
if m.group(2) == body:
    print(f"profile-table: {doc} is up to date")
    sys.exit(0)
if mode == "update":
    open(doc, "w").write(src[:m.start(2)] + body + src[m.end(2):])
    print(f"profile-table: updated {doc}")
    sys.exit(0)
sys.stdout.writelines(difflib.unified_diff(m.group(2).splitlines(True), body.splitlines(True), doc, "schedsim"))
sys.exit(f"profile-table: {doc} differs from `schedsim policies --kernel table` (scripts/profile-table.sh SCHEDSIM --update)")
PY
