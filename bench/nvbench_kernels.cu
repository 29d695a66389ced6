// nvbench_kernels.cu — nvbench benchmarks of the kernels bench-fidelity times (make bench-compare).
//
// Built outside the project by bench/nvbench-build.sh against nvbench's own
// sources: each benchmark calls the same extern "C" launcher of kernels/ on
// nvbench's stream, with the same sizes as bench/fidelity.c.
#include <nvbench/nvbench.cuh>

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "kernels.h"

enum { EW, SIN4, GEMM };

// Exits with the failing call named: a benchmark must not time a failure.
static void check(long r, const char *what)
{
  if (r) {
    std::fprintf(stderr, "nvbench_kernels: %s failed (%ld)\n", what, r);
    std::exit(2);
  }
}

template <int KIND> static void kbench(nvbench::state &state, size_t n)
{
  size_t bytes = KIND == GEMM ? 3 * n * n * 2 : n * sizeof(float);
  float *x = nullptr;
  check(cudaMalloc(&x, bytes), "cudaMalloc");
  if (KIND == GEMM)
    check(kern_fill_f16(x, 3 * n * n, 7, 1.0f, 0), "kern_fill_f16");
  else
    check(kern_fill_f32(x, n, 7, 1.0f, 0), "kern_fill_f32");
  check(cudaDeviceSynchronize(), "fill");
  unsigned short *h = reinterpret_cast<unsigned short *>(x);
  state.exec([&](nvbench::launch &l) {
    cudaStream_t s = l.get_stream();
    if (KIND == GEMM)
      check(kern_gemm_f16(h, h + n * n, h + 2 * n * n, (int)n, s), "kern_gemm_f16");
    else if (KIND == SIN4)
      check(kern_sin4_f32(x, n, s), "kern_sin4_f32");
    else
      check(kern_ew_f32(x, n, 3, s), "kern_ew_f32");
  });
  check(cudaFree(x), "cudaFree");
}

static void ew_4k(nvbench::state &s) { kbench<EW>(s, (size_t)1 << 12); }
static void ew_256k(nvbench::state &s) { kbench<EW>(s, (size_t)1 << 18); }
static void sin4_4m(nvbench::state &s) { kbench<SIN4>(s, (size_t)1 << 22); }
static void gemm_f16_2k(nvbench::state &s) { kbench<GEMM>(s, 2048); }
static void ew_64m(nvbench::state &s) { kbench<EW>(s, (size_t)1 << 26); }
static void sin4_512m(nvbench::state &s) { kbench<SIN4>(s, (size_t)1 << 29); }
static void sin4_2g(nvbench::state &s) { kbench<SIN4>(s, (size_t)1 << 31); }
NVBENCH_BENCH(ew_4k);
NVBENCH_BENCH(ew_256k);
NVBENCH_BENCH(sin4_4m);
NVBENCH_BENCH(gemm_f16_2k);
NVBENCH_BENCH(ew_64m);
NVBENCH_BENCH(sin4_512m);
NVBENCH_BENCH(sin4_2g);
NVBENCH_MAIN
