"""Bad input from Python: a clear exception, the CLI's own text, never a crash."""
import gzip
import os
import subprocess
import sys
import textwrap

import pytest

import schedsim
from conftest import GEN, SOURCE, TRACE


def cli_error(cli, args):
    rc, out, err = cli(args)
    assert rc != 0
    return err.strip()


def test_unknown_keyword_suggests():
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'topolgy'; did you mean 'topology'\?"):
        schedsim.run(workload_gen=GEN, topolgy="smp2")


def test_cli_output_options_are_refused_with_the_python_way():
    with pytest.raises(TypeError, match="Results.to_json"):
        schedsim.run(workload_gen=GEN, output="r.json")
    with pytest.raises(TypeError, match="progress bar"):
        schedsim.run(workload_gen=GEN, progress="always")


@pytest.mark.parametrize("kw, match", [
    ({"repeat": "3"}, "repeat: expected an int, got str"),
    ({"repeat": True}, "repeat: expected an int, got bool"),
    ({"seed": 1.5}, "seed: expected an int, got float"),
    ({"smt_normalize": 1}, "smt_normalize: expected a bool, got int"),
    ({"topology": ["smp2"]}, "topology: expected a str, got list"),
    ({"features": [1.0, {}]}, "features: expected a str, got dict"),
])
def test_wrong_types(kw, match):
    with pytest.raises(TypeError, match=match):
        schedsim.run(workload_gen=GEN, **kw)


def test_out_of_range_count():
    with pytest.raises(ValueError, match="repeat: expected 0 to 4294967295, got -1"):
        schedsim.run(workload_gen=GEN, repeat=-1)
    with pytest.raises(ValueError, match="seed: expected 0 to"):
        schedsim.run(workload_gen=GEN, seed=2 ** 64)


def test_no_workload_is_a_usage_error():
    with pytest.raises(schedsim.UsageError, match="no workload"):
        schedsim.run(topology="smp2")
    with pytest.raises(TypeError, match="must be a path"):
        schedsim.run(42)


def test_input_errors_carry_the_cli_text(cli):
    with pytest.raises(schedsim.InputError) as e:
        schedsim.run(workload_gen=GEN, topology="xeon-e5-2690")
    assert str(e.value) == cli_error(cli, ["run", "--workload-gen", GEN, "-t", "xeon-e5-2690"])
    assert "did you mean 'xeon-e5-2690v2'" in str(e.value)
    with pytest.raises(schedsim.InputError) as e:
        schedsim.run(workload_gen=GEN, placement="sis-fold-op")
    assert str(e.value) == cli_error(cli, ["run", "--workload-gen", GEN, "--placement", "sis-fold-op"])
    with pytest.raises(schedsim.InputError) as e:
        schedsim.run(workload_gen=GEN, kernel="2.6")
    assert str(e.value) == cli_error(cli, ["run", "--workload-gen", GEN, "--kernel", "2.6"])
    with pytest.raises(schedsim.InputError) as e:
        schedsim.run(workload_gen=GEN, preempt="sometimes")
    assert str(e.value) == cli_error(cli, ["run", "--workload-gen", GEN, "--preempt", "sometimes"])
    # an empty value is refused, never taken as the default
    with pytest.raises(schedsim.InputError) as e:
        schedsim.run(workload_gen=GEN, topology="")
    assert str(e.value) == cli_error(cli, ["run", "--workload-gen", GEN, "--topology", ""])


def test_usage_errors_carry_the_cli_text(cli):
    with pytest.raises(schedsim.UsageError) as e:
        schedsim.run(TRACE, clock_hz=0)
    err = cli_error(cli, ["run", TRACE, "--clock-hz", "0"])
    assert err.startswith("schedsim: error: " + str(e.value) + "\n")


def test_missing_and_malformed_files(tmp_path):
    with pytest.raises(schedsim.InputError) as e:
        schedsim.run("no/such/trace.txt", topology="smp2")
    assert e.value.file == "no/such/trace.txt"
    bad = tmp_path / "w.json"
    bad.write_text('{"schedsim_workload": 1,\n "tasks": [ {"name": 3} ]}\n')
    with pytest.raises(schedsim.InputError) as e:
        schedsim.run(str(bad), topology="smp2")
    assert e.value.file == str(bad)
    assert e.value.message
    garbage = tmp_path / "t.ftrace.gz"
    garbage.write_bytes(gzip.compress(os.urandom(3000)))
    with pytest.raises(schedsim.InputError):
        schedsim.run(str(garbage), topology="smp2")
    with pytest.raises(schedsim.InputError) as e:
        schedsim.load(tmp_path / "missing.json")
    assert e.value.file.endswith("missing.json")
    notjson = tmp_path / "r.json"
    notjson.write_text('{"schema": "something-else", "version": 1}\n')
    with pytest.raises(schedsim.InputError, match='unknown schema "something-else"'):
        schedsim.load(notjson)
    with pytest.raises(schedsim.InputError):
        schedsim.topology(tmp_path / "missing-topology.json")
    with pytest.raises(schedsim.InputError, match="did you mean 'smp2'|unknown"):
        schedsim.topology("smpp2")


def test_compare_and_sweep_errors(tmp_path):
    a = schedsim.run(workload_gen=GEN, topology="smp2", repeat=2)
    with pytest.raises(schedsim.InputError, match="--fail-on"):
        schedsim.compare(a, a, fail_on="wakeup.p99 >> 5")
    with pytest.raises(schedsim.InputError, match="--confidence"):
        schedsim.compare(a, a, confidence=1.5)
    with pytest.raises(TypeError, match="did you mean 'alpha'"):
        schedsim.compare(a, a, alpah=0.1)
    with pytest.raises(TypeError):
        schedsim.compare(a, 3)
    with pytest.raises(schedsim.InputError, match="placment"):
        schedsim.sweep({"workload_gen": GEN, "placment": ["prev", "sis-util"]}).wait()
    with pytest.raises(TypeError):
        schedsim.sweep({"workload_gen": GEN, "gen.group": [{}]})
    with pytest.raises(schedsim.InputError):
        schedsim.import_trace(tmp_path / "none.ftrace")
    with pytest.raises(TypeError, match="unexpected keyword argument 'topology'"):
        schedsim.import_trace(tmp_path / "none.ftrace", topology="smp2")


def test_ctrl_c_stops_a_run_and_the_interpreter_goes_on():
    # A child interpreter starts a long run; SIGINT reaches it mid-run: KeyboardInterrupt, and the
    # next run works (the stop request was cleared).
    code = textwrap.dedent("""
        import sys, schedsim
        print("started", flush=True)
        try:
            schedsim.run(workload_gen="messaging -g 40 -l 1000000", topology="xeon-e5-2690v2")
            print("finished")
        except KeyboardInterrupt as e:
            print("interrupted:", e, flush=True)
        r = schedsim.run(workload_gen="messaging -g 1 -l 5", topology="smp2")
        print("after:", r.complete)
    """)
    env = dict(os.environ)
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=env, cwd=SOURCE)
    assert p.stdout.readline().strip() == "started"
    import time
    time.sleep(1.0)
    p.send_signal(2)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 0, err
    assert "interrupted:" in out and "after: True" in out, out + err
