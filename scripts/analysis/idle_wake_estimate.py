#!/usr/bin/env python3
"""First-order estimate of an idle-wake cost model on a simulated schedule.

    scripts/analysis/idle_wake_estimate.py SIM_TRACE [--comm REGEX]
        [--fast US] [--slow US] [--poll-min US] [--poll-max US] [--current US]

SIM_TRACE is the ftrace text a replay writes with `schedsim run ... --trace-out FILE`. For each
wakeup of a task on another CPU that was idle, the simulated wake-to-run latency contains the
model's constant wake delay (--current, default 2.6 us = 600 ns IPI + 2 us idle exit). This
script replaces that constant by the proposed `vm-halt-poll` delay of docs/model.md, which
depends on how long the target had been idle (d):
    d < poll-min                 -> fast
    poll-min <= d < poll-max     -> linear from fast to slow
    d >= poll-max                -> slow
and prints the wakeup-latency percentiles before and after. Every other wakeup keeps its
latency. It does NOT re-run the schedule: later events would shift too (a slower wake delays
what the wakee does next), so this is only the first-order effect, meant to say whether the
mechanism moves p50/p90 in the right direction and by roughly how much before it is built.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ftrace_events as fe  # noqa: E402


def model(d_us, a):
    if d_us < a.poll_min:
        return a.fast
    if d_us >= a.poll_max:
        return a.slow
    f = (d_us - a.poll_min) / (a.poll_max - a.poll_min)
    return a.fast + f * (a.slow - a.fast)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--comm", default=".")
    ap.add_argument("--fast", type=float, default=4.0, help="us, wake inside the poll window")
    ap.add_argument("--slow", type=float, default=15.0, help="us, wake after the poll window")
    ap.add_argument("--poll-min", type=float, default=50.0, help="us, start of the ramp")
    ap.add_argument("--poll-max", type=float, default=200.0, help="us, end of the ramp")
    ap.add_argument("--current", type=float, default=2.6, help="us, the model's constant today")
    a = ap.parse_args()
    sel = fe.select_pids(a.trace, re.compile(a.comm))

    idle_since, cur, pending = {}, {}, {}
    before, after = [], []
    for e in fe.read(a.trace):
        if e.name == "sched_switch":
            npid = int(e.f["next_pid"])
            cur[e.cpu] = npid
            if npid == 0:
                idle_since[e.cpu] = e.ts
            else:
                idle_since.pop(e.cpu, None)
                r = pending.pop(npid, None)
                if r is not None and "target" in r:
                    lat = (e.ts - r["t"]) / 1000
                    before.append(lat)
                    if r["idle_us"] is not None:
                        lat += model(r["idle_us"], a) - a.current
                    after.append(lat)
        elif e.name == "sched_waking":
            pid = int(e.f["pid"])
            if pid in sel:
                pending[pid] = {"t": e.ts, "waker_cpu": e.cpu,
                                "idle": {c: e.ts - s for c, s in idle_since.items()}}
        elif e.name == "sched_wakeup":
            r = pending.get(int(e.f["pid"]))
            if r is not None and "target" not in r:
                r["target"] = int(e.f.get("target_cpu", e.cpu))
                remote_idle = r["target"] != r["waker_cpu"] and r["target"] in r["idle"]
                r["idle_us"] = r["idle"][r["target"]] / 1000 if remote_idle else None
    if not before:
        raise SystemExit(f"{a.trace}: no wakeups of /{a.comm}/ with a recorded switch-in")
    before.sort()
    after.sort()
    print(f"{os.path.basename(a.trace)}: {len(before)} wakeups; model fast {a.fast} us, slow "
          f"{a.slow} us, ramp {a.poll_min}-{a.poll_max} us; constant today {a.current} us")
    print()
    print("| wakeup latency | p50 | p90 | p99 |")
    print("|---|---|---|---|")
    for name, v in (("simulated today", before), ("with the idle-wake model (first order)", after)):
        print(f"| {name} | " + " | ".join(f"{fe.percentile(v, q):.1f} us" for q in (50, 90, 99))
              + " |")


if __name__ == "__main__":
    main()
