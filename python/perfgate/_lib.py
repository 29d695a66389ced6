"""The C core through ctypes: libperfgate.so and the perf_embed_* calls."""
import ctypes
import json
import os

from . import _deps
from ._deps import LibraryNotFound
from ._header import package_version

# The mirror of perfgate.h's ABI, checked against the library's own
# description (perf_abi_describe) when it is loaded: abi_mismatches().
ABI = 3  # PERF_ABI_VERSION
CLOCKS = {"auto": 0, "events": 1, "wall": 2, "submit": 3, "device": 4, "cold": 5}  # perf_clock
OUTCOMES = ["PASS", "SKIP", "INCONCLUSIVE", "FAIL", "ERROR"]  # perf_outcome, by value
LINE_KINDS = ["DETAIL", "VERBOSE", "INFO", "NOTICE", "RECORD", "CLAIM"]  # perf_line_kind, by value
FLOP_TYPES = ["none", "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"]  # perf_flop_type, by value
LINE_DETAIL, LINE_VERBOSE, LINE_INFO, LINE_NOTICE, LINE_RECORD, LINE_CLAIM = range(len(LINE_KINDS))

FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
SINK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
WHERE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t)


class Workload(ctypes.Structure):
    """perf_workload (perfgate.h), field for field."""

    _fields_ = [
        ("name", ctypes.c_char_p),
        ("fn", FN),
        ("arg", ctypes.c_void_p),
        ("stream", ctypes.c_void_p),
        ("clock", ctypes.c_int),
        ("bytes_read", ctypes.c_double),
        ("bytes_written", ctypes.c_double),
        ("flops", ctypes.c_double),
        ("flop_type", ctypes.c_int),
        ("state", ctypes.c_void_p),
        ("gen", ctypes.c_ulong),
    ]


class Options(ctypes.Structure):
    """perf_embed_options (perfgate.h)."""

    _fields_ = [
        ("budget_s", ctypes.c_double),
        ("seed", ctypes.c_ulonglong),
        ("baseline_dir", ctypes.c_char_p),
        ("verbose", ctypes.c_int),
        ("update_baselines", ctypes.c_int),
    ]


class Measurements(ctypes.Structure):
    """perf_embed_measurements (perfgate.h): record lines and the run each came from."""

    _fields_ = [
        ("lines", ctypes.POINTER(ctypes.c_char_p)),
        ("runs", ctypes.POINTER(ctypes.c_int)),
        ("n", ctypes.c_size_t),
    ]


class Run(ctypes.Structure):
    """perf_embed_run (perfgate.h): the run an embedder's report describes."""

    _fields_ = [
        ("argv", ctypes.POINTER(ctypes.c_char_p)),
        ("argc", ctypes.c_int),
        ("run_json", ctypes.c_char_p),
        ("started", ctypes.c_double),
    ]


def _candidates():
    env = os.environ.get("PERFGATE_LIB")
    if env:
        return [env]
    here = os.path.dirname(os.path.abspath(__file__))
    return [os.path.join(here, "libperfgate.so"),
            os.path.join(os.path.dirname(os.path.dirname(here)), "build", "libperfgate.so")]


_lib = None
found = {}  # what load() loaded: {library name: its path}


