// reduce.cu — a loss-like reduction: an fp16 tensor's mean square, added into a device float.
#include <cuda_fp16.h>

#include "kernels.h"

__global__ static void mean_square_kernel(const __half *x, size_t n, float *acc)
{
  __shared__ float part[256];
  float s = 0;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = __half2float(x[i]);
    s += v * v;
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(acc, part[0] / (float)n);
}

// Returns the launch error; never blocks.
extern "C" cudaError_t kern_mean_square_add_f16(const void *x, size_t n, float *acc,
                                                       cudaStream_t stream)
{
  mean_square_kernel<<<64, 256, 0, stream>>>((const __half *)x, n, acc);
  return cudaGetLastError();
}
