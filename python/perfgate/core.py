"""One perfgate test in this process: Python callables as workloads, claims judged by the C core."""
import ctypes
import inspect
import json
import math
import os
import sys

from . import _lib


class PerfError(Exception):
    """A claim perfgate refuses to decide (bad input, a workload that raised,
    a test the core ended as ERROR); the message names the problem."""


class Skipped(Exception):
    """The core skipped the test (no CUDA device, and the like)."""


def _where(depth):
    """file:line of the caller depth frames up (the test's own line), the
    file relative to the working directory when it is below it."""
    f = sys._getframe(depth + 1)
    path = f.f_code.co_filename
    rel = os.path.relpath(path) if os.path.isabs(path) else path
    return (rel if not rel.startswith("..") else path), f.f_lineno


_NOT_USER = None


def _not_user_dirs():
    """Directories whose frames are not the user's code: perfgate's own, the
    standard library's and installed packages' (torch, numpy, ...)."""
    global _NOT_USER
    if _NOT_USER is None:
        import sysconfig
        import site
        dirs = {os.path.dirname(os.path.abspath(__file__))}
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            p = sysconfig.get_paths().get(key)
            if p:
                dirs.add(os.path.abspath(p))
        for p in list(getattr(site, "getsitepackages", lambda: [])()) + [site.getusersitepackages()]:
            dirs.add(os.path.abspath(p))
        _NOT_USER = tuple(d + os.sep for d in dirs)
    return _NOT_USER


def user_frame(frame):
    """The innermost frame from frame outwards that is the user's code, or None."""
    skip = _not_user_dirs()
    while frame is not None:
        name = frame.f_code.co_filename
        full = os.path.abspath(name)
        installed = f"{os.sep}site-packages{os.sep}" in full or f"{os.sep}dist-packages{os.sep}" in full
        if not name.startswith("<") and not full.startswith(skip) and not installed:
            return frame
        frame = frame.f_back
    return None


def _where_hook(out, length):
    """perf_embed_where: the Python line that made a CUDA call (runs inside a
    CUPTI callback, on the calling thread)."""
    try:
        f = user_frame(sys._getframe(1))
        if f is None:
            return 1
        path = f.f_code.co_filename
        rel = os.path.relpath(path) if os.path.isabs(path) else path
        text = f"{rel if not rel.startswith('..') else path}:{f.f_lineno} ({f.f_code.co_name})"
        data = text.encode("utf-8", "replace")[: max(0, length - 1)] + b"\0"
        ctypes.memmove(out, data, len(data))
        return 0
    except BaseException:  # nothing may leave a CUPTI callback
        return 1


_WHERE = _lib.WHERE(_where_hook)


class _Region:
    """with perf.no_sync_in("name"): the block runs once with the check attached."""

    def __init__(self, perf, text, file, line):
        self.perf, self.text, self.file, self.line = perf, text, file, line

    def __enter__(self):
        p = self.perf
        # The core keeps these pointers until close: they must outlive it.
        self._text_b, self._file_b = self.text.encode(), self.file.encode()
        got = p._lib.perf_embed_no_sync_open(None, self._text_b, self._file_b, self.line)
        p._nested(got)
        if got < 0:
            p._ended()
        return self

    def __exit__(self, exc_type, exc, tb):
        p = self.perf
        got = p._lib.perf_embed_no_sync_close()
        p._nested(got)
        if got < 0:
            p._ended()
        if got == 0:
            p.failures.append(p._sync_verdict(self._before, f"NO_SYNC_IN at {self.file}:{self.line}"))
        return False


