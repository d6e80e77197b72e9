#!/usr/bin/env python3
"""Where timer-woken threads wake (their previous CPU idle or taken) and what moved them.

    scripts/analysis/timer_collisions.py TRACE [--comm REGEX]

For every wake of the selected tasks (default comm `loadgen`) read from ftrace text (a recorded
trace or a replay's `--trace-out`, plain or gzip): whether it was emitted on the wakee's
previous CPU (a local timer wake: the hrtimer of its sleep fires where it slept), whether that
CPU was idle or running another task, and whether the wakee stayed there or was sent to another
CPU. A CPU's current task comes from sched_switch and from the task named on every event line
(switches from idle are missing on some VMs); a CPU is taken as busy from a sched_wakeup onto it
until the wakee's switch-out. Also: each sched_migrate_task by context (inside a wakeup, a pull
by the destination CPU from task or softirq context, a migration/N kthread), and per class the
waking -> switch-in latency where the switch-in is recorded. docs/model.md, "The periodic
tail". Standard library only.
"""
import argparse
import collections
import re

import ftrace_events as fe


def analyse(path, rx):
    curr, task_cpu, pend, woken = {}, {}, {}, {}
    classes = collections.Counter()
    lat = collections.defaultdict(list)
    migr = collections.Counter()
    for e in fe.read(path):
        f = e.f
        if e.name == "sched_switch":
            nxt = int(f["next_pid"])
            curr[e.cpu] = nxt
            if rx.search(f["prev_comm"]):
                task_cpu[int(f["prev_pid"])] = e.cpu
            if rx.search(f["next_comm"]):
                task_cpu[nxt] = e.cpu
                if nxt in woken:
                    ts, cls = woken.pop(nxt)
                    lat[cls].append(e.ts - ts)
            continue
        if e.name != "sched_wakeup":
            curr[e.cpu] = e.pid
        comm = f.get("comm", "")
        if not rx.search(comm):
            continue
        if e.name == "sched_wakeup_new":
            task_cpu[int(f["pid"])] = int(f["target_cpu"])
        elif e.name == "sched_waking":
            p = int(f["pid"])
            prev = task_cpu.get(p, int(f["target_cpu"]))
            pend[p] = (e.ts, e.cpu, prev, curr.get(prev, 0))
        elif e.name == "sched_migrate_task":
            p = int(f["pid"])
            dest = int(f["dest_cpu"])
            if p in pend:
                kind = "at a wakeup"
            elif e.comm.startswith("migration/"):
                kind = "by migration/N"
            elif e.cpu == dest:
                kind = "pulled by the destination CPU, " + ("softirq" if e.flags[2:3] in ("s", "S") else "task context")
            else:
                kind = "other"
            migr[kind] += 1
            task_cpu[p] = dest
        elif e.name == "sched_wakeup":
            p = int(f["pid"])
            if p not in pend:
                continue
            ts, wcpu, prev, other = pend.pop(p)
            dest = int(f["target_cpu"])
            if wcpu != prev:
                cls = "woken from another CPU"
            elif other not in (0, p):
                cls = "timer on a busy prev CPU, " + ("queued there" if dest == prev else "sent elsewhere")
            elif dest != prev:
                cls = "timer on the prev CPU while it receives another wakee, sent elsewhere"
            else:
                cls = "timer on the idle prev CPU, stays"
            classes[cls] += 1
            woken[p] = (ts, cls)
            task_cpu[p] = dest
            if curr.get(dest, 0) == 0:
                curr[dest] = p
    return classes, migr, lat


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--comm", default="loadgen", help="regex of the tasks' comm (default loadgen)")
    a = ap.parse_args()
    classes, migr, lat = analyse(a.trace, re.compile(a.comm))
    print(f"{a.trace}")
    print("| wake | n | recorded switch-ins | p50 / p90 / p99 (us) |")
    print("|---|---|---|---|")
    for cls, n in sorted(classes.items(), key=lambda kv: -kv[1]):
        v = sorted(lat.get(cls, []))
        q = " / ".join(fe.fmt_us(fe.percentile(v, x)) for x in (50, 90, 99)) if v else "-"
        print(f"| {cls} | {n} | {len(v)} | {q} |")
    print(f"\nmigrations: {sum(migr.values())}")
    for kind, n in sorted(migr.items(), key=lambda kv: -kv[1]):
        print(f"  {n:5d} {kind}")


if __name__ == "__main__":
    main()
