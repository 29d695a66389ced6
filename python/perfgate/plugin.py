"""The pytest plugin: the `perf` fixture, claims reported as test outcomes, and --perf-json."""
import math
import os
import sys
import time
import warnings

import pytest

from ._lib import LibraryNotFound
from .core import (Perf, PerfError, Skipped, WideBaselines, check_baselines, update_limits,
                   update_runs, wants_more, write_baselines, write_report)


class PerfWarning(UserWarning):
    """A perfgate check that could not be made (no baseline entry)."""


def pytest_addoption(parser):
    g = parser.getgroup("perfgate")
    g.addoption("--perf-budget", default="2", metavar="SECONDS",
                help="perfgate: sampling time per claim before it is INCONCLUSIVE (default 2)")
    g.addoption("--perf-seed", type=int, default=1, metavar="N", help="perfgate: bootstrap seed")
    g.addoption("--perf-baseline-dir", default="baselines", metavar="DIR",
                help="perfgate: where per-GPU baseline files live (default baselines)")
    g.addoption("--perf-update-baselines", action="store_true", default=False,
                help="perfgate: run each perf test as many times as perftest "
                     "--update-baselines runs the suite (5), then again the tests whose entries "
                     "have not settled, and merge every measured workload "
                     "into this machine's baseline file; "
                     "nothing is written when a test failed")
    g.addoption("--perf-update-runs", default=None, metavar="N",
                help="perfgate: with --perf-update-baselines, the most runs an entry takes "
                     "(5..16, default perftest --update-runs' 12)")
    g.addoption("--perf-update-budget", default=None, metavar="SECONDS",
                help="perfgate: with --perf-update-baselines, the most time the runs past the "
                     "first 5 take (default perftest --update-budget's 600)")
    g.addoption("--perf-accept-wide", action="store_true", default=False,
                help="perfgate: with --perf-update-baselines, also write entries whose runs "
                     "allow a tolerance over 50 %% (as perftest --accept-wide)")
    g.addoption("--perf-strict-baselines", action="store_true", default=False,
                help="perfgate: fail a perf.expect_baseline that has no entry to compare with")
    g.addoption("--perf-json", default=None, metavar="FILE",
                help="perfgate: write every perf test's claims as perftest --json writes its "
                     "report (perftest --html=PAGE --merge=OUT FILE draws it)")


def _budget(text):
    try:
        b = float(text)
    except ValueError:
        b = math.nan
    if not (math.isfinite(b) and b > 0):
        raise pytest.UsageError(f"--perf-budget must be a number of seconds above 0, got {text!r}")
    return b


def _update_limits(config):
    """--perf-update-runs and --perf-update-budget, or perftest's defaults;
    a usage error names a bad one."""
    runs, budget = update_limits()
    text = config.getoption("--perf-update-runs")
    if text is not None:
        try:
            runs = int(text)
        except ValueError:
            runs = -1
        if not update_runs() <= runs <= 16:
            raise pytest.UsageError(f"--perf-update-runs must be a whole number from "
                                    f"{update_runs()} to 16, got {text!r}")
    text = config.getoption("--perf-update-budget")
    if text is not None:
        try:
            budget = float(text)
        except ValueError:
            budget = math.nan
        if not (math.isfinite(budget) and budget >= 0):
            raise pytest.UsageError(f"--perf-update-budget must be a number of seconds, 0 or "
                                    f"more, got {text!r}")
    return runs, budget


def pytest_configure(config):
    config.addinivalue_line("markers", "perf_sync: a test that runs perfgate's host-sync checks "
                            "(CUPTI); the plugin runs such tests after all others")
    config._perfgate_budget = _budget(config.getoption("--perf-budget"))
    path = config.getoption("--perf-json")
    if path is not None:
        d = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(d) or not os.access(d, os.W_OK):
            raise pytest.UsageError(f"--perf-json={path}: cannot write in {d} "
                                    f"({'no such directory' if not os.path.isdir(d) else 'not writable'})")
    config._perfgate_records = []
    config._perfgate_started = time.time()
    config._perfgate_run = 0
    config._perfgate_measured = []  # (run, line) with --perf-update-baselines
    config._perfgate_failed = []


def pytest_collection_modifyitems(session, config, items):
    """Tests marked perf_sync (host-sync checks, which attach CUPTI) run after
    all others: timing claims never run in a process after a sync check."""
    items.sort(key=lambda item: item.get_closest_marker("perf_sync") is not None)


