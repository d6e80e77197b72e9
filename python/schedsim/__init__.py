"""schedsim from Python: runs, sweeps and comparisons as DataFrames.

The simulator itself is the C++ driver library (the extension ``schedsim._schedsim``); this
package turns what it returns into pandas DataFrames. ``run()`` takes every option of
``schedsim run`` as a keyword (``--workload-gen`` is ``workload_gen``; ``schedsim.options()``
lists them), with the same defaults, checks and error texts. docs/python.md is the reference.

    >>> import schedsim
    >>> r = schedsim.run(workload_gen='messaging -g 2 -l 20', topology='smp2', kernel='6.12')
    >>> r.summary[['makespan', 'wakeup.p99']]
"""
import atexit
import gzip
import json
import os
import queue
import threading
import warnings
import weakref

from . import _schedsim

__all__ = [
    "run", "sweep", "compare", "load", "topology", "topologies", "policies", "kernels", "options",
    "import_trace", "sched", "Results", "Comparison", "Sweep", "Topology",
    "Error", "InputError", "UsageError", "ResourceError", "IncompleteRunError", "SchedsimWarning",
]
__version__ = _schedsim.version


class Error(Exception):
    """Base class of schedsim's errors."""


class InputError(Error, ValueError):
    """Bad input (a file, a JSON member, an option value), as ``schedsim`` exits 1 for.

    ``str(e)`` is the CLI's message ("path:line:col: error: message" with the offending line);
    ``file``, ``line``, ``column`` (0 = unknown) and ``message`` are its parts.
    """

    file = ""
    line = 0
    column = 0
    message = ""


class UsageError(Error, ValueError):
    """A value ``schedsim run`` refuses as a usage error (exit 2): the CLI's text."""


class ResourceError(Error, MemoryError):
    """The memory budget (``max_memory``, SCHEDSIM_MAX_MEMORY) was exceeded."""


class IncompleteRunError(Error):
    """The run did not finish (``"complete": false``): ``results`` holds what it measured and
    ``reasons`` why. ``run(..., allow_incomplete=True)`` returns such results instead."""

    def __init__(self, message, results):
        super().__init__(message)
        self.results = results
        self.reasons = list(results.incomplete)


class SchedsimWarning(UserWarning):
    """A caveat a run printed as "warning: ..." on stderr (also in ``Results.notes``)."""


_schedsim.set_error_classes(InputError, UsageError, ResourceError)


def _pandas():
    try:
        import pandas
    except ImportError as e:  # depends on the interpreter
        import sys
        raise ImportError(
            f"schedsim's DataFrames need pandas, which this interpreter ({sys.executable}) cannot import; Debian's "
            "python3-pandas (scripts/install-deps.sh) is for /usr/bin/python3: run with it, or install pandas "
            "for this one") from e
    return pandas


def _flat_record(rec):
    """One record (a run's line of ``run --format jsonl``, or a sweep line) as a flat row: a
    sweep's point and its parameters as the grid gave them first, then rep, seed, complete, every
    metric, and the run's own parameters (workload, topology, module.*, feature.*, ...) last."""
    row = {}
    inner = rec.get("record", rec)
    if "record" in rec:
        row["point"] = rec.get("point")
        row.update(rec.get("params", {}))
    row["rep"] = inner.get("rep", rec.get("rep", 0))
    row["seed"] = inner.get("seed", 0)
    row["complete"] = inner.get("complete", True)
    row.update(inner.get("metrics", {}))
    for k, v in inner.get("params", {}).items():
        row.setdefault(k, v)
    return row


