/* gemm.cu — one cuBLAS GEMM behind a C launcher, so several timing tools time the same call. */
#include <cublas_v2.h>

#include "kernels.h"

/* One handle for the process, created on the first call; each call points
 * it at the caller's stream. Returns 0 or the cuBLAS status of the call that
 * failed (create, set stream, GEMM). Not thread-safe. */
extern "C" int kern_gemm_f16(const void *a, const void *b, void *c, int n,
                             cudaStream_t stream)
{
  static cublasHandle_t h;
  const float one = 1.0f, zero = 0.0f;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  if (!h) st = cublasCreate(&h);
  if (st == CUBLAS_STATUS_SUCCESS) st = cublasSetStream(h, stream);
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, CUDA_R_16F, n, b,
                      CUDA_R_16F, n, &zero, c, CUDA_R_16F, n, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT);
  return (int)st;
}
