#!/usr/bin/env python3
"""Observed wake-to-run latency of a real ftrace trace, split by where the wakee was woken.

    scripts/analysis/wake_latency.py TRACE [--comm REGEX] [--markdown]

For every sched_waking of a selected task that was not running at that moment, finds:
  * the waker's CPU (the CPU the sched_waking line was emitted on) and the target CPU (the
    sched_wakeup's target_cpu);
  * whether the target CPU was idle at the waking, and for how long it had been idle (since
    its switch to the idle task);
  * enqueue delay: waking -> sched_wakeup (when the wakee was put on the target's queue; for a
    wake queued to another CPU's wake list this is emitted on the target, inside the IPI);
  * wake-to-run: waking -> the wakee's switch-in on the target.
On the 6.18 KVM guests the switch *from the idle task* is missing from the trace on every CPU
but 0. When it is missing, the switch-in lies between the last event on that CPU before the
wakee's first event there (lower bound, what schedsim's importer uses) and that first event
(upper bound); both are reported. Categories:
  same-cpu     the target is the waker's CPU, a task runs there (the waker)
  local irq, idle <X   the target is the waker's CPU and it was idle: an interrupt (timer)
               woke the task on its own idle CPU; X = how long it had been idle
  idle <X      another CPU that had been idle for less than X at the waking
  busy         another CPU that was running a task at the waking
With --preempting, a second report: the wakes whose wakee switched in by preempting the task
that ran on the target at the waking (sched_switch prev_pid = that task, prev_state R/R+), local
and remote, with the wakeup's IPI where the trace has ipi events (`--extra-events ipi`:
ipi_send_cpu from the waker's CPU to the target after the waking, by its callsite:
wakeup_preempt = resched_curr() of a busy remote CPU, ttwu_queue_wakelist = the enqueue itself
sent to the target) and, where it has syscall events, whether the preempted task was inside a
syscall at the waking (under preempt=none its preemption waits for the syscall's end). Where the
trace has x86's irq_vectors:reschedule_entry (`--extra-events irq`), the remote rows also split
the delay at the target's first reschedule_entry after the IPI: IPI sent -> entry (delivery) and
entry -> switch-in (what the target does after taking the interrupt), over the wakes whose entry
came before the switch-in (`schedsim trace info` prints the same split).
Also counted: wakings of a task that was still on a CPU (the waker saw it in a sleeping state
before it reached __schedule(): "waking before sleep"), including those whose switch-in the
trace does not show, and wakings followed by another waking with no sched_wakeup between.
"""
import argparse
import re
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ftrace_events as fe  # noqa: E402

IDLE_BUCKETS = [(20_000, "idle <20us"), (200_000, "idle 20-200us"), (2_000_000, "idle 0.2-2ms"),
                (None, "idle >=2ms")]
SLEEP_STATES = set("SDIKWP")


