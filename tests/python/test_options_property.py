"""Every keyword of run(), given values of every wrong kind: a clear exception or a run, never a
crash, an untranslated C++ exception (RuntimeError) or a process-wide state left behind."""
import math

import pytest

import schedsim
from conftest import GEN

ODD_VALUES = [object(), {}, math.nan, -1, 2 ** 70, "", "\x00x", ["", None], True, "list", 0, "0"]
EXPECTED = (TypeError, ValueError, schedsim.Error, MemoryError)


def keywords():
    o = schedsim.options()
    return o[o["python"]]["keyword"].tolist()


@pytest.mark.parametrize("keyword", keywords())
def test_odd_values_raise_clear_exceptions(keyword, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # trace_out and friends write here, if anywhere
    for value in ODD_VALUES:
        try:
            r = schedsim.run(workload_gen=GEN, topology="smp2", quiet=True, **{keyword: value})
        except EXPECTED as e:
            assert str(e), f"{keyword}={value!r}: an exception without a message"
            assert not isinstance(e, RuntimeError) or isinstance(e, schedsim.Error), f"{keyword}={value!r}: {e!r}"
        else:
            assert isinstance(r, schedsim.Results)
    # nothing the odd values did outlives their call: the memory budget, the stop flag
    assert schedsim.run(workload_gen=GEN, topology="smp2").complete


def test_max_memory_applies_to_its_own_run_only():
    with pytest.raises(schedsim.ResourceError, match="--max-memory 1K"):
        schedsim.run(workload_gen=GEN, topology="smp2", max_memory="1K")
    assert schedsim.run(workload_gen=GEN, topology="smp2").complete
