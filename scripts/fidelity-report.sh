#!/bin/bash
# Keeps the measured tables of docs/fidelity.md true to the code: regenerates them with the given
# binary and compares them with (or writes them into) the document's generated blocks.
#
#   scripts/fidelity-report.sh SCHEDSIM [--check | --update] [DOC]
#     SCHEDSIM  the schedsim binary (e.g. build-ci/cli/schedsim)
#     --check   (default) exit 1 with a diff when a block differs from what SCHEDSIM prints now
#     --update  rewrite the blocks in DOC (default docs/fidelity.md); the rest of DOC is kept
#
# Blocks (each between `<!-- BEGIN generated: NAME ... -->` and `<!-- END generated: NAME -->`):
#   overview   the goal count and the overview row of every judged recording: the quiet 2-vCPU
#              recordings and the 16-CPU guest's, profile 6.18, each machine's cost file
#              (`FIDELITY_ONLY='^(quiet|xeon16) ' scripts/fidelity.sh SCHEDSIM 6.18`)
#   per-trace  the same run's table per recording: observed, simulated, relative error per metric
#   holdout    `scripts/calibrate-holdout.sh SCHEDSIM 6.18`: calibrated on half, tested on the rest
#   set        `scripts/calibrate-holdout.sh SCHEDSIM --set tests/data/traces/smp2-set`: the set
#              recorded by scripts/record-fidelity-set.sh, without the per-trace tables (the
#              halves, each fold's fit and goal count, the totals and the overview)
# Exit status: 0 up to date (or updated), 1 out of date (--check), 2 usage or a failed run.
# Deterministic for a given binary; takes about 45 s (the hold-outs' eight calibrations).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib/report-args.sh
. "$here/scripts/lib/report-args.sh" fidelity-report "$here/docs/fidelity.md" "$@"

# Warnings of the runs (the recorder replayed as background, a perf script without flag columns)
# are the same on every run and documented beside the tables; only a failure is reported.
if ! FIDELITY_ONLY='^(quiet|xeon16) ' "$here/scripts/fidelity.sh" "$SCHEDSIM" 6.18 >"$work/fid.md" 2>"$work/fid.err"; then
  cat "$work/fid.err" >&2
  echo "fidelity-report: scripts/fidelity.sh failed" >&2
  exit 2
fi
if ! "$here/scripts/calibrate-holdout.sh" "$SCHEDSIM" 6.18 >"$work/holdout.md" 2>"$work/holdout.err"; then
  cat "$work/holdout.err" >&2
  echo "fidelity-report: scripts/calibrate-holdout.sh failed" >&2
  exit 2
fi
# From the repository's top, so the report names the set by its path in the repository.
SCHEDSIM_ABS=$(cd "$(dirname "$SCHEDSIM")" && pwd)/$(basename "$SCHEDSIM")
if ! (cd "$here" && scripts/calibrate-holdout.sh "$SCHEDSIM_ABS" --set tests/data/traces/smp2-set) >"$work/set.md" 2>"$work/set.err"; then
  cat "$work/set.err" >&2
  echo "fidelity-report: scripts/calibrate-holdout.sh --set tests/data/traces/smp2-set failed" >&2
  exit 2
fi

python3 - "$work" "$doc" "$mode" "$SCHEDSIM" <<'EOF'
import difflib, os, re, sys

work, doc, mode, binary = sys.argv[1:5]
fid = open(os.path.join(work, "fid.md")).read()
# The binary's path is the caller's; the document names the program.
fid = re.sub(r"^Binary: `[^`]*`", "Binary: `schedsim`", fid, count=1, flags=re.M)
head, sep, overview = fid.partition("### Overview: relative error\n")
if not sep:
    sys.exit("fidelity-report: scripts/fidelity.sh printed no overview table")
rows = [l for l in overview.splitlines() if l.startswith("| ")]
header, body = rows[0], [r for r in rows[1:] if not r.startswith("|---")]
goals = ["makespan", "wakeups", "p50", "p90", "p99"]
met = [0] * len(goals)
for r in body:
    cells = [c.strip() for c in r.strip("|").split("|")]
    for i in range(len(goals)):
        met[i] += cells[2 + i].endswith(" ok")
n = len(body)
count = (f"Goals met: **{sum(met)} of {n * len(goals)}** ("
         + ", ".join(f"{g} {m} of {n}" for g, m in zip(goals, met)) + ").\n")
# The recorded set's report without its per-trace tables (33 of them; a reader reruns the
# script for those): from "held out: **NAME**" through the blank line after its table.
set_lines, skip = [], False
for line in open(os.path.join(work, "set.md")).read().splitlines():
    if line.startswith("held out: **"):
        skip = True
    elif skip and not (line == "" or line.startswith("|")):
        skip = False
    if not skip:
        set_lines.append(line)
set_text = re.sub(r"\n{3,}", "\n\n", "\n".join(set_lines))
blocks = {
    "overview": count + "\n" + "\n".join([header, "|" + "---|" * (header.count("|") - 1)] + body) + "\n",
    "per-trace": head.rstrip("\n") + "\n",
    "holdout": open(os.path.join(work, "holdout.md")).read().rstrip("\n") + "\n",
    "set": set_text.rstrip("\n") + "\n",
}

text = open(doc).read()
stale = []
for name, want in blocks.items():
    pat = re.compile(r"(<!-- BEGIN generated: %s\b[^\n]*-->\n)(.*?)(<!-- END generated: %s -->)"
                     % (re.escape(name), re.escape(name)), re.S)
    m = pat.search(text)
    if not m:
        sys.exit(f"fidelity-report: {doc}: no block 'BEGIN generated: {name}' ... 'END generated: {name}'")
    have = m.group(2)
    if have.strip("\n") != want.strip("\n"):
        stale.append(name)
        if mode == "check":
            sys.stdout.writelines(difflib.unified_diff(
                have.strip("\n").splitlines(True), want.strip("\n").splitlines(True),
                f"{doc} ({name}, in the document)", f"{name}, printed by {binary} now", n=1))
            print()
        text = text[:m.start(2)] + "\n" + want.strip("\n") + "\n\n" + text[m.end(2):]
if mode == "update":
    if stale:
        tmp = doc + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, doc)
        print(f"fidelity-report: updated {', '.join(stale)} in {doc}")
    else:
        print(f"fidelity-report: {doc} is up to date")
elif stale:
    print(f"fidelity-report: {doc}: block(s) {', '.join(stale)} differ from what {binary} prints; "
          f"if the change is intended, run scripts/fidelity-report.sh {binary} --update and say why in the text",
          file=sys.stderr)
    sys.exit(1)
else:
    print(f"fidelity-report: {doc} is up to date ({sum(met)} of {n * len(goals)} goals)")
EOF
