"""The package as installed things see it: its version (perfgate.h's, the library's, the
--perf-json document's), where it finds the CUDA libraries libperfgate.so needs, what it says
when one is missing. Host-only: no GPU, no torch."""
import json
import os
import re
import shutil
import subprocess
import sys

import perfgate
from perfgate import _deps

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PYTHON_DIR = os.path.join(REPO, "python")


def header_version():
    with open(os.path.join(REPO, "framework", "include", "perfgate.h")) as f:
        text = f.read()
    return ".".join(re.search(rf"^#define PERF_VERSION_{k} (\d+)$", text, re.M).group(1)
                    for k in ("MAJOR", "MINOR", "PATCH"))


def python(code, env=None, cwd=None, flags=()):
    """code run by this interpreter in a fresh process, with env added."""
    full = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, *flags, "-c", code], env=full, cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_version_is_the_headers_and_the_loaded_librarys():
    assert re.fullmatch(r"\d+\.\d+\.\d+", perfgate.__version__)
    assert perfgate.__version__ == header_version()
    assert perfgate.library_version() == header_version()  # perf_version() through ctypes


def test_host_threads_follow_the_affinity_mask(tmp_path):
    # one CPU: one thread, whatever the machine; the lock directory private
    r = python("import os, perfgate; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
               "print('threads', perfgate.host_threads())",
               env={"PERF_LOCK_DIR": str(tmp_path), "OMP_NUM_THREADS": ""})
    assert r.returncode == 0, r.stderr
    assert "threads 1" in r.stdout


def test_perf_json_names_the_perfgate_that_wrote_it(pytester, tmp_path):
    pytester.makepyfile(test_inner='''
def test_it(perf):
    perf.expect_similar(lambda: None, lambda: None, 0.5)
''')
    out = tmp_path / "r.json"
    pytester.runpytest_subprocess("-p", "perfgate.plugin", "--perf-budget=0.2", f"--perf-json={out}")
    assert json.loads(out.read_text())["run"]["perfgate"] == header_version()


def test_a_library_of_another_version_is_refused_by_name():
    r = python("import perfgate._lib as L; L.package_version = lambda: '9.9.9'; L.load()")
    assert r.returncode == 1
    assert f"is perfgate {header_version()} but this package is perfgate 9.9.9" in r.stderr, r.stderr


def test_needed_reads_the_librarys_dependencies():
    names = _deps.needed(perfgate.libraries()["libperfgate.so"])
    assert any(n.startswith("libcudart.so.") for n in names), names
    assert any(n.startswith("libcupti.so.") for n in names), names
    assert "libc.so.6" in names
    assert _deps.needed(__file__) == []  # not an ELF file


def cuda_libs():
    """The CUDA libraries libperfgate.so needs, as loaded here: {name: path}."""
    found = perfgate.libraries()
    names = {n: p for n, p in found.items() if n.split(".so")[0] in _deps.CUDA_LIBS}
    assert names, found
    return names


def copy_cuda_libs(into):
    """Copies of this process's CUDA libraries (cuda_libs()) in folder into."""
    os.makedirs(into, exist_ok=True)
    for name, path in cuda_libs().items():
        shutil.copy(os.path.realpath(path), os.path.join(into, name))


LOADED = '''
import json, os, perfgate
perfgate.library_version()
maps = {l.split(None, 5)[-1].strip() for l in open("/proc/self/maps") if ".so" in l}
print(json.dumps({"found": perfgate.libraries(), "maps": sorted(maps)}))
'''


def loaded(env, cwd):
    # -S: no site-packages, only PYTHONPATH: NVIDIA's wheels that this
    # interpreter has (PyTorch's) do not count, the test's own do
    r = python(LOADED, env=env, cwd=cwd, flags=("-S",))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_cuda_libraries_come_from_nvidia_wheels_first_then_cuda_home(tmp_path):
    names = list(cuda_libs())
    major = names[0].split(".so.")[1]  # "13": NVIDIA's CUDA 13 wheels share nvidia/cu13/lib
    site = tmp_path / "site"
    wheel_lib = str(site / "nvidia" / f"cu{major}" / "lib")
    home_lib = str(tmp_path / "cuda" / "lib64")
    copy_cuda_libs(wheel_lib)
    copy_cuda_libs(home_lib)
    env = {"CUDA_HOME": str(tmp_path / "cuda"), "PYTHONPATH": f"{site}{os.pathsep}{PYTHON_DIR}"}
    got = loaded(env, tmp_path)
    for n in names:
        assert got["found"][n] == os.path.join(wheel_lib, n)
        mapped = [m for m in got["maps"] if os.path.basename(m).startswith(n)]
        assert mapped == [os.path.join(wheel_lib, n)], mapped  # the one copy in the process
    env["PYTHONPATH"] = PYTHON_DIR  # no wheels: $CUDA_HOME's
    got = loaded(env, tmp_path)
    for n in names:
        assert got["found"][n] == os.path.join(home_lib, n)


