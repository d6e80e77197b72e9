"""Discovery: machines, policies, kernels, options; a trace's tasks."""
import pytest

import schedsim
from conftest import TRACE


def test_topology():
    t = schedsim.topology("xeon-e5-2690v2")
    assert t.nr_cpus == 40
    c = t.cpus
    assert list(c.columns) == ["cpu", "core", "llc", "package", "node", "capacity"]
    assert c["llc"].nunique() == 2 and c["core"].nunique() == 20 and c["node"].nunique() == 2
    assert t.json["cpus"] and "xeon" in t.name
    assert schedsim.topology("smp7").nr_cpus == 7  # smpN: a flat machine, not a preset
    assert "smp7" not in schedsim.topologies()["name"].tolist()
    assert "xeon-e5-2690v2" in schedsim.topologies()["name"].tolist()


def test_policies_kernels_options():
    p = schedsim.policies()
    assert set(p["slot"]) == {"placement", "idle-cores", "util", "queue", "balance"}
    assert "sis-util" in p[p["slot"] == "placement"]["name"].tolist()
    k = schedsim.kernels()
    assert "6.12" in k["version"].tolist()
    o = schedsim.options().set_index("keyword")
    assert o.loc["workload_gen", "option"] == "--workload-gen"
    assert bool(o.loc["workload_gen", "python"]) and not bool(o.loc["output", "python"])
    assert o.loc["repeat", "default"] == "1" and o.loc["repeat", "type"] == "int"


def test_import_trace():
    tasks = schedsim.import_trace(TRACE)
    assert len(tasks) > 40
    assert {"name", "pid", "run_ns", "actions"} <= set(tasks.columns)
    assert (tasks["run_ns"] >= 0).all() and tasks["run_ns"].sum() > 0
    first = int(tasks["pid"].iloc[0])
    only = schedsim.import_trace(TRACE, pids=[first])
    assert only["pid"].tolist() == [first]
    with pytest.raises(schedsim.InputError, match="no tasks selected"):
        schedsim.import_trace(TRACE, comm="^nomatch$")
