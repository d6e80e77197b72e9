#!/bin/bash
# Keeps the study figures of README.md true to the code: regenerates them with the given binary
# and compares them with (or writes them into) the README's generated blocks.
#
#   scripts/readme-figures.sh SCHEDSIM [--check | --update] [DOC]
#     --check   (default) exit 1 with a diff when a block differs from what SCHEDSIM gives now
#     --update  rewrite the blocks in DOC (default README.md); the rest of DOC is kept
#
# Blocks (each between `<!-- BEGIN generated: NAME -->` and `<!-- END generated: NAME -->`):
#   sweep-fold    `examples/sweep-fold.sh SCHEDSIM 100`: the Markdown summary and one sentence
#                 read from it (the 40-group makespans)
#   compare-fold  `examples/compare-fold.sh SCHEDSIM 20 50`: the header and the 10-group point of
#                 the comparison, and one sentence read from its rows
#   status        the "not yet" figures read from docs/fidelity.md's and docs/validation.md's own
#                 generated blocks (the goals met by the trace replays, the verdicts that agree
#                 with published results), which their own checks keep true to the code
# Exit status: 0 up to date (or updated), 1 out of date (--check), 2 usage or a failed run.
# Deterministic for a given binary; about 35 s on 2 CPUs.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib/report-args.sh
. "$here/scripts/lib/report-args.sh" readme-figures "$here/README.md" "$@"

if ! "$here/examples/sweep-fold.sh" "$SCHEDSIM" 100 "$work/sweep.jsonl" >"$work/sweep.md" 2>"$work/sweep.err"; then
  cat "$work/sweep.err" >&2; echo "readme-figures: examples/sweep-fold.sh failed" >&2; exit 2
fi
if ! "$here/examples/compare-fold.sh" "$SCHEDSIM" 20 50 >"$work/compare.txt" 2>"$work/compare.err"; then
  cat "$work/compare.err" >&2; echo "readme-figures: examples/compare-fold.sh failed" >&2; exit 2
fi

python3 - "$work" "$doc" "$mode" "$here" <<'EOF'
import difflib, os, re, sys

work, doc, mode, here = sys.argv[1:5]

def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]

# sweep-fold: the table as printed, then the 40-group makespans of the two placements.
table = [l for l in open(os.path.join(work, "sweep.md")).read().splitlines() if l.startswith("|")]
head = cells(table[0])
col = head.index("makespan (ms)")
at40 = {c[0]: c[col] for c in map(cells, table[2:]) if c[1] == "40"}
def mean(s):
    return float(s.split("±")[0])
old, new = at40["sis-fold-2018"], at40["sis-fold-opt"]
change = 100 * (mean(new) / mean(old) - 1)
sweep = "\n".join(table) + "\n\n" + (
    f"At 40 groups the optimized fold's makespan is {new} ms against {old} ms ({change:+.1f}%); "
    "whether such a difference is more than the noise between repetitions is what `schedsim "
    "compare` tests.\n")

# compare-fold: the "differs" and "tests" lines, then the 10-group point.
text = open(os.path.join(work, "compare.txt")).read().splitlines()
keep = [l for l in text if l.startswith("differs:") or l.startswith("tests:")]
start = next(i for i, l in enumerate(text) if l.startswith("point 4/6:"))
end = next((i for i in range(start + 1, len(text)) if not text[i].strip()), len(text))
point = text[start:end]
def row(metric):
    i = next(i for i, l in enumerate(point) if l.lstrip().startswith(metric + " "))
    c = point[i + 1].split()
    # ... change [lo, hi] p(t) p(U) verdict (the verdict may be several words)
    change = next(x for x in c if re.fullmatch(r"[+-]\d+\.\d+%", x))
    verdict = " ".join(c[c.index(change) + 5:])
    return change, verdict
p50, p50v = row("wakeup.p50 (us)")
probes, probesv = row("probes.mean")
mk, mkv = row("makespan (ms)")
compare = "```\n" + "\n".join(keep + ["..."] + point) + "\n```\n\n" + (
    f"At 10 groups the optimized fold changes the median wakeup latency by {p50} ({p50v}) and the CPUs "
    f"probed per wakeup by {probes} ({probesv}); its makespan changes by {mk} ({mkv}).\n")

# status: the two documents' own headline figures.
fid = open(os.path.join(here, "docs/fidelity.md")).read()
m = re.search(r"^Goals met: \*\*(\d+) of (\d+)\*\* \(([^)]*)\)\.$", fid, re.M)
if not m:
    sys.exit("readme-figures: docs/fidelity.md has no 'Goals met' line")
met, goals, per = m.groups()
val = open(os.path.join(here, "docs/validation.md")).read()
v = re.search(r"^\| all \| (\d+) \| \d+ \| (\d+) \| (\d+) of \d+ \((\d+)%[^|]*\| (\d+) of \d+ \((\d+)%", val, re.M)
if not v:
    sys.exit("readme-figures: docs/validation.md has no 'all' row in its goals table")
rows, judged, agree, agree_pct, size, size_pct = v.groups()
status = (
    f"- Replays of {int(goals) // 5} real recordings (2 and 16 CPUs) meet {met} of their {goals} fidelity goals "
    f"({per}; docs/fidelity.md): makespans mostly, messaging wake counts and latency percentiles not yet.\n"
    f"- Of the {judged} published before/after rows (of {rows}) whose change exceeds their published noise, the "
    f"simulated verdict agrees on {agree} ({agree_pct}%; the goal is 90%) and the size on {size} ({size_pct}%; "
    "goal 75%) (docs/validation.md): schedsim cannot yet stand in for a benchmark run on the real machine.\n")

blocks = {"sweep-fold": sweep, "compare-fold": compare, "status": status}
src = open(doc).read()
out, stale = src, []
for name, body in blocks.items():
    pat = re.compile(r"(<!-- BEGIN generated: %s -->\n)(.*?)(<!-- END generated: %s -->)" % (name, name), re.S)
    m = pat.search(out)
    if not m:
        sys.exit(f"readme-figures: {doc} has no block '{name}'")
    if m.group(2) != body:
        stale.append(name)
        sys.stdout.writelines(difflib.unified_diff(m.group(2).splitlines(True), body.splitlines(True),
                                                   f"{doc} ({name}, in the document)", f"{name}, generated now"))
        out = out[:m.start(2)] + body + out[m.end(2):]
if mode == "update":
    if stale:
        open(doc, "w").write(out)
    sys.exit(0)
if stale:
    print(f"readme-figures: {doc}: block(s) {', '.join(stale)} differ from what the binary gives; if the "
          "change is intended, run scripts/readme-figures.sh SCHEDSIM --update")
    sys.exit(1)
EOF
