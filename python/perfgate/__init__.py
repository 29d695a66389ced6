"""perfgate from Python: perf tests for CUDA code (PyTorch included) decided by perfgate's C core.

In pytest, use the `perf` fixture (the plugin registers itself):

    def test_compiled_beats_eager(perf):
        perf.expect_faster(compiled_step, eager_step, 1.5)
"""
from . import _lib
from ._header import package_version
from ._lib import LibraryNotFound
from .core import Perf, PerfError, Skipped, Workload

__version__ = package_version()


def library_version():
    """perf_version() of the loaded C core (loading it first): the same as
    __version__ (a library of another version is refused when loaded)."""
    return _lib.load().perf_version().decode()


def host_threads():
    """perf_host_threads() of the C core: how many host threads a workload may
    use (torch.set_num_threads, a pool's size): this process's CPUs (affinity,
    cgroup cpu.max) shared with the perfgate runs on the host, less one kept
    for the runner. Call it once per test, not inside a timed workload."""
    return _lib.load().perf_host_threads()


def libraries():
    """Where the C core and the libraries it needs were loaded from (loading
    them first): {"libperfgate.so": path, "libcudart.so.13": path, ...}."""
    _lib.load()
    return dict(_lib.found)


__all__ = ["Perf", "PerfError", "Skipped", "Workload", "LibraryNotFound", "__version__",
           "library_version", "libraries", "host_threads"]