def bucket_of(idle_ns):
    for limit, name in IDLE_BUCKETS:
        if limit is None or idle_ns < limit:
            return name
    raise AssertionError


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--comm", default=".", help="select tasks whose comm matches this regex")
    ap.add_argument("--markdown", action="store_true", help="print markdown tables")
    ap.add_argument("--preempting", action="store_true",
                    help="also report the wakes whose wakee preempted the target's running task")
    a = ap.parse_args()
    sel = re.compile(a.comm)

    cur = {}          # cpu -> pid running (from event headers and sched_switch)
    idle_since = {}   # cpu -> ts of the switch to idle, while idle
    last_ev = {}      # cpu -> ts of the previous event on that cpu
    running_on = {}   # pid -> cpu while on a CPU
    pending = {}      # pid -> wake record
    selected = fe.select_pids(a.trace, sel)
    recs = []
    nr_wake_running = 0
    nr_wake_running_inferred = 0
    nr_no_wakeup = 0
    nr_wakelist = 0
    in_sc = set()     # pids inside a syscall (syscall events only)
    last_waking = {}  # cpu -> pid of the latest sched_waking emitted there (for its IPI)
    resched_wait = {}  # target cpu -> wake record whose IPI awaits its reschedule_entry
    nr_resched_entry = 0

    def finish(pid, t_lo, t_hi, exact):
        r = pending.pop(pid)
        if "t_wakeup" not in r:
            return
        r["run_lo"] = t_lo - r["t"]
        r["run_hi"] = t_hi - r["t"]
        r["exact"] = exact
        recs.append(r)

    for e in fe.read(a.trace, syscalls=a.preempting):
        cpu = e.cpu
        if e.name == "sys_enter":
            in_sc.add(e.pid)
            continue
        if e.name == "sys_exit":
            in_sc.discard(e.pid)
            continue
        # the event header names the task on this CPU: an idle->task switch may be missing
        hdr = e.pid
        if hdr != 0 and cur.get(cpu) != hdr:
            prev = cur.get(cpu)
            if prev and running_on.get(prev) == cpu:
                running_on.pop(prev, None)
            cur[cpu] = hdr
            idle_since.pop(cpu, None)
            running_on[hdr] = cpu
            if hdr in pending and "t_wakeup" in pending[hdr]:
                finish(hdr, last_ev.get(cpu, e.ts), e.ts, False)
        if e.name == "sched_switch":
            ppid, npid = int(e.f["prev_pid"]), int(e.f["next_pid"])
            running_on.pop(ppid, None)
            cur[cpu] = npid
            if npid == 0:
                idle_since[cpu] = e.ts
            else:
                idle_since.pop(cpu, None)
                running_on[npid] = cpu
                if npid in pending and "t_wakeup" in pending[npid]:
                    pending[npid]["prev"] = (ppid, e.f.get("prev_state", ""))
                    finish(npid, e.ts, e.ts, True)
        elif e.name == "sched_waking":
            pid = int(e.f["pid"])
            if pid not in selected:
                pass
            elif pid in running_on:
                nr_wake_running += 1
            else:
                if pid in pending and "t_wakeup" in pending[pid]:
                    # woken, switch-in not recorded (missing idle switch), woken again before
                    # its first own event: it was still on that CPU
                    nr_wake_running_inferred += 1
                elif pid in pending:
                    nr_no_wakeup += 1
                pending[pid] = {"t": e.ts, "waker_cpu": cpu, "waker_idle": hdr == 0,
                                "idle": dict((c, e.ts - s) for c, s in idle_since.items()),
                                "curr": dict(cur), "in_sc": set(in_sc)}
                last_waking[cpu] = pid
        elif e.name == "ipi_send_cpu":
            r = pending.get(last_waking.get(cpu))
            if r is not None and "t_ipi" not in r and r["waker_cpu"] == cpu:
                r["t_ipi"] = e.ts
                r["ipi_cpu"] = int(e.f.get("cpu", -1))
                r["ipi_site"] = e.f.get("callsite", "?").split("+")[0]
                resched_wait[r["ipi_cpu"]] = r
        elif e.name == "reschedule_entry":
            nr_resched_entry += 1
            r = resched_wait.pop(cpu, None)
            if r is not None and "t_entry" not in r:
                r["t_entry"] = e.ts
        elif e.name == "sched_migrate_task":
            r = pending.get(int(e.f["pid"]))
            if r is not None:
                r["migrated"] = True
        elif e.name == "sched_wakeup":
            pid = int(e.f["pid"])
            r = pending.get(pid)
            if r is not None and "t_wakeup" not in r:
                r["t_wakeup"] = e.ts
                r["target"] = int(e.f.get("target_cpu", cpu))
                r["on_target"] = cpu == r["target"] and cpu != r["waker_cpu"]
                if r["on_target"]:
                    nr_wakelist += 1
        last_ev[cpu] = e.ts

    groups = {}
    for r in recs:
        if r["target"] == r["waker_cpu"] and r["waker_idle"] and r["target"] in r["idle"]:
            g = "local irq, " + bucket_of(r["idle"][r["target"]])
        elif r["target"] == r["waker_cpu"]:
            g = "same-cpu"
        elif r["target"] in r["idle"]:
            g = bucket_of(r["idle"][r["target"]])
        else:
            g = "busy other cpu"
        groups.setdefault(g, []).append(r)

    order = (["same-cpu"] + ["local irq, " + b for _, b in IDLE_BUCKETS]
             + [b for _, b in IDLE_BUCKETS] + ["busy other cpu"])
    total = len(recs)
    print(f"**{os.path.basename(a.trace)}** (tasks matching /{a.comm}/)")
    print()
    print(f"wakeups measured {total}; wakings of a task still on a CPU {nr_wake_running} "
          f"(+{nr_wake_running_inferred} whose switch-in was not recorded); wakings "
          f"superseded before any sched_wakeup {nr_no_wakeup}; sched_wakeup emitted on the "
          f"target (wake list / IPI) {nr_wakelist}")
    hdr = ("| target | n | share | enqueue p50 | enqueue p90 | run p50 | run p90 | run p99 | "
           "run p50 (upper) | run p90 (upper) | inferred switch-in |")
    print()
    print("latencies in us; enqueue = waking -> sched_wakeup; run = waking -> switch-in "
          "(lower bound where the switch from idle is missing; upper bound in its own columns)")
    print()
    print(hdr)
    print("|" + "---|" * 11)
    for g in order + ["all"]:
        rs = recs if g == "all" else groups.get(g, [])
        if not rs:
            continue
        enq = sorted(r["t_wakeup"] - r["t"] for r in rs)
        lo = sorted(r["run_lo"] for r in rs)
        hi = sorted(r["run_hi"] for r in rs)
        inf = sum(1 for r in rs if not r["exact"])
        p = fe.percentile
        print(f"| {g} | {len(rs)} | {len(rs) / total * 100:.1f}% | {fe.fmt_us(p(enq, 50))} | "
              f"{fe.fmt_us(p(enq, 90))} | {fe.fmt_us(p(lo, 50))} | {fe.fmt_us(p(lo, 90))} | "
              f"{fe.fmt_us(p(lo, 99))} | {fe.fmt_us(p(hi, 50))} | {fe.fmt_us(p(hi, 90))} | "
              f"{inf / len(rs) * 100:.0f}% |")
    # wakes to a busy other CPU that stayed on the wakee's previous CPU (no sched_migrate_task):
    # a still-queued wakee (DELAY_DEQUEUE, ttwu_runnable()) is always woken there; a blocked one
    # only when select_task_rq() returned its previous CPU
    busy = groups.get("busy other cpu", [])
    in_place = [r for r in busy if not r.get("migrated")]
    if busy:
        by_waker = sum(1 for r in in_place if not r["on_target"])
        print()
        print(f"Busy other cpu: {len(in_place)} of {len(busy)} stayed on the wakee's previous CPU "
              f"(no migration), {by_waker} of them enqueued by the waker itself (sched_wakeup "
              f"emitted on the waker's CPU); {len(busy) - len(in_place)} migrated")
        if in_place:
            nidle = sorted(len(r["idle"]) for r in in_place)
            with_idle = sum(1 for n in nidle if n > 0)
            print()
            print(f"Of those, {with_idle} ({with_idle / len(in_place) * 100:.0f}%) were woken while "
                  f"at least one CPU was idle (median idle CPUs {nidle[len(nidle) // 2]}): "
                  f"the wakee was still queued (DELAY_DEQUEUE), or select_task_rq() did not "
                  f"pick an idle CPU (SIS_UTIL scan limit, wake_affine)")
    fine_table(recs, False)
    fine_table(recs, True)
    if a.preempting:
        preempt_table(recs, any(r["in_sc"] for r in recs), nr_resched_entry > 0)


