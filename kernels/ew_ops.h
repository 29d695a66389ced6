/* ew_ops.h — the element-wise ops, defined once for the CUDA kernels and their CPU twins. */
#ifndef PERF_EW_OPS_H
#define PERF_EW_OPS_H

#ifdef __CUDACC__
#define PERF_HD __host__ __device__
#else
#define PERF_HD
#endif

#include <math.h>

/* op 0: x = 1.0001 x + 0.5   1: x = sin(x)   2: x = 0.5 x^2   3: x = x + 1 */
PERF_HD static inline float perf_ew(float x, int op)
{
  switch (op) {
  case 0:
    return 1.0001f * x + 0.5f;
  case 1:
    return sinf(x);
  case 2:
    return 0.5f * x * x;
  default:
    return x + 1.0f;
  }
}

/* The four ops in order: the fused chain. */
PERF_HD static inline float perf_ew4(float x)
{
  return perf_ew(perf_ew(perf_ew(perf_ew(x, 0), 1), 2), 3);
}

/* Document 001's nested sine: sin(sin(sin(sin(x)))). */
PERF_HD static inline float perf_sin4(float x)
{
  return sinf(sinf(sinf(sinf(x))));
}

#endif
