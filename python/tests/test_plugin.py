"""The perfgate pytest plugin on host-only workloads (no GPU, no torch): claims, their
failures as test failures, bad input refused by name, --perf-json, and a skip without a GPU.
Each case runs an inner pytest session (pytester) with the plugin loaded."""
import json
import os
import re
import subprocess

import pytest

from perfgate.core import update_runs

WORK = '''
def work(n):
    s = 0
    for i in range(n):
        s += i
    return s
'''

ARGS = ["-p", "perfgate.plugin", "--perf-budget=0.3"]


def run(pytester, body, *extra):
    pytester.makepyfile(test_inner=WORK + body)
    return pytester.runpytest_subprocess(*ARGS, *extra)


def test_a_claim_that_holds_passes(pytester):
    r = run(pytester, '''
def test_it(perf):
    assert perf.expect_faster(lambda: work(100), lambda: work(800), 2) is True
''')
    r.assert_outcomes(passed=1)


def test_a_claim_that_fails_fails_the_test_with_its_verdict_line(pytester):
    r = run(pytester, '''
def test_it(perf):
    held = perf.expect_faster(lambda: work(200), lambda: work(400), 8)
    assert held is False
    print("went on after the expect")
''', "-s")
    r.assert_outcomes(failed=1)
    out = r.stdout.str()
    assert "went on after the expect" in out
    assert "AssertionError: FASTER(a, b, 8) at test_inner.py:" in out
    assert "needs >= 8.000x" in out and "wall clock" in out


def test_assert_forms_stop_the_test(pytester):
    r = run(pytester, '''
def test_it(perf):
    perf.assert_similar(lambda: work(100), lambda: work(900), 0.05)
    raise RuntimeError("not reached")
''')
    r.assert_outcomes(failed=1)
    out = r.stdout.str()
    assert "SIMILAR(a, b, 0.05) at test_inner.py:" in out and "not reached" not in out


def test_workload_names_and_lines(pytester):
    r = run(pytester, '''
def slow():
    work(900)

def test_it(perf):
    fast = perf.workload(lambda: work(100), name="fast")
    perf.expect_faster(fast, slow, 50)
''')
    r.assert_outcomes(failed=1)
    assert "FASTER(fast, slow, 50) at test_inner.py:12: " in r.stdout.str()


@pytest.mark.parametrize("call,message", [
    ("perf.expect_faster(f, f, -1)", "the factor must be a positive number"),
    ("perf.expect_faster(f, f, 'x')", "factor must be a number, got 'x'"),
    ("perf.expect_similar(f, f, float('nan'))", "tolerance"),
    ("perf.expect_faster(f, 3, 2)", "a workload must be callable, got int"),
    ("perf.workload(f, clock='sundial')", "unknown clock 'sundial'"),
    ("perf.workload(f, flops=1e6)", "flops needs its flop_type"),
    ("perf.workload(f, flops=1e6, flop_type='fp4')", "unknown flop_type 'fp4'"),
    ("perf.workload(f, bytes_read=-1)", "bytes_read must be a number >= 0, got -1"),
    ("perf.expect_bandwidth(f, 0.8)", "declares no .bytes_read or .bytes_written"),
])
def test_bad_input_is_refused_by_name(pytester, call, message):
    r = run(pytester, f'''
def f():
    work(10)

def test_it(perf):
    {call}
''')
    r.assert_outcomes(failed=1)
    assert message in r.stdout.str()


def test_declared_work_gives_its_rate_in_the_record(pytester, tmp_path):
    out = tmp_path / "r.json"
    r = run(pytester, '''
def test_it(perf):
    a = perf.workload(lambda: work(100), name="a", bytes_read=4096, flops=100, flop_type="fp64")
    perf.expect_faster(a, lambda: work(800), 2)
''', f"--perf-json={out}")
    assert r.ret in (0, 1)  # a loaded runner may leave the claim undecided
    doc = json.loads(out.read_text())
    w = doc["tests"][0]["claims"][0]["a"]["work"]
    assert (w["bytes_read"], w["flops"], w["flop_type"]) == (4096, 100, "fp64")
    assert len(w["bytes_per_s"]) == 3 and w["bytes_per_s"][0] > 0
    assert "work" not in doc["tests"][0]["claims"][0]["b"]


