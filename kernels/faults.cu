// faults.cu — kernels that fault on purpose, for the opt-in GPU fault suite (perftests/faults.c).
#include "kernels.h"

// One thread stores through a pointer 1 TiB past the buffer: no allocation
// is mapped there, so the store is an illegal address (a sticky error).
__global__ static void store_far(int *base)
{
  volatile int *far = (volatile int *)((char *)base + ((size_t)1 << 40));
  *far = 1;
}

// Waits for *flag to become non-zero, which nothing ever does.
__global__ static void spin(const volatile int *flag)
{
  while (*flag == 0) __nanosleep(1000);
}

extern "C" cudaError_t kern_store_far(int *base, cudaStream_t stream)
{
  store_far<<<1, 1, 0, stream>>>(base);
  return cudaGetLastError();
}

extern "C" cudaError_t kern_spin_until(const int *flag, cudaStream_t stream)
{
  spin<<<1, 1, 0, stream>>>(flag);
  return cudaGetLastError();
}
