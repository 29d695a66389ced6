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

__global__ static void fill_f16(__half *dst, size_t n, uint64_t seed, float scale)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t h = mix(seed * 0x9e3779b97f4a7c15ull + i);
    float u = (float)(h >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    dst[i] = __float2half((2.0f * u - 1.0f) * scale);
  }
}

__global__ static void fill_f32(float *dst, size_t n, uint64_t seed, float scale)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t h = mix(seed * 0x9e3779b97f4a7c15ull + i);
    float u = (float)(h >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    dst[i] = (2.0f * u - 1.0f) * scale;
  }
}

__global__ static void fill_bf16(__nv_bfloat16 *dst, size_t n, uint64_t seed, float scale)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    uint64_t h = mix(seed * 0x9e3779b97f4a7c15ull + i);
    float u = (float)(h >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    dst[i] = __float2bfloat16((2.0f * u - 1.0f) * scale);
  }
}

// Returns the launch error (cudaGetLastError), never blocks.
extern "C" cudaError_t perf_kernel_fill_bf16(void *dst, size_t n, uint64_t seed,
                                             float scale, cudaStream_t stream)
{
  if (n == 0) return cudaSuccess;
  unsigned blocks = (unsigned)((n + 255) / 256);
  if (blocks > 4096) blocks = 4096;
  fill_bf16<<<blocks, 256, 0, stream>>>((__nv_bfloat16 *)dst, n, seed, scale);
  return cudaGetLastError();
}

// Returns the launch error (cudaGetLastError), never blocks.
extern "C" cudaError_t perf_kernel_fill_f32(float *dst, size_t n, uint64_t seed,
                                            float scale, cudaStream_t stream)
{
  if (n == 0) return cudaSuccess;
  unsigned blocks = (unsigned)((n + 255) / 256);
  if (blocks > 4096) blocks = 4096;
  fill_f32<<<blocks, 256, 0, stream>>>(dst, n, seed, scale);
  return cudaGetLastError();
}

// Returns the launch error (cudaGetLastError), never blocks.
extern "C" cudaError_t perf_kernel_fill_f16(void *dst, size_t n, uint64_t seed,
                                            float scale, cudaStream_t stream)
{
  if (n == 0) return cudaSuccess;
  unsigned blocks = (unsigned)((n + 255) / 256);
  if (blocks > 4096) blocks = 4096;
  fill_f16<<<blocks, 256, 0, stream>>>((__half *)dst, n, seed, scale);
  return cudaGetLastError();
}
