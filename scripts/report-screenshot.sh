#!/bin/bash
# Keeps docs/report-screenshot.png and the figures it shows true to the code. The recipe: two
# placement policies (the 6.12 search, sis-util, against the optimized SIS_FOLD) on the same
# generated workload and machine, `schedsim report` of the two, and the top of the page as a
# headless-Chromium screenshot.
#
#   scripts/report-screenshot.sh SCHEDSIM [--check | --update] [DOC]
#     --check   (default) exit 1 with a diff when the figures block of DOC (default
#               docs/report-screenshot.md) differs from what SCHEDSIM gives now
#     --update  rewrite the block and the screenshot beside DOC (needs chromium)
# The block lists the figures the screenshot shows, so a change of the model that moves them
# fails the check (the test docs.report-screenshot) until the picture is made again.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib/report-args.sh
. "$here/scripts/lib/report-args.sh" report-screenshot "$here/docs/report-screenshot.md" "$@"

W='messaging --group 4 --nr_loops 100 --pipe --thread'
"$SCHEDSIM" run --workload-gen "$W" -t xeon-e5-2690v2 --kernel 6.12 -q --progress never -o "$work/util.json"
"$SCHEDSIM" run --workload-gen "$W" -t xeon-e5-2690v2 --kernel 6.12 --placement sis-fold-opt -q --progress never \
  -o "$work/fold.json"
"$SCHEDSIM" report "$work/util.json" "$work/fold.json" -o "$work/report.html" \
  --title "messaging -g 4 on xeon-e5-2690v2: sis-util vs sis-fold-opt" 2>/dev/null

python3 - "$work" "$doc" "$mode" <<'EOF'
import difflib, json, os, re, sys

work, doc, mode = sys.argv[1:4]
rows = ["| run | wakeups | wakeup p50 us | wakeup p99 us | wakeup p99.9 us | makespan ms |",
        "|---|---:|---:|---:|---:|---:|"]
for name in ("util", "fold"):
    r = json.load(open(os.path.join(work, name + ".json")))
    w = r["latency_ns"]["wakeup"]
    rows.append(f"| {r['config']['label']} | {w['count']} | {w['p50'] / 1e3:.3f} | {w['p99'] / 1e3:.3f} | "
                f"{w['p99_9'] / 1e3:.3f} | {r['summary']['makespan_ns'] / 1e6:.3f} |")
body = "\n".join(rows) + "\n"
src = open(doc).read()
pat = re.compile(r"(<!-- BEGIN generated: figures -->\n)(.*?)(<!-- END generated: figures -->)", re.S)
m = pat.search(src)
if not m:
    sys.exit(f"report-screenshot: {doc} has no block 'figures'")
if m.group(2) == body:
    sys.exit(0)
sys.stdout.writelines(difflib.unified_diff(m.group(2).splitlines(True), body.splitlines(True),
                                           f"{doc} (figures, in the document)", "figures, generated now"))
if mode == "update":
    open(doc, "w").write(src[:m.start(2)] + body + src[m.end(2):])
    sys.exit(0)
print(f"report-screenshot: {doc}: the figures differ from what the binary gives; if the change is intended, "
      "run scripts/report-screenshot.sh SCHEDSIM --update (it makes the screenshot again)")
sys.exit(1)
EOF
if [ "$mode" = update ]; then
  png=$(dirname "$doc")/report-screenshot.png
  timeout 120 chromium --headless --no-sandbox --disable-gpu --window-size=1400,1000 \
    --screenshot="$work/shot.png" "file://$work/report.html" 2>/dev/null
  cp "$work/shot.png" "$png"
fi