class Workload:
    """A callable as a perfgate workload: one call is one iteration. stream:
    the CUDA stream its GPU work goes to (a torch.cuda.Stream, or a raw
    cudaStream_t as an int); clock: "auto", "events", "wall", "submit",
    "device" or "cold" (auto: events with a stream, wall without).
    bytes_read, bytes_written, flops: what one call moves and computes (0:
    not declared), flop_type: "fp64", "fp32", "tf32", "fp16", "bf16",
    "fp8" or "int8" (needed with flops): the reports then give the
    throughput and its share of the GPU's peaks, as perftest's do."""

    def __init__(self, fn, name=None, stream=None, clock=None, bytes_read=0, bytes_written=0,
                 flops=0, flop_type=None):
        if not callable(fn):
            raise PerfError(f"perfgate: a workload must be callable, got {type(fn).__name__}")
        import inspect
        target = inspect.unwrap(getattr(fn, "func", fn))  # functools.partial too
        for test, what in ((inspect.isgeneratorfunction, "a generator function"),
                           (inspect.iscoroutinefunction, "a coroutine function"),
                           (inspect.isasyncgenfunction, "an async generator function")):
            if test(target):
                raise PerfError(f"perfgate: workload {getattr(fn, '__name__', fn)!r} is {what}: "
                                f"calling it only creates the object and does none of its work")
        if clock is not None and clock not in _lib.CLOCKS:
            raise PerfError(f"perfgate: unknown clock {clock!r}: one of {', '.join(_lib.CLOCKS)}")
        for what, v in (("bytes_read", bytes_read), ("bytes_written", bytes_written),
                        ("flops", flops)):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 \
                    or not math.isfinite(v):
                raise PerfError(f"perfgate: {what} must be a number >= 0, got {v!r}")
        if flop_type is not None and flop_type not in _lib.FLOP_TYPES[1:]:
            raise PerfError(f"perfgate: unknown flop_type {flop_type!r}: one of "
                            f"{', '.join(_lib.FLOP_TYPES[1:])}")
        if flops and flop_type is None:
            raise PerfError("perfgate: flops needs its flop_type (\"fp32\", \"fp16\", ...): the peak "
                            "it is a share of")
        self.work = (float(bytes_read), float(bytes_written), float(flops),
                     _lib.FLOP_TYPES.index(flop_type) if flop_type else 0)
        self.fn = fn
        self.name = name
        self.stream = stream
        self.clock = clock or "auto"
        self.raised = None
        self._c = None
        self._stream_handle()  # a bad stream is refused here, by name

    def _stream_handle(self):
        s = self.stream
        if s is None:
            return None
        handle = getattr(s, "cuda_stream", s)
        if not isinstance(handle, int):
            raise PerfError(f"perfgate: stream must be a torch.cuda.Stream or an int handle, got "
                            f"{type(s).__name__}")
        return handle or None

    def _call(self, _arg):
        if self.raised is not None:
            return
        try:
            r = self.fn()
            if r is not None and (inspect.isgenerator(r) or inspect.isawaitable(r)):
                if inspect.iscoroutine(r):
                    r.close()
                raise PerfError(f"it returned {type(r).__name__} object: its work was never "
                                f"run (a workload must do its work when called)")
        except BaseException as e:  # kept, and raised after the claim
            self.raised = e

    def c_struct(self, default_name):
        """The perf_workload the core samples (built once, kept alive here)."""
        if self._c is None:
            if not self.name:
                n = getattr(self.fn, "__name__", "")
                self.name = n if n and n != "<lambda>" else default_name
            self._fn = _lib.FN(self._call)
            self._name = self.name.encode()
            self._c = _lib.Workload(self._name, self._fn, None, self._stream_handle(),
                                    _lib.CLOCKS[self.clock], *self.work, None, 0)
        return self._c