def load():
    """The loaded library, with its prototypes, after the libraries it
    needs (_deps); LibraryNotFound naming the places looked at, the library
    missing and where it was looked for, or the loader's reason."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if not os.path.exists(path):
            tried.append(path + " (no such file)")
            continue
        deps = _deps.load_for(path)
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise LibraryNotFound(_deps.explain(path, e)) from e
        _same_version(path, lib)
        _same_abi(path, lib)
        _declare(lib)
        found.update(deps, **{"libperfgate.so": os.path.abspath(path)})
        _lib = lib
        return lib
    raise LibraryNotFound("perfgate: libperfgate.so not found: " + "; ".join(tried) +
                          " (pip install ./python builds it; or set PERFGATE_LIB)")


def _same_version(path, lib):
    """Refuses a library of another perfgate than this package (its calls
    would not match these prototypes): LibraryNotFound naming both."""
    want = package_version()
    try:
        lib.perf_version.argtypes = []
        lib.perf_version.restype = ctypes.c_char_p
        got = lib.perf_version().decode()
    except AttributeError:
        got = "older than 0.1.0 (it has no perf_version())"
    if got != want:
        raise LibraryNotFound(f"perfgate: {path} is perfgate {got} but this package is perfgate "
                              f"{want}: rebuild it (make python, or pip install ./python) or point "
                              f"PERFGATE_LIB at the build of this checkout")


def _described(lib):
    """The library's description of its ABI (perf_abi_describe), or None
    for a library that has none."""
    try:
        f = lib.perf_abi_describe
    except AttributeError:
        return None
    f.argtypes = []
    f.restype = ctypes.c_char_p
    return json.loads(f().decode())


def abi_mismatches(lib):
    """Where this module's mirror of the ABI (ABI, Workload, Options,
    Measurements, Run, CLOCKS, OUTCOMES, LINE_KINDS, FLOP_TYPES) differs from what lib says of itself: a
    list of sentences, empty when they agree."""
    d = _described(lib)
    if d is None:
        return ["the library does not describe its ABI (no perf_abi_describe)"]
    bad = []
    if d["abi"] != ABI:
        bad.append(f"ABI version {d['abi']}, the package mirrors {ABI}")
    for name, cls in (("perf_workload", Workload), ("perf_embed_options", Options),
                      ("perf_embed_measurements", Measurements), ("perf_embed_run", Run)):
        c = d["structs"].get(name)
        if c is None:
            bad.append(f"the library has no {name}")
            continue
        if c["size"] != ctypes.sizeof(cls):
            bad.append(f"{name} is {c['size']} bytes, the package's {ctypes.sizeof(cls)}")
        theirs = list(c["fields"].items())
        if len(theirs) != len(cls._fields_):
            bad.append(f"{name} has {len(theirs)} members, the package's {len(cls._fields_)}")
        for (member, (offset, size)), (mine, _) in zip(theirs, cls._fields_):
            f = getattr(cls, mine)
            if (f.offset, f.size) != (offset, size):
                bad.append(f"{name}.{member} is at {offset} ({size} bytes), the package's "
                           f"{mine} at {f.offset} ({f.size} bytes)")
    enums = d["enums"]
    for name, theirs, mine in (("perf_clock", enums["perf_clock"], CLOCKS),
                               ("perf_outcome", enums["perf_outcome"],
                                {w: i for i, w in enumerate(OUTCOMES)}),
                               ("perf_line_kind", enums["perf_line_kind"],
                                {k: i for i, k in enumerate(LINE_KINDS)}),
                               ("perf_flop_type", enums.get("perf_flop_type"),
                                {k: i for i, k in enumerate(FLOP_TYPES)})):
        if theirs != mine:
            bad.append(f"{name} is {theirs}, the package's {mine}")
    return bad


def _same_abi(path, lib):
    """Refuses a library whose ABI this package's mirror does not match:
    LibraryNotFound naming each difference."""
    bad = abi_mismatches(lib)
    if bad:
        raise LibraryNotFound(f"perfgate: {path} does not match this package's ABI: " +
                              "; ".join(bad) + " (rebuild both from one checkout)")


def _declare(lib):
    w = ctypes.POINTER(Workload)
    lib.perf_embed_begin.argtypes = [ctypes.c_char_p, ctypes.POINTER(Options), SINK, ctypes.c_void_p]
    lib.perf_embed_begin.restype = ctypes.c_int
    for name in ("perf_embed_faster", "perf_embed_similar"):
        f = getattr(lib, name)
        f.argtypes = [w, w, ctypes.c_double, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                      ctypes.c_int]
        f.restype = ctypes.c_int
    lib.perf_embed_speed_of_light.argtypes = [w, ctypes.c_double, ctypes.c_int, ctypes.c_char_p,
                                              ctypes.c_char_p, ctypes.c_int]
    lib.perf_embed_speed_of_light.restype = ctypes.c_int
    for name in ("perf_embed_baseline", "perf_embed_same_work"):
        f = getattr(lib, name)
        f.argtypes = [w, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
        f.restype = ctypes.c_int
    lib.perf_embed_syncs.argtypes = [w, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p,
                                     ctypes.c_int]
    lib.perf_embed_syncs.restype = ctypes.c_int
    lib.perf_embed_no_sync_open.argtypes = [w, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.perf_embed_no_sync_open.restype = ctypes.c_int
    lib.perf_embed_no_sync_close.argtypes = []
    lib.perf_embed_no_sync_close.restype = ctypes.c_int
    lib.perf_embed_set_where.argtypes = [WHERE]
    lib.perf_embed_set_where.restype = None
    lib.perf_embed_update_runs.argtypes = []
    lib.perf_embed_update_runs.restype = ctypes.c_int
    lib.perf_embed_update_limits.argtypes = [ctypes.POINTER(ctypes.c_int),
                                             ctypes.POINTER(ctypes.c_double)]
    lib.perf_embed_update_limits.restype = None
    lib.perf_embed_wants_more.argtypes = [ctypes.POINTER(Measurements), ctypes.c_char_p,
                                          ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
                                          ctypes.c_size_t]
    lib.perf_embed_wants_more.restype = ctypes.c_int
    lib.perf_embed_check_baselines.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                               ctypes.c_size_t]
    lib.perf_embed_check_baselines.restype = ctypes.c_int
    lib.perf_embed_rebaseline.argtypes = [ctypes.POINTER(Measurements), ctypes.c_int,
                                          ctypes.c_char_p, ctypes.c_size_t]
    lib.perf_embed_rebaseline.restype = ctypes.c_int
    lib.perf_embed_report.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Run),
                                      ctypes.c_char_p, ctypes.c_size_t]
    lib.perf_embed_report.restype = ctypes.c_int
    lib.perf_embed_end.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.perf_embed_end.restype = ctypes.c_int
    lib.perf_host_threads.argtypes = []
    lib.perf_host_threads.restype = ctypes.c_int
