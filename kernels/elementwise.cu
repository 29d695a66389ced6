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
extern "C" cudaError_t kern_ew_f32(float *x, size_t n, int op, cudaStream_t stream)
{
  ew_kernel<<<blocks_for(n), 256, 0, stream>>>(x, n, op);
  return cudaGetLastError();
}

// Returns the launch error; never blocks.
extern "C" cudaError_t kern_ew4_f32(float *x, size_t n, cudaStream_t stream)
{
  ew4_kernel<<<blocks_for(n), 256, 0, stream>>>(x, n);
  return cudaGetLastError();
}


// PERF_PLANT_EXTRA_SIN=P (off unless defined): a deliberate regression for
// bench/history-demo.sh, which records suite runs before and after it. The
// threads of P of every 1000 blocks compute one more sine per element,
// whose value is never kept (the result stays bit for bit the same). The
// gate is decided once per thread: a test per element (a 64-bit modulo)
// cost 21 % by itself on an H100.
__global__ static void sin4_kernel(float *x, size_t n)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
#ifdef PERF_PLANT_EXTRA_SIN
  const bool extra = blockIdx.x % 1000 < PERF_PLANT_EXTRA_SIN;
#endif
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float y = perf_sin4(x[i]);
#ifdef PERF_PLANT_EXTRA_SIN
    if (extra && sinf(y + 1e-3f) == 12345.0f) y = 0.0f;
#endif
    x[i] = y;
  }
}

// Returns the launch error; never blocks.
extern "C" cudaError_t kern_sin4_f32(float *x, size_t n, cudaStream_t stream)
{
  sin4_kernel<<<blocks_for(n), 256, 0, stream>>>(x, n);
  return cudaGetLastError();
}

__global__ static void ew_if_kernel(float *x, size_t n, int op, const int *flag)
{
  if (!*flag) return;
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = perf_ew(x[i], op);
}

// Returns the launch error; never blocks.
extern "C" cudaError_t kern_ew_if_f32(float *x, size_t n, int op, const int *flag,
                                             cudaStream_t stream)
{
  ew_if_kernel<<<blocks_for(n), 256, 0, stream>>>(x, n, op, flag);
  return cudaGetLastError();
}

__global__ static void any_above_kernel(const float *x, size_t n, float t, int *flag)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  int found = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    found |= x[i] > t;
  if (__syncthreads_or(found) && threadIdx.x == 0) *flag = 1;
}

// Returns the first error of the memset and the launch; never blocks.
extern "C" cudaError_t kern_any_above_f32(const float *x, size_t n, float t, int *flag,
                                                 cudaStream_t stream)
{
  cudaError_t e = cudaMemsetAsync(flag, 0, sizeof *flag, stream);
  if (e) return e;
  any_above_kernel<<<blocks_for(n), 256, 0, stream>>>(x, n, t, flag);
  return cudaGetLastError();
}

__global__ static void gather_kernel(float *out, const float *x, const int *idx, size_t m)
{
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < m; i += stride)
    out[i] = x[idx[i]];
}

// Returns the launch error; never blocks.
extern "C" cudaError_t kern_gather_f32(float *out, const float *x, const int *idx,
                                              size_t m, cudaStream_t stream)
{
  gather_kernel<<<blocks_for(m), 256, 0, stream>>>(out, x, idx, m);
  return cudaGetLastError();
}
