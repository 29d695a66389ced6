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
cudaError_t kern_fill_f16(void *dst, size_t n, uint64_t seed,
                                 float scale, cudaStream_t stream);

/* Same for n bf16 values. */
cudaError_t kern_fill_bf16(void *dst, size_t n, uint64_t seed,
                                  float scale, cudaStream_t stream);
/* Same for n floats. */
cudaError_t kern_fill_f32(float *dst, size_t n, uint64_t seed,
                                 float scale, cudaStream_t stream);

/* Element-wise ops on n floats in place, one kernel each (op 0..3):
 *   0: x = 1.0001 x + 0.5   1: x = sin(x)   2: x = 0.5 x^2   3: x = x + 1
 * Returns the launch error. */
cudaError_t kern_ew_f32(float *x, size_t n, int op, cudaStream_t stream);
/* The same four ops, in order, in one kernel: one pass over memory. */
cudaError_t kern_ew4_f32(float *x, size_t n, cudaStream_t stream);

/* Document 001's nested sine, x = sin(sin(sin(sin(x)))), in one kernel
 * (one sin pass is kern_ew_f32 op 1). Returns the launch error. */
cudaError_t kern_sin4_f32(float *x, size_t n, cudaStream_t stream);

/* Element-wise op on n floats only if *flag (a device int) is non-zero: a
 * branch decided on the device. Returns the launch error. */
cudaError_t kern_ew_if_f32(float *x, size_t n, int op, const int *flag,
                                  cudaStream_t stream);
/* *flag (device int) = any of the n floats above t. Returns the first error
 * of its memset and launch. */
cudaError_t kern_any_above_f32(const float *x, size_t n, float t, int *flag,
                                      cudaStream_t stream);
/* out[i] = x[idx[i]] for i < m (idx in device memory). Returns the launch
 * error. */
cudaError_t kern_gather_f32(float *out, const float *x, const int *idx,
                                   size_t m, cudaStream_t stream);

/* *acc (device float) += mean of x^2 over n fp16 values: a loss. Returns the
 * launch error. */
cudaError_t kern_mean_square_add_f16(const void *x, size_t n, float *acc,
                                            cudaStream_t stream);

/* C = A B for n x n fp16 matrices (column-major, fp32 accumulation) with
 * cuBLAS, on stream: the same library call for every tool that times it.
 * Returns 0 or the cublasStatus_t of the step that failed. */
int kern_gemm_f16(const void *a, const void *b, void *c, int n, cudaStream_t stream);

/* A module image loaded at run time (kernels/first_call.image.cu): load it,
 * launch its kernel (x[0..31] += 1), unload it. Each returns the CUDA error;
 * load leaves *out NULL on failure. */
typedef struct perf_module perf_module;
cudaError_t perf_module_load(perf_module **out);
cudaError_t perf_module_launch(perf_module *m, float *x, cudaStream_t stream);
cudaError_t perf_module_unload(perf_module *m);

/* Faults on purpose (the opt-in fault suite): one thread stores 1 TiB past
 * base, an illegal address that poisons the context. Returns the launch
 * error; the fault comes at the next synchronisation. */
cudaError_t kern_store_far(int *base, cudaStream_t stream);
/* A kernel that spins until the device int *flag is non-zero: with a flag
 * that stays 0 it never ends. Returns the launch error. */
cudaError_t kern_spin_until(const int *flag, cudaStream_t stream);
/* One thread that spins for `cycles` SM clock cycles (0: at once), queued
 * on stream: a dependent kernel whose length a benchmark sets (a planted
 * slowdown). Returns the launch error. */
cudaError_t kern_delay_cycles(long long cycles, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
