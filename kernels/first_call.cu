// first_call.cu — loads, launches and unloads a module image, to time what a first call pays.
#include <stdlib.h>
#include <string.h>

#include "first_call.image.h" // generated from first_call.image.cu: perf_image_first_call[]
#include "kernels.h"

struct perf_module {
  cudaLibrary_t lib;
  cudaKernel_t kernel;
};

// The image, 8-byte aligned as a fatbin's header needs (bin2c's array is
// byte-aligned); copied once. Returns NULL when out of memory.
static const void *image(void)
{
  static unsigned long long *copy;
  if (!copy) {
    copy = (unsigned long long *)malloc(sizeof perf_image_first_call + 8);
    if (copy) memcpy(copy, perf_image_first_call, sizeof perf_image_first_call);
  }
  return copy;
}

// Returns the first error of the load or the lookup; *out is NULL then.
extern "C" cudaError_t perf_module_load(perf_module **out)
{
  *out = NULL;
  if (!image()) return cudaErrorMemoryAllocation;
  perf_module *m = (perf_module *)calloc(1, sizeof *m);
  if (!m) return cudaErrorMemoryAllocation;
  cudaError_t e = cudaLibraryLoadData(&m->lib, image(), NULL, NULL, 0, NULL, NULL, 0);
  if (e) {
    free(m);
    return e;
  }
  e = cudaLibraryGetKernel(&m->kernel, m->lib, "perf_first_call_kernel");
  if (e) {
    cudaLibraryUnload(m->lib);
    free(m);
    return e;
  }
  *out = m;
  return cudaSuccess;
}

// Launches the module's kernel (x += 1 on 32 floats); returns the launch error.
extern "C" cudaError_t perf_module_launch(perf_module *m, float *x, cudaStream_t stream)
{
  void *args[] = {&x};
  return cudaLaunchKernel((const void *)m->kernel, dim3(1), dim3(32), args, 0, stream);
}

// Unloads the module and frees m (NULL is fine); returns the unload's error.
extern "C" cudaError_t perf_module_unload(perf_module *m)
{
  if (!m) return cudaSuccess;
  cudaError_t e = cudaLibraryUnload(m->lib);
  free(m);
  return e;
}
