"""The documents' PyTorch claims, checked from pytest with perfgate's `perf` fixture.
Skipped, with the reason, without torch or without a CUDA device."""
import pytest

try:
    import torch
    NO_TORCH = None
except ImportError as e:  # every test file here imports torch
    torch = None
    NO_TORCH = f"PyTorch is not installed ({e})"


class TorchMissing(pytest.File):
    """A test file here, without torch: not imported, one skipped test that
    says why (a skip at collection would leave pytest nothing collected, exit 5)."""

    def collect(self):
        item = Skipped.from_parent(self, name=self.path.stem)
        item.add_marker(pytest.mark.skip(reason=NO_TORCH))
        yield item


class Skipped(pytest.Item):
    # stands for the file's perf tests: --perf-json records it as skipped
    fixturenames = ("perf",)

    def runtest(self):
        pass

    def reportinfo(self):
        return self.path, 0, self.name


def pytest_pycollect_makemodule(module_path, parent):
    if NO_TORCH:
        return TorchMissing.from_parent(parent, path=module_path)
    return None


def pytest_collection_modifyitems(config, items):
    if torch is not None and not torch.cuda.is_available():
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
