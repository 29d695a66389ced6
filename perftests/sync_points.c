/* sync_points.c — document 003's claim: a host sync after each small GEMM costs 35-83 %. */
#include <cublas_v2.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "perfgate.h"

typedef struct gemm_fixture {
  int n;
  cudaStream_t stream;
  cublasHandle_t blas;
  void *a, *b, *c; /* n x n fp16, column-major */
} gemm_fixture;

/* IEEE binary16 to float, for checking results on the host. */
static float half_to_float(uint16_t h)
{
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f,
           man = h & 0x3ff, bits;
  if (exp == 0x1f)
    bits = sign | 0x7f800000u | (man << 13);
  else if (exp != 0)
    bits = sign | ((exp + 112) << 23) | (man << 13);
  else if (man == 0)
    bits = sign;
  else { /* subnormal: normalise */
    exp = 113;
    while (!(man & 0x400)) {
      man <<= 1;
      exp--;
    }
    bits = sign | (exp << 23) | ((man & 0x3ff) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

/* Allocates and fills A and B with random values, C with a poison pattern;
 * any failure ends the test. */
static void gemm_init(gemm_fixture *f, int n)
{
  size_t elems = (size_t)n * n, bytes = elems * 2;
  f->n = n;
  PERF_CUDA(cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking));
  PERF_CUBLAS(cublasCreate(&f->blas));
  PERF_CUBLAS(cublasSetStream(f->blas, f->stream));
  PERF_CUDA(cudaMalloc(&f->a, bytes));
  PERF_CUDA(cudaMalloc(&f->b, bytes));
  PERF_CUDA(cudaMalloc(&f->c, bytes));
  PERF_CUDA(perf_kernel_fill_f16(f->a, elems, 1, 1.0f, f->stream));
  PERF_CUDA(perf_kernel_fill_f16(f->b, elems, 2, 1.0f, f->stream));
  PERF_CUDA(cudaMemsetAsync(f->c, 0xff, bytes, f->stream)); /* NaN poison */
  PERF_CUDA(cudaStreamSynchronize(f->stream));
}

static void gemm_free(gemm_fixture *f)
{
  PERF_CUDA(cudaFree(f->a));
  PERF_CUDA(cudaFree(f->b));
  PERF_CUDA(cudaFree(f->c));
  PERF_CUBLAS(cublasDestroy(f->blas));
  PERF_CUDA(cudaStreamDestroy(f->stream));
}

/* C = A * B in fp16 with fp32 accumulation, queued on the fixture's stream. */
static void gemm_once(gemm_fixture *f)
{
  const float one = 1.0f, zero = 0.0f;
  int n = f->n;
  PERF_CUBLAS(cublasGemmEx(f->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                           f->a, CUDA_R_16F, n, f->b, CUDA_R_16F, n, &zero,
                           f->c, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                           CUBLAS_GEMM_DEFAULT));
}

static void gemm_async(void *arg) { gemm_once(arg); }

static void gemm_sync_each(void *arg)
{
  gemm_fixture *f = arg;
  gemm_once(f);
  PERF_CUDA(cudaStreamSynchronize(f->stream));
}

static uint16_t *download(const void *src, size_t elems)
{
  uint16_t *h = malloc(elems * sizeof *h);
  PERF_ASSERT_TRUE(h != NULL);
  PERF_CUDA(cudaMemcpy(h, src, elems * sizeof *h, cudaMemcpyDeviceToHost));
  return h;
}

/* Runs the GEMM once and compares 64 sampled entries of C with a float64
 * reference computed on the host from the same fp16 inputs. */
static void gemm_verify(gemm_fixture *f)
{
  int n = f->n;
  size_t elems = (size_t)n * n;
  gemm_once(f);
  PERF_CUDA(cudaStreamSynchronize(f->stream));
  uint16_t *a = download(f->a, elems), *b = download(f->b, elems),
           *c = download(f->c, elems);
  double worst = 0;
  for (int s = 0; s < 64; s++) {
    int i = (s * 131 + 7) % n, j = (s * 197 + 3) % n;
    double ref = 0, mag = 0;
    for (int k = 0; k < n; k++) {
      double x = half_to_float(a[i + (size_t)k * n]) *
                 (double)half_to_float(b[k + (size_t)j * n]);
      ref += x;
      mag += fabs(x);
    }
    double err = fabs(half_to_float(c[i + (size_t)j * n]) - ref) / mag;
    if (!(err <= worst)) worst = err; /* NaN (unwritten) sticks */
  }
  free(a);
  free(b);
  free(c);
  PERF_ASSERT_TRUE(worst < 1e-3);
}

/* Document 003, SMALL GEMM: 512x512 fp16, "forced sync each iter" costs
 * 35-83 % over queueing asynchronously. Events on the GEMM's stream time the
 * whole loop, host gaps included: that is what the sync costs. */
PERF_TEST(sync_points, small_gemm_async_beats_sync_each)
{
  PERF_REQUIRE_GPUS(1);
  gemm_fixture f;
  gemm_init(&f, 512);
  gemm_verify(&f);
  perf_workload async = PERF_WORKLOAD(gemm_async, &f, .stream = f.stream);
  perf_workload sync_each =
      PERF_WORKLOAD(gemm_sync_each, &f, .stream = f.stream);
  PERF_EXPECT_FASTER(async, sync_each, 1.3);
  PERF_EXPECT_BASELINE(async); /* against this GPU's baselines/<gpu>.yaml */
  gemm_free(&f);
}