def _baseline_dir(config):
    """--perf-baseline-dir, under the root directory when relative."""
    return os.path.join(str(config.rootpath), config.getoption("--perf-baseline-dir"))


@pytest.fixture
def perf(request):
    """A perfgate test for this pytest test: perf.expect_faster(a, b, 1.5),
    perf.expect_similar(a, b, 0.05), perf.assert_*, perf.expect_baseline(a),
    perf.no_sync_in(fn), perf.expect_syncs(fn, n). A claim that does not
    hold fails the test with its verdict line."""
    cfg = request.config
    p = Perf(request.node.nodeid, budget=cfg._perfgate_budget,
             seed=cfg.getoption("--perf-seed"),
             baseline_dir=_baseline_dir(cfg),
             update_baselines=cfg.getoption("--perf-update-baselines"))
    request.node._perfgate = p
    started = time.time()
    try:
        yield p
    finally:
        p.close()
        rec = p.record()
        rec["outcome"] = getattr(request.node, "_perfgate_outcome", rec["outcome"])
        rec["seconds"] = time.time() - started
        if getattr(request.node, "_perfgate_reason", None):
            rec["reason"] = request.node._perfgate_reason
        if cfg._perfgate_run == _last_run(cfg):
            cfg._perfgate_records.append(rec)
        cfg._perfgate_measured.extend((cfg._perfgate_run, t) for t in p.measurements)


def _claims_failed(item, p):
    """The failure a perf test ends with, beyond its own exception: claims
    that did not hold, a missing baseline entry under --perf-strict-baselines,
    or a test that checked nothing."""
    if p.failures:
        return "\n".join(p.failures)
    if p.missing_baselines and item.config.getoption("--perf-strict-baselines"):
        return "\n".join(p.missing_baselines) + "\n(--perf-strict-baselines)"
    if not p.claims and not p.missing_baselines and p.error is None:
        return ("perfgate: the test checked nothing: it took the perf fixture but no "
                "perf.expect_*, perf.assert_*, no_sync_in or expect_syncs ran")
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    __tracebackhide__ = True
    p = getattr(item, "_perfgate", None)
    try:
        result = yield
    except Skipped as e:
        if p is not None and p.failures:
            raise AssertionError("\n".join(p.failures)) from None
        raise pytest.skip.Exception(f"perfgate: {e}", _use_item_location=True) from None
    except BaseException as e:
        if p is not None and p.failures and isinstance(e, Exception) and hasattr(e, "add_note"):
            e.add_note("perfgate: claims of this test that did not hold before it raised:\n" +
                       "\n".join(p.failures))
        raise
    if p is not None:
        for m in p.missing_baselines:
            warnings.warn(PerfWarning(f"{m} (record it: pytest --perf-update-baselines)"))
        failed = _claims_failed(item, p)
        if failed:
            raise AssertionError(failed)
        # The core's end of the test: a CUDA error after the last claim, a
        # region left early. It is this test's, not the next one's.
        outcome, reason = p.close()
        if outcome in ("FAIL", "ERROR"):
            raise AssertionError(f"perfgate: {reason or outcome}")
    return result


def _last_run(cfg):
    """The run whose records the report keeps: the last of an update's."""
    return update_runs() - 1 if cfg.getoption("--perf-update-baselines") else 0


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session):
    """--perf-update-baselines: the whole selection runs update_runs() times
    (runs 0, 1, ...), as perftest --update-baselines runs the suite, so that
    each entry's spread is that of separate runs, not of back-to-back
    repeats."""
    config = session.config
    if not config.getoption("--perf-update-baselines") or session.testsfailed or \
            config.option.collectonly:
        return None
    # a malformed baseline file would end every perf test of every run as an
    # error, after measuring (perftest --update-baselines refuses it first too)
    try:
        check_baselines(_baseline_dir(config), "--perf-update-baselines")
    except PerfError as e:
        raise pytest.UsageError(f"{e}\nperfgate: --perf-update-baselines: nothing was run; fix or "
                                f"remove that file") from None
    most, budget = _update_limits(config)
    items, extra_from = session.items, None
    for run in range(most):
        if run >= update_runs():
            extra_from = extra_from or time.monotonic()
            items = _unsettled(config, session.items, run, most, extra_from, budget)
            if not items:
                break
        config._perfgate_run = run
        for i, item in enumerate(items):
            if run and hasattr(item, "_initrequest"):
                item._initrequest()  # fresh fixture values for the new pass
            nextitem = items[i + 1] if i + 1 < len(items) else None
            item.config.hook.pytest_runtest_protocol(item=item, nextitem=nextitem)
            if session.shouldfail or session.shouldstop:
                raise session.Failed(session.shouldfail) if session.shouldfail else \
                    session.Interrupted(session.shouldstop)
    config._perfgate_run = 0
    return True