class Results:
    """The results of one ``run()`` (or of a file ``load()`` read).

    ``summary`` has one row per repetition (a single run: one row): the run's parameters and every
    catalog metric (docs/results-schema.md, "Records"). The other tables describe the full results
    of the first repetition; a file of records only (repetitions, a sweep) has none of them.
    """

    def __init__(self, rendered, results_json, records, notes=(), command=None, source=None):
        self._rendered = rendered
        self.json = json.loads(results_json) if results_json else None
        self.records = records
        self.notes = list(notes)
        self.command = command
        self.source = source

    # -- what every results object has
    @property
    def summary(self):
        return _pandas().DataFrame([_flat_record(r) for r in self.records])

    @property
    def complete(self):
        if self.json is not None:
            return bool(self.json["summary"]["complete"])
        return all(r.get("record", r).get("complete", True) for r in self.records)

    @property
    def incomplete(self):
        if self.json is not None:
            return list(self.json["summary"]["incomplete"])
        out = []
        for r in self.records:
            out += r.get("record", r).get("incomplete", [])
        return out

    def to_json(self):
        """The JSON ``schedsim run -f json`` writes for the same options (``command``), byte for byte."""
        if self._rendered is None:
            raise ValueError("these results were read from a file of records; see the file itself")
        return self._rendered

    def save(self, path):
        """Writes ``to_json()`` to ``path`` (``.gz``: gzip-compressed), through a temporary file."""
        text = self.to_json()
        tmp = f"{path}.tmp{os.getpid()}"
        with (gzip.open(tmp, "wt") if str(path).endswith(".gz") else open(tmp, "w")) as f:
            f.write(text)
        os.replace(tmp, path)

    # -- the full results (a single run, or the first repetition)
    def _full(self, what):
        if self.json is None:
            raise ValueError(f"{what}: this {self.source or 'object'} holds records only (a metric row per run); "
                             "the full results are in a results file or a run() with repeat=1")
        return self.json

    @property
    def latency_stats(self):
        """One row per latency kind (wakeup, preempt, runqueue_wait, fork): count, mean, percentiles in ns."""
        lat = self._full("latency_stats")["latency_ns"]
        rows = []
        for kind, d in lat.items():
            row = {"kind": kind}
            row.update({k: v for k, v in d.items() if k != "buckets"})
            rows.append(row)
        return _pandas().DataFrame(rows).set_index("kind")

    def latencies(self, kind="wakeup"):
        """The histogram of one latency kind: lo_ns, hi_ns (bucket bounds), count."""
        lat = self._full("latencies")["latency_ns"]
        if kind not in lat:
            raise ValueError(f"unknown latency kind {kind!r}; valid: {', '.join(lat)}")
        return _pandas().DataFrame(lat[kind]["buckets"], columns=["lo_ns", "hi_ns", "count"])

    @property
    def tasks(self):
        return _pandas().DataFrame(self._full("tasks")["tasks"])

    @property
    def task_groups(self):
        return _pandas().DataFrame(self._full("task_groups")["task_groups"])

    @property
    def cpus(self):
        return _pandas().DataFrame(self._full("cpus")["cpus"])

    @property
    def llcs(self):
        return _pandas().DataFrame(self._full("llcs")["llcs"])

    @property
    def placement(self):
        """Where wakeups and forks were placed: one row per outcome (idle_core, target, prev, ...)."""
        p = self._full("placement")["placement"]
        return _pandas().DataFrame(sorted(p["outcomes"].items()), columns=["outcome", "count"])

    @property
    def timeline(self):
        """Busy fraction per CPU (columns) per time bucket (index: the bucket's start in ns)."""
        t = self._full("timeline")["timeline"]
        pd = _pandas()
        if not t["busy"]:
            return pd.DataFrame()
        index = [t["start_ns"] + i * t["bucket_ns"] for i in range(t["buckets"])]
        frame = pd.DataFrame({cpu: series for cpu, series in enumerate(t["busy"])}, index=index)
        frame.index.name = "start_ns"
        frame.columns.name = "cpu"
        return frame

    @property
    def observed(self):
        """A replayed trace's recorded figures beside the simulated ones: metric, simulated,
        observed, rel_error, note (a bound or a caveat); None for a workload that is no trace."""
        rows = self._full("observed").get("observed")
        if rows is None:
            return None
        return _pandas().DataFrame(rows, columns=["metric", "simulated", "observed", "rel_error", "note"]).set_index("metric")

    @property
    def config(self):
        return self._full("config")["config"]

    def __repr__(self):
        n = len(self.records)
        what = "1 run" if n == 1 else f"{n} runs"
        return f"<schedsim.Results: {what}{'' if self.complete else ', incomplete'}>"