def test_a_workload_that_raises_decides_nothing(pytester, tmp_path):
    out = tmp_path / "r.json"
    r = run(pytester, '''
def boom():
    raise ValueError("broken workload")

def test_it(perf):
    perf.expect_faster(boom, lambda: work(10), 2)
''', f"--perf-json={out}")
    r.assert_outcomes(failed=1)
    s = r.stdout.str()
    assert "workload boom raised ValueError: broken workload" in s and "was not decided" in s
    doc = json.loads(out.read_text())
    assert doc["tests"][0]["outcome"] == "ERROR" and doc["tests"][0]["claims"] == []


def test_perf_json_records_a_perf_test_skipped_before_it_ran(pytester, tmp_path):
    """A perf test skipped by a mark (or in an earlier fixture) is in the
    report as SKIP with pytest's reason, as the C runner reports a skip; a
    test without the perf fixture is not."""
    out = tmp_path / "r.json"
    r = run(pytester, '''
import pytest

from perfgate.core import update_runs

@pytest.mark.skip(reason="needs two GPUs")
def test_marked(perf):
    perf.expect_faster(lambda: work(100), lambda: work(800), 2)

@pytest.fixture
def gone():
    pytest.skip("the fixture found nothing")

def test_in_fixture(gone, perf):
    pass

@pytest.mark.skip(reason="not perfgate's")
def test_plain():
    pass
''', f"--perf-json={out}")
    r.assert_outcomes(skipped=3)
    doc = json.loads(out.read_text())
    got = [(t["name"].split("::")[-1], t["outcome"], t["reason"]) for t in doc["tests"]]
    assert got == [("test_marked", "SKIP", "needs two GPUs"),
                   ("test_in_fixture", "SKIP", "the fixture found nothing")], got
    assert doc["totals"] == {**doc["totals"], "tests": 2, "skipped": 2, "failed": 0}


def test_perf_json_is_a_perfgate_report(pytester, tmp_path):
    out = tmp_path / "r.json"
    r = run(pytester, '''
def test_holds(perf):
    perf.expect_faster(lambda: work(100), lambda: work(800), 2)

def test_fails(perf):
    perf.expect_similar(lambda: work(100), lambda: work(800), 0.1)

def test_plain():
    pass
''', f"--perf-json={out}")
    r.assert_outcomes(passed=2, failed=1)
    doc = json.loads(out.read_text())
    assert doc["schema"] == "perfgate-report/1"
    assert [t["outcome"] for t in doc["tests"]] == ["PASS", "FAIL"]
    assert doc["totals"] == {**doc["totals"], "tests": 2, "passed": 1, "failed": 1}
    claim = doc["tests"][0]["claims"][0]
    assert claim["kind"] == "FASTER" and claim["clock"] == "wall" and claim["ratio"] > 2
    assert len(claim["a"]["samples_s"]) >= 8
    # the C core wrote it: the run's own members, this host's fingerprint
    assert doc["run"]["exit_code"] == 1 and doc["run"]["pytest_exit_code"] == 1
    assert doc["run"]["argv"][1:3] == ["-m", "pytest"] and doc["run"]["shard"] == {"index": 0, "total": 1}
    assert doc["preflight"] == [] and doc["fingerprint"]["gpu"] is None
    assert list(doc["fingerprint"]["host"]) == ["name", "cpus", "memory_gib"]
    perftest = os.environ.get("PERFGATE_PERFTEST")
    if perftest:  # the C runner reads it: merged, drawn
        page = tmp_path / "r.html"
        p = subprocess.run([perftest, f"--html={page}", f"--merge={tmp_path / 'm.json'}", str(out)],
                           capture_output=True, text=True)
        assert p.returncode == 1, p.stderr  # the run had a failure
        assert "FASTER(a, b, 2)" in page.read_text()