def preempt_table(recs, has_syscalls, has_entry=False):
    """Wakes whose wakee switched in by preempting the task that ran on the target at the waking."""
    rows = {}
    for r in recs:
        prev = r.get("prev")
        curr = r["curr"].get(r["target"])
        if prev is None or not curr or prev[0] != curr or not prev[1].startswith("R"):
            continue
        local = r["target"] == r["waker_cpu"]
        ipi = r.get("ipi_site") if r.get("ipi_cpu") == r["target"] else None
        key = "local" if local else "remote, IPI " + (ipi or "not recorded")
        if has_syscalls:
            key += ", curr in a syscall" if curr in r["in_sc"] else ", curr in user space"
        rows.setdefault(key, []).append(r)
        if not local:
            rows.setdefault("remote, all", []).append(r)
    print()
    print("wakes whose wakee preempted the target's running task (exact switch-in, prev_state R/R+): "
          "waking -> IPI sent, -> enqueue (sched_wakeup), -> switch-in, us")
    print()
    split = " IPI -> entry: n, p50 | entry -> switch-in p50 |" if has_entry else ""
    print("| wake | n | IPI p50 | enqueue p50 | switch-in p10 | p50 | p90 | p99 |" + split)
    print("|---|---|---|---|---|---|---|---|" + ("---|---|" if has_entry else ""))
    p = fe.percentile
    for key in sorted(rows):
        rs = rows[key]
        ipi = sorted(r["t_ipi"] - r["t"] for r in rs if "t_ipi" in r and r.get("ipi_cpu") == r["target"])
        enq = sorted(r["t_wakeup"] - r["t"] for r in rs)
        run = sorted(r["run_lo"] for r in rs)
        line = (f"| {key} | {len(rs)} | {fe.fmt_us(p(ipi, 50))} | {fe.fmt_us(p(enq, 50))} | "
                f"{fe.fmt_us(p(run, 10))} | {fe.fmt_us(p(run, 50))} | {fe.fmt_us(p(run, 90))} | "
                f"{fe.fmt_us(p(run, 99))} |")
        if has_entry:
            # the target's reschedule_entry between the IPI and the switch-in
            ent = [r for r in rs if "t_ipi" in r and r.get("ipi_cpu") == r["target"] and "t_entry" in r
                   and r["t_entry"] <= r["t"] + r["run_lo"]]
            dl = sorted(r["t_entry"] - r["t_ipi"] for r in ent)
            af = sorted(r["t"] + r["run_lo"] - r["t_entry"] for r in ent)
            line += f" {len(ent)}, {fe.fmt_us(p(dl, 50))} | {fe.fmt_us(p(af, 50))} |"
        print(line)


