"""Builds the C core (make build/libperfgate.so in the repository above) into the package."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class BuildWithCore(build_py):
    """build_py that first builds libperfgate.so and copies it into the package."""

    def run(self):
        if not os.path.exists(os.path.join(ROOT, "framework", "include", "perfgate.h")):
            raise SystemExit("perfgate: install from the repository's python/ folder "
                             "(pip install ./python): the C core is built from ../framework")
        build = os.environ.get("PERFGATE_BUILD", os.path.join(ROOT, "build"))
        cmd = ["make", "-C", ROOT, "-s", f"BUILD={build}", os.path.join(build, "libperfgate.so")]
        if subprocess.call(cmd) != 0:
            raise SystemExit("perfgate: building the C core failed: " + " ".join(cmd))
        super().run()
        dest = os.path.join(self.build_lib, "perfgate")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(os.path.join(build, "libperfgate.so"), os.path.join(dest, "libperfgate.so"))


setup(cmdclass={"build_py": BuildWithCore})
