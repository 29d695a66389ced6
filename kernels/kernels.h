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

#ifdef __cplusplus
}
#endif
#endif