class Perf:
    """One test: claims are decided as PERF_EXPECT_* decides them in C, with
    the same sampling, verdict lines and records. expect_* return whether a
    claim held and remember a failure (the pytest plugin fails the test
    with its verdict lines); assert_* raise AssertionError at once."""

    def __init__(self, name, budget=2.0, seed=1, baseline_dir=None, verbose=False,
                 update_baselines=False):
        if not (isinstance(budget, (int, float)) and math.isfinite(budget) and budget > 0):
            raise PerfError(f"perfgate: budget must be a number of seconds above 0, got {budget!r}")
        self.name = name
        self.lines = []     # (kind, text) from the core
        self.claims = []    # claim records, as --json writes them
        self.failures = []  # verdict lines of claims that did not hold
        self.measurements = []  # update_baselines: the core's measurement lines
        self.missing_baselines = []  # expect_baseline with no entry to compare with
        self.outcome = None
        self.reason = ""
        self.error = None   # a refusal of perfgate's own (PerfError), the test's reason
        self._lib = _lib.load()
        self._sink = _lib.SINK(self._on_line)
        self._workloads = []
        self._names = {}   # name -> Workload, in this test
        self._by_fn = {}   # id(callable) -> Workload made for it
        self._dir_b = baseline_dir.encode() if baseline_dir else None  # kept: the core keeps it
        opts = _lib.Options(float(budget), int(seed), self._dir_b, int(bool(verbose)),
                            int(bool(update_baselines)))
        if self._lib.perf_embed_begin(name.encode(), ctypes.byref(opts), self._sink, None):
            raise PerfError("perfgate: a perfgate test is already running in this process")
        self._open = True

    def _on_line(self, kind, text, _ctx):
        t = text.decode("utf-8", "replace")
        if kind == _lib.LINE_RECORD:
            self.measurements.append(t)
        elif kind == _lib.LINE_CLAIM:
            try:
                self.claims.append(json.loads(t))
            except ValueError:
                self.lines.append((kind, t))
        else:
            self.lines.append((kind, t))

    def workload(self, fn, name=None, stream=None, clock=None, **work):
        """fn as a Workload (see Workload: work is bytes_read, bytes_written,
        flops, flop_type)."""
        return Workload(fn, name=name, stream=stream, clock=clock, **work)

    def _as_workload(self, w, default):
        """w as a Workload with a name no other workload of this test has
        (baseline entries are keyed by test and name): a callable passed
        again is the same workload; a default name taken by another gets a
        number ("a2"); a name given twice to different workloads is refused."""
        try:
            if not isinstance(w, Workload):
                w = self._by_fn.get(id(w)) or self._by_fn.setdefault(id(w), Workload(w))
        except PerfError as e:
            raise self._error(str(e)) from None
        if w._c is None:
            given = w.name
            if not given:
                n = getattr(w.fn, "__name__", "")
                base = n if n and n != "<lambda>" else default
                w.name, k = base, 2
                while w.name in self._names and self._names[w.name] is not w:
                    w.name, k = f"{base}{k}", k + 1
            elif given in self._names and self._names[given] is not w:
                raise self._error(f"perfgate: two workloads named {given!r} in one test: their "
                                  f"measurements and baseline entries would be mixed")
            w.c_struct(default)
        self._names.setdefault(w.name, w)
        self._workloads.append(w)
        return w

    def _ended(self):
        """The core ended the test (ERROR or SKIP): raise what it said."""
        outcome, reason = self.close()
        if outcome == "SKIP":
            raise Skipped(reason)
        raise self._error(f"perfgate: {reason or outcome}")

    def _ratio(self, fn, a, b, x, what, depth):
        if not self._open:
            raise PerfError("perfgate: this test has ended; no claim can run in it")
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise self._error(f"perfgate: {what} must be a number, got {x!r}")
        wa, wb = self._as_workload(a, "a"), self._as_workload(b, "b")
        file, line = _where(depth)
        mark = self._mark()
        before = mark[0]
        file_b = file.encode()
        got = fn(ctypes.byref(wa._c), ctypes.byref(wb._c), float(x), wa._name, wb._name,
                 file_b, line)
        self._after_call(got, (wa, wb), mark, "claim", file, line)
        if got == 0:
            self.failures.append(self._verdict(before, f"claim at {file}:{line} did not hold"))
        return got == 1

    def _mark(self):
        """Where the core's records stand before a call (see _discard)."""
        return len(self.claims), len(self.lines), len(self.measurements)

    def _after_call(self, got, workloads, mark, what, file, line):
        """What every call into the core is followed by: a nested call (-2)
        and a workload that raised (the call's records dropped) raise; an
        end of the test by the core (-1) raises what it said."""
        self._nested(got)
        for w in workloads:
            if w.raised is not None:
                e, w.raised = w.raised, None
                self._discard(*mark)
                self._passthrough(e)
                raise self._error(f"perfgate: workload {w.name} raised {type(e).__name__}: {e} "
                                  f"(the {what} at {file}:{line} was not decided)") from e
        if got < 0:
            self._ended()

    def _nested(self, got):
        """-2 from the core: called from inside a running claim (a workload
        that calls perf) or from another thread; nothing was done."""
        if got == -2:
            raise self._error("perfgate: a claim or check was called from inside a running claim "
                              "(a workload calling perf) or from another thread: claims cannot nest")

    def _discard(self, claims_before, lines_before, measured_before):
        """What the core said about a claim measured over a workload that
        failed: dropped, so that no report (nor baseline file) shows its
        numbers."""
        del self.claims[claims_before:]
        del self.lines[lines_before:]
        del self.measurements[measured_before:]

    @staticmethod
    def _passthrough(e):
        """Ctrl-C, SystemExit and pytest's own outcomes (skip, fail) raised
        in a workload go on as they are, not as a PerfError."""
        if not isinstance(e, Exception):
            raise e

    def _error(self, message):
        """A PerfError, remembered as the test's reason."""
        self.error = message
        return PerfError(message)

    def _verdict(self, before, fallback):
        """The verdict line of the claim recorded after index before: the
        core's whole line (numbers, interval, clock), not just its outcome."""
        if len(self.claims) <= before:
            return fallback
        message = self.claims[-1].get("message", fallback)
        head = message.rsplit(": ", 1)[0]
        for kind, text in reversed(self.lines):
            if kind == _lib.LINE_DETAIL and text.startswith(head + ": "):
                return text
        return message

    def expect_faster(self, a, b, factor, _depth=1):
        """a is at least factor times faster than b (median per iteration)."""
        return self._ratio(self._lib.perf_embed_faster, a, b, factor, "factor", _depth + 1)

    def expect_similar(self, a, b, tolerance, _depth=1):
        """a and b take the same time within tolerance (0.05: 5 %)."""
        return self._ratio(self._lib.perf_embed_similar, a, b, tolerance, "tolerance", _depth + 1)

    def assert_faster(self, a, b, factor):
        if not self.expect_faster(a, b, factor, _depth=2):
            raise AssertionError(self.failures[-1])

    def assert_similar(self, a, b, tolerance):
        if not self.expect_similar(a, b, tolerance, _depth=2):
            raise AssertionError(self.failures[-1])

    def expect_bandwidth(self, a, share, _depth=1):
        """a moves its declared bytes at no less than share (0.8: 80 %) of the
        DRAM bandwidth this GPU achieves (a streaming copy timed in the
        same rounds), as PERF_EXPECT_BANDWIDTH decides it."""
        return self._speed_of_light(a, share, 0, _depth + 1)

    def expect_flops(self, a, share, _depth=1):
        """a computes its declared flops at no less than share of the rate a
        large cuBLASLt GEMM of its flop_type achieves (PERF_EXPECT_FLOPS)."""
        return self._speed_of_light(a, share, 1, _depth + 1)

    def expect_link_bandwidth(self, a, share, _depth=1):
        """a moves its declared bytes between host and device at no less than
        share of what pinned copies the same ways achieve: to the device
        (bytes_written), back (bytes_read), or both at once
        (PERF_EXPECT_LINK_BANDWIDTH)."""
        return self._speed_of_light(a, share, 2, _depth + 1)

    def _speed_of_light(self, a, share, what, depth):
        if not self._open:
            raise PerfError("perfgate: this test has ended; no claim can run in it")
        if isinstance(share, bool) or not isinstance(share, (int, float)):
            raise self._error(f"perfgate: share must be a number, got {share!r}")
        wa = self._as_workload(a, "a")
        file, line = _where(depth)
        mark = self._mark()
        before = mark[0]
        got = self._lib.perf_embed_speed_of_light(ctypes.byref(wa._c), float(share), what,
                                                  wa._name, file.encode(), line)
        self._after_call(got, (wa,), mark, "claim", file, line)
        if got == 0 and len(self.claims) > before:
            self.failures.append(self._verdict(before, f"claim at {file}:{line} did not hold"))
        return got == 1

    def _one_workload_check(self, fn, a):
        """Runs the core's check fn on workload a (called from the user's
        claim, two frames up); a FAIL is kept for the test's end. Returns
        (the core's answer, the claim count before it)."""
        if not self._open:
            raise PerfError("perfgate: this test has ended; no claim can run in it")
        wa = self._as_workload(a, "a")
        file, line = _where(2)
        mark = self._mark()
        got = fn(ctypes.byref(wa._c), wa._name, file.encode(), line)
        self._after_call(got, (wa,), mark, "check", file, line)
        if got == 0 and len(self.claims) > mark[0]:
            self.failures.append(self._verdict(mark[0], self.claims[-1]["message"]))
        return got, mark[0]

    def expect_baseline(self, a):
        """a is not slower than its entry in this machine's baseline file."""
        got, before = self._one_workload_check(self._lib.perf_embed_baseline, a)
        if got == 0 and len(self.claims) == before:
            self.missing_baselines.append(next((t for k, t in reversed(self.lines)
                                                if "no baseline entry" in t), "no baseline entry"))
        return got == 1

    def expect_same_work(self, a):
        """One call of a executes the same GPU work as this GPU's baseline file
        records: its warp instructions within 0.5 % (counted by CUPTI, not timed).
        No count in the file, or counters not readable here: skipped, saying why."""
        return self._one_workload_check(self._lib.perf_embed_same_work, a)[0] == 1

    def _sync_common(self, w, default):
        if not self._open:
            raise PerfError("perfgate: this test has ended; no check can run in it")
        self._lib.perf_embed_set_where(_WHERE)
        return self._as_workload(w, default)

    def no_sync_in(self, x):
        """perf.no_sync_in(fn): fn (one iteration) makes no host sync, checked
        with CUPTI over 3 calls, untimed; returns whether it held. A string
        names a region instead: `with perf.no_sync_in("step"):` runs its block
        once with the check attached. Each sync found names the Python line
        that made it."""
        file, line = _where(1)
        if isinstance(x, str):
            if not self._open:
                raise PerfError("perfgate: this test has ended; no check can run in it")
            self._lib.perf_embed_set_where(_WHERE)
            r = _Region(self, x, file, line)
            r._before = len(self.claims)
            return r
        w = self._sync_common(x, "fn")
        mark = self._mark()
        file_b = file.encode()  # the core keeps the pointer until close
        got = self._lib.perf_embed_no_sync_open(ctypes.byref(w._c), w._name, file_b, line)
        if got >= 0:
            got = self._lib.perf_embed_no_sync_close()
        return self._sync_result(w, got, mark, file, line)

    def expect_syncs(self, fn, n, at_least=False):
        """fn makes exactly n host syncs per iteration (at_least: n or more)."""
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise PerfError(f"perfgate: the count of host syncs must be an int >= 0, got {n!r}")
        file, line = _where(1)
        w = self._sync_common(fn, "fn")
        mark = self._mark()
        got = self._lib.perf_embed_syncs(ctypes.byref(w._c), n, int(bool(at_least)), w._name,
                                         file.encode(), line)
        return self._sync_result(w, got, mark, file, line)

    def _sync_result(self, w, got, mark, file, line):
        self._after_call(got, (w,), mark, "check", file, line)
        if got == 0:
            self.failures.append(self._sync_verdict(mark[0], f"sync check at {file}:{line} did not hold"))
        return got == 1

    def _sync_verdict(self, before, fallback):
        """A sync check's verdict line and the findings under it."""
        head = self._verdict(before, fallback)
        found, seen = [], False
        for kind, text in self.lines:
            if text == head:
                seen = True
            elif seen and kind == _lib.LINE_DETAIL and text.startswith("  "):
                found.append(text)
            elif seen:
                seen = False
        return "\n".join([head] + found[-20:])

    def close(self):
        """Ends the test in the core: (outcome word, reason). Idempotent."""
        if self._open:
            reason = ctypes.create_string_buffer(512)
            o = self._lib.perf_embed_end(reason, len(reason))
            self._nested(o)
            self.outcome = _lib.OUTCOMES[o] if 0 <= o < len(_lib.OUTCOMES) else "ERROR"
            self.reason = reason.value.decode("utf-8", "replace")
            self._open = False
        return self.outcome, self.reason

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def record(self):
        """This test as the --json report's test objects are."""
        return {"name": self.name, "outcome": self.outcome or "PASS",
                "reason": self.error or self.reason,
                "claims": self.claims, "lines": [t for k, t in self.lines if k == _lib.LINE_DETAIL]}


