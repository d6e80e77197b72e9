#!/usr/bin/env python3
"""How readers and writers of a messaging trace take turns, real or simulated.

    scripts/analysis/channel_rhythm.py ROLES_TRACE [SCHEDULE]

ROLES_TRACE is a recording with read/write syscall events (`schedsim record --extra-events
syscalls`, ftrace text, plain, gzip or zstd). It gives:

* reads and writes by byte count asked (sys_enter_*'s count) and returned (sys_exit_*'s ret),
  and whether the task switched out asleep (prev_state S or D) between the enter and the exit:
  "reads that slept" is the number of times a reader found its pipe or socket empty;
* each task's role: reader (more reads than writes, over 20 calls) or writer.

SCHEDULE (default: ROLES_TRACE itself) is a schedule to classify with those roles: the same
trace, or a replay's `schedsim run --trace-out` (pids are kept). For each wakeup of a task of
the trace's commands (sched_waking -> sched_wakeup) it reports whether the chosen CPU is the
waker's (local) or the other one (remote), what the chosen CPU was running at that moment
(a reader, a writer, or something else/idle, from sched_switch), the delay from the waking to
the wakee's switch-in, and whether that switch-in preempted the running task (prev_state R)
or came after it slept. docs/model.md ("Why channel replays overshoot on messaging") uses it.
Standard library only.
"""
import collections
import gzip
import re
import subprocess
import sys

CMDS = ("hackbench", "sched-messaging", "perf")
SC_ENTER = re.compile(r"-(\d+)\s+\(.*?\)\s+\[\d+\].*? ([\d.]+): sys_(read|write)\(fd: \w+, buf: \w+, count: (\w+)\)")
SC_EXIT = re.compile(r"-(\d+)\s+\(.*?\)\s+\[\d+\].*? ([\d.]+): sys_(read|write) -> (\S+)")
SWITCH = re.compile(r"\[(\d+)\]\s+\S+\s+([\d.]+): sched_switch: .*prev_pid=(\d+) .*prev_state=(\S+) ==> .*next_pid=(\d+)")
WAKE = re.compile(r"-(\d+)\s+(?:\(.*?\)\s+)?\[(\d+)\]\s+\S+\s+([\d.]+): (sched_waking|sched_wakeup): "
                  r"comm=(\S+) .*?pid=(\d+) .*target_cpu=(\d+)")


def lines(path):
    if path.endswith(".zst"):
        return subprocess.Popen(["zstdcat", path], stdout=subprocess.PIPE, text=True, errors="replace").stdout
    if path.endswith(".gz"):
        return gzip.open(path, "rt", errors="replace")
    return open(path, errors="replace")


def signed(v):
    r = int(v, 0)
    return r - (1 << 64) if r >= (1 << 63) else r


def syscalls(path):
    """Byte counts, sleeps inside reads/writes, and roles, from the syscall events."""
    inside = {}  # pid -> [kind, count, slept]
    calls = collections.Counter()
    sizes = collections.Counter()
    per_task = collections.defaultdict(collections.Counter)
    for line in lines(path):
        m = SC_ENTER.search(line)
        if m:
            inside[m.group(1)] = [m.group(3), int(m.group(4), 0), False]
            per_task[m.group(1)][m.group(3)] += 1
            continue
        m = SC_EXIT.search(line)
        if m:
            cur = inside.pop(m.group(1), None)
            if cur is None or cur[0] != m.group(3):
                continue
            ret = signed(m.group(4))
            got = "all asked" if ret == cur[1] else ("less than asked" if ret > 0 else "0 or error")
            calls[(cur[0], "slept" if cur[2] else "did not sleep", got)] += 1
            sizes[(cur[0], cur[1], ret)] += 1
            continue
        m = SWITCH.search(line)
        if m and m.group(3) in inside and m.group(4)[:1] in ("S", "D"):
            inside[m.group(3)][2] = True
    roles = {p: ("reader" if c["read"] > c["write"] else "writer")
             for p, c in per_task.items() if c["read"] + c["write"] > 20}
    return calls, sizes, roles


def pct(v, q):
    return v[min(len(v) - 1, int(len(v) * q))] if v else float("nan")


def rhythm(path, roles):
    cur = {}
    waking_cpu = {}
    pending = {}
    kinds = collections.Counter()
    outcome = collections.Counter()
    delay = collections.defaultdict(list)
    for line in lines(path):
        m = SWITCH.search(line)
        if m:
            cpu, ts = int(m.group(1)), float(m.group(2))
            nxt = m.group(5)
            if nxt in pending:
                where, t0 = pending.pop(nxt)
                delay[where].append((ts - t0) * 1e6)
                outcome[(where, "preempted the running task" if m.group(4).startswith("R")
                         else "ran after the running task slept or on an idle CPU")] += 1
            cur[cpu] = nxt
            continue
        m = WAKE.search(line)
        if not m or m.group(5) not in CMDS:
            continue
        wakee = m.group(6)
        if m.group(4) == "sched_waking":
            waking_cpu[wakee] = (int(m.group(2)), float(m.group(3)))
            continue
        w = waking_cpu.pop(wakee, None)
        if w is None or wakee not in roles:
            continue
        target = int(m.group(7))
        where = "local" if w[0] == target else "remote"
        running = roles.get(cur.get(target), "idle or other")
        kinds[(where, roles[wakee] + " woken", "target CPU running " + running)] += 1
        pending[wakee] = (where, w[1])
    return kinds, outcome, delay


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    calls, sizes, roles = syscalls(argv[1])
    print(f"syscalls of {argv[1]}:")
    for k, v in sorted(calls.items()):
        print(f"  {k[0]:5} {k[1]:14} returned {k[2]:16} {v}")
    print("  most common (call, count asked, returned):",
          ", ".join(f"{k[0]} {k[1]}->{k[2]} x{v}" for k, v in sizes.most_common(4)))
    print(f"  roles: {sum(r == 'reader' for r in roles.values())} readers, "
          f"{sum(r == 'writer' for r in roles.values())} writers")
    sched = argv[2] if len(argv) == 3 else argv[1]
    kinds, outcome, delay = rhythm(sched, roles)
    print(f"wakeups in {sched}:")
    for k, v in sorted(kinds.items()):
        print(f"  {k[0]:6} {k[1]:14} {k[2]:30} {v}")
    for k, v in sorted(outcome.items()):
        print(f"  {k[0]:6} wakee {k[1]:52} {v}")
    for where, v in sorted(delay.items()):
        v.sort()
        print(f"  {where:6} waking to switch-in: n={len(v)} p50={pct(v, .5):.1f}us "
              f"p90={pct(v, .9):.1f}us p99={pct(v, .99):.1f}us")


if __name__ == "__main__":
    main(sys.argv)
