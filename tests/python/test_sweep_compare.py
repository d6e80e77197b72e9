"""schedsim.sweep() and schedsim.compare(): records as they finish, the CLI's bytes and verdicts."""
import json

import schedsim
from conftest import GEN


def test_sweep_yields_records_in_order_and_matches_the_cli(cli, tmp_path):
    grid = {"workload_gen": "messaging -l 20", "topology": "smp2", "placement": ["prev", "sis-fold-opt"], "gen.group": [1, 2]}
    s = schedsim.sweep(grid, repeat=2, jobs=2, output=tmp_path / "py.jsonl")
    seen = [(r["point"], r["rep"]) for r in s]
    assert seen == [(p, rep) for p in range(4) for rep in range(2)]
    summary = s.summary
    assert len(summary) == 8 and list(summary["gen.group"].unique()) == ["1", "2"]
    assert set(summary["placement"]) == {"prev", "sis-fold-opt"}
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(s.spec))
    rc, out, err = cli(["sweep", "--spec", str(spec), "--jobs", "1", "-o", str(tmp_path / "cli.jsonl"),
                        "--summary", "none"])
    assert rc == 0, err
    assert (tmp_path / "py.jsonl").read_bytes() == (tmp_path / "cli.jsonl").read_bytes()
    back = schedsim.load(tmp_path / "py.jsonl")
    assert back.summary.equals(summary) or len(back.summary) == 8
    try:
        back.tasks
        raise AssertionError("a records file has no tasks table")
    except ValueError as e:
        assert "records only" in str(e)


def test_closing_a_sweep_early_stops_it():
    s = schedsim.sweep({"workload_gen": "messaging -l 50", "topology": "smp4", "gen.group": list(range(1, 41))}, jobs=1)
    first = next(s)
    assert first["point"] == 0
    s.close()
    assert len(s.records) == 1
    # the stop request does not outlive the sweep
    assert schedsim.run(workload_gen=GEN, topology="smp2").complete


def test_an_interpreter_leaving_with_a_sweep_running_ends_cleanly():
    # The interpreter exits with a sweep's runs going (its threads call back into Python): the
    # process ends with exit code 0 and no fatal error.
    import subprocess
    import sys
    code = ("import schedsim\n"
            "s = schedsim.sweep({'workload_gen': 'messaging -l 2000', 'topology': 'smp4', 'gen.group': list(range(1, 30))}, jobs=2)\n"
            "next(s)\n"
            "print('leaving', flush=True)\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "leaving\n" and "Fatal" not in p.stderr


def test_compare_runs_and_files(cli, tmp_path):
    base = schedsim.run(workload_gen="messaging -g 4 -l 20", topology="xeon-e5-2690v2", kernel="6.12",
                        placement="sis-util", repeat=5)
    new = schedsim.run(workload_gen="messaging -g 4 -l 20", topology="xeon-e5-2690v2", kernel="6.12",
                       placement="prev", repeat=5)
    c = schedsim.compare(base, new, fail_on=["wakeup.p99>+500%"])
    t = c.table
    assert {"metric", "verdict", "change"} <= set(t.columns)
    assert "wakeup.p99" in t["metric"].tolist()
    assert c.verdict in ("pass", "fail") and c.passed == (c.verdict == "pass")
    base.save(tmp_path / "base.json")
    new.save(tmp_path / "new.json")
    from_files = schedsim.compare(tmp_path / "base.json", tmp_path / "new.json", fail_on=["wakeup.p99>+500%"])
    rc, out, err = cli(["compare", str(tmp_path / "base.json"), str(tmp_path / "new.json"), "-f", "json",
                        "--fail-on", "wakeup.p99>+500%"])
    assert rc in (0, 7), err
    assert from_files.to_json() == out
    assert (rc == 7) == (from_files.verdict == "fail")
    assert json.loads(c.to_json())["points"][0]["rows"] == json.loads(out)["points"][0]["rows"]
    assert "wakeup.p99" in c.text
