// elementwise.cu — small element-wise kernels and their fused form, for the pipeline, graph and fusion claims.
#include "kernels.h"

#include "ew_ops.h"

__global__ static void ew_kernel(float *x, size_t n, int op)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = perf_ew(x[i], op);
}

__global__ static void ew4_kernel(float *x, size_t n)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = perf_ew4(x[i]);
}

static unsigned blocks_for(size_t n)
{
  size_t b = (n + 255) / 256;
  return (unsigned)(b > 132 * 16 ? 132 * 16 : (b ? b : 1));
}

// Returns the launch error; never blocks.
extern "C" cudaError_t perf_kernel_ew_f32(float *x, size_t n, int op, cudaStream_t stream)
{
  ew_kernel<<<blocks_for(n), 256, 0, stream>>>(x, n, op);
  return cudaGetLastError();
}

// Returns the launch error; never blocks.
extern "C" cudaError_t perf_kernel_ew4_f32(float *x, size_t n, cudaStream_t stream)
{
  ew4_kernel<<<blocks_for(n), 256, 0, stream>>>(x, n);
  return cudaGetLastError();
}