FINE = [10, 25, 50, 100, 150, 200, 250, 400, 1000, 4000, None]


def fine_table(recs, local):
    """Enqueue delay of wakes to an idle target, by how long the target had been idle (us)."""
    rows = {}
    for r in recs:
        if r["target"] not in r["idle"]:
            continue
        is_local = r["target"] == r["waker_cpu"]
        if is_local != local:
            continue
        idle_us = r["idle"][r["target"]] / 1000
        lo = 0
        for hi in FINE:
            if hi is None or idle_us < hi:
                rows.setdefault((lo, hi), []).append(r)
                break
            lo = hi
    if not rows:
        return
    print()
    what = "local interrupt (timer) on the idle target" if local else "woken from another CPU"
    print(f"idle target, {what}: enqueue and run (lower bound) by idle duration, us")
    print()
    print("| idle for | n | enqueue p50 | enqueue p90 | run p50 | run p90 |")
    print("|---|---|---|---|---|---|")
    p = fe.percentile
    for (lo, hi), rs in sorted(rows.items()):
        enq = sorted(r["t_wakeup"] - r["t"] for r in rs)
        run = sorted(r["run_lo"] for r in rs)
        rng = f"{lo}-{hi}" if hi else f">={lo}"
        print(f"| {rng} | {len(rs)} | {fe.fmt_us(p(enq, 50))} | {fe.fmt_us(p(enq, 90))} | "
              f"{fe.fmt_us(p(run, 50))} | {fe.fmt_us(p(run, 90))} |")


if __name__ == "__main__":
    main()