def _unsettled(config, items, run, most, since, budget):
    """The perf tests of items that run again as run `run` (the C core's rule:
    an entry of theirs has not settled), each said on the terminal; none once
    the runs past the first 5 have taken budget seconds since `since` (said
    too)."""
    out = config.get_terminal_writer()
    again = [(item, wants_more(config._perfgate_measured, item.nodeid, run, most))
             for item in items if _is_perf_test(item)]
    again = [(item, why) for item, why in again if why]
    if again and time.monotonic() - since > budget:
        out.line(f"perfgate: --perf-update-baselines: {len(again)} perf test(s) not run again: the "
                 f"runs past the first {update_runs()} took over {budget:g} s "
                 f"(--perf-update-budget); their entries are judged from {run} runs")
        return []
    for item, why in again:
        out.line(f"perfgate: run {run + 1} of at most {most}: {item.nodeid} again ({why})")
    return [item for item, _ in again]


def _is_perf_test(item):
    """A test perfgate reports: one that takes the perf fixture (or stands
    for a file of such tests, as perftests/torch's placeholders do)."""
    return "perf" in getattr(item, "fixturenames", ())


def _skipped_before_perf(item, report):
    """The record of a perf test skipped before its perf fixture ran (a skip
    mark, a skip in an earlier fixture): SKIP with pytest's reason, as the C
    runner reports a skipped test."""
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    reason = reason[len("Skipped: "):] if reason.startswith("Skipped: ") else reason
    return {"name": item.nodeid, "outcome": "SKIP", "reason": reason, "claims": [],
            "lines": [], "seconds": report.duration}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    p = getattr(item, "_perfgate", None)
    cfg = item.config
    if call.when == "setup" and report.skipped and p is None and _is_perf_test(item) and \
            cfg._perfgate_run == _last_run(cfg):
        cfg._perfgate_records.append(_skipped_before_perf(item, report))
    if call.when == "call" and p is not None:
        error = call.excinfo is not None and call.excinfo.errisinstance(PerfError)
        inconclusive = any(c.get("outcome") == "INCONCLUSIVE" for c in p.claims) and \
            not any(c.get("outcome") == "FAIL" for c in p.claims)
        item._perfgate_outcome = ("PASS" if report.passed else "SKIP" if report.skipped
                                  else "ERROR" if error else
                                  "INCONCLUSIVE" if inconclusive else "FAIL")
        item._perfgate_reason = (str(call.excinfo.value).split("\n")[0][:500]
                                 if call.excinfo is not None and not report.passed else None)
        if report.failed and item.config.getoption("--perf-update-baselines"):
            item.config._perfgate_failed.append(item.nodeid)
        verdicts = [t for k, t in p.lines if k == 0]
        if verdicts:
            report.sections.append(("perfgate verdicts", "\n".join(verdicts)))
    return report


def _write_document(config, records, exit_code, path):
    """--perf-json: the run's perf tests in the document perftest --json
    writes, by the C core's writer (the schema, totals, exit code and host
    fingerprint are its own)."""
    argv = [sys.executable, "-m", "pytest"] + list(config.invocation_params.args)
    write_report(path, records, argv, {"pytest_exit_code": int(exit_code)},
                 config._perfgate_started)


def _update_baselines(session):
    config = session.config
    out = config.get_terminal_writer()
    out.line()
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
        os.makedirs(_baseline_dir(config), exist_ok=True)
        write_baselines(config._perfgate_measured, config.getoption("--perf-accept-wide"))
    except WideBaselines as e:
        out.line(f"{e}; see the table above (--perf-accept-wide writes them)", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    except (PerfError, OSError) as e:
        out.line(f"perfgate: baselines not written: {e}", red=True)
        session.exitstatus = pytest.ExitCode.USAGE_ERROR


def pytest_sessionfinish(session, exitstatus):
    config = session.config
    if hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    if exitstatus not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED):
        return  # interrupted, or nothing ran: nothing to write
    if config.getoption("--perf-update-baselines"):
        _update_baselines(session)
    path = config.getoption("--perf-json")
    if not path:
        return
    try:
        _write_document(config, config._perfgate_records, session.exitstatus, path)
    except (PerfError, OSError, LibraryNotFound) as e:
        session.config.get_terminal_writer().line(f"perfgate: cannot write --perf-json={path}: {e}",
                                                  red=True)
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
