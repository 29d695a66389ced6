/* gemm.c — document 003's GEMM fixture: cuBLAS on a stream, random inputs, checked results. */
#include "gemm.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels.h"
#include "perfgate.h"

size_t gemm_elem_size(cudaDataType t) { return t == CUDA_R_32F ? 4 : 2; }

static void destroy_stream(void *s) { PERF_CUDA(cudaStreamDestroy(s)); }
static void destroy_blas(void *h) { PERF_CUBLAS(cublasDestroy(h)); }

static void fill(gemm_fixture *f, void *p, size_t elems, uint64_t seed)
{
  if (f->type == CUDA_R_16F)
    PERF_CUDA(kern_fill_f16(p, elems, seed, 1.0f, f->stream));
  else if (f->type == CUDA_R_16BF)
    PERF_CUDA(kern_fill_bf16(p, elems, seed, 1.0f, f->stream));
  else
    PERF_CUDA(kern_fill_f32(p, elems, seed, 1.0f, f->stream));
}

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

/* Allocates and fills A and B with random values, C with a poison pattern
 * (NaN in every type); any failure ends the test. */
void gemm_init_typed(gemm_fixture *f, int n, cudaDataType type)
{
  size_t elems = (size_t)n * n, bytes = elems * gemm_elem_size(type);
  f->n = n;
  f->type = type;
  PERF_CUDA(cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking));
  PERF_DEFER(destroy_stream, f->stream);
  PERF_CUBLAS(cublasCreate(&f->blas));
  PERF_DEFER(destroy_blas, f->blas);
  PERF_CUBLAS(cublasSetStream(f->blas, f->stream));
  PERF_ALLOC_DEVICE(f->a, bytes);
  PERF_ALLOC_DEVICE(f->b, bytes);
  PERF_ALLOC_DEVICE(f->c, bytes);
  PERF_ALLOC_PINNED(f->scalar, 4);
  fill(f, f->a, elems, 1);
  fill(f, f->b, elems, 2);
  PERF_CUDA(cudaMemsetAsync(f->c, 0xff, bytes, f->stream)); /* NaN poison */
  PERF_CUDA(cudaStreamSynchronize(f->stream));
}

void gemm_init(gemm_fixture *f, int n) { gemm_init_typed(f, n, CUDA_R_16F); }

/* C = A * B in the fixture's type with fp32 accumulation (strict fp32 for
 * fp32: no TF32), queued on the fixture's stream. */
void gemm_once(void *fixture)
{
  gemm_fixture *f = fixture;
  const float one = 1.0f, zero = 0.0f;
  int n = f->n;
  PERF_CUBLAS(cublasGemmEx(f->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                           f->a, f->type, n, f->b, f->type, n, &zero, f->c,
                           f->type, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

/* A host copy of elems fp16 values on the device. */
static uint16_t *download(const void *src, size_t elems)
{
  uint16_t *h;
  PERF_ALLOC_HOST(h, elems * sizeof *h);
  PERF_CUDA(cudaMemcpy(h, src, elems * sizeof *h, cudaMemcpyDeviceToHost));
  return h;
}

/* Runs the GEMM once and compares 64 sampled entries of C with a float64
 * reference computed on the host from the same fp16 inputs, each within
 * 1e-3 of the sum of its terms' magnitudes (an unwritten, NaN, entry fails). */
void gemm_verify(gemm_fixture *f)
{
  enum { SAMPLES = 64 };
  int n = f->n;
  size_t elems = (size_t)n * n;
  gemm_once(f);
  PERF_CUDA(cudaStreamSynchronize(f->stream));
  const uint16_t *ha = download(f->a, elems), *hb = download(f->b, elems),
                 *hc = download(f->c, elems);
  double c[SAMPLES], ref[SAMPLES], mag[SAMPLES];
  for (int s = 0; s < SAMPLES; s++) {
    int i = (s * 131 + 7) % n, j = (s * 197 + 3) % n;
    ref[s] = mag[s] = 0;
    for (int k = 0; k < n; k++) {
      double x = half_to_float(ha[i + (size_t)k * n]) *
                 (double)half_to_float(hb[k + (size_t)j * n]);
      ref[s] += x;
      mag[s] += fabs(x);
    }
    c[s] = half_to_float(hc[i + (size_t)j * n]);
  }
  PERF_ASSERT_NEAR_SCALED(c, ref, mag, SAMPLES, 1e-3);
}

/* Every sampled element of C was written (the poison is NaN) and is finite:
 * a check that the timed GEMM computes something, in any type. */
void gemm_wrote_c(gemm_fixture *f)
{
  gemm_once(f);
  /* the copies below run on the legacy stream: wait for the GEMM's own */
  PERF_CUDA(cudaStreamSynchronize(f->stream));
  int bad = 0;
  for (int s = 0; s < 16; s++) {
    size_t i = (size_t)(s * 131 + 7) % f->n, j = (size_t)(s * 197 + 3) % f->n;
    unsigned char e[4] = {0};
    size_t es = gemm_elem_size(f->type);
    PERF_CUDA(cudaMemcpy(e, (char *)f->c + (i + j * f->n) * es, es, cudaMemcpyDeviceToHost));
    float v;
    if (es == 4)
      memcpy(&v, e, 4);
    else if (f->type == CUDA_R_16F)
      v = half_to_float((uint16_t)(e[0] | e[1] << 8));
    else { /* bf16: the top half of a float */
      uint32_t bits = (uint32_t)(e[0] | e[1] << 8) << 16;
      memcpy(&v, &bits, 4);
    }
    bad += !isfinite(v);
  }
  PERF_ASSERT_TRUE(bad == 0);
}

