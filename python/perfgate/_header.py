"""perfgate's version, read from perfgate.h's PERF_VERSION_* macros: the one place it is written."""
import os
import re

_MACRO = re.compile(r"^#define PERF_VERSION_(MAJOR|MINOR|PATCH) ([0-9]+)\s*$", re.M)


def version_in(header):
    """"MAJOR.MINOR.PATCH" from the header at path header; OSError when it
    cannot be read, ValueError naming it when a macro is missing."""
    with open(header, encoding="utf-8") as f:
        found = dict(_MACRO.findall(f.read()))
    parts = [found.get(k) for k in ("MAJOR", "MINOR", "PATCH")]
    if None in parts:
        raise ValueError(f"perfgate: {header} has no PERF_VERSION_MAJOR/MINOR/PATCH macros")
    return ".".join(parts)


def package_version():
    """The package's version: the one the build wrote into _version.py (an
    installed package), or the checkout's header (PYTHONPATH=python);
    ImportError naming both when neither is there."""
    try:
        from ._version import version
        return version
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    header = os.path.join(os.path.dirname(os.path.dirname(here)), "framework", "include", "perfgate.h")
    try:
        return version_in(header)
    except OSError:
        raise ImportError(f"perfgate: no version: neither {os.path.join(here, '_version.py')} (written "
                          f"when the package is built) nor {header} (a checkout) is there") from None