def update_runs():
    """How many runs --perf-update-baselines takes (the C core's number)."""
    return _lib.load().perf_embed_update_runs()


def update_limits():
    """perftest's defaults for the most runs an entry takes (--update-runs) and
    the most seconds the runs past the first update_runs() take
    (--update-budget), as (runs, seconds)."""
    runs, budget = ctypes.c_int(0), ctypes.c_double(0)
    _lib.load().perf_embed_update_limits(ctypes.byref(runs), ctypes.byref(budget))
    return runs.value, budget.value


def _records(measurements):
    """[(run, line)] as the perf_embed_measurements perf_embed_rebaseline
    takes (its arrays kept alive by it: ctypes keeps what a field is set to)."""
    n = max(1, len(measurements))
    lines = (ctypes.c_char_p * n)(*[t.encode() for _, t in measurements])
    runs = (ctypes.c_int * n)(*[r for r, _ in measurements])
    return _lib.Measurements(lines, runs, len(measurements))


def wants_more(measurements, test, run, most_runs):
    """Why test should run again as run `run` of an update that takes at most
    most_runs runs, given its [(run, line)] measurements so far: "workload:
    why" of an entry that has not settled, or None (the C core's rule, as
    perftest --update-baselines runs more processes). Raises PerfError for a
    run out of range or a malformed line."""
    lib = _lib.load()
    m = _records(measurements)
    why = ctypes.create_string_buffer(600)
    rc = lib.perf_embed_wants_more(ctypes.byref(m), test.encode(), run, most_runs, why, len(why))
    if rc < 0:
        raise PerfError("perfgate: " + why.value.decode("utf-8", "replace"))
    return why.value.decode("utf-8", "replace") if rc else None


