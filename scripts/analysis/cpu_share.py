#!/usr/bin/env python3
"""Share of on-CPU time per task (and per comm) in a real ftrace trace.

    scripts/analysis/cpu_share.py TRACE [--comm REGEX] [--top N]

CPU time between two consecutive events of a CPU belongs to the task running there: after a
sched_switch, its next_pid; otherwise the task the event line names. Where the switch from
the idle task is missing (6.18 KVM guests, every CPU but 0), the task is taken to run from the
CPU's previous event or its own wakeup, whichever is later (as schedsim's importer does). Prints, over the trace's span and all
CPUs: the idle share, the share of the selected tasks (REGEX) and of the others (noise from
other programs the replay does not contain), then the top comms and, with --per-task N, the N
selected tasks with the most on-CPU time.
"""
import argparse
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ftrace_events as fe  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--comm", default=".", help="selected tasks: comm regex")
    ap.add_argument("--top", type=int, default=8, help="rows in the per-comm table")
    ap.add_argument("--per-task", type=int, default=0, metavar="N",
                    help="also list the N selected tasks with the most on-CPU time (0: none)")
    a = ap.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sel = fe.select_pids(a.trace, re.compile(a.comm))

    cur, last = {}, {}
    busy = {}      # pid -> ns
    woken = {}     # pid -> time of its latest sched_wakeup / sched_wakeup_new
    comm = {}
    first = None
    end = 0
    for e in fe.read(a.trace):
        first = e.ts if first is None else first
        end = e.ts
        c = e.cpu
        if c in last:
            owner = cur.get(c, e.pid)
            start = last[c]
            if owner == 0 and e.pid != 0:
                # missing switch from idle: the task runs from the CPU's previous event, but
                # not before it was woken (schedsim's importer makes the same choice)
                owner = e.pid
                t_in = max(start, min(woken.get(owner, start), e.ts))
                busy[0] = busy.get(0, 0) + (t_in - start)
                start = t_in
            busy[owner] = busy.get(owner, 0) + (e.ts - start)
        if e.pid:
            comm[e.pid] = e.comm
        if e.name in ("sched_wakeup", "sched_wakeup_new"):
            woken[int(e.f["pid"])] = e.ts
        if e.name == "sched_switch":
            cur[c] = int(e.f["next_pid"])
            if cur[c]:
                comm[cur[c]] = e.f.get("next_comm", "?")
        else:
            cur[c] = e.pid
        last[c] = e.ts
    ncpu = len(last)
    span = end - first
    total = span * ncpu
    idle = busy.pop(0, 0) + sum(end - t for t in last.values())  # tail of each CPU: unknown
    sel_ns = sum(v for p, v in busy.items() if p in sel)
    other = sum(v for p, v in busy.items() if p not in sel)
    print(f"trace {os.path.basename(a.trace)}: span {span / 1e6:.2f} ms x {ncpu} CPUs; "
          f"selected /{a.comm}/ {len(sel)} tasks")
    print()
    print("| share of CPU time | ms | % |")
    print("|---|---|---|")
    for name, v in (("selected tasks", sel_ns), ("other tasks", other), ("idle (or unknown)", idle)):
        print(f"| {name} | {v / 1e6:.2f} | {v / total * 100:.1f}% |")
    by_comm = {}
    for p, v in busy.items():
        k = comm.get(p, "?") + ("" if p in sel else " (not selected)")
        by_comm[k] = by_comm.get(k, 0) + v
    print()
    print("| comm | tasks' on-CPU ms | % of CPU time |")
    print("|---|---|---|")
    for k, v in sorted(by_comm.items(), key=lambda kv: -kv[1])[:a.top]:
        print(f"| {k} | {v / 1e6:.2f} | {v / total * 100:.1f}% |")
    vals = sorted((v for p, v in busy.items() if p in sel), reverse=True)
    if vals:
        print()
        print(f"selected tasks' on-CPU ms: max {vals[0] / 1e6:.2f}, median "
              f"{vals[len(vals) // 2] / 1e6:.2f}, min {vals[-1] / 1e6:.2f}; "
              f"top task {vals[0] / max(sel_ns, 1) * 100:.1f}% of the selection")
    if a.per_task:
        print()
        print("| pid | comm | on-CPU ms | % of the selection | % of the span on one CPU |")
        print("|---|---|---|---|---|")
        rows = sorted(((v, p) for p, v in busy.items() if p in sel), reverse=True)
        for v, p in rows[:a.per_task]:
            print(f"| {p} | {comm.get(p, '?')} | {v / 1e6:.3f} | {v / max(sel_ns, 1) * 100:.1f}% | "
                  f"{v / max(span, 1) * 100:.1f}% |")


if __name__ == "__main__":
    main()
