#!/usr/bin/env python3
"""Local wakeups and what the waker did next: preempted by them, or blocked first.

    scripts/analysis/local_preempt.py [--comm REGEX] [--exclude-comm REGEX] TRACE [TRACE...]

TRACE is ftrace text (plain, gzip or zstd): a real recording (`schedsim record`, the `trace`
file) or a replay's `schedsim run --trace-out` output, so the same figures can be set side by
side. A wakeup is a sched_waking paired with the wakee's next sched_wakeup. It is *local* when
the CPU that ran sched_waking (the waker's CPU) is the sched_wakeup's target_cpu, *remote*
otherwise. The CPU is taken from the sched_waking line on purpose: a replay prints a remote
wake's sched_wakeup on the target CPU (the enqueue, in IPI context), a recording prints it on
the waker's. Wakes from interrupt context (hardirq/softirq flag on the sched_waking line: timer
and IPI wakes) have no waking task and are counted apart.

For each run of a waker on its CPU (switch-in to switch-out) that issued at least one local
wake, the first such wake opens an *episode*, and the waker's next sched_switch away on that
CPU closes it: `prev_state` R (or R+) means the waker was preempted (under the recording
guest's preempt=none, at its return to user space after the wake), anything else (S, D, ...)
that it blocked or exited first. The waker's run time at that first wake, from its switch-in
on that CPU, is reported as p50 per outcome ("run at wake"); a run whose switch-in the trace
did not record (the switch away from idle is recorded on CPU 0 only on the 2-vCPU and 16-CPU
guests, docs/fidelity.md "Measurement caveats") has no run time and is left out of the p50
(counted in "no switch-in").

"N at wakeup" counts the local wakes whose sched_wakeup line carries a need-resched flag (the
second flag column: N, n, B, b, L, l, p): the kernel's own record that the wakeup preemption
check asked to reschedule. A replay does not record that decision (`--trace-out` writes a
fixed `dNh2.` on the IPI-side `sched_wakeup` of a remote wake and nothing elsewhere); a trace
with no need-resched flag on any line outside interrupt context shows "-" in that column.

Tasks: by default every task but the idle task and the recorder (`schedsim record`, comm
`schedsim`, replayed as background with `--background-comm '^schedsim$'`) and kernel threads
(kworker, ksoftirqd, migration, rcu*, cpuhp); `--comm REGEX` keeps only the wakes whose waker
and wakee both match. docs/model.md ("Local wakeup preemption") uses it.
Standard library only.
"""
import argparse
import collections
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ftrace_events as fe  # noqa: E402

DEFAULT_EXCLUDE = r"^(schedsim|swapper(/\d+)?|kworker/.*|ksoftirqd/.*|migration/.*|rcu.*|cpuhp/.*)$"
RESCHED = set("NnBbLlp")


class Stats:
    def __init__(self):
        self.local = 0
        self.remote = 0
        self.irq = 0
        self.episodes = 0
        self.outcome = collections.Counter()  # preempted / blocked
        self.run_at_wake = collections.defaultdict(list)  # outcome -> ns
        self.no_switch_in = 0
        self.open_at_end = 0
        self.local_resched = 0
        self.saw_resched_flag = False


