/* cpu.c — the CPU sides of CPU-vs-GPU claims: multi-threaded (OpenMP), vectorised C. */
#include "cpu.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* glibc's libmvec has SIMD sinf (declared only under -ffast-math): say so,
 * so that the loops below call the vector variant for this host's ISA. */
#pragma omp declare simd notinbranch
float sinf(float x);

#include "ew_ops.h"
#include "perfgate.h"

/* Never fails. */
void cpu_use_host_threads(void) { omp_set_num_threads(perf_host_threads()); }

/* Never fails. */
void cpu_ew_f32(float *x, size_t n, int op)
{
  if (op == 1) { /* a switch inside the loop would keep sinf scalar */
#pragma omp parallel for simd schedule(static)
    for (size_t i = 0; i < n; i++) x[i] = sinf(x[i]);
    return;
  }
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; i++) x[i] = perf_ew(x[i], op);
}

/* Never fails. */
void cpu_ew4_f32(float *x, size_t n)
{
#pragma omp parallel for simd schedule(static)
  for (size_t i = 0; i < n; i++) x[i] = perf_ew4(x[i]);
}

enum { ROWS = 16, DEPTH = 128 }; /* a block of C's rows and of the k range */

/* C's rows [i0, i1) += A[i0:i1, k0:k1] B[k0:k1, :], the innermost loop
 * vectorised over a row of C and of B. */
static void sgemm_block(const float *a, const float *b, float *c, int n, int i0,
                        int i1, int k0, int k1)
{
  for (int i = i0; i < i1; i++) {
    float *ci = c + (size_t)i * n;
    for (int k = k0; k < k1; k++) {
      float aik = a[(size_t)i * n + k];
      const float *bk = b + (size_t)k * n;
#pragma omp simd
      for (int j = 0; j < n; j++) ci[j] += aik * bk[j];
    }
  }
}

/* Never fails. Threads only from n = 128 up: below that one core is faster
 * than waking the others. */
void cpu_sgemm(const float *a, const float *b, float *c, int n)
{
  memset(c, 0, (size_t)n * n * sizeof *c);
  int blocks = (n + ROWS - 1) / ROWS;
#pragma omp parallel for schedule(static) if (n >= 128)
  for (int r = 0; r < blocks; r++) {
    int i0 = r * ROWS, i1 = i0 + ROWS < n ? i0 + ROWS : n;
    for (int k0 = 0; k0 < n; k0 += DEPTH)
      sgemm_block(a, b, c, n, i0, i1, k0, k0 + DEPTH < n ? k0 + DEPTH : n);
  }
}
