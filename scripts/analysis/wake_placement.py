#!/usr/bin/env python3
"""Where the real kernel put each wakee and forked child, and what the other CPUs were doing.

    scripts/analysis/wake_placement.py TRACE [TRACE...]

For a trace written by `schedsim record` (ftrace text, plain or gzip): the recorded command's
tasks are the root pid of the header and its descendants. For each of their wakeups
(sched_waking -> sched_wakeup) and forks (sched_wakeup_new) it classifies the chosen CPU as the
waker's CPU or another one, the wakee's previous CPU (sched_waking's target_cpu, task_cpu()) as
the waker's or not, and whether some other CPU was idle at that moment. A CPU's current task
is taken from sched_switch and repaired from the task named on every other event line (the
switch away from idle is not recorded on every CPU, docs/fidelity.md "Measurement caveats").
When another CPU was busy, the report says whether the recorder (`schedsim record` itself,
comm "schedsim", outside the recorded command) was the task running there. It also prints how
much CPU time the recorder took on each CPU while the command ran.
Standard library only.
"""
import collections
import re
import sys

import ftrace_events as fe


def analyse(path):
    root = None
    opener = __import__("gzip").open if path.endswith(".gz") else open
    with opener(path, "rt", errors="replace") as fh:
        for line in fh:
            m = re.search(r"root_pid=(\d+)", line)
            if m:
                root = int(m.group(1))
                break
            if not line.startswith("#"):
                break
    if root is None:
        raise SystemExit(f"{path}: no 'schedsim record: root_pid=' header")
    mine = {root}
    comm = {}
    curr = {}
    pend = {}
    wakes = collections.Counter()
    forks = collections.Counter()
    rec_busy = collections.Counter()
    rec_since = {}
    first = last = None
    cpus = set()

    def set_curr(cpu, pid, ts):
        old = curr.get(cpu)
        if old == pid:
            return
        if old is not None and comm.get(old) == "schedsim" and old not in mine and cpu in rec_since:
            rec_busy[cpu] += ts - rec_since.pop(cpu)
        curr[cpu] = pid
        if comm.get(pid) == "schedsim" and pid not in mine:
            rec_since[cpu] = ts

    def others_state(cpu):
        other = [c for c in cpus if c != cpu]
        if any(curr.get(c, 0) == 0 for c in other):
            return "another CPU idle"
        if any(comm.get(curr.get(c)) == "schedsim" and curr.get(c) not in mine for c in other):
            return "other CPU(s) busy, one with the recorder"
        return "other CPU(s) busy"

    for e in fe.read(path):
        cpus.add(e.cpu)
        comm.setdefault(e.pid, e.comm)
        if e.name == "sched_switch":
            comm[int(e.f["prev_pid"])] = e.f["prev_comm"]
            comm[int(e.f["next_pid"])] = e.f["next_comm"]
            set_curr(e.cpu, int(e.f["next_pid"]), e.ts)
        else:
            set_curr(e.cpu, e.pid, e.ts)
        if e.name == "sched_process_fork" and int(e.f["pid"]) in mine:
            mine.add(int(e.f["child_pid"]))
        touched = e.pid in mine or (e.name == "sched_switch" and int(e.f["next_pid"]) in mine)
        if touched:
            first = e.ts if first is None else first
            last = e.ts
        if e.name == "sched_waking" and int(e.f["pid"]) in mine:
            pend[int(e.f["pid"])] = (e.cpu, int(e.f["target_cpu"]), others_state(e.cpu))
        elif e.name == "sched_wakeup" and int(e.f["pid"]) in pend:
            wcpu, prev, state = pend.pop(int(e.f["pid"]))
            to = int(e.f["target_cpu"])
            wakes[("ran on the waker's CPU" if to == wcpu else "ran on another CPU",
                   "prev = waker's CPU" if prev == wcpu else "prev elsewhere", state)] += 1
        elif e.name == "sched_wakeup_new" and int(e.f["pid"]) in mine:
            to = int(e.f["target_cpu"])
            forks[("on the parent's CPU" if to == e.cpu else "on another CPU", others_state(e.cpu))] += 1
    for cpu, since in rec_since.items():
        rec_busy[cpu] += last - since if last and last > since else 0
    span = (last - first) if first is not None else 0
    print(f"## {path}")
    print(f"recorded command span {span / 1e6:.2f} ms; recorder on-CPU time in it (upper bound): " +
          ", ".join(f"CPU {c} {rec_busy[c] / 1e6:.2f} ms" for c in sorted(cpus)))
    print(f"wakeups ({sum(wakes.values())}):")
    for k, v in wakes.most_common():
        print(f"  {v:6d}  {k[0]}, {k[1]}, {k[2]}")
    print(f"forks ({sum(forks.values())}):")
    for k, v in forks.most_common():
        print(f"  {v:6d}  {k[0]}, {k[1]}")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    for p in sys.argv[1:]:
        analyse(p)
