#!/usr/bin/env python3
# Writer on CPU 0 sleeps a varying interval, then writes one byte to a reader pinned on CPU 1:
# each wake is a remote wake of a CPU that has been idle for about that interval.
import os, sys, time
intervals_us = [20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000]
reps = int(sys.argv[1]) if len(sys.argv) > 1 else 20
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.sched_setaffinity(0, {1})
    os.close(w)
    while os.read(r, 1):
        pass
    os._exit(0)
os.sched_setaffinity(0, {0})
os.close(r)
time.sleep(0.05)
for _ in range(reps):
    for iv in intervals_us:
        time.sleep(iv / 1e6)
        os.write(w, b"x")
os.close(w)
os.waitpid(pid, 0)