def _split_records(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def run(workload=None, **options):
    """Runs one simulation, as ``schedsim run WORKLOAD [options]``; returns ``Results``.

    ``workload`` is a workload file or kernel trace (or None with ``workload_gen='KIND opts'``).
    Every other option of ``schedsim run`` is a keyword: its long name with '_' for '-'
    (``schedsim.options()`` lists them, their types and defaults). Lists are given as lists
    (``features=['NO_SIS_UTIL']``, ``costs=['ipi_ns=800']``); switches as bools.

    Raises InputError (bad input, with file and line), UsageError (a value run refuses),
    TypeError (a keyword or type run has no use for), IncompleteRunError (the run did not finish,
    unless ``allow_incomplete=True``; a run stopped by ``stop_at`` as asked is not a failure, as
    for the CLI), ResourceError, KeyboardInterrupt (Ctrl-C stops the run).
    Caveats ("warning: ...") are issued as SchedsimWarning, whatever ``quiet`` says (filter them
    with the warnings module); every note is in ``Results.notes``. The GIL is released while simulating: threads run in parallel.
    """
    out = _schedsim.run(workload, options)
    res = Results(out["rendered"], out["results_json"], _split_records(out["records"]), out["notes"],
                  out["command"], "run")
    for line in out["lines"]:  # what the CLI prints on stderr; its warnings are never silenced
        if line.startswith("warning:"):
            warnings.warn(line[len("warning: "):], SchedsimWarning, stacklevel=2)
    if not out["complete"] and not options.get("allow_incomplete"):
        raise IncompleteRunError("simulation incomplete (\"complete\": false in the results): " +
                                 "; ".join(out["incomplete"]) +
                                 " (allow_incomplete=True returns such results)", res)
    return res


def load(path):
    """Reads a results file (``run -f json``), a repetitions file (``run --repeat N -f json``), or
    a JSON Lines file of records (``run -f jsonl``, ``schedsim sweep -o``), each also ``.gz``,
    with the checks ``schedsim compare`` makes; returns ``Results``."""
    d = _schedsim.load(os.fspath(path))
    records = []
    for r in d["records"]:
        rec = json.loads(r["line"])
        if r["point"] >= 0:
            rec = {"point": r["point"], "params": dict(r["point_params"]), "rep": rec.get("rep", 0), "record": rec}
        records.append(rec)
    rendered = None
    if d["kind"] in ("results", "repeat"):
        with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
            rendered = f.read()
    return Results(rendered, d["results_json"], records, source=f"{d['kind']} file {os.fspath(path)}")


def _side(x, name):
    """A compare side: a path, Results, a Sweep, or a list of record dicts."""
    if isinstance(x, (str, os.PathLike)):
        return os.fspath(x), ""
    if isinstance(x, Sweep):
        x = x.records
    if isinstance(x, Results):
        x = x.records
    if isinstance(x, list):
        if not x:
            raise ValueError(f"compare(): the {name} side has no records")
        lines = [json.dumps(r.get("record", r)) if isinstance(r, dict) else str(r) for r in x]
        return f"<{name}>", "\n".join(lines) + "\n"
    raise TypeError(f"compare(): {name} must be a path, Results, Sweep or a list of records, got {type(x).__name__}")


class Comparison:
    """What ``compare()`` found: ``table`` (one row per point and metric), ``passed`` (no
    ``fail_on`` condition tripped), ``failures``, ``warnings``, ``to_json()``, ``text``."""

    def __init__(self, out):
        self._json = out["json"]
        self.data = json.loads(out["json"])
        self.text = out["table"]
        self.failures = list(out["failures"])
        self.warnings = list(out["warnings"])
        self.gates = out["gates"]

    @property
    def passed(self):
        return not self.failures

    @property
    def verdict(self):
        """'fail' when a fail_on condition tripped, 'pass' when there were some and none tripped,
        'none' without conditions."""
        return "fail" if self.failures else ("pass" if self.gates else "none")

    @property
    def table(self):
        rows = []
        for pi, p in enumerate(self.data.get("points", [])):
            for r in p.get("rows", []):
                row = {"point": pi + 1}
                for k, v in r.items():
                    if isinstance(v, dict):
                        for kk, vv in v.items():
                            row[f"{k}.{kk}"] = vv
                    else:
                        row[k] = v
                rows.append(row)
        return _pandas().DataFrame(rows)

    def to_json(self):
        return self._json

    def __repr__(self):
        return f"<schedsim.Comparison: {len(self.data.get('points', []))} point(s), verdict {self.verdict}>"


def compare(base, new, fail_on=None, **options):
    """Compares two sides as ``schedsim compare BASE NEW``: each a results/records file path,
    ``Results`` (of a ``run(repeat=N)``), a ``Sweep`` or a list of records. Keywords: ``fail_on``
    (conditions such as ``'wakeup.p99>+5%'``), ``by``, ``ignore``, ``metrics``, ``allow_mismatch``,
    ``min_effect``, ``alpha``, ``correction``, ``confidence``, ``resamples``, ``seed``.
    Returns ``Comparison``; a tripped condition is ``verdict == 'fail'``, not an exception."""
    bn, bt = _side(base, "base")
    nn, nt = _side(new, "new")
    options["fail_on"] = fail_on
    return Comparison(_schedsim.compare(bn, bt, nn, nt, options))


def _value_json(v):
    if isinstance(v, (bool, int, float, str)):
        return v
    raise TypeError(f"sweep(): a value must be a str, int, float or bool, got {type(v).__name__}")


class Sweep:
    """A running sweep: iterate it to get each record (a dict: point, rep, params, results,
    record) as it finishes, in (point, repetition) order; ``summary`` waits for the rest and gives
    one row per record. Closing it early (``close()``, leaving a ``for`` loop by an exception, or
    Ctrl-C) stops the runs still going."""

    def __init__(self, spec, jobs, output, resume):
        self.spec = spec
        self.records = []
        self.notes = []
        self._queue = queue.Queue()
        self._done = object()
        self._error = None
        self._result = None
        self._thread = threading.Thread(target=self._work, args=(json.dumps(spec), jobs, output, resume), daemon=True)
        self._thread.start()
        _live_sweeps.add(self)

    def _work(self, spec_json, jobs, output, resume):
        try:
            self._result = _schedsim.sweep(spec_json, jobs, output, resume, self._queue.put, self.notes.append)
        except BaseException as e:  # handed to the consumer
            self._error = e
        finally:
            self._queue.put(self._done)

    def __iter__(self):
        return self

    def __next__(self):
        try:
            while True:
                try:
                    item = self._queue.get(timeout=0.1)
                    break
                except queue.Empty:
                    continue
        except KeyboardInterrupt:
            self.close()
            raise
        if item is self._done:
            self._thread.join()
            self._queue.put(self._done)  # later calls stop too
            if self._error is not None:
                raise self._error
            if self._result and self._result["signal"]:
                raise KeyboardInterrupt(self._result["interrupted"])
            raise StopIteration
        rec = json.loads(item)
        self.records.append(rec)
        return rec

    def close(self):
        """Stops the runs still going and waits for them."""
        if self._thread.is_alive():
            _schedsim.interrupt()
            self._thread.join()
            _schedsim.clear_interrupt()

    def wait(self):
        """Runs the sweep to its end; returns self."""
        for _ in self:
            pass
        return self

    @property
    def summary(self):
        self.wait()
        return _pandas().DataFrame([_flat_record(r) for r in self.records])

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


# Sweeps still running when the interpreter exits are stopped first: their threads call back into
# Python, which must not happen during finalization.
_live_sweeps = weakref.WeakSet()


@atexit.register
def _stop_live_sweeps():
    for s in list(_live_sweeps):
        s.close()


def sweep(grid, repeat=1, jobs=None, seed=1, zip=None, order=None, output=None, resume=False):
    """Runs a grid of points, as ``schedsim sweep``. ``grid`` maps sweep keys (docs/sweep.md:
    ``placement``, ``topology``, ``workload-gen``, ``gen.group``, ``cost.NAME``, ``feature.NAME``,
    ...; '_' may stand for '-') to one value (fixed) or a list (an axis, crossed with the others);
    ``zip`` is a list of dicts whose lists advance together. ``jobs`` threads (default: the CPUs);
    ``output`` also streams the records to a JSON Lines file (``resume=True`` continues it).
    Returns a ``Sweep`` that yields records as they finish."""
    if not isinstance(grid, dict):
        raise TypeError(f"sweep(): grid must be a dict of key -> value or list, got {type(grid).__name__}")

    def key(k):
        return k if "." in k else k.replace("_", "-")

    def values(v):
        return [_value_json(x) for x in v] if isinstance(v, (list, tuple)) else _value_json(v)

    spec = {"schedsim_sweep": 1, "params": {key(k): values(v) for k, v in grid.items()}}
    if zip:
        spec["zip"] = [{key(k): values(v) for k, v in group.items()} for group in zip]
    if order:
        spec["order"] = [key(k) for k in order]
    spec["repeat"] = repeat
    spec["seed"] = seed
    if jobs is None:
        jobs = len(os.sched_getaffinity(0))
    return Sweep(spec, jobs, os.fspath(output) if output else "", bool(resume))


class Topology:
    """A machine: ``name``, ``nr_cpus``, ``cpus`` (cpu, core, llc, package, node, capacity),
    ``json`` (docs/topology.md) and ``text`` (as ``schedsim topology show``)."""

    def __init__(self, d):
        self.name = d["name"]
        self.json = json.loads(d["json"])
        self.text = d["text"]
        self._cpus = d["cpus"]

    @property
    def nr_cpus(self):
        return len(self._cpus)

    @property
    def cpus(self):
        return _pandas().DataFrame(self._cpus)

    def __repr__(self):
        return f"<schedsim.Topology {self.name}: {self.nr_cpus} CPUs>"


def topology(name_or_path):
    """A preset name, 'smpN', 'host', a topology JSON file, a saved sysfs tree or `lscpu -p` output."""
    return Topology(_schedsim.topology(os.fspath(name_or_path)))


def topologies():
    """The built-in machine presets: name, cpus, summary."""
    return _pandas().DataFrame(_schedsim.topologies())


def policies():
    """Every policy module: slot, name, summary, the sched_feat flags it reads."""
    return _pandas().DataFrame(_schedsim.policies())


def kernels():
    """The kernel profiles (``kernel=``): version, summary, modules and feature defaults."""
    return _pandas().DataFrame(_schedsim.kernels())


def options():
    """Every option of ``schedsim run``: keyword, option, type, group, default, help, whether a
    sweep may vary it, whether ``run()`` takes it (output options are the CLI's)."""
    return _pandas().DataFrame(_schedsim.options())


def sched(trace, view="latency", sort=None, pids=False, wakeups=False, migrations=False, summary=False,
          compact=False, cpus=None, **trace_options):
    """perf sched's views of a trace as a DataFrame, the rows ``schedsim sched VIEW TRACE --format
    json`` writes (docs/sched-views.md): ``view`` is 'latency' (per task: runtime, switches, delays;
    ``sort`` keys and ``pids``), 'timehist' (a row per switch; ``wakeups``, ``migrations``,
    ``summary=True`` for the per-task summary instead) or 'map' (a column per CPU; ``compact``,
    ``cpus`` as a list or '0,2-3'). TRACE may be a recording or a run's ``trace_out``; the other
    keywords say how it is read (``strict``, ``clock_hz``, ``kernel_version``, ``buffer``)."""
    options = {"sort": sort, "pids": pids, "wakeups": wakeups, "migrations": migrations, "summary": summary,
               "compact": compact, "cpus": cpus}
    data = json.loads(_schedsim.sched(os.fspath(trace), view, options, trace_options))
    return _pandas().DataFrame(data["rows"])


def import_trace(path, **trace_options):
    """The tasks a kernel trace (or workload file) holds after import, as ``schedsim import``
    extracts them with the same trace options (``comm``, ``pids``, ``exclude_kthreads``, ...):
    id, name, pid, tgid, nice, kthread, background, actions, start_ns, run_ns (CPU work)."""
    return _pandas().DataFrame(_schedsim.import_trace(os.fspath(path), trace_options))
