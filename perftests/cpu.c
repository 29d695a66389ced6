/* cpu.c — the CPU sides of CPU-vs-GPU claims: multi-threaded (OpenMP), vectorised C. */
#include "cpu.h"

#include <math.h>

static inline float ew(float x, int op)
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

/* Never fails. */
void cpu_ew_f32(float *x, size_t n, int op)
{
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; i++) x[i] = ew(x[i], op);
}

/* Never fails. */
void cpu_ew4_f32(float *x, size_t n)
{
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; i++) x[i] = ew(ew(ew(ew(x[i], 0), 1), 2), 3);
}
