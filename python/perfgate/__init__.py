"""perfgate from Python: perf tests for CUDA code (PyTorch included) decided by perfgate's C core.

In pytest, use the `perf` fixture (the plugin registers itself):

    def test_compiled_beats_eager(perf):
        perf.expect_faster(compiled_step, eager_step, 1.5)
"""
from ._lib import LibraryNotFound
from .core import Perf, PerfError, Skipped, Workload

__all__ = ["Perf", "PerfError", "Skipped", "Workload", "LibraryNotFound"]
