"""The libraries libperfgate.so needs, found where users' environments keep them and loaded
before it: CUDA's from NVIDIA's wheels (as PyTorch installs them), CUDA_HOME or the system
toolkit; libyaml and SQLite from the system. Says which is missing and where it looked.

libperfgate.so carries no search path of its own (no RUNPATH): the places are these, in
order, for each CUDA library it names (DT_NEEDED, read from the file):
  1. already loaded in this process (by PyTorch, say): that copy is used;
  2. NVIDIA's runtime wheels on sys.path: nvidia/cu<MAJOR>/lib (CUDA 13's layout) and
     nvidia/<package>/lib (CUDA 12's), the copy PyTorch from pip loads;
  3. $CUDA_HOME, then $CUDA_PATH: lib64, targets/x86_64-linux/lib, extras/CUPTI/lib64;
  4. the system's library path (LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib);
  5. the toolkit of the nvcc on PATH, then /usr/local/cuda (the same folders as 3).
"""
import ctypes
import os
import shutil
import struct
import sys


class LibraryNotFound(RuntimeError):
    """libperfgate.so, or a library it needs, is not where perfgate looks for it."""


# CUDA libraries libperfgate.so may name, by the part of their name before
# ".so": what each is, its folder among NVIDIA's CUDA 12 wheels, its pip package.
CUDA_LIBS = {
    "libcudart": ("the CUDA runtime", "cuda_runtime", "nvidia-cuda-runtime"),
    "libcupti": ("CUPTI", "cuda_cupti", "nvidia-cuda-cupti"),
    "libcublas": ("cuBLAS", "cublas", "nvidia-cublas"),
    "libcublasLt": ("cuBLASLt", "cublas", "nvidia-cublas"),
}
TOOLKIT_DIRS = ("lib64", os.path.join("targets", "x86_64-linux", "lib"),
                os.path.join("extras", "CUPTI", "lib64"))
FALLBACK_ROOTS = ("/usr/local/cuda",)
SYSTEM_PATH = "the system's library path (LD_LIBRARY_PATH, ld.so.cache)"
# The other libraries it names that a machine may lack, and what installs them.
SYSTEM_LIBS = {
    "libyaml-0.so.2": "libyaml (Debian/Ubuntu: apt-get install libyaml-0-2; Fedora: dnf install libyaml)",
    "libsqlite3.so.0": "SQLite (Debian/Ubuntu: apt-get install libsqlite3-0; Fedora: dnf install sqlite-libs)",
}


def needed(path):
    """The DT_NEEDED names of the 64-bit little-endian ELF file at path, in
    order; [] when it cannot be read as one (the loader then says why)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data[:6] != b"\x7fELF\x02\x01":
            return []
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
        sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                    for i in range(shnum)]
        names = []
        for _, kind, _, _, off, size, link, _, _, _ in sections:
            if kind != 6:  # SHT_DYNAMIC; its sh_link is its string table
                continue
            strings = sections[link][4]
            for k in range(off, off + size, 16):
                tag, value = struct.unpack_from("<qQ", data, k)
                if tag == 0:
                    break
                if tag == 1:  # DT_NEEDED
                    start = strings + value
                    names.append(data[start:data.index(b"\0", start)].decode())
        return names
    except (OSError, struct.error, IndexError, ValueError):
        return []


def _stem(soname):
    return soname.split(".so", 1)[0]


def _major(soname):
    return soname.split(".so.", 1)[1].split(".")[0] if ".so." in soname else ""


def places(soname):
    """The folders a CUDA library is looked for in, in order (None: the
    system's library path)."""
    sub, major = CUDA_LIBS[_stem(soname)][1], _major(soname)
    dirs = []
    for entry in sys.path:
        if entry and os.path.isdir(os.path.join(entry, "nvidia")):
            dirs += [os.path.join(entry, "nvidia", f"cu{major}", "lib"),
                     os.path.join(entry, "nvidia", sub, "lib")]
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            dirs += [os.path.join(os.environ[var], d) for d in TOOLKIT_DIRS]
    dirs.append(None)
    nvcc = shutil.which("nvcc")
    roots = ([os.path.dirname(os.path.dirname(nvcc))] if nvcc else []) + list(FALLBACK_ROOTS)
    dirs += [os.path.join(r, d) for r in roots for d in TOOLKIT_DIRS]
    return list(dict.fromkeys(dirs))


def _open(name, mode=os.RTLD_GLOBAL):
    """ctypes.CDLL(name); the loader's reason (OSError's text) when it fails."""
    try:
        ctypes.CDLL(name, mode=mode)
        return None
    except OSError as e:
        return str(e)


def _mapped(soname, otherwise):
    """The file soname is mapped from in this process (/proc/self/maps), or
    otherwise when that does not say."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.rstrip("\n").split(None, 5)[-1]
                if os.path.basename(path).startswith(soname):
                    return path
    except OSError:
        pass
    return otherwise


def _find_cuda(soname):
    """Loads CUDA library soname from the first place that has it; returns
    (its path, None), or (None, the places tried and why)."""
    if _open(soname, os.RTLD_NOLOAD | os.RTLD_GLOBAL) is None:
        return _mapped(soname, "(already loaded)"), None
    tried = []
    for d in places(soname):
        if d is None:
            why = _open(soname)
            if why is None:
                return _mapped(soname, SYSTEM_PATH), None
            tried.append(SYSTEM_PATH)
            continue
        path = os.path.join(d, soname)
        if not os.path.exists(path):
            tried.append(d)
            continue
        why = _open(path)
        if why is None:
            return path, None
        tried.append(f"{path} ({why})")
    if not any(os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")):
        tried.append("$CUDA_HOME and $CUDA_PATH (not set)")
    if not any(e and os.path.isdir(os.path.join(e, "nvidia")) for e in sys.path):
        tried.append("NVIDIA's wheels (no nvidia/ folder on sys.path)")
    return None, tried


def _cuda_missing(soname, tried):
    what, _, package = CUDA_LIBS[_stem(soname)]
    major = _major(soname)
    pip = f'"{package}=={major}.*"' if major.isdigit() and int(major) >= 13 else f"{package}-cu{major}"
    return (f"  {soname} ({what}) is not in: {', '.join(tried)}.\n"
            f"  Install the CUDA {major} toolkit (set CUDA_HOME to it if it is not in /usr/local/cuda) "
            f"or NVIDIA's wheel (pip install {pip}, as PyTorch does)")


def load_for(path):
    """Loads what the library at path needs, CUDA's from the places above;
    returns {name: its path}; raises LibraryNotFound naming each
    library missing and where it was looked for."""
    found, missing = {}, []
    for soname in needed(path):
        if _stem(soname) in CUDA_LIBS:
            where, tried = _find_cuda(soname)
            if where is None:
                missing.append(_cuda_missing(soname, tried))
                continue
            found[soname] = where
        elif soname in SYSTEM_LIBS:
            why = _open(soname, os.RTLD_LOCAL)
            if why is not None:
                missing.append(f"  {soname} is not on {SYSTEM_PATH}: install {SYSTEM_LIBS[soname]} "
                               f"({why})")
                continue
            found[soname] = _mapped(soname, SYSTEM_PATH)
    if missing:
        raise LibraryNotFound(f"perfgate: cannot load {path}: a library it needs is missing\n" +
                              "\n".join(missing))
    return found


def explain(path, error):
    """The message for a loader error on path: its text, and what installs
    the library it names when that is one of SYSTEM_LIBS."""
    text = f"perfgate: cannot load {path}: {error}"
    for name, what in SYSTEM_LIBS.items():
        if name in str(error):
            text += f" (install {what})"
    return text
