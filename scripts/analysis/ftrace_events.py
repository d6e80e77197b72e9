"""Minimal reader of ftrace text (the `trace` file format) for the analysis scripts.

Reads plain, gzip or zstd (through `zstdcat`) ftrace text as written by the kernel's `trace` file or `schedsim record`:
    TASK-PID [CPU] FLAGS TIMESTAMP: EVENT: k=v k=v ...
Only what the analysis scripts need: the current task's pid on that CPU (every event line
names the task that was running on the CPU when the event was emitted), the CPU, the flag
columns, the timestamp in ns, the event name and its key=value payload. Lines that are not
events (headers, markers) are skipped. Not a replacement for schedsim's importer, which
handles every format, repairs and lost events; these scripts refuse traces with LOST markers.
"""
import gzip
import re
import subprocess

_LINE = re.compile(r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+"
                   r"(?:(?P<flags>\S{4,7})\s+)?(?P<ts>\d+\.\d+):\s+(?P<event>\w+):\s*(?P<rest>.*)$")
_KV = re.compile(r"(\w+)=(\S*)")
# syscall events print as "sys_read(fd: 3, ...)" (entry) and "sys_read -> 0x64" (exit)
_SC = re.compile(r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(?P<cpu>\d+)\]\s+"
                 r"(?:(?P<flags>\S{4,7})\s+)?(?P<ts>\d+\.\d+):\s+(?P<event>sys_\w+)(?P<rest>\(| ->)")


class Event:
    __slots__ = ("pid", "comm", "cpu", "flags", "ts", "name", "f")

    def __init__(self, m):
        self.comm = m.group("comm").strip()
        self.pid = int(m.group("pid"))
        self.cpu = int(m.group("cpu"))
        self.flags = m.group("flags") or ""
        sec, frac = m.group("ts").split(".")
        self.ts = int(sec) * 1_000_000_000 + int(frac.ljust(9, "0")[:9])
        self.name = m.group("event")
        rest = m.group("rest")
        if rest in ("(", " ->"):
            # a syscall event: name "sys_enter" or "sys_exit", the call's name in f["call"]
            self.f = {"call": self.name[4:]}
            self.name = "sys_enter" if rest == "(" else "sys_exit"
            return
        if self.name == "sched_switch" and "==>" in rest:
            prev, nxt = rest.split("==>", 1)
            self.f = {k: v for k, v in _KV.findall(prev)}
            self.f.update({k: v for k, v in _KV.findall(nxt)})
        else:
            self.f = {k: v for k, v in _KV.findall(rest)}

    @property
    def hardirq(self):
        # the third flag column is h/H/s/z/Z/. (hardirq, softirq, NMI, ...)
        return len(self.flags) >= 3 and self.flags[2] in "hHsSzZ"


def read(path, syscalls=False):
    """Events of the trace; with syscalls=True also the syscall events, as "sys_enter" and
    "sys_exit" with the call's name in f["call"]."""
    proc = None
    try:
        if path.endswith(".zst"):
            open(path, "rb").close()  # a missing file is an error here, not an empty zstdcat output
            try:
                proc = subprocess.Popen(["zstdcat", path], stdout=subprocess.PIPE, text=True, errors="replace")
            except FileNotFoundError:  # the trace was opened above: what is missing is zstdcat
                raise SystemExit(f"{path}: cannot read: zstdcat is not installed (package zstd); "
                                 "or decompress the trace first") from None
            fh = proc.stdout
        else:
            fh = (gzip.open if path.endswith(".gz") else open)(path, "rt", errors="replace")
    except OSError as err:
        raise SystemExit(f"{path}: cannot read: {err.strerror or err}")
    with fh:
        for line in fh:
            if line.startswith("#"):
                if "LOST" in line or "buffer started" in line:
                    raise SystemExit(f"{path}: lost events; these scripts need a complete trace")
                continue
            if "LOST" in line and "EVENTS" in line:
                raise SystemExit(f"{path}: lost events; these scripts need a complete trace")
            m = _LINE.match(line)
            if m:
                yield Event(m)
            elif syscalls:
                m = _SC.match(line)
                if m:
                    yield Event(m)
    if proc is not None and proc.wait() != 0:
        raise SystemExit(f"{path}: zstdcat failed (exit {proc.returncode}); the trace was not read to its end")


def percentile(sorted_vals, q):
    """Nearest-rank percentile of an ascending list (q in 0..100); None when empty."""
    if not sorted_vals:
        return None
    k = max(0, min(len(sorted_vals) - 1, int(-(-q * len(sorted_vals) // 100)) - 1))
    return sorted_vals[k]


def fmt_us(ns):
    return "-" if ns is None else f"{ns / 1000:.1f}"


def select_pids(path, regex):
    """Pids that had a comm matching the compiled regex anywhere in the trace (pid 0 never)."""
    pids = set()
    for e in read(path):
        if e.pid and regex.search(e.comm):
            pids.add(e.pid)
        f = e.f
        for c, p in (("comm", "pid"), ("prev_comm", "prev_pid"), ("next_comm", "next_pid"),
                     ("child_comm", "child_pid")):
            if c in f and p in f and regex.search(f[c]) and f[p] != "0":
                pids.add(int(f[p]))
    return pids