def analyse(path, keep, drop):
    st = Stats()
    comm = {}
    curr = {}       # cpu -> pid
    since = {}      # cpu -> switch-in ts of curr, None when not recorded
    waking = {}     # wakee pid -> (waker pid, waker cpu, ts)
    episode = {}    # cpu -> (waker pid, run at wake or None); one per waker run
    opened = set()  # (cpu, switch-in ts) runs that already opened an episode

    def wanted(pid):
        c = comm.get(pid, "")
        return pid != 0 and keep.search(c) is not None and drop.search(c) is None

    events = 0
    for e in fe.read(path):
        events += 1
        if len(e.flags) >= 2 and e.flags[1] in RESCHED and not e.hardirq:
            st.saw_resched_flag = True
        if e.pid:
            comm[e.pid] = e.comm
        if e.name == "sched_switch":
            prev, nxt = int(e.f["prev_pid"]), int(e.f["next_pid"])
            comm[prev] = e.f.get("prev_comm", comm.get(prev, ""))
            comm[nxt] = e.f.get("next_comm", comm.get(nxt, ""))
            ep = episode.get(e.cpu)
            if ep is not None and ep[0] == prev:
                state = e.f.get("prev_state", "")
                kind = "preempted" if state.startswith("R") else "blocked"
                st.outcome[kind] += 1
                if ep[1] is None:
                    st.no_switch_in += 1
                else:
                    st.run_at_wake[kind].append(ep[1])
                del episode[e.cpu]
            curr[e.cpu] = nxt
            since[e.cpu] = e.ts
            continue
        # Every other event line names the task running on its CPU: repair a switch-in the
        # trace did not record (its start is then unknown).
        if e.pid and curr.get(e.cpu) != e.pid and not e.hardirq:
            curr[e.cpu] = e.pid
            since[e.cpu] = None
        if e.name == "sched_waking":
            wakee = int(e.f["pid"])
            comm.setdefault(wakee, e.f.get("comm", ""))
            if e.hardirq or not e.pid:
                waking[wakee] = None
                continue
            waking[wakee] = (e.pid, e.cpu, e.ts)
        elif e.name == "sched_wakeup":
            wakee = int(e.f["pid"])
            if wakee not in waking:
                continue
            w = waking.pop(wakee)
            if w is None:
                if wanted(wakee):
                    st.irq += 1
                continue
            waker, wcpu, ts = w
            if not (wanted(waker) and wanted(wakee)):
                continue
            if int(e.f["target_cpu"]) != wcpu:
                st.remote += 1
                continue
            st.local += 1
            if len(e.flags) >= 2 and e.flags[1] in RESCHED:
                st.local_resched += 1
            if curr.get(wcpu) != waker or wcpu in episode:
                continue
            start = since.get(wcpu)
            run_key = (wcpu, start)
            if start is not None and run_key in opened:
                continue
            if start is not None:
                opened.add(run_key)
            st.episodes += 1
            episode[wcpu] = (waker, None if start is None else ts - start)
    if events == 0:
        raise SystemExit(f"{path}: no ftrace event lines (expected `TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: ...`)")
    st.open_at_end = len(episode)
    return st


def p50(vals):
    return fe.fmt_us(fe.percentile(sorted(vals), 50))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("traces", nargs="+", metavar="TRACE")
    ap.add_argument("--comm", default=".", help="keep wakes whose waker and wakee comm match (regex)")
    ap.add_argument("--exclude-comm", default=DEFAULT_EXCLUDE, help="leave out these comms (regex)")
    a = ap.parse_args()
    keep, drop = re.compile(a.comm), re.compile(a.exclude_comm)
    # Every trace is read before anything is printed: a bad one leaves no partial table.
    results = [(path, analyse(path, keep, drop)) for path in a.traces]
    print("| trace | local wakes | N at wakeup | episodes | waker preempted next | waker blocked next "
          "| run at wake p50, preempted (us) | run at wake p50, blocked (us) | no switch-in | remote wakes "
          "| irq wakes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for path, st in results:
        n = st.outcome["preempted"] + st.outcome["blocked"]
        share = f" ({100 * st.outcome['preempted'] / n:.0f}%)" if n else ""
        resched = str(st.local_resched) if st.saw_resched_flag else "-"
        print(f"| {os.path.basename(path)} | {st.local} | {resched} | {st.episodes} | "
              f"{st.outcome['preempted']}{share} | {st.outcome['blocked']} | "
              f"{p50(st.run_at_wake['preempted'])} | {p50(st.run_at_wake['blocked'])} | {st.no_switch_in} | "
              f"{st.remote} | {st.irq} |")


if __name__ == "__main__":
    main()
