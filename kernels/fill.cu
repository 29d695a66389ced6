// fill.cu — random fill of device buffers, so that perf tests never time zeros.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels.h"

__device__ static uint64_t mix(uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Value i of a seeded uniform stream in [-scale, scale).
__device__ static float uniform(uint64_t seed, size_t i, float scale)
{
  uint64_t h = mix(seed * 0x9e3779b97f4a7c15ull + i);
  float u = (float)(h >> 40) * (1.0f / 16777216.0f);  // [0, 1)
  return (2.0f * u - 1.0f) * scale;
}

__device__ static void store(__half *p, float v) { *p = __float2half(v); }
__device__ static void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16(v); }
__device__ static void store(float *p, float v) { *p = v; }

template <typename T>
__global__ static void fill_kernel(T *dst, size_t n, uint64_t seed, float scale)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    store(&dst[i], uniform(seed, i, scale));
}

// Launches fill_kernel<T>; returns the launch error, never blocks.
template <typename T>
static cudaError_t fill(void *dst, size_t n, uint64_t seed, float scale, cudaStream_t stream)
{
  if (n == 0) return cudaSuccess;
  unsigned blocks = (unsigned)((n + 255) / 256);
  if (blocks > 4096) blocks = 4096;
  fill_kernel<T><<<blocks, 256, 0, stream>>>((T *)dst, n, seed, scale);
  return cudaGetLastError();
}

extern "C" cudaError_t kern_fill_f16(void *dst, size_t n, uint64_t seed,
                                            float scale, cudaStream_t stream)
{
  return fill<__half>(dst, n, seed, scale, stream);
}

extern "C" cudaError_t kern_fill_bf16(void *dst, size_t n, uint64_t seed,
                                             float scale, cudaStream_t stream)
{
  return fill<__nv_bfloat16>(dst, n, seed, scale, stream);
}

extern "C" cudaError_t kern_fill_f32(float *dst, size_t n, uint64_t seed,
                                            float scale, cudaStream_t stream)
{
  return fill<float>(dst, n, seed, scale, stream);
}
