"""The C core through ctypes: libperfgate.so and the perf_embed_* calls."""
import ctypes
import os

from . import _deps
from ._deps import LibraryNotFound
from ._header import package_version

CLOCKS = {"auto": 0, "events": 1, "wall": 2, "submit": 3, "device": 4, "cold": 5}
OUTCOMES = ["PASS", "SKIP", "INCONCLUSIVE", "FAIL", "ERROR"]
LINE_DETAIL, LINE_VERBOSE, LINE_INFO, LINE_NOTICE, LINE_RECORD, LINE_CLAIM = range(6)

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


def _declare(lib):
    w = ctypes.POINTER(Workload)
    lib.perf_embed_begin.argtypes = [ctypes.c_char_p, ctypes.POINTER(Options), SINK, ctypes.c_void_p]
    lib.perf_embed_begin.restype = ctypes.c_int
    for name in ("perf_embed_faster", "perf_embed_similar"):
        f = getattr(lib, name)
        f.argtypes = [w, w, ctypes.c_double, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                      ctypes.c_int]
        f.restype = ctypes.c_int
    lib.perf_embed_baseline.argtypes = [w, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int]
    lib.perf_embed_baseline.restype = ctypes.c_int
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
    lib.perf_embed_rebaseline.argtypes = [ctypes.POINTER(ctypes.c_char_p),
                                          ctypes.POINTER(ctypes.c_int), ctypes.c_size_t,
                                          ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    lib.perf_embed_rebaseline.restype = ctypes.c_int
    lib.perf_embed_end.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.perf_embed_end.restype = ctypes.c_int
    lib.perf_host_threads.argtypes = []
    lib.perf_host_threads.restype = ctypes.c_int
