#!/bin/bash
# Keeps the measured tables of docs/fidelity.md true to the code: regenerates them with the given
# binary and compares them with (or writes them into) the document's generated blocks.
#
#   scripts/fidelity-report.sh SCHEDSIM [--check | --update] [DOC]
#     SCHEDSIM  the schedsim binary (e.g. build-ci/cli/schedsim)
#     --check   (default) exit 1 with a diff when a block differs from what SCHEDSIM prints now
#     --update  rewrite the blocks in DOC (default docs/fidelity.md); the rest of DOC is kept
#
# Blocks (each between `<!-- BEGIN generated: NAME ... -->` and `<!-- END generated: NAME -->`),
# each a compact digest of what the scripts print (rerun them for the full tables):
#   overview   the goal count and the overview row of every judged recording: the quiet 2-vCPU
#              recordings and the 16-CPU guest's, profile 6.18, each machine's cost file
#              (`FIDELITY_ONLY='^(quiet|xeon16) ' scripts/fidelity.sh SCHEDSIM 6.18`)
#   per-trace  the same run, one row per recording: observed / simulated per metric and the share
#              of the trace's wakes the replay banked as tokens
#   holdout    `scripts/calibrate-holdout.sh SCHEDSIM 6.18`: calibrated on half, tested on the
#              rest; one row per held-out trace (errors with the starting -> the fitted costs), the
#              fitted values per fold and the total
#   set        `scripts/calibrate-holdout.sh SCHEDSIM --set tests/data/traces/smp2-set`: the set
#              recorded by scripts/record-fidelity-set.sh: each half's fit and goal count, the
#              totals and one row per trace (errors with the starting -> the fitted costs)
# FIDELITY_REPORT_PRINT=1 prints the blocks instead of checking or updating DOC.
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
GOALS = ["makespan", "wakeups", "p50", "p90", "p99"]


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table(lines):
    """The rows of a markdown table (header and separator left out) as lists of cells."""
    return [cells(l) for l in lines if l.startswith("| ") and not l.startswith("|---")][1:]


fid = open(os.path.join(work, "fid.md")).read()
head, sep, overview = fid.partition("### Overview: relative error\n")
if not sep:
    sys.exit("fidelity-report: scripts/fidelity.sh printed no overview table")

# overview: the goal count and the overview rows, as scripts/fidelity.sh prints them.
rows = [l for l in overview.splitlines() if l.startswith("| ")]
header, body = rows[0], [r for r in rows[1:] if not r.startswith("|---")]
met = [0] * len(GOALS)
for r in body:
    c = cells(r)
    for i in range(len(GOALS)):
        met[i] += c[2 + i].endswith(" ok")
n = len(body)
count = (f"Goals met: **{sum(met)} of {n * len(GOALS)}** ("
         + ", ".join(f"{g} {m} of {n}" for g, m in zip(GOALS, met)) + ").\n")

# per-trace: one row per recording, observed / simulated per metric and the banked share (the
# script's per-trace tables hold the rest: rq-wait, context switches, the lower-bound counts).
PT = [("makespan", "makespan"), ("wakeups", "wakeups"), ("wake latency p50", "p50"),
      ("wake latency p90", "p90"), ("wake latency p99", "p99"), ("migrations", "migrations")]
pt = ["| trace | " + " | ".join(h for _, h in PT) + " | banked |", "|" + "---|" * (len(PT) + 2)]
for sec in re.split(r"^### ", head, flags=re.M)[1:]:
    name, _, text = sec.partition("\n")
    vals = {c[0]: c for c in table(text.splitlines())}
    bank = re.search(r"^- [^:]+: of the (\d+) wakes replayed from the trace, (\d+) \((\d+)%\)", text, re.M)
    if not bank or any(k not in vals for k, _ in PT):
        sys.exit(f"fidelity-report: scripts/fidelity.sh printed no table or banked line for {name}")
    pt.append(f"| {name} | " + " | ".join(f"{vals[k][1]} / {vals[k][2]}" for k, _ in PT)
              + f" | {bank.group(3)}% of {bank.group(1)} |")

