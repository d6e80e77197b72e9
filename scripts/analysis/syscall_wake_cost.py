#!/usr/bin/env python3
"""How long a recording's read()/write() calls take, by whether they woke somebody.

    scripts/analysis/syscall_wake_cost.py [--bytes N] TRACE [TRACE...]

TRACE is a recording made with `schedsim record --extra-events syscalls` (ftrace text, plain,
gzip or zstd). Every sys_enter_read/write whose count is N bytes (default 100, the message size
of hackbench and perf bench sched messaging) is paired with the same task's sys_exit; the time
between them is the call's duration (the trace's 1 us clock). Each call is classed by the
sched_waking lines its task emitted inside it (woke nobody, a task on its own CPU: local, on
another CPU: remote) and by whether the task was switched out before the exit (it slept, or
was preempted, inside the call: the duration then includes that time off the CPU).

A channel replay (`--channels`) keeps each call's recorded duration wherever its simulated
wakes fall, so the difference between the "woke nobody" and the "woke" rows is the cost of a
wake that a replayed call gains or loses without being charged for it. docs/model.md
("Socket channel replays under `--update-curr events`") uses it. Standard library only.
"""
import argparse
import collections
import re

from channel_rhythm import lines  # same directory: the trace reader (plain, gzip, zstd)

ENTER = re.compile(r"-(\d+)\s+\(.*?\)\s+\[\d+\].*? ([\d.]+): sys_(read|write)\(fd: \w+, buf: \w+, count: (\w+)\)")
EXIT = re.compile(r"-(\d+)\s+\(.*?\)\s+\[\d+\].*? ([\d.]+): sys_(read|write) -> ")
WAKING = re.compile(r"-(\d+)\s+\(.*?\)\s+\[(\d+)\]\s+\S+\s+[\d.]+: sched_waking: .*?pid=\d+ .*target_cpu=(\d+)")
SWITCH = re.compile(r"\[\d+\]\s+\S+\s+[\d.]+: sched_switch: .*prev_pid=(\d+) ")


def pct(v, q):
    return v[min(len(v) - 1, int(len(v) * q))]


def calls(path, size):
    inside = {}  # pid -> [call, enter time, set of local/remote wakes, switched out]
    out = collections.defaultdict(list)
    for line in lines(path):
        m = ENTER.search(line)
        if m:
            if int(m.group(4), 0) == size:
                inside[m.group(1)] = [m.group(3), float(m.group(2)), set(), False]
            continue
        m = WAKING.search(line)
        if m and m.group(1) in inside:
            inside[m.group(1)][2].add("local" if m.group(2) == m.group(3) else "remote")
            continue
        m = SWITCH.search(line)
        if m and m.group(1) in inside:
            inside[m.group(1)][3] = True
            continue
        m = EXIT.search(line)
        if m and m.group(1) in inside:
            call, t0, woke, switched = inside.pop(m.group(1))
            if call == m.group(3):
                key = (call, "woke " + "+".join(sorted(woke)) if woke else "woke nobody",
                       "switched out" if switched else "stayed on")
                out[key].append((float(m.group(2)) - t0) * 1e6)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bytes", type=int, default=100, help="count of the calls to measure (default 100)")
    ap.add_argument("traces", nargs="+")
    a = ap.parse_args()
    for path in a.traces:
        print(f"{path}: {a.bytes}-byte read()/write() calls, enter to exit (us)")
        print("| call | wakes inside | CPU | n | mean | p50 | p90 |")
        print("|---|---|---|---|---|---|---|")
        for key, v in sorted(calls(path, a.bytes).items()):
            v.sort()
            print(f"| {key[0]} | {key[1]} | {key[2]} | {len(v)} | {sum(v) / len(v):.1f} | {pct(v, .5):.0f} | "
                  f"{pct(v, .9):.0f} |")


if __name__ == "__main__":
    main()
