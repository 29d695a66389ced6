"""The documents' PyTorch claims, checked from pytest with perfgate's `perf` fixture.
Skipped, with the reason, without torch or without a CUDA device."""
import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")


def pytest_collection_modifyitems(config, items):
    if not torch.cuda.is_available():
        skip = pytest.mark.skip(reason="no CUDA device (torch.cuda.is_available() is False)")
        for item in items:
            item.add_marker(skip)


def line_of(fn, text):
    """The line number of the first source line of fn containing text."""
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k
    raise AssertionError(f"{text!r} is not in {fn.__name__}")


def found_at(perf, fn, text):
    """Whether the last sync check named the line of fn that holds text."""
    import os
    where = f"{os.path.basename(fn.__code__.co_filename)}:{line_of(fn, text)} "
    return any(where in t for k, t in perf.lines if t.startswith("  "))
