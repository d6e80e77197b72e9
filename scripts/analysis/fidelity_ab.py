#!/usr/bin/env python3
"""Before/after fidelity table of one model change: replays each trace twice with the same binary,
once with the "before" cost options and once with the "after" ones, and prints observed, before,
after and their relative errors per metric (markdown).

    scripts/analysis/fidelity_ab.py SCHEDSIM --before 'name=value ...' --after 'name=value ...'
        [--kernel 6.18] [--label-before B] [--label-after A] ENTRY...
    ENTRY = name|trace|topology|selection options|cost file (the last two may be empty)

Example (docs/model.md, "Refill of replay-only migrations"):
    X=tests/data/traces/xeon-vm-16cpu
    scripts/analysis/fidelity_ab.py build-ci/cli/schedsim --before replay_overheads=recorded \\
        --after replay_overheads=migration-delta \\
        "fork-2000|$X/fork-2000.trace.gz|$X/lscpu-p.txt|--comm loadgen|$X/costs.json"
Output is deterministic for a given binary (replays are).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fidelity_fmt import AB_ROWS, metric_row  # noqa: E402


def run(binary, kernel, trace, topo, sel, cfile, costs, out):
    cmd = [binary, "run", trace, "-t", topo, "--kernel", kernel, "--progress", "never", "-f", "json", "-o", out]
    cmd += sel.split()
    if cfile:
        cmd += ["--cost", cfile]
    for c in costs.split():
        cmd += ["--cost", c]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"fidelity_ab: {' '.join(cmd)} failed:\n{p.stderr}")
    return json.load(open(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("schedsim")
    ap.add_argument("--before", default="")
    ap.add_argument("--after", default="")
    ap.add_argument("--label-before", default="before")
    ap.add_argument("--label-after", default="after")
    ap.add_argument("--kernel", default="6.18")
    ap.add_argument("entries", nargs="+")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for i, e in enumerate(a.entries):
            name, trace, topo, sel, cfile = (e.split("|") + ["", ""])[:5]
            d = [run(a.schedsim, a.kernel, trace, topo, sel, cfile, c, os.path.join(tmp, f"{i}-{j}.json"))
                 for j, c in enumerate((a.before, a.after))]
            print(f"#### {name}\n")
            print(f"| metric | observed | {a.label_before} | err | {a.label_after} | err |")
            print("|---|---|---|---|---|---|")
            for label, oname, simf, f in AB_ROWS:
                obs, bound, _, cells = metric_row(d, oname, simf)
                print(f"| {label} | {bound}{f(obs)} |" + "".join(f" {f(s)} | {e} |" for s, e in cells))
            print()


if __name__ == "__main__":
    main()
