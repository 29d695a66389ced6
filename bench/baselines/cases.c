/* cases.c — make bench-baselines' workloads, each checked against its baseline. */
/* They take 2 us to 10 ms, each with a planted slowdown of known size
 * (BENCH_PLANT_FILE). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "kernels.h"
#include "perfgate.h"

/* What one workload needs; `what` picks its work. */
typedef struct bb {
  const char *what;
  cudaStream_t s;
  cublasHandle_t h;
  void *a, *b, *c, *m[4], *host;
  int n;
  size_t bytes;
  long long plant; /* cycles of the dependent delay kernel (0 unchanged) */
} bb;

static void destroy_stream(void *s) { PERF_CUDA(cudaStreamDestroy(s)); }
static void destroy_blas(void *h) { PERF_CUBLAS(cublasDestroy(h)); }

static void gemm(bb *f)
{
  const float one = 1.0f, zero = 0.0f;
  PERF_CUBLAS(cublasGemmEx(f->h, CUBLAS_OP_N, CUBLAS_OP_N, f->n, f->n, f->n, &one, f->a, CUDA_R_16F,
                           f->n, f->b, CUDA_R_16F, f->n, &zero, f->c, CUDA_R_16F, f->n,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* One iteration: the work, then the delay kernel (always queued, 0 cycles
 * unchanged), so that a planted change adds only its cycles. */
static void work(void *arg)
{
  bb *f = arg;
  if (!strcmp(f->what, "ew"))
    PERF_CUDA(kern_ew_f32(f->a, f->bytes / 4, 0, f->s));
  else if (!strcmp(f->what, "ew4"))
    PERF_CUDA(kern_ew4_f32(f->a, f->bytes / 4, f->s));
  else if (!strcmp(f->what, "gemm"))
    gemm(f);
  else if (!strcmp(f->what, "memsets_gemm")) {
    for (int i = 0; i < 4; i++) PERF_CUDA(cudaMemsetAsync(f->m[i], 0, 4 << 20, f->s));
    gemm(f);
  } else if (!strcmp(f->what, "h2d"))
    PERF_CUDA(cudaMemcpyAsync(f->a, f->host, f->bytes, cudaMemcpyHostToDevice, f->s));
  PERF_CUDA(kern_delay_cycles(f->plant, f->s));
}

/* The planted delay for this test: BENCH_PLANT_FILE holds "test ns" lines
 * (bench/baselines.sh writes them from the baseline's medians); cycles at
 * the device's SM clock. 0 without a line. */
static long long planted(const char *test)
{
  const char *path = getenv("BENCH_PLANT_FILE");
  FILE *f = path ? fopen(path, "r") : NULL;
  char name[200];
  double ns = 0, v;
  while (f && fscanf(f, "%199s %lf", name, &v) == 2)
    if (!strcmp(name, test)) ns = v;
  if (f) fclose(f);
  int khz = 0;
  PERF_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
  return (long long)(ns * 1e-9 * khz * 1e3);
}

static void setup(bb *f, const char *test, const char *what, size_t bytes, int n)
{
  memset(f, 0, sizeof *f);
  f->what = what;
  f->bytes = bytes;
  f->n = n;
  PERF_CUDA(cudaStreamCreateWithFlags(&f->s, cudaStreamNonBlocking));
  PERF_DEFER(destroy_stream, f->s);
  if (n) {
    size_t e = (size_t)n * n;
    PERF_CUBLAS(cublasCreate(&f->h));
    PERF_DEFER(destroy_blas, f->h);
    PERF_CUBLAS(cublasSetStream(f->h, f->s));
    PERF_ALLOC_DEVICE(f->a, 2 * e);
    PERF_ALLOC_DEVICE(f->b, 2 * e);
    PERF_ALLOC_DEVICE(f->c, 2 * e);
    PERF_CUDA(kern_fill_f16(f->a, e, 1, 1.0f, f->s));
    PERF_CUDA(kern_fill_f16(f->b, e, 2, 1.0f, f->s));
  } else {
    PERF_ALLOC_DEVICE(f->a, bytes);
    PERF_CUDA(kern_fill_f32(f->a, bytes / 4, 1, 1.0f, f->s));
  }
  if (!strcmp(what, "memsets_gemm"))
    for (int i = 0; i < 4; i++) PERF_ALLOC_DEVICE(f->m[i], 4 << 20);
  if (!strcmp(what, "h2d")) {
    PERF_ALLOC_PINNED(f->host, bytes);
    memset(f->host, 1, bytes);
  }
  PERF_CUDA(cudaStreamSynchronize(f->s));
  f->plant = planted(test);
}

static void check(const char *test, const char *what, size_t bytes, int n, perf_clock clock)
{
  static bb f;
  setup(&f, test, what, bytes, n);
  perf_workload w = PERF_WORKLOAD(work, &f, .stream = f.s, .clock = clock);
  PERF_EXPECT_BASELINE(w);
}

/* The cost of a ratio claim on the same workload (item 4 of issue 32): an
 * A/A claim between two copies of it, SIMILAR within 20 %. */
static void ratio(const char *what, size_t bytes, int n, perf_clock clock)
{
  static bb f, g;
  setup(&f, "", what, bytes, n);
  setup(&g, "", what, bytes, n);
  perf_workload a = PERF_WORKLOAD(work, &f, .stream = f.s, .clock = clock);
  perf_workload b = PERF_WORKLOAD(work, &g, .stream = g.s, .clock = clock);
  PERF_EXPECT_SIMILAR(a, b, 0.2);
}

/* name, work, bytes, GEMM n, clock: the baseline check bb.NAME, and its
 * ratio twin bbr.NAME */
#define BB_CASES(X)                                             \
  X(ew_64k_device, "ew", 4 << 16, 0, PERF_CLOCK_DEVICE)         \
  X(ew_64k_cold, "ew", 4 << 16, 0, PERF_CLOCK_COLD)             \
  X(gemm_1k_device, "gemm", 0, 1024, PERF_CLOCK_DEVICE)         \
  X(memsets_gemm_device, "memsets_gemm", 0, 1024, PERF_CLOCK_DEVICE) \
  X(memsets_gemm_events, "memsets_gemm", 0, 1024, PERF_CLOCK_EVENTS) \
  X(ew4_64m_device, "ew4", 4 << 24, 0, PERF_CLOCK_DEVICE)       \
  X(gemm_4k_device, "gemm", 0, 4096, PERF_CLOCK_DEVICE)         \
  X(gemm_8k_events, "gemm", 0, 8192, PERF_CLOCK_EVENTS)         \
  X(h2d_256m_events, "h2d", (size_t)256 << 20, 0, PERF_CLOCK_EVENTS)

#define BB_TESTS(name, what, bytes, n, clock)                          \
  PERF_TEST(bb, name) { check("bb." #name, what, bytes, n, clock); } \
  PERF_TEST(bbr, name) { ratio(what, bytes, n, clock); }
BB_CASES(BB_TESTS)