def check_baselines(baseline_dir, who):
    """What --update-baselines checks before it runs anything: every file of
    baseline_dir valid, none a file no run reads, this host's file not another
    machine's (the C core's check, messages after "who: "). Raises PerfError
    with the problems, one per line."""
    lib = _lib.load()
    err = ctypes.create_string_buffer(4096)
    if lib.perf_embed_check_baselines(baseline_dir.encode(), who.encode(), err, len(err)):
        raise PerfError(err.value.decode("utf-8", "replace"))


class WideBaselines(PerfError):
    """Some baseline entries were not written: their runs allow a tolerance
    over 50 % (their runs disagree, too wide, host-paced or launch-bound; the
    other entries were written)."""


def write_baselines(measurements, accept_wide=False):
    """Merges [(run, line)] measurements of update_runs() runs (and the later
    runs wants_more asked for) into each machine's
    baseline file (as perftest --update-baselines; accept_wide as its
    --accept-wide). Raises WideBaselines naming the entries it did not write,
    or PerfError with the reason when nothing could be written."""
    lib = _lib.load()
    m = _records(measurements)
    err = ctypes.create_string_buffer(600)
    rc = lib.perf_embed_rebaseline(ctypes.byref(m), int(bool(accept_wide)), err, len(err))
    if rc == 1:
        raise WideBaselines("perfgate: " + err.value.decode("utf-8", "replace"))
    if rc:
        raise PerfError("perfgate: baselines not written: " + err.value.decode("utf-8", "replace"))


def _utf8(text):
    """text as the C core reads it: UTF-8 (a lone surrogate as '?')."""
    return text.encode("utf-8", "replace")


def write_report(path, tests, argv, run, started):
    """Writes the report document perftest --json writes (by the C core's one
    writer, perf_embed_report) to path: tests (the --json report's test
    objects), the command line argv, run's members (a dict, or None) added to
    its "run" member, started the run's start (time.time()); the schema,
    version, exit code, totals and host fingerprint are the core's. Raises
    PerfError with the reason when it cannot be written (bad input, or the
    path: then it is left as it was)."""
    lib = _lib.load()
    args = (ctypes.c_char_p * max(1, len(argv)))(*[_utf8(a) for a in argv])
    extra = None if run is None else _utf8(json.dumps(run, ensure_ascii=False))
    err = ctypes.create_string_buffer(1024)
    described = _lib.Run(args, len(argv), extra, float(started))
    rc = lib.perf_embed_report(_utf8(os.fspath(path)), _utf8(json.dumps(tests, ensure_ascii=False)),
                               ctypes.byref(described), err, len(err))
    if rc:
        raise PerfError(err.value.decode("utf-8", "replace"))