# holdout: per fold, one row per held-out trace with the errors before -> calibrated, the
# fitted values and the goal counts.
hold = open(os.path.join(work, "holdout.md")).read()
hl = [hold.splitlines()[0], "",
      "| fold | held out | makespan | wakeups | p50 | p90 | p99 | goals |", "|" + "---|" * 8]
fits, tail = [], ""
for sec in re.split(r"^### ", hold, flags=re.M)[1:]:
    fold, _, text = sec.partition("\n")
    f = re.search(r"^(Fitted: `[^`]*`|Not fitted.*)$", text, re.M)
    fits.append(f"- {fold}: " + (f.group(1)[0].lower() + f.group(1)[1:] if f else "?"))
    for t in re.split(r"^held out: ", text, flags=re.M)[1:]:
        tname = re.match(r"\*\*([^*]+)\*\*", t).group(1)
        rows_ = table(t.splitlines())[:5]
        ok_b = sum(r[3].endswith(" ok") for r in rows_)
        ok_a = sum(r[5].endswith(" ok") for r in rows_)
        hl.append(f"| {fold} | {tname} | " + " | ".join(f"{r[3]} -> {r[5]}" for r in rows_)
                  + f" | {ok_b} -> {ok_a} |")
    m = re.search(r"^goals met in total: .*$", text, re.M)
    if m:
        tail = m.group(0)
hl += ["", "Fitted per fold:", ""] + fits + ["", tail]

# set: the header, each fold's halves, fit and goal count, and one row per trace of the overview
# (errors with the starting costs -> calibrated, one value per fold the trace was tested in).
setl = open(os.path.join(work, "set.md")).read().splitlines()
sl = setl[:3] + [""]
halves = {c[0]: c[1] for c in table(setl) if len(c) == 3}
for i, line in enumerate(setl):
    if line.startswith("### fit half "):
        fold, _, names = line[4:].partition(": ")
        fitted = next((l for l in setl[i + 1:i + 4] if l.startswith(("Fitted:", "Not fitted"))), "")
        fold_goals = next((l for l in setl[i + 1:i + 8] if l.startswith("goals met on")), "")
        sl.append(f"- {fold} ({len(names.split(', '))} traces): {fitted}; {fold_goals}.")
    elif line.startswith("### ") and "nothing to fit" in line:
        sl.append(f"- {line[4:]}")
    elif line.startswith("goals met in total:"):
        sl += ["", line]
ov = setl[next(i for i, l in enumerate(setl) if l.startswith("### Overview")):]
per = {}
for c in table(ov):
    per.setdefault(c[0], {}).setdefault(c[1], c)
sl += ["", "| trace | half | makespan | wakeups | p50 | p90 | p99 | lat. >= |", "|" + "---|" * 8]
for tname, by in per.items():
    start = by.get("start")
    fitc = [c for k, c in by.items() if k != "start"]
    def cell(i):
        s = start[i] if start else "-"
        return s + "".join(f" -> {c[i]}" if j == 0 else f" / {c[i]}" for j, c in enumerate(fitc))
    sl.append(f"| {tname} | {halves.get(tname, '-')} | " + " | ".join(cell(i) for i in range(2, 7))
              + f" | {(start or fitc[0])[-1]} |")
sl += [""] + [l for l in ov if l.startswith("Goals met, ")]
blocks = {
    "overview": count + "\n" + "\n".join([header, "|" + "---|" * (header.count("|") - 1)] + body) + "\n",
    "per-trace": "\n".join(pt) + "\n",
    "holdout": "\n".join(hl) + "\n",
    "set": "\n".join(sl) + "\n",
}
if os.environ.get("FIDELITY_REPORT_PRINT"):
    for k, v in blocks.items():
        print(f"==== {k}\n{v}")
    sys.exit(0)
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
    print(f"fidelity-report: {doc} is up to date ({sum(met)} of {n * len(GOALS)} goals)")
EOF
