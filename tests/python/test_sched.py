"""schedsim.sched(): perf sched's views as DataFrames, the rows of `schedsim sched --format json`."""
import json

import pytest

import schedsim
from conftest import GEN, TRACE


@pytest.mark.parametrize("view, kw, args", [
    ("latency", {}, []),
    ("latency", {"sort": ["max", "avg"], "pids": True}, ["-s", "max,avg", "-p"]),
    ("latency", {"sort": "max, avg"}, ["-s", "max, avg"]),
    ("timehist", {"wakeups": True, "migrations": True}, ["-w", "-M"]),
    ("timehist", {"summary": True}, ["-s"]),
    ("map", {"compact": True}, ["--compact"]),
    ("map", {"cpus": [1]}, ["--cpus", "1"]),
])
def test_views_are_the_cli_rows(cli, view, kw, args):
    df = schedsim.sched(TRACE, view, **kw)
    rc, out, err = cli(["sched", view, TRACE, "--format", "json"] + args)
    assert rc == 0, err
    rows = json.loads(out)["rows"]
    assert len(df) == len(rows) > 0
    assert df.iloc[0].dropna().to_dict() == {k: v for k, v in rows[0].items() if v is not None}


def test_a_simulated_schedule(tmp_path):
    out = tmp_path / "sim.ftrace"
    schedsim.run(workload_gen=GEN, topology="smp2", trace_out=str(out))
    lat = schedsim.sched(out, "latency")
    assert {"comm", "runtime_ns", "switches"} <= set(lat.columns)
    assert lat["switches"].sum() > 0


def test_sched_errors():
    with pytest.raises(schedsim.UsageError, match="unknown sched view 'histogram'"):
        schedsim.sched(TRACE, "histogram")
    with pytest.raises(schedsim.UsageError, match="applies to 'sched latency' only"):
        schedsim.sched(TRACE, "timehist", sort="max")
    with pytest.raises(schedsim.UsageError, match="needs at least one key"):
        schedsim.sched(TRACE, "latency", sort=" , ")
    with pytest.raises(schedsim.InputError, match="sort key"):
        schedsim.sched(TRACE, "latency", sort="maxx")
    with pytest.raises(schedsim.InputError, match="--cpus"):
        schedsim.sched(TRACE, "map", cpus="3-1")
    with pytest.raises(schedsim.InputError, match="--cpus"):
        schedsim.sched(TRACE, "map", cpus=[7])
    with pytest.raises(TypeError, match="unexpected keyword argument 'comm'"):
        schedsim.sched(TRACE, "latency", comm="x")
    with pytest.raises(schedsim.InputError):
        schedsim.sched("no/such/trace", "latency")
