/* cpu.c — the CPU sides of CPU-vs-GPU claims: multi-threaded (OpenMP), vectorised C. */
#include "cpu.h"

#include "ew_ops.h"

/* Never fails. */
void cpu_ew_f32(float *x, size_t n, int op)
{
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; i++) x[i] = perf_ew(x[i], op);
}

/* Never fails. */
void cpu_ew4_f32(float *x, size_t n)
{
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; i++) x[i] = perf_ew4(x[i]);
}