def test_a_missing_cuda_library_is_named_with_where_it_was_looked_for(tmp_path):
    site = tmp_path / "site"
    (site / "nvidia").mkdir(parents=True)
    env = {"CUDA_HOME": str(tmp_path / "cuda"), "PYTHONPATH": f"{site}{os.pathsep}{PYTHON_DIR}"}
    r = python("import perfgate, perfgate._deps as D\n"
               "D.needed = lambda path: ['libcupti.so.99', 'libcudart.so.99', 'libc.so.6']\n"
               "perfgate.library_version()", env=env, cwd=tmp_path)
    assert r.returncode == 1
    err = r.stderr
    assert "perfgate.LibraryNotFound" in err or "LibraryNotFound" in err, err
    assert "cannot load" in err and "a library it needs is missing" in err, err
    assert "libcudart.so.99 (the CUDA runtime) is not in: " in err, err
    assert "libcupti.so.99 (CUPTI) is not in: " in err, err
    for place in (site / "nvidia" / "cu99" / "lib", site / "nvidia" / "cuda_runtime" / "lib",
                  tmp_path / "cuda" / "lib64", "/usr/local/cuda/lib64", _deps.SYSTEM_PATH):
        assert str(place) in err, (place, err)
    assert 'pip install "nvidia-cuda-runtime==99.*"' in err and "CUDA 99 toolkit" in err, err


def test_a_missing_system_library_says_what_installs_it(tmp_path):
    r = python("import perfgate, perfgate._deps as D\n"
               "D.SYSTEM_LIBS['libyaml-0.so.99'] = D.SYSTEM_LIBS['libyaml-0.so.2']\n"
               "D.needed = lambda path: ['libyaml-0.so.99']\n"
               "perfgate.library_version()", cwd=tmp_path)
    assert r.returncode == 1
    assert "libyaml-0.so.99 is not on the system's library path" in r.stderr, r.stderr
    assert "apt-get install libyaml-0-2" in r.stderr, r.stderr


def test_a_cuda_library_already_loaded_is_the_one_used(tmp_path):
    """As when PyTorch loaded its own copy first: no second copy is loaded."""
    names = list(cuda_libs())
    own = str(tmp_path / "own")  # on no search path
    copy_cuda_libs(own)
    first = "".join(f"import ctypes; ctypes.CDLL({os.path.join(own, n)!r})\n" for n in names)
    r = python(first + LOADED, env={"PYTHONPATH": PYTHON_DIR}, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    for n in names:
        assert got["found"][n] == os.path.join(own, n)
        assert [m for m in got["maps"] if os.path.basename(m).startswith(n)] == [os.path.join(own, n)]


DOC_PATH = "/home/me/venv/lib/python3.11/site-packages/perfgate/libperfgate.so"


def doc_library_not_found():
    """The LibraryNotFound text docs/python.md quotes (its code block after
    "with `LibraryNotFound`"), unindented."""
    with open(os.path.join(REPO, "docs", "python.md")) as f:
        text = f.read()
    after = text[text.index("with `LibraryNotFound` naming it"):]
    block = re.search(r"\n( *)```\n(.*?)\n *```\n", after, re.S)
    indent = len(block.group(1))
    return "\n".join(line[indent:] for line in block.group(2).split("\n"))


def test_the_python_page_quotes_the_real_library_not_found_text():
    # A machine without CUDA: no CUDA library anywhere perfgate looks, no
    # CUDA_HOME or CUDA_PATH, no NVIDIA wheels (-S), no nvcc on the PATH.
    code = ("import os, perfgate, perfgate._deps as D\n"
            "cuda = lambda p: any(os.path.basename(p).startswith(k + '.') for k in D.CUDA_LIBS)\n"
            "real_open, real_exists = D._open, os.path.exists\n"
            "D._open = lambda n, mode=os.RTLD_GLOBAL: ('gone' if cuda(n) else real_open(n, mode))\n"
            "D.os.path.exists = lambda p: False if cuda(p) else real_exists(p)\n"
            "D.shutil.which = lambda name: None\n"
            "try:\n"
            "    perfgate.library_version()\n"
            "except perfgate.LibraryNotFound as e:\n"
            "    print(str(e))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}
    env["PYTHONPATH"] = PYTHON_DIR
    r = subprocess.run([sys.executable, "-S", "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    lib = re.match(r"perfgate: cannot load (\S+): ", r.stdout).group(1)
    real = r.stdout.rstrip("\n").replace(lib, DOC_PATH)
    needed = [n for n in _deps.needed(lib) if n.split(".so")[0] in _deps.CUDA_LIBS]
    assert needed == ["libcupti.so.13", "libcudart.so.13"], needed  # what the machine docs/python.md quotes lacks
    assert doc_library_not_found() == real, f"docs/python.md:\n{doc_library_not_found()}\nreal:\n{real}"
