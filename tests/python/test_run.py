"""schedsim.run(): the same simulation as `schedsim run`, its results as DataFrames."""
import json
import os
import threading

import pandas as pd
import pytest

import schedsim
from conftest import GEN, SOURCE, TRACE


def test_generated_run_summary_and_tables():
    r = schedsim.run(workload_gen=GEN, topology="smp2", kernel="6.12")
    s = r.summary
    assert isinstance(s, pd.DataFrame) and len(s) == 1
    for col in ("makespan", "benchmark_time", "wakeup.p99", "topology", "module.placement"):
        assert col in s.columns, col
    assert s.loc[0, "topology"] == "smp2"
    assert r.complete and r.incomplete == []
    j = json.loads(r.to_json())
    assert s.loc[0, "makespan"] == j["summary"]["makespan_ns"]
    # messaging -g 2: 2 x (20 senders + 20 receivers) + the main task
    assert len(r.tasks) == j["summary"]["tasks"] == 81
    assert list(r.cpus["cpu"]) == [0, 1]
    lat = r.latencies("wakeup")
    assert list(lat.columns) == ["lo_ns", "hi_ns", "count"]
    assert lat["count"].sum() == j["latency_ns"]["wakeup"]["count"] > 0
    assert (lat["lo_ns"] <= lat["hi_ns"]).all()
    st = r.latency_stats
    assert st.loc["wakeup", "p99"] == j["latency_ns"]["wakeup"]["p99"]
    p = r.placement
    assert p["count"].sum() == j["placement"]["wakeups"] + j["placement"]["forks"] + j["placement"]["execs"]
    t = r.timeline
    assert list(t.columns) == [0, 1] and t.index.name == "start_ns"
    assert ((t >= 0) & (t <= 1)).all().all()
    assert r.config["modules"]["placement"] == s.loc[0, "module.placement"]
    with pytest.raises(ValueError, match="unknown latency kind 'wakeups'"):
        r.latencies("wakeups")


def test_json_is_byte_identical_to_the_cli(cli):
    r = schedsim.run(workload_gen=GEN, topology="smp2", kernel="6.12", placement="sis-fold-opt",
                     features=["NO_WA_BIAS"], costs=["resched_ipi=900ns"], seed=7, jitter="2%")
    assert r.command.startswith("schedsim run --workload-gen 'messaging -g 2 -l 20' --topology smp2")
    rc, out, err = cli(r.command)
    assert rc == 0, err
    assert out == r.to_json()
    assert json.loads(out)["provenance"]["command"] == r.command


@pytest.mark.filterwarnings("ignore::schedsim.SchedsimWarning")
def test_trace_replay_matches_the_cli(cli):
    r = schedsim.run(TRACE, topology="smp2", kernel="6.18", exclude_kthreads=True)
    rc, out, err = cli(r.command)
    assert rc == 0, err
    assert out == r.to_json()
    assert r.observed is not None
    assert r.summary.loc[0, "wakeups"] > 0


def test_repetitions(cli):
    r = schedsim.run(workload_gen=GEN, topology="smp2", repeat=3, seed=3)
    s = r.summary
    assert list(s["rep"]) == [0, 1, 2]
    assert s["seed"].nunique() == 3
    rc, out, err = cli(r.command)
    assert rc == 0, err
    assert out == r.to_json()
    assert json.loads(out)["schema"] == "schedsim-repeat"
    # the full results are the first repetition's
    assert r.tasks is not None and len(r.cpus) == 2
    # a repetitions file reads back as the same records
    path = __import__("pathlib").Path(__import__("tempfile").mkdtemp()) / "rep.json"
    r.save(path)
    back = schedsim.load(path)
    assert back.to_json() == r.to_json()
    pd.testing.assert_frame_equal(back.summary, s)
    with pytest.raises(ValueError, match="records only"):
        back.tasks


def test_same_seed_same_results_and_threads_agree():
    a = schedsim.run(workload_gen=GEN, topology="smp2", seed=5).to_json()
    assert schedsim.run(workload_gen=GEN, topology="smp2", seed=5).to_json() == a
    out = [None] * 4
    specs = [(5, "smp2"), (6, "smp2"), (5, "smp4"), (6, "smp4")]

    def work(i):
        seed, topo = specs[i]
        out[i] = schedsim.run(workload_gen=GEN, topology=topo, seed=seed).to_json()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out[0] == a
    for i, (seed, topo) in enumerate(specs):
        assert out[i] == schedsim.run(workload_gen=GEN, topology=topo, seed=seed).to_json()


def test_the_gil_is_released_while_simulating():
    # Another Python thread makes progress while a run() on a worker thread simulates: it could
    # not if the GIL were held for the whole call.
    done = threading.Event()
    counter = [0]

    def spin():
        while not done.is_set():
            counter[0] += 1

    seen = {}

    def simulate():
        before = counter[0]
        schedsim.run(workload_gen="messaging -g 8 -l 200", topology="smp4")
        seen["during"] = counter[0] - before

    s = threading.Thread(target=spin)
    s.start()
    w = threading.Thread(target=simulate)
    w.start()
    w.join()
    done.set()
    s.join()
    assert seen["during"] > 1000


def test_warnings_notes_and_quiet():
    with pytest.warns(schedsim.SchedsimWarning):
        r = schedsim.run(TRACE, topology="xeon-e5-2690v2")
    assert any(n.startswith("warning:") for n in r.notes)
    # As run -q: quiet drops notes, never a warning (a caveat on the figures).
    with pytest.warns(schedsim.SchedsimWarning):
        schedsim.run(TRACE, topology="xeon-e5-2690v2", quiet=True)


DEADLOCK = os.path.join(SOURCE, "tests/data/workloads/deadlock.json")


def test_incomplete_run_raises_unless_allowed():
    with pytest.raises(schedsim.IncompleteRunError) as e:
        schedsim.run(DEADLOCK, topology="smt2x2")
    assert e.value.results.complete is False
    assert any("deadlock" in r for r in e.value.reasons)
    r = schedsim.run(DEADLOCK, topology="smt2x2", allow_incomplete=True)
    assert r.complete is False


def test_stop_at_is_not_a_failure():
    # As the CLI's exit 0: the run stopped where it was asked to; the results say complete: false.
    r = schedsim.run(workload_gen=GEN, topology="smp2", stop_at="1ms")
    assert r.complete is False


def test_save_and_load_round_trip(tmp_path):
    r = schedsim.run(workload_gen=GEN, topology="smp2")
    r.save(tmp_path / "r.json.gz")
    back = schedsim.load(tmp_path / "r.json.gz")
    assert back.to_json() == r.to_json()
    pd.testing.assert_frame_equal(back.tasks, r.tasks)
    assert back.summary.loc[0, "makespan"] == r.summary.loc[0, "makespan"]


def test_trace_out(tmp_path):
    out = tmp_path / "sched.ftrace"
    schedsim.run(workload_gen=GEN, topology="smp2", trace_out=str(out))
    text = out.read_text()
    assert "sched_switch" in text and "sched_wakeup" in text
