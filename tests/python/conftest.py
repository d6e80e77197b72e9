"""Shared fixtures of the Python module's tests (run by ctest as python.*: PYTHONPATH points at
the build tree's package, SCHEDSIM_BIN at the CLI the results are compared with)."""
import os
import shlex
import subprocess

import pytest

SOURCE = os.environ.get("SCHEDSIM_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
TRACE = os.path.join(SOURCE, "tests/data/traces/smp2-quiet/hb-pipe-proc-g2-l100.r3.ftrace.gz")
GEN = "messaging -g 2 -l 20"


@pytest.fixture(scope="session")
def cli():
    """Runs the schedsim binary with a command line as Results.command records it (its first
    word, 'schedsim', replaced by the binary); returns (exit code, stdout, stderr)."""
    binary = os.environ.get("SCHEDSIM_BIN")
    if not binary:
        pytest.fail("SCHEDSIM_BIN is not set (ctest sets it)")

    def call(args):
        if isinstance(args, str):
            args = shlex.split(args)
        if args and args[0] == "schedsim":
            args = args[1:]
        p = subprocess.run([binary] + list(args), capture_output=True, text=True, cwd=SOURCE)
        return p.returncode, p.stdout, p.stderr

    return call


@pytest.fixture(autouse=True)
def in_source_dir(monkeypatch):
    monkeypatch.chdir(SOURCE)
