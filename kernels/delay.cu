// delay.cu — a kernel that runs for a set number of SM clock cycles: a planted slowdown.
#include "kernels.h"

// One thread spins until `cycles` SM clock cycles have passed.
__global__ static void delay(long long cycles)
{
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

extern "C" cudaError_t kern_delay_cycles(long long cycles, cudaStream_t stream)
{
  delay<<<1, 1, 0, stream>>>(cycles < 0 ? 0 : cycles);
  return cudaGetLastError();
}