def test_perf_json_is_the_c_runners_document(pytester, tmp_path):
    """The plugin's document and perftest --json's come from one writer: the
    same schema, members and host fingerprint."""
    perftest = os.environ.get("PERFGATE_PERFTEST")
    if not perftest:
        pytest.skip("PERFGATE_PERFTEST (the fixture perftest) is not set")
    out, theirs = tmp_path / "r.json", tmp_path / "c.json"
    run(pytester, '''
def test_holds(perf):
    perf.expect_faster(lambda: work(100), lambda: work(800), 2)
''', f"--perf-json={out}").assert_outcomes(passed=1)
    p = subprocess.run([perftest, "--filter=host.truth", f"--json={theirs}"], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    mine, c = json.loads(out.read_text()), json.loads(theirs.read_text())
    assert mine["schema"] == c["schema"]
    assert list(mine) == list(c)
    assert mine["fingerprint"]["host"] == c["fingerprint"]["host"]
    assert list(mine["totals"]) == list(c["totals"])
    assert mine["run"]["perfgate"] == c["run"]["perfgate"]


def test_bad_plugin_option_is_a_usage_error(pytester):
    pytester.makepyfile(test_inner="def test_x(): pass\n")
    r = pytester.runpytest_subprocess("-p", "perfgate.plugin", "--perf-budget=0")
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert "--perf-budget must be a number of seconds above 0" in r.stderr.str()


def test_gpu_clock_without_a_gpu_skips_with_the_reason(pytester):
    r = run(pytester, '''
def test_it(perf):
    w = perf.workload(lambda: None, clock="events")
    perf.expect_similar(w, w, 0.5)
''', "-rs")
    out = r.stdout.str()
    if "1 passed" in out:  # a GPU is here: the claim ran
        return
    r.assert_outcomes(skipped=1)
    assert "perfgate:" in out and "no CUDA device" in out


def test_library_not_found_names_where_it_looked(pytester, monkeypatch):
    monkeypatch.setenv("PERFGATE_LIB", "/nonexistent/libperfgate.so")
    r = run(pytester, '''
def test_it(perf):
    pass
''')
    r.assert_outcomes(errors=1)
    assert "libperfgate.so not found: /nonexistent/libperfgate.so (no such file)" in r.stdout.str()


def test_sync_checks_without_a_gpu_skip_with_the_reason(pytester):
    r = run(pytester, '''
def test_fn(perf):
    perf.no_sync_in(lambda: work(10))

def test_region(perf):
    with perf.no_sync_in("step"):
        work(10)

def test_count(perf):
    perf.expect_syncs(lambda: work(10), 0)
''', "-rs")
    out = r.stdout.str()
    if "3 passed" in out:  # a GPU is here: host code makes no host sync
        return
    r.assert_outcomes(skipped=3)
    assert "no CUDA device" in out


def test_same_work_without_a_gpu_skips_and_with_one_needs_a_kernel(pytester):
    """perf.expect_same_work counts a call's GPU work: without a GPU the test
    is skipped saying why; with one, a workload that runs no kernel ends the
    test as an error naming the rule."""
    r = run(pytester, '''
def test_it(perf):
    perf.expect_same_work(perf.workload(lambda: work(10), name="host"))
''', "-rs")
    out = r.stdout.str()
    if "no CUDA device" not in out:  # a GPU is here
        if "counters cannot be read here" in out:  # a vGPU, MIG, admin-only counters
            return
        r.assert_outcomes(failed=1)
        assert "ran no GPU instruction" in out
        return
    r.assert_outcomes(skipped=1)
    assert "perfgate:" in out


def test_sync_count_must_be_a_count(pytester):
    r = run(pytester, '''
def test_it(perf):
    perf.expect_syncs(lambda: None, -1)
''')
    r.assert_outcomes(failed=1)
    assert "the count of host syncs must be an int >= 0, got -1" in r.stdout.str()


def test_perf_sync_tests_run_after_the_others(pytester):
    pytester.makepyfile(test_inner='''
import pytest

from perfgate.core import update_runs

@pytest.mark.perf_sync
def test_a_sync_check():
    pass

def test_timing():
    pass
''')
    r = pytester.runpytest_subprocess("-p", "perfgate.plugin", "-v")
    out = r.stdout.str()
    assert out.index("test_timing") < out.index("test_a_sync_check")


def test_update_baselines_then_expect_baseline(pytester, tmp_path, monkeypatch):
    base = tmp_path / "baselines"
    base.mkdir()
    body = '''
import os

def test_it(perf):
    perf.expect_baseline(perf.workload(lambda: work(int(os.environ.get("N", "300"))), name="w"))
'''
    r = run(pytester, body, f"--perf-baseline-dir={base}", "--perf-update-baselines", "--perf-accept-wide")
    assert r.ret == 0, r.stdout.str()
    files = list(base.glob("*.yaml"))
    assert len(files) == 1 and "test_inner.py::test_it" in files[0].read_text()
    # as many runs as perftest --update-baselines takes (5, and more while its
    # entry has not settled: at most 12), each clean run's median kept (one
    # may be left out as unlike the others: the table names it)
    runs = re.search(r"runs_s: \[([^\]]*)\]", files[0].read_text())
    assert update_runs() == 5
    assert runs and 4 <= len(runs.group(1).split(",")) <= 12, files[0].read_text()
    row = re.search(r"; runs ([^;]*);", r.stdout.str())
    assert row and row.group(1).count(" us") + row.group(1).count(" ms") == 5, r.stdout.str()
    # (the same work again may pass or, on a busy machine, not: 5 % tolerance)
    monkeypatch.setenv("N", "3000")  # 10x the work: slower than its entry, always
    r = run(pytester, body, f"--perf-baseline-dir={base}")
    r.assert_outcomes(failed=1)
    assert "BASELINE(w) at test_inner.py:" in r.stdout.str()


def test_update_runs_again_the_tests_whose_entries_have_not_settled(pytester, tmp_path):
    """--perf-update-baselines runs a test again while an entry of it has not
    settled (the C core's rule, as perftest --update-baselines): its fifth
    pass 20x slower is a run left out, or one of runs that disagree, and
    either asks for more runs (up to 16 runs two may be left out); the
    table says how many runs the entry took. --perf-update-runs bounds the
    runs, and a bad one is a usage error."""
    base = tmp_path / "baselines"
    base.mkdir()
    count = tmp_path / "passes"
    body = f'''
import pathlib

def test_odd(perf):
    p = pathlib.Path({str(count)!r})
    k = int(p.read_text()) if p.exists() else 0
    p.write_text(str(k + 1))
    perf.expect_baseline(perf.workload(lambda: work(400000 if k == 4 else 20000), name="w"))
'''
    r = run(pytester, body, f"--perf-baseline-dir={base}", "--perf-update-baselines",
            "--perf-accept-wide", "--perf-update-runs=16", "--perf-update-budget=60")
    out = r.stdout.str()
    assert "perfgate: run 6 of at most 16: test_inner.py::test_odd again (w: " in out, out
    passes = int(count.read_text())
    assert 6 <= passes <= 16, out
    row = re.search(r"test_inner.py::test_odd .* wall +(\d+) ", out)
    assert row and int(row.group(1)) == passes, out  # the runs the entry took
    r = run(pytester, body, "--perf-update-baselines", "--perf-update-runs=17")
    assert "--perf-update-runs must be a whole number from 5 to 16, got '17'" in r.stderr.str()


@pytest.mark.parametrize("name,text,says", [
    ("x.yaml", "schema: 1\nentries: 7\n", "x.yaml:2:10: expected a list under 'entries'"),
    ("x.yml", "schema: 1\nentries: []\n", "x.yml: not read by a run, which reads only files named "
                                            "'.yaml': rename it to x.yaml"),
])
def test_update_refuses_a_bad_baseline_file_before_running(pytester, tmp_path, name, text, says):
    """A baseline file perftest --update-baselines refuses before it runs
    anything: --perf-update-baselines refuses it up front too (a usage error,
    naming it), where it ran every perf test 5 times, each an error against
    the malformed file; the file is left as it was."""
    base = tmp_path / "baselines"
    base.mkdir()
    bad = base / name
    bad.write_text(text)
    body = '''
def test_it(perf):
    print("RAN test_it")
    perf.expect_baseline(perf.workload(lambda: work(300), name="w"))
'''
    r = run(pytester, body, f"--perf-baseline-dir={base}", "--perf-update-baselines", "-s")
    out = r.stdout.str() + r.stderr.str()
    assert r.ret == pytest.ExitCode.USAGE_ERROR, out
    assert says in out and "--perf-update-baselines: nothing was run; fix or remove that file" in out, out
    assert "RAN test_it" not in out, out
    assert bad.read_text() == text


def test_update_refuses_an_entry_whose_runs_spread_wide(pytester, tmp_path):
    """Runs spread 30 % apart each (run k does 1 + 0.3 k times the work): the
    tolerance they allow is over the ceiling, so the entry is not written and
    the session fails naming it, unless --perf-accept-wide."""
    base = tmp_path / "baselines"
    base.mkdir()
    body = '''
runs = []

def test_it(perf):
    runs.append(1)
    perf.expect_baseline(perf.workload(lambda: work(int(300 * (1 + 0.3 * len(runs)))), name="w"))
'''
    r = run(pytester, body, f"--perf-baseline-dir={base}", "--perf-update-baselines")
    out = r.stdout.str()
    assert r.ret == 1, out
    assert "NOT WRITTEN" in out and "1 entry not written" in out and "test_it / w" in out, out
    assert "--perf-accept-wide writes them" in out, out
    r = run(pytester, body, f"--perf-baseline-dir={base}", "--perf-update-baselines",
            "--perf-accept-wide")
    assert r.ret == 0, r.stdout.str()
    assert "runs_s: [" in next(base.glob("*.yaml")).read_text()


@pytest.mark.parametrize("body,message", [
    ("def g():\n    yield work(10)\n\ndef test_it(perf):\n    perf.expect_similar(g, g, 0.5)\n",
     "workload 'g' is a generator function"),
    ("async def c():\n    work(10)\n\ndef test_it(perf):\n    perf.expect_similar(c, c, 0.5)\n",
     "workload 'c' is a coroutine function"),
    ("def g():\n    yield 1\n\ndef test_it(perf):\n    perf.expect_similar(lambda: g(), lambda: g(), 0.5)\n",
     "raised PerfError: it returned generator object: its work was never run"),
    ("def test_it(perf):\n    perf.expect_similar(perf.workload(lambda: work(10), name='w'),\n"
     "                        perf.workload(lambda: work(20), name='w'), 0.5)\n",
     "two workloads named 'w' in one test"),
    ("def test_it(perf):\n    pass\n", "the test checked nothing"),
])
def test_workloads_that_would_measure_nothing_are_refused(pytester, body, message):
    r = run(pytester, body)
    r.assert_outcomes(failed=1)
    assert message in r.stdout.str()


def test_default_names_stay_apart(pytester, tmp_path):
    out = tmp_path / "r.json"
    r = run(pytester, '''
def test_it(perf):
    perf.expect_faster(lambda: work(100), lambda: work(800), 2)
    perf.expect_faster(lambda: work(200), lambda: work(1600), 2)
''', f"--perf-json={out}")
    claims = json.loads(out.read_text())["tests"][0]["claims"]
    assert [(c["a"]["name"], c["b"]["name"]) for c in claims] == [("a", "b"), ("a2", "b2")]
    # 8x the work against 2x: PASS, or on a runner others load INCONCLUSIVE
    # naming the host on its verdict line; never FAIL.
    undecided = [c for c in claims if c["outcome"] != "PASS"]
    for c in undecided:
        head = c["message"].split(" at ")[0]
        assert c["outcome"] == "INCONCLUSIVE" and any(
            line.startswith(head) and "; the host: " in line for line in r.stdout.lines), r.stdout.str()
    r.assert_outcomes(passed=0 if undecided else 1, failed=1 if undecided else 0)


@pytest.mark.parametrize("opt,message", [
    ("--perf-budget=nan", "--perf-budget must be a number of seconds above 0, got 'nan'"),
    ("--perf-json=/nonexistent-dir/r.json", "--perf-json=/nonexistent-dir/r.json: cannot write in"),
])
def test_bad_options_stop_the_session(pytester, opt, message):
    pytester.makepyfile(test_inner="def test_x(): pass\n")
    r = pytester.runpytest_subprocess("-p", "perfgate.plugin", opt)
    assert r.ret == pytest.ExitCode.USAGE_ERROR
    assert message in r.stderr.str()


def test_a_missing_baseline_warns_and_fails_when_strict(pytester, tmp_path):
    body = '''
def test_it(perf):
    perf.expect_baseline(perf.workload(lambda: work(100), name="w"))
'''
    r = run(pytester, body, f"--perf-baseline-dir={tmp_path}")
    r.assert_outcomes(passed=1, warnings=1)
    assert "no baseline entry" in r.stdout.str() and "--perf-update-baselines" in r.stdout.str()
    r = run(pytester, body, f"--perf-baseline-dir={tmp_path}", "--perf-strict-baselines")
    r.assert_outcomes(failed=1)


def test_claims_cannot_nest(pytester):
    r = run(pytester, '''
def test_it(perf):
    def inner():
        perf.expect_faster(lambda: work(10), lambda: work(40), 2)
    perf.expect_faster(inner, lambda: work(10), 2)
''')
    r.assert_outcomes(failed=1)
    assert "claims cannot nest" in r.stdout.str()


def test_a_skip_inside_a_workload_is_a_skip(pytester):
    r = run(pytester, '''
import pytest

from perfgate.core import update_runs

def test_it(perf):
    def w():
        pytest.skip("not on this machine")
    perf.expect_faster(w, lambda: work(10), 2)
''')
    r.assert_outcomes(skipped=1)
