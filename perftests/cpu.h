/* cpu.h — the CPU sides of CPU-vs-GPU claims: multi-threaded (OpenMP), vectorised C. */
#ifndef PERF_CPU_H
#define PERF_CPU_H

#include <stddef.h>

/* Sizes OpenMP's teams (the calling thread's, which runs the workloads) to
 * perf_host_threads(): the CPUs this run may use less the runner's one.
 * Call once per test, before its CPU work. Never fails. */
void cpu_use_host_threads(void);
/* The element-wise ops of kernels/elementwise.cu (op 0..3) on n floats. */
void cpu_ew_f32(float *x, size_t n, int op);
/* The four ops in order, in one pass (the fused form). */
void cpu_ew4_f32(float *x, size_t n);
/* C = A B for n x n row-major floats (fp32 throughout), blocked, vectorised
 * and threaded. */
void cpu_sgemm(const float *a, const float *b, float *c, int n);

#endif
