"""The pytest plugin: the `perf` fixture, claims reported as test outcomes, and --perf-json."""
import json
import os
import platform
import sys
import time

import pytest

from .core import Perf, PerfError, Skipped, write_baselines


def pytest_addoption(parser):
    g = parser.getgroup("perfgate")
    g.addoption("--perf-budget", type=float, default=2.0, metavar="SECONDS",
                help="perfgate: sampling time per claim before it is INCONCLUSIVE (default 2)")
    g.addoption("--perf-seed", type=int, default=1, metavar="N", help="perfgate: bootstrap seed")
    g.addoption("--perf-baseline-dir", default="baselines", metavar="DIR",
                help="perfgate: where per-GPU baseline files live (default baselines)")
    g.addoption("--perf-update-baselines", action="store_true", default=False,
                help="perfgate: run each perf test 3 times and merge every measured workload "
                     "into this machine's baseline file (as perftest --update-baselines); "
                     "nothing is written when a test failed")
    g.addoption("--perf-json", default=None, metavar="FILE",
                help="perfgate: write every perf test's claims as a perfgate-report/1 document "
                     "(perftest --merge=OUT FILE --html=PAGE draws it)")


def pytest_configure(config):
    config.addinivalue_line("markers", "perf_sync: a test that runs perfgate's host-sync checks "
                            "(CUPTI); select or deselect with -m")
    if config.getoption("--perf-budget") <= 0:
        raise pytest.UsageError("--perf-budget must be a number of seconds above 0")
    config._perfgate_records = []
    config._perfgate_started = time.time()
    config._perfgate_run = 0
    config._perfgate_measured = []  # (run, line) with --perf-update-baselines
    config._perfgate_failed = []


def pytest_collection_modifyitems(session, config, items):
    """Tests marked perf_sync (host-sync checks, which attach CUPTI) run after
    all others: timing claims never run in a process after a sync check."""
    items.sort(key=lambda item: item.get_closest_marker("perf_sync") is not None)


@pytest.fixture
def perf(request):
    """A perfgate test for this pytest test: perf.expect_faster(a, b, 1.5),
    perf.expect_similar(a, b, 0.05), perf.assert_*, perf.expect_baseline(a).
    A claim that does not hold fails the test with its verdict line."""
    cfg = request.config
    p = Perf(request.node.nodeid, budget=cfg.getoption("--perf-budget"),
             seed=cfg.getoption("--perf-seed"), baseline_dir=cfg.getoption("--perf-baseline-dir"),
             update_baselines=cfg.getoption("--perf-update-baselines"))
    request.node._perfgate = p
    try:
        yield p
    finally:
        p.close()
        rec = p.record()
        rec["outcome"] = getattr(request.node, "_perfgate_outcome", rec["outcome"])
        cfg._perfgate_records.append(rec)
        cfg._perfgate_measured.extend((cfg._perfgate_run, t) for t in p.measurements)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    try:
        result = yield
    except Skipped as e:
        pytest.skip(f"perfgate: {e}")
    p = getattr(item, "_perfgate", None)
    if p is not None and p.failures:
        raise AssertionError("\n".join(p.failures))
    return result


def pytest_runtest_protocol(item, nextitem):
    """--perf-update-baselines: each test that uses perf runs 3 times (runs 0,
    1, 2), as perftest --update-baselines runs the suite."""
    config = item.config
    if not config.getoption("--perf-update-baselines") or "perf" not in getattr(item, "fixturenames", ()):
        return None
    from _pytest.runner import runtestprotocol
    item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
    for run in range(3):
        config._perfgate_run = run
        if run and hasattr(item, "_initrequest"):
            item._initrequest()  # fresh fixtures for the repeat
        # Each run sets its fixtures up and tears them down (nextitem None).
        reports = runtestprotocol(item, nextitem=nextitem if run == 2 else None, log=True)
        if any(r.failed for r in reports):
            config._perfgate_failed.append(item.nodeid)
    item.ihook.pytest_runtest_logfinish(nodeid=item.nodeid, location=item.location)
    config._perfgate_run = 0
    return True


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "call" and hasattr(item, "_perfgate"):
        error = call.excinfo is not None and call.excinfo.errisinstance(PerfError)
        item._perfgate_outcome = ("PASS" if report.passed else "SKIP" if report.skipped
                                  else "ERROR" if error else "FAIL")
    return report


def _document(config, records, exit_code):
    tally = {w: sum(1 for r in records if r["outcome"] == w)
             for w in ("PASS", "FAIL", "SKIP", "ERROR", "INCONCLUSIVE")}
    failed = tally["FAIL"] + tally["ERROR"] + tally["INCONCLUSIVE"]
    return {
        "schema": "perfgate-report/1",
        "run": {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(config._perfgate_started)),
                "exit_code": 1 if failed else 0, "argv": [sys.executable, "-m", "pytest"] + list(config.invocation_params.args),
                "shard": {"index": 0, "total": 1}, "pytest_exit_code": int(exit_code)},
        "totals": {"tests": len(records), "passed": tally["PASS"], "failed": failed,
                   "skipped": tally["SKIP"], "seconds": time.time() - config._perfgate_started},
        "fingerprint": {"host": {"name": platform.processor() or platform.machine(),
                                 "cpus": str(os.cpu_count())}, "gpu": None},
        "tests": records,
    }


def _update_baselines(session):
    config = session.config
    out = config.get_terminal_writer()
    if config._perfgate_failed:
        out.line(f"perfgate: baselines not written: {len(set(config._perfgate_failed))} perf test(s) "
                 f"failed ({config._perfgate_failed[0]}, ...)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    if not config._perfgate_measured:
        out.line("perfgate: baselines not written: no perf test measured anything", red=True)
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
        return
    try:
        write_baselines(config._perfgate_measured)
    except PerfError as e:
        out.line(str(e), red=True)
        session.exitstatus = pytest.ExitCode.USAGE_ERROR


def pytest_sessionfinish(session, exitstatus):
    if session.config.getoption("--perf-update-baselines"):
        _update_baselines(session)
    path = session.config.getoption("--perf-json")
    if not path:
        return
    doc = _document(session.config, session.config._perfgate_records, exitstatus)
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
