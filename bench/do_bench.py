"""do_bench.py — triton.testing.do_bench timing bench-fidelity's kernels.

do_bench runs in median mode, one process per run.
"""
import ctypes
import sys
import time

import torch
import triton.testing

EW, SIN4, GEMM = 0, 1, 2
# name, kind, elements (GEMM: the dimension); the same as bench/fidelity.c
KERNELS = [("ew_256k", EW, 1 << 18), ("sin4_4m", SIN4, 1 << 22),
           ("ew_64m", EW, 1 << 26), ("sin4_512m", SIN4, 1 << 29),
           ("ew_4k", EW, 1 << 12), ("gemm_f16_2k", GEMM, 2048), ("sin4_2g", SIN4, 1 << 31)]


def launcher(lib, kind, n):
    """The kernel's call on the current stream, and the tensor it keeps alive."""
    stream = torch.cuda.current_stream().cuda_stream
    if kind == GEMM:
        m = torch.rand(3, n, n, device="cuda").half()
        a, b, c = (m[i].data_ptr() for i in range(3))
        return (lambda: lib.kern_gemm_f16(a, b, c, n, stream)), m
    x = torch.rand(n, device="cuda")
    if kind == SIN4:
        return (lambda: lib.kern_sin4_f32(x.data_ptr(), n, stream)), x
    return (lambda: lib.kern_ew_f32(x.data_ptr(), n, 3, stream)), x


def main(lib_path, names):
    lib = ctypes.CDLL(lib_path)
    lib.kern_ew_f32.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    lib.kern_sin4_f32.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    lib.kern_gemm_f16.argtypes = [ctypes.c_void_p] * 3 + [ctypes.c_int, ctypes.c_void_p]
    for name, kind, n in KERNELS:
        if names and name not in names:
            continue
        call, keep = launcher(lib, kind, n)

        def fn():
            if call():
                raise RuntimeError(f"{name}: launch failed")
        t0 = time.perf_counter()
        ms = triton.testing.do_bench(fn, return_mode="median")
        wall = time.perf_counter() - t0
        print(f"triton {name} {ms * 1e-3:.9e} {wall:.6f}", flush=True)
        del keep


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
