"""do_bench.py — triton.testing.do_bench (median mode) on bench-fidelity's four kernels, one process per run."""
import ctypes
import sys

import torch
import triton.testing

KERNELS = [("ew_256k", 0, 1 << 18), ("sin4_4m", 1, 1 << 22),
           ("ew_64m", 0, 1 << 26), ("sin4_512m", 1, 1 << 29)]


def main(lib_path):
    lib = ctypes.CDLL(lib_path)
    lib.kern_ew_f32.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_void_p]
    lib.kern_sin4_f32.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
    lib.kern_ew_f32.restype = ctypes.c_int
    lib.kern_sin4_f32.restype = ctypes.c_int
    for name, sine, n in KERNELS:
        x = torch.rand(n, device="cuda")
        stream = torch.cuda.current_stream().cuda_stream
        if sine:
            def fn():
                if lib.kern_sin4_f32(x.data_ptr(), n, stream):
                    raise RuntimeError("launch failed")
        else:
            def fn():
                if lib.kern_ew_f32(x.data_ptr(), n, 3, stream):
                    raise RuntimeError("launch failed")
        ms = triton.testing.do_bench(fn, return_mode="median")
        print(f"triton {name} {ms * 1e-3:.9e}", flush=True)
        del x


if __name__ == "__main__":
    main(sys.argv[1])
