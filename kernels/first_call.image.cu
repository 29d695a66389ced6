// first_call.image.cu — a module loaded at run time, not linked in, to time a kernel's first call.
extern "C" __global__ void perf_first_call_kernel(float *x)
{
  x[threadIdx.x] += 1.0f;
}
