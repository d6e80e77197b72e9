#!/usr/bin/env python3
"""Where a wakeup's preemption request takes effect in a recording with syscall events.

    scripts/analysis/preempt_points.py TRACE [TRACE...]

TRACE is a recording made with `schedsim record --extra-events syscalls` (ftrace text, plain,
gzip or zstd). For each wakeup of a task of the benchmark commands (sched_waking on the waker's
CPU, then sched_wakeup: the enqueue) whose target CPU is running another benchmark task (curr),
it reports:

* local (target = the waker's CPU) or remote;
* whether curr was inside a read or write syscall (between its sys_enter_* and sys_exit_*)
  at the enqueue;
* how curr left the CPU next: preempted (sched_switch prev_state R) or asleep (S/D), and
  whether that switch came inside the same syscall (curr blocked, or was preempted, before
  its sys_exit) or after curr had left it;
* whether the wakee was the task switched in.

It also reports the share of the benchmark tasks' on-CPU time spent inside read/write
syscalls. Under preempt=none a preemption requested while curr is in the kernel takes effect
only at its return to user space; if curr blocks first, the switch is a sleep (prev_state S)
and the wakee merely waited. docs/model.md ("Where a preemption takes effect") uses it.
Standard library only.
"""
import collections
import re
import sys

from channel_rhythm import CMDS, lines  # same directory: the benchmark commands, trace reader

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+(?:\(.*?\)\s+)?\[(\d+)\]\s+\S+\s+([\d.]+): (.*)$")
SC = re.compile(r"^sys_(read|write)(\(| ->)")
SWITCH = re.compile(r"sched_switch: prev_comm=(.*?) prev_pid=(\d+) .*prev_state=(\S+) ==> next_comm=(.*?) next_pid=(\d+)")
WAKE = re.compile(r"(sched_waking|sched_wakeup): comm=(\S+) .*?pid=(\d+) .*target_cpu=(\d+)")


def analyse(path):
    in_sc = {}       # pid -> syscall sequence number while inside read/write, else absent
    sc_seq = collections.Counter()
    bench = set()    # pids of benchmark commands seen running
    cur = {}         # cpu -> pid
    since = {}       # cpu -> (ts, inside) start of the current accounting segment
    t_in = t_all = 0.0
    waking_cpu = {}
    pending = {}     # cpu -> list of [wakee, where, inside, sc_seq of curr, curr]
    out = collections.Counter()

    def account(cpu, ts):
        nonlocal t_in, t_all
        s = since.get(cpu)
        p = cur.get(cpu)
        if s is not None and p in bench:
            t_all += ts - s[0]
            if s[1]:
                t_in += ts - s[0]
        since[cpu] = (ts, cur.get(cpu) in in_sc)

    for line in lines(path):
        m = LINE.match(line)
        if not m:
            continue
        comm, pid, cpu, ts, rest = m.group(1).strip(), m.group(2), int(m.group(3)), float(m.group(4)), m.group(5)
        s = SC.match(rest)
        if s:
            account(cpu, ts)
            if s.group(2) == "(":
                sc_seq[pid] += 1
                in_sc[pid] = sc_seq[pid]
            else:
                in_sc.pop(pid, None)
            since[cpu] = (ts, pid in in_sc)
            continue
        s = SWITCH.search(rest)
        if s:
            account(cpu, ts)
            prev, state, nxt = s.group(2), s.group(3), s.group(5)
            if s.group(1) in CMDS:
                bench.add(prev)
            if s.group(4) in CMDS:
                bench.add(nxt)
            for wk, where, inside, seq, curr in pending.pop(cpu, []):
                if curr != prev:
                    continue
                how = "preempted" if state.startswith("R") else "slept"
                when = ("in the same syscall" if inside and in_sc.get(prev) == seq
                        else "after leaving it" if inside else "-")
                out[(where, "in syscall" if inside else "in user", how, when,
                     "wakee next" if nxt == wk else "other next")] += 1
            cur[cpu] = nxt
            since[cpu] = (ts, nxt in in_sc)
            continue
        s = WAKE.search(rest)
        if not s or s.group(2) not in CMDS:
            continue
        wakee, target = s.group(3), int(s.group(4))
        if s.group(1) == "sched_waking":
            waking_cpu[wakee] = cpu
            continue
        wc = waking_cpu.pop(wakee, None)
        curr = cur.get(target)
        if wc is None or curr is None or curr not in bench or curr == wakee:
            continue
        where = "local" if wc == target else "remote"
        inside = curr in in_sc
        pending.setdefault(target, []).append((wakee, where, inside, in_sc.get(curr), curr))
    return out, t_in, t_all


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    for path in argv[1:]:
        out, t_in, t_all = analyse(path)
        print(f"{path}: benchmark on-CPU time inside read/write: {t_in * 1e3:.2f} of {t_all * 1e3:.2f} ms "
              f"({100 * t_in / t_all if t_all else 0:.0f}%)")
        for where in ("local", "remote"):
            tot = sum(v for k, v in out.items() if k[0] == where)
            pre = sum(v for k, v in out.items() if k[0] == where and k[2] == "preempted")
            ins = sum(v for k, v in out.items() if k[0] == where and k[1] == "in syscall")
            blk = sum(v for k, v in out.items() if k[0] == where and k[1] == "in syscall" and k[2] == "slept"
                      and k[3] == "in the same syscall")
            print(f"  {where}: wakes onto a running benchmark task {tot}, curr preempted {pre} "
                  f"({100 * pre / tot if tot else 0:.0f}%), curr inside read/write at the enqueue {ins} "
                  f"({100 * ins / tot if tot else 0:.0f}%), of those curr slept in that syscall {blk}")
            for k, v in sorted(out.items()):
                if k[0] == where:
                    print(f"    {k[1]:10} {k[2]:9} {k[3]:19} {k[4]:10} {v}")


if __name__ == "__main__":
    main(sys.argv)
