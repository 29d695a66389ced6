/* kernels.h — extern "C" launchers for the CUDA kernels the perf tests use. */
#ifndef PERF_KERNELS_H
#define PERF_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills n fp16 values at dst with uniform random values in [-scale, scale)
 * (a counter-based hash of seed and index, so the same seed gives the same
 * data). Returns the launch's error; the kernel runs on stream. */
cudaError_t perf_kernel_fill_f16(void *dst, size_t n, uint64_t seed,
                                 float scale, cudaStream_t stream);

/* Same for n bf16 values. */
cudaError_t perf_kernel_fill_bf16(void *dst, size_t n, uint64_t seed,
                                  float scale, cudaStream_t stream);
/* Same for n floats. */
cudaError_t perf_kernel_fill_f32(float *dst, size_t n, uint64_t seed,
                                 float scale, cudaStream_t stream);

/* Element-wise ops on n floats in place, one kernel each (op 0..3):
 *   0: x = 1.0001 x + 0.5   1: x = sin(x)   2: x = 0.5 x^2   3: x = x + 1
 * Returns the launch error. */
cudaError_t perf_kernel_ew_f32(float *x, size_t n, int op, cudaStream_t stream);
/* The same four ops, in order, in one kernel: one pass over memory. */
cudaError_t perf_kernel_ew4_f32(float *x, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
