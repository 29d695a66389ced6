/* gemm.h — document 003's GEMM fixture: cuBLAS on a stream, random inputs, checked results. */
#ifndef PERF_GEMM_H
#define PERF_GEMM_H

#include <cublas_v2.h>

typedef struct gemm_fixture {
  int n;
  cudaDataType type; /* CUDA_R_16F, CUDA_R_16BF or CUDA_R_32F */
  cudaStream_t stream;
  cublasHandle_t blas;
  void *a, *b, *c; /* n x n, column-major */
  void *scalar;    /* one element read back by the scalar claims */
} gemm_fixture;

/* Bytes per element of t. */
size_t gemm_elem_size(cudaDataType t);
/* An n x n GEMM fixture of type t on its own non-blocking stream and cuBLAS
 * handle: A and B random, C poisoned with NaN; any failure ends the test,
 * and all of it is released when the test ends. */
void gemm_init_typed(gemm_fixture *f, int n, cudaDataType type);
/* The same in fp16. */
void gemm_init(gemm_fixture *f, int n);
/* A workload (arg: a gemm_fixture): queues C = A B (fp32 accumulation;
 * strict fp32 for fp32) on the fixture's stream. */
void gemm_once(void *fixture);
/* fp16 only: runs the GEMM and checks 64 entries of C against a float64 host
 * reference (error <= 1e-3 of the sum of |a b| terms); fails the test
 * otherwise. */
void gemm_verify(gemm_fixture *f);
/* Runs the GEMM and checks that 16 sampled entries of C were written and are
 * finite; fails the test otherwise. */
void gemm_wrote_c(gemm_fixture *f);

#endif
