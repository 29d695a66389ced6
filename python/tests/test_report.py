"""The --perf-json document through the C core's writer (core.write_report): the run's members,
and what it refuses, with the reason, leaving the file as it was."""
import json
import time

import pytest

from perfgate.core import PerfError, write_report


def test_write_report_writes_the_tests_as_given(tmp_path):
    out = tmp_path / "r.json"
    tests = [{"name": "t::ü 中", "outcome": "SKIP", "reason": "no GPU", "claims": [], "lines": [],
              "seconds": 0.5}]
    write_report(out, tests, ["python3", "-m", "pytest"], {"pytest_exit_code": 0}, time.time() - 1)
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["tests"] == tests
    assert doc["totals"] == {**doc["totals"], "tests": 1, "passed": 0, "failed": 0, "skipped": 1}
    assert 0.5 < doc["totals"]["seconds"] < 600
    assert doc["run"]["exit_code"] == 0 and doc["run"]["pytest_exit_code"] == 0


@pytest.mark.parametrize("tests,run,says", [
    ([{"name": "x", "outcome": "GREAT"}], {}, "test x has the unknown outcome 'GREAT'"),
    ([{"name": "x", "outcome": "PASS", "seconds": float("nan")}], {}, "tests_json is not a JSON array"),
    ([], {"exit_code": 3}, "run_json's member \"exit_code\" is one perfgate writes"),
])
def test_write_report_refuses_what_is_not_a_report(tmp_path, tests, run, says):
    out = tmp_path / "r.json"
    out.write_text("old\n")
    with pytest.raises(PerfError, match=says):
        write_report(out, tests, [], run, time.time())
    assert out.read_text() == "old\n"


def test_write_report_names_a_path_it_cannot_write(tmp_path):
    with pytest.raises(PerfError) as e:
        write_report(tmp_path / "gone" / "r.json", [], [], {}, time.time())
    assert str(e.value)
    assert not (tmp_path / "gone").exists()
