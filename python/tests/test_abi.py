"""The package's mirror of perfgate.h (_lib.py) against the library's own description of its ABI."""
import ctypes

import pytest

from perfgate import _lib


def test_mirror_matches_the_library():
    lib = _lib.load()
    assert _lib.abi_mismatches(lib) == []
    d = _lib._described(lib)
    assert d["abi"] == _lib.ABI
    assert set(d["enums"]["perf_clock"]) == set(_lib.CLOCKS)
    # every struct the library describes is mirrored (abi_mismatches checks each)
    assert set(d["structs"]) == {"perf_workload", "perf_embed_options",
                                 "perf_embed_measurements", "perf_embed_run"}


@pytest.mark.parametrize("change, said", [
    (("CLOCKS", {"auto": 0, "events": 1, "wall": 2, "submit": 3, "device": 4}), "perf_clock is"),
    (("OUTCOMES", ["PASS", "FAIL", "SKIP", "INCONCLUSIVE", "ERROR"]), "perf_outcome is"),
    (("LINE_KINDS", ["DETAIL", "VERBOSE", "INFO", "NOTICE", "RECORD"]), "perf_line_kind is"),
    (("ABI", 99), "the package mirrors 99"),
])
def test_a_mirror_that_drifted_is_named(monkeypatch, change, said):
    lib = _lib.load()
    monkeypatch.setattr(_lib, *change)
    bad = _lib.abi_mismatches(lib)
    assert any(said in b for b in bad), bad


def test_a_struct_that_drifted_is_named(monkeypatch):
    class Short(ctypes.Structure):
        _fields_ = [(n, t) for n, t in _lib.Workload._fields_ if n != "arg"]
    lib = _lib.load()
    size = ctypes.sizeof(_lib.Workload)
    monkeypatch.setattr(_lib, "Workload", Short)
    bad = _lib.abi_mismatches(lib)
    assert f"perf_workload is {size} bytes, the package's {ctypes.sizeof(Short)}" in bad, bad
    assert any("members" in b for b in bad), bad
