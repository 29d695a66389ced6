// first_call.image.cu — a module kept out of the binary and loaded at run time, to time a kernel's first call.
extern "C" __global__ void perf_first_call_kernel(float *x)
{
  x[threadIdx.x] += 1.0f;
}
