#!/usr/bin/env python3
"""Remote-wake cost by the target's idle time in pingsleep recordings (tests/data/traces/smp2-quiet/pingsleep.py).

The reader of pingsleep.py sits pinned on one CPU and is woken by a writer on another after a
known idle interval. On the 2-vCPU guest the reader's CPU records no switch from idle, so
`trace info --idle-wake-costs` (which needs that switch) cannot sample these wakes; this script
measures them from events that are recorded there:
  * waking -> sched_wakeup on the target: the wake list run in the IPI handler (the enqueue),
  * waking -> the wakee's first event on the target (its read returning): after the switch-in.
The target's idle time is from its last switch to idle to the waking. The reader is the task
with the most events on --reader-cpu among those named --comm.

usage: pingsleep_wakes.py TRACE... [--comm python3] [--reader-cpu 1]
"""
import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ftrace_events  # noqa: E402

EDGES_US = [0, 20, 50, 100, 150, 200, 300, 500, 1000, 2000, 5000]


def idle_class(idle_ns):
    k = 0
    for i, e in enumerate(EDGES_US):
        if idle_ns >= e * 1000:
            k = i
    return k


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("traces", nargs="+")
    ap.add_argument("--comm", default="python3")
    ap.add_argument("--reader-cpu", type=int, default=1)
    a = ap.parse_args()
    enq = collections.defaultdict(list)
    first = collections.defaultdict(list)
    for path in a.traces:
        events = list(ftrace_events.read(path))
        counts = collections.Counter(e.pid for e in events if e.cpu == a.reader_cpu and e.comm == a.comm)
        if not counts:
            raise SystemExit(f"{path}: no {a.comm} task on CPU {a.reader_cpu}")
        reader = counts.most_common(1)[0][0]
        idle_since = None
        pending = None  # [waking ts, idle time, sched_wakeup ts]
        for e in events:
            if e.name == "sched_switch" and e.cpu == a.reader_cpu:
                idle_since = e.ts if e.f.get("next_pid") == "0" else None
            if e.name == "sched_waking" and e.cpu != a.reader_cpu and e.f.get("pid") == str(reader):
                pending = [e.ts, None if idle_since is None else e.ts - idle_since, None]
            elif pending and e.cpu == a.reader_cpu and e.name == "sched_wakeup" and e.f.get("pid") == str(reader):
                pending[2] = e.ts
            elif pending and e.cpu == a.reader_cpu and e.pid == reader:
                waking, idle, wakeup = pending
                pending = None
                if idle is None:
                    continue  # the reader's CPU was not idle at the waking
                first[idle_class(idle)].append(e.ts - waking)
                if wakeup is not None:
                    enq[idle_class(idle)].append(wakeup - waking)
    print("| target idle for | n | waking -> sched_wakeup p50 / p90 (us) | waking -> wakee's first event p50 / p90 (us) |")
    print("|---|---|---|---|")
    for k in sorted(first):
        lo = EDGES_US[k]
        hi = f"{EDGES_US[k + 1]} us" if k + 1 < len(EDGES_US) else ""
        e = sorted(enq[k])
        f = sorted(first[k])
        pe = "/".join(ftrace_events.fmt_us(ftrace_events.percentile(e, q)) for q in (50, 90))
        pf = "/".join(ftrace_events.fmt_us(ftrace_events.percentile(f, q)) for q in (50, 90))
        print(f"| {lo} us - {hi} | {len(f)} | {pe} | {pf} |")


if __name__ == "__main__":
    main()
