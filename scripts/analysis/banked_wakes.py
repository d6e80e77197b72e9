#!/usr/bin/env python3
"""Where a replay's banked wakes found their wakee: the engine's debug log, summed up.

    schedsim --log engine=debug run TRACE ... 2>LOG >/dev/null
    scripts/analysis/banked_wakes.py LOG [LOG...]      (or - for stdin)

A trace replay posts each recorded wake; a wake that finds its wakee not asleep in the
`block()` the trace puts it in is banked as a token (the wakee's next `block()` consumes it and
does not sleep), and `run` warns when 10% or more are. Under `--log engine=debug` the engine
logs each banked wake of a foreground task with the wakee's state at that moment (running,
queued, woken but not yet enqueued, ...), how many tokens it holds with this one, the run still
ahead of it before its next `block()` (what it would have had to finish sooner for the wake to
find it asleep, as the recorded wakee was), and how many CPUs were idle.

The table splits the banked wakes into *first* (the wakee held no token before: the replay fell
behind the recording here) and *held* (the wakee already held one: it was behind already, and
every wake until it catches up banks too), by state, with the run-ahead p50/p90 and the share
banked while at least one CPU was idle. docs/model.md ("Where the banked wakes start")
uses it. Standard library only.
"""
import argparse
import collections
import re
import sys

LINE = re.compile(r"wake of task(\d+) banked as a token: (.+?), (\d+) tokens? held, (\S+) of run before its next block, "
                  r"(\d+) CPUs? idle")
UNITS = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
NUMBER = re.compile(r"^([0-9.]+)(ns|us|ms|s)$")


def microseconds(text):
    """The engine's Duration format (e.g. 812ns, 3.1us, 1.25ms, 2s) in us; None for '-'."""
    if text == "-":
        return None
    m = NUMBER.match(text)
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def quantile(values, q):
    if not values:
        return None
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def fmt_us(v):
    return "-" if v is None else f"{v:.1f}"


def read(path):
    rows = []
    stream = sys.stdin if path == "-" else open(path, encoding="utf-8", errors="replace")
    with stream:
        for n, line in enumerate(stream, 1):
            if "banked as a token" not in line:
                continue
            m = LINE.search(line)
            if not m:
                raise ValueError(f"{path}:{n}: a banked-wake line in an unknown format: {line.strip()!r}")
            _, where, held, ahead, idle = m.groups()
            rows.append((int(held) > 1, where, microseconds(ahead), int(idle)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+", metavar="LOG", help="stderr of `schedsim --log engine=debug run ...` (- = stdin)")
    args = ap.parse_args()
    tables = []
    for path in args.logs:
        try:
            rows = read(path)
        except (OSError, ValueError) as e:
            print(f"banked_wakes: {e}", file=sys.stderr)
            return 1
        if not rows:
            print(f"banked_wakes: {path}: no banked-wake lines (was the run made with `--log engine=debug`, "
                  "and did it bank any wake?)", file=sys.stderr)
            return 1
        tables.append((path, rows))
    print("| log | banked | first | state | wakes | share | run ahead p50 (us) | p90 (us) | with a CPU idle |")
    print("|---|---|---|---|---|---|---|---|---|")
    for path, rows in tables:
        groups = collections.defaultdict(list)
        for held, where, ahead, idle in rows:
            groups[("held" if held else "first", where)].append((ahead, idle))
        total = len(rows)
        first = sum(1 for r in rows if not r[0])
        name = "stdin" if path == "-" else path.rsplit("/", 1)[-1]
        for key, vals in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            ahead = [a for a, _ in vals if a is not None]
            idle = sum(1 for _, i in vals if i > 0)
            print(f"| {name} | {total} | {first} ({100 * first / total:.0f}%) | {key[0]}: {key[1]} | {len(vals)} | "
                  f"{100 * len(vals) / total:.1f}% | {fmt_us(quantile(ahead, 0.5))} | {fmt_us(quantile(ahead, 0.9))} | "
                  f"{100 * idle / len(vals):.0f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
