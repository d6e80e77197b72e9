#!/usr/bin/python3
"""A SimPy 3 model of `messaging --pipe --thread` (hackbench) on an N-CPU machine: the peer that
bench/peers/README.md compares schedsim's event rate with.

Per group, 20 senders and 20 receivers; each receiver owns one pipe that every sender of its group
writes into (capacity 640 messages of 100 bytes = 16 pages). A sender writes nr_loops rounds of
one message to each receiver (write cost 598 ns, blocking when the pipe is full); a receiver reads
20 x nr_loops messages (read cost 550 ns, blocking when the pipe is empty). The costs are
schedsim's messaging defaults for --pipe --thread (workload/src/gen_messaging.cpp).

CPUs are one simpy.Resource of N slots served FIFO without preemption: a task takes a CPU when it
becomes runnable, keeps it across consecutive actions, and gives it back only when it blocks
(the same rule as schedsim's FIFO queue module; no placement, no balancing, no wakeup cost). So
the model does strictly less than schedsim per message, which favours SimPy in the comparison.

Prints one line of key=value pairs: simpy version, messages, SimPy events processed (env.step()
calls), simulated seconds, CPU seconds and wall seconds of the run, events/s and messages/s by
CPU time.
"""
import argparse
import resource
import time

import simpy

WRITE_NS = 598
READ_NS = 550
FDS = 20
PIPE_CAPACITY = 16 * (4096 // 100)


def model(env, cpus, groups, loops):
    def receiver(pipe, count):
        cpu = cpus.request()
        yield cpu
        for _ in range(count):
            if pipe.level == 0:  # read() blocks: give the CPU back, wait, queue again
                cpus.release(cpu)
                yield pipe.get(1)
                cpu = cpus.request()
                yield cpu
            else:
                yield pipe.get(1)
            yield env.timeout(READ_NS)
        cpus.release(cpu)

    def sender(pipes):
        cpu = cpus.request()
        yield cpu
        for _ in range(loops):
            for pipe in pipes:
                yield env.timeout(WRITE_NS)
                if pipe.level >= pipe.capacity:  # write() blocks on a full pipe
                    cpus.release(cpu)
                    yield pipe.put(1)
                    cpu = cpus.request()
                    yield cpu
                else:
                    yield pipe.put(1)
        cpus.release(cpu)

    for _ in range(groups):
        pipes = [simpy.Container(env, capacity=PIPE_CAPACITY, init=0) for _ in range(FDS)]
        for pipe in pipes:
            env.process(receiver(pipe, FDS * loops))
        for _ in range(FDS):
            env.process(sender(pipes))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--group", type=int, default=4)
    ap.add_argument("--nr_loops", type=int, default=100)
    ap.add_argument("--cpus", type=int, default=40)
    a = ap.parse_args()
    env = simpy.Environment()
    cpus = simpy.Resource(env, capacity=a.cpus)
    model(env, cpus, a.group, a.nr_loops)
    c0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    w0 = time.perf_counter()
    events = 0
    step = env.step
    try:
        while True:
            step()
            events += 1
    except simpy.core.EmptySchedule:
        pass
    wall = time.perf_counter() - w0
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - c0
    messages = a.group * FDS * FDS * a.nr_loops
    print(f"simpy={simpy.__version__} messages={messages} events={events} sim_s={env.now / 1e9:.6f} "
          f"cpu_s={cpu:.3f} wall_s={wall:.3f} events_per_cpu_s={events / cpu:.0f} "
          f"messages_per_cpu_s={messages / cpu:.0f}")


if __name__ == "__main__":
    main()
