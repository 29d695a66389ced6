"""Builds the C core (make build/libperfgate.so in the repository above) into the package: a
platform wheel (py3-none-linux_<arch>) whose version is perfgate.h's."""
import importlib.util
import os
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel  # setuptools >= 70.1
except ImportError:
    from wheel.bdist_wheel import bdist_wheel  # older setuptools: the wheel package's

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
HEADER = os.path.join(ROOT, "framework", "include", "perfgate.h")


def header_version():
    """perfgate.h's version, read by the package's own reader (_header.py)."""
    if not os.path.exists(HEADER):
        raise SystemExit("perfgate: install from the repository's python/ folder "
                         "(pip install ./python): the C core is built from ../framework")
    spec = importlib.util.spec_from_file_location("_header", os.path.join(HERE, "perfgate", "_header.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.version_in(HEADER)


class BuildWithCore(build_py):
    """build_py that first builds libperfgate.so and copies it into the
    package, with _version.py (the header's version)."""

    def run(self):
        build = os.environ.get("PERFGATE_BUILD", os.path.join(ROOT, "build"))
        cmd = ["make", "-C", ROOT, "-s", f"BUILD={build}", os.path.join(build, "libperfgate.so")]
        if subprocess.call(cmd) != 0:
            raise SystemExit("perfgate: building the C core failed: " + " ".join(cmd))
        super().run()
        dest = os.path.join(self.build_lib, "perfgate")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(os.path.join(build, "libperfgate.so"), os.path.join(dest, "libperfgate.so"))
        with open(os.path.join(dest, "_version.py"), "w") as f:
            f.write(f'"""Written by setup.py from perfgate.h."""\nversion = "{header_version()}"\n')


class WithLibrary(Distribution):
    """The distribution holds a native library: installed in platlib, its
    wheel not pure (Root-Is-Purelib: false)."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel for this platform (libperfgate.so, built here), for any
    Python 3: the library is loaded with ctypes, not through Python's C API
    (py3-none-linux_x86_64, not cp311-cp311-...)."""

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


setup(version=header_version(), distclass=WithLibrary,
      cmdclass={"build_py": BuildWithCore, "bdist_wheel": PlatformWheel})
