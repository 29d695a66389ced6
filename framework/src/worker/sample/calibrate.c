/* calibrate.c — the work that measures a GPU's achievable peaks. */
/* A streaming copy for DRAM bandwidth, and a large cuBLASLt GEMM per data
 * type for math. */
#define _GNU_SOURCE
#include "worker/sample/calibrate.h"

#include <cublasLt.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "baseline/peaks.h"
#include "util/units.h"
#include "worker/context.h"
#include "worker/device/gpu.h"

/* perf__calibrate_copy(dst, src, n16): thread i copies 16 bytes i of n16.
 * perf__calibrate_fill(dst, nwords, even, odd): word i = a hash of i AND
 * (even or odd by i's parity): the masks clear the top exponent bit of
 * every value of the type, so that each is finite and below 2 in
 * magnitude. */
static const char ptx[] =
    ".version 7.0\n"
    ".target sm_75\n"
    ".address_size 64\n"
    ".visible .entry perf__calibrate_copy(.param .u64 dst, .param .u64 src, .param .u64 n16)\n"
    "{\n"
    "  .reg .pred %p;\n"
    "  .reg .b32 %r<4>;\n"
    "  .reg .b32 %v<4>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [dst];\n"
    "  ld.param.u64 %rd2, [src];\n"
    "  ld.param.u64 %rd3, [n16];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  cvta.to.global.u64 %rd2, %rd2;\n"
    "  mov.u32 %r1, %ctaid.x;\n"
    "  mov.u32 %r2, %ntid.x;\n"
    "  mov.u32 %r3, %tid.x;\n"
    "  mul.wide.u32 %rd4, %r1, %r2;\n"
    "  cvt.u64.u32 %rd5, %r3;\n"
    "  add.u64 %rd4, %rd4, %rd5;\n"
    "  setp.ge.u64 %p, %rd4, %rd3;\n"
    "  @%p bra DONE;\n"
    "  shl.b64 %rd4, %rd4, 4;\n"
    "  add.u64 %rd6, %rd2, %rd4;\n"
    "  add.u64 %rd7, %rd1, %rd4;\n"
    "  ld.global.nc.v4.u32 {%v0, %v1, %v2, %v3}, [%rd6];\n"
    "  st.global.v4.u32 [%rd7], {%v0, %v1, %v2, %v3};\n"
    "DONE:\n"
    "  ret;\n"
    "}\n"
    ".visible .entry perf__calibrate_fill(.param .u64 dst, .param .u64 nwords, .param .u32 even,\n"
    "                                     .param .u32 odd)\n"
    "{\n"
    "  .reg .pred %p<3>;\n"
    "  .reg .b32 %r<12>;\n"
    "  .reg .b64 %rd<8>;\n"
    "  ld.param.u64 %rd1, [dst];\n"
    "  cvta.to.global.u64 %rd1, %rd1;\n"
    "  ld.param.u64 %rd2, [nwords];\n"
    "  ld.param.u32 %r1, [even];\n"
    "  ld.param.u32 %r2, [odd];\n"
    "  mov.u32 %r3, %ctaid.x;\n"
    "  mov.u32 %r4, %ntid.x;\n"
    "  mov.u32 %r5, %tid.x;\n"
    "  mul.wide.u32 %rd3, %r3, %r4;\n"
    "  cvt.u64.u32 %rd4, %r5;\n"
    "  add.u64 %rd3, %rd3, %rd4;\n"
    "  setp.ge.u64 %p1, %rd3, %rd2;\n"
    "  @%p1 bra DONE;\n"
    "  cvt.u32.u64 %r6, %rd3;\n"
    "  mul.lo.u32 %r7, %r6, -1640531527;\n"
    "  shr.u32 %r8, %r7, 16;\n"
    "  xor.b32 %r7, %r7, %r8;\n"
    "  mul.lo.u32 %r7, %r7, -2048144789;\n"
    "  shr.u32 %r8, %r7, 13;\n"
    "  xor.b32 %r7, %r7, %r8;\n"
    "  mul.lo.u32 %r7, %r7, -1028477387;\n"
    "  shr.u32 %r8, %r7, 16;\n"
    "  xor.b32 %r7, %r7, %r8;\n"
    "  and.b32 %r9, %r6, 1;\n"
    "  setp.eq.u32 %p2, %r9, 0;\n"
    "  selp.b32 %r10, %r1, %r2, %p2;\n"
    "  and.b32 %r7, %r7, %r10;\n"
    "  shl.b64 %rd5, %rd3, 2;\n"
    "  add.u64 %rd6, %rd1, %rd5;\n"
    "  st.global.u32 [%rd6], %r7;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

enum { THREADS = 256 };
static const size_t WORKSPACE = (size_t)32 << 20;

/* The GEMM of each type: X(type, A/B type, C/D type, compute, scale
 * type, A/B bytes, C/D bytes, fill masks even, odd). */
#define CAL_GEMM_MAP(X)                                                                        \
  X(FP64, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, CUDA_R_64F, 8, 8, 0xffffffffu, 0xbfffffffu) \
  X(FP32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 4, 4, 0xbfffffffu, 0xbfffffffu) \
  X(TF32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, CUDA_R_32F, 4, 4, 0xbfffffffu,    \
    0xbfffffffu)                                                                               \
  X(FP16, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, 0xbfffbfffu, 0xbfffbfffu) \
  X(BF16, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 2, 2, 0xbfffbfffu,            \
    0xbfffbfffu)                                                                               \
  X(FP8, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, CUDA_R_32F, 1, 2, 0xbfbfbfbfu,          \
    0xbfbfbfbfu)                                                                               \
  X(INT8, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, CUDA_R_32I, 1, 4, 0xffffffffu, 0xffffffffu)

typedef struct gemm_row {
  perf_flop_type type;
  cudaDataType_t ab, cd;
  cublasComputeType_t compute;
  cudaDataType_t scale;
  size_t ab_bytes, cd_bytes;
  unsigned even, odd;
} gemm_row;

static const gemm_row gemms[] = {
#define X(t, ab, cd, comp, sc, abb, cdb, ev, od) {PERF_FLOP_##t, ab, cd, comp, sc, abb, cdb, ev, od},
    CAL_GEMM_MAP(X)
#undef X
};

/* cuBLASLt's functions this file calls, loaded with dlopen. */
#define LT_FUNCS(X)                                                                              \
  X(cublasLtCreate, cublasStatus_t, (cublasLtHandle_t *))                                       \
  X(cublasLtMatmulDescCreate, cublasStatus_t,                                                    \
    (cublasLtMatmulDesc_t *, cublasComputeType_t, cudaDataType_t))                               \
  X(cublasLtMatmulDescDestroy, cublasStatus_t, (cublasLtMatmulDesc_t))                          \
  X(cublasLtMatmulDescSetAttribute, cublasStatus_t,                                              \
    (cublasLtMatmulDesc_t, cublasLtMatmulDescAttributes_t, const void *, size_t))               \
  X(cublasLtMatrixLayoutCreate, cublasStatus_t,                                                  \
    (cublasLtMatrixLayout_t *, cudaDataType, uint64_t, uint64_t, int64_t))                      \
  X(cublasLtMatrixLayoutDestroy, cublasStatus_t, (cublasLtMatrixLayout_t))                      \
  X(cublasLtMatmulPreferenceCreate, cublasStatus_t, (cublasLtMatmulPreference_t *))             \
  X(cublasLtMatmulPreferenceDestroy, cublasStatus_t, (cublasLtMatmulPreference_t))              \
  X(cublasLtMatmulPreferenceSetAttribute, cublasStatus_t,                                        \
    (cublasLtMatmulPreference_t, cublasLtMatmulPreferenceAttributes_t, const void *, size_t))   \
  X(cublasLtMatmulAlgoGetHeuristic, cublasStatus_t,                                              \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, cublasLtMatrixLayout_t, cublasLtMatrixLayout_t,     \
     cublasLtMatrixLayout_t, cublasLtMatrixLayout_t, cublasLtMatmulPreference_t, int,            \
     cublasLtMatmulHeuristicResult_t *, int *))                                                  \
  X(cublasLtMatmul, cublasStatus_t,                                                              \
    (cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *, cublasLtMatrixLayout_t, \
     const void *, cublasLtMatrixLayout_t, const void *, const void *, cublasLtMatrixLayout_t,   \
     void *, cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t, cudaStream_t))

static struct {
  int tried;
  void *so;
  char why[240];
  cublasLtHandle_t handle;
#define X(name, ret, args) ret(*name) args;
  LT_FUNCS(X)
#undef X
} cublaslt;

/* The copy and fill kernels, loaded once per process. */
static struct {
  int ready;
  cudaLibrary_t lib;
  cudaKernel_t copy, fill;
} krn;

/* One type's calibration as made for the running test. */
typedef struct cal {
  int made;
  void *a, *b, *d, *ws;  /* copy: a the source, d the destination; link: a, d
                            on the device */
  void *host_in, *host_out; /* link: pinned */
  cudaStream_t back;     /* link: the second stream, for the way back */
  cudaEvent_t fork, join;
  size_t bytes;          /* copy, link: bytes of each buffer */
  int ways;              /* link: PERF__LINK_TO_DEVICE, _TO_HOST or _BOTH */
  const gemm_row *row;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, ld;
  cublasLtMatmulAlgo_t algo;
  cudaStream_t stream;
} cal;

enum { LINK = PERF_FLOP_TYPE_COUNT }; /* cals[0]: the DRAM copy; [t]: type t's GEMM */
static cal cals[PERF_FLOP_TYPE_COUNT + 1];

/* Loads cuBLASLt and creates its handle once per process. Returns 0, or 1
 * with cublaslt.why set. */
static int load_lt(void)
{
  if (cublaslt.tried) return cublaslt.so && cublaslt.handle ? 0 : 1;
  cublaslt.tried = 1;
  cublaslt.so = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_LOCAL);
  if (!cublaslt.so) cublaslt.so = dlopen("libcublasLt.so", RTLD_NOW | RTLD_LOCAL);
  if (!cublaslt.so) {
    snprintf(cublaslt.why, sizeof cublaslt.why, "cuBLASLt could not be loaded (%s): install cuBLAS", dlerror());
    return 1;
  }
#define X(name, ret, args)                                                                   \
  if (!(*(void **)&cublaslt.name = dlsym(cublaslt.so, #name))) {                                         \
    snprintf(cublaslt.why, sizeof cublaslt.why, "cuBLASLt has no %s: a cuBLAS older than 13", #name);   \
    return 1;                                                                                \
  }
  LT_FUNCS(X)
#undef X
  cublasStatus_t s = cublaslt.cublasLtCreate(&cublaslt.handle);
  if (s != CUBLAS_STATUS_SUCCESS) {
    cublaslt.handle = NULL;
    snprintf(cublaslt.why, sizeof cublaslt.why, "cublasLtCreate failed (status %d)", (int)s);
    return 1;
  }
  return 0;
}

/* Ends the test on a CUDA error e of api. */
static void check(cudaError_t e, const char *api)
{
  if (e) perf__cuda_check(e, api, __FILE__, __LINE__);
}

/* Loads the copy and fill kernels once per process; ends the test on a
 * CUDA error. */
static void load_kernels(void)
{
  if (krn.ready) return;
  check(cudaLibraryLoadData(&krn.lib, ptx, NULL, NULL, 0, NULL, NULL, 0), "cudaLibraryLoadData");
  check(cudaLibraryGetKernel(&krn.copy, krn.lib, "perf__calibrate_copy"), "cudaLibraryGetKernel");
  check(cudaLibraryGetKernel(&krn.fill, krn.lib, "perf__calibrate_fill"), "cudaLibraryGetKernel");
  krn.ready = 1;
}

/* Grid of one thread per item of n, THREADS a block. Never fails. */
static dim3 grid_of(size_t n) { return (dim3){(unsigned)((n + THREADS - 1) / THREADS), 1, 1}; }

/* Fills bytes of p with bounded random values (masks even, odd) on the
 * legacy stream. Ends the test on a CUDA error. */
static void fill(void *p, size_t bytes, unsigned even, unsigned odd)
{
  unsigned long long words = bytes / 4;
  void *args[] = {&p, &words, &even, &odd};
  check(cudaLaunchKernel((const void *)krn.fill, grid_of(words), (dim3){THREADS, 1, 1}, args, 0, 0),
        "cudaLaunchKernel");
}

/* Frees what c holds and empties it (errors are the ended test's, not the
 * next one's). Never fails. */
static void free_cal(cal *c)
{
  void *bufs[] = {c->a, c->b, c->d, c->ws};
  for (int i = 0; i < 4; i++)
    if (bufs[i]) perf__gpu_tolerate(cudaFree(bufs[i]));
  void *pinned[] = {c->host_in, c->host_out};
  for (int i = 0; i < 2; i++)
    if (pinned[i]) perf__gpu_tolerate(cudaFreeHost(pinned[i]));
  if (c->back) perf__gpu_tolerate(cudaStreamDestroy(c->back));
  if (c->fork) perf__gpu_tolerate(cudaEventDestroy(c->fork));
  if (c->join) perf__gpu_tolerate(cudaEventDestroy(c->join));
  if (c->op) cublaslt.cublasLtMatmulDescDestroy(c->op);
  cublasLtMatrixLayout_t ls[] = {c->la, c->lb, c->ld};
  for (int i = 0; i < 3; i++)
    if (ls[i]) cublaslt.cublasLtMatrixLayoutDestroy(ls[i]);
  *c = (cal){0};
}

/* The release hook: every calibration made for the test that ended. Never
 * fails. */
static void release(void)
{
  for (int t = 0; t <= LINK; t++)
    if (cals[t].made) free_cal(&cals[t]);
}

/* Allocates bytes of device memory into *p. Returns 0, or 1 with why when
 * the GPU has not that much free (the claim cannot be calibrated here:
 * skipped, not failed); ends the test on another CUDA error. */
static int alloc(void **p, size_t bytes, char *why, size_t len)
{
  cudaError_t e = cudaMalloc(p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    perf__gpu_tolerate(cudaGetLastError());
    *p = NULL;
    return snprintf(why, len, "the GPU has not %.0f MiB free for the calibration's buffers",
                    (double)bytes / (1 << 20)), 1;
  }
  check(e, "cudaMalloc");
  return 0;
}

/* One call of the copy; a failed launch ends the test (FAIL). */
static void run_copy(void *arg)
{
  cal *c = arg;
  unsigned long long n16 = c->bytes / 16;
  void *args[] = {&c->d, &c->a, &n16};
  check(cudaLaunchKernel((const void *)krn.copy, grid_of(n16), (dim3){THREADS, 1, 1}, args, 0,
                         c->stream), "cudaLaunchKernel");
}

/* Makes the copy's buffers. Returns 0, or 1 with why (alloc); ends the
 * test on a CUDA error. */
static int make_copy(cal *c, char *why, size_t len)
{
  size_t free_b = 0, total = 0;
  check(cudaMemGetInfo(&free_b, &total), "cudaMemGetInfo");
  c->bytes = PERF__CALIBRATE_COPY_BYTES;
  while (c->bytes > ((size_t)16 << 20) && c->bytes > total / 8) c->bytes /= 2;
  if (alloc(&c->a, c->bytes, why, len) || alloc(&c->d, c->bytes, why, len)) return 1;
  fill(c->a, c->bytes, 0xffffffffu, 0xffffffffu);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return 0;
}

/* One call of the link's calibration: to the device on the workload's
 * stream, back on the second stream at once, joined; or the one way of
 * c->ways on the workload's stream. A failed call ends the test (FAIL). */
static void run_link(void *arg)
{
  cal *c = arg;
  if (c->ways != PERF__LINK_BOTH) {
    int up = c->ways == PERF__LINK_TO_DEVICE;
    check(cudaMemcpyAsync(up ? c->a : c->host_out, up ? c->host_in : c->d, c->bytes,
                          up ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost, c->stream),
          "cudaMemcpyAsync");
    return;
  }
  check(cudaEventRecord(c->fork, c->stream), "cudaEventRecord");
  check(cudaStreamWaitEvent(c->back, c->fork, 0), "cudaStreamWaitEvent");
  check(cudaMemcpyAsync(c->a, c->host_in, c->bytes, cudaMemcpyHostToDevice, c->stream),
        "cudaMemcpyAsync");
  check(cudaMemcpyAsync(c->host_out, c->d, c->bytes, cudaMemcpyDeviceToHost, c->back),
        "cudaMemcpyAsync");
  check(cudaEventRecord(c->join, c->back), "cudaEventRecord");
  check(cudaStreamWaitEvent(c->stream, c->join, 0), "cudaStreamWaitEvent");
}

/* Makes the link's buffers, stream and events. Returns 0, or 1 with why
 * (alloc); ends the test on a CUDA error. */
static int make_link(cal *c, char *why, size_t len)
{
  c->bytes = PERF__CALIBRATE_LINK_BYTES;
  if (alloc(&c->a, c->bytes, why, len) || alloc(&c->d, c->bytes, why, len)) return 1;
  check(cudaMallocHost(&c->host_in, c->bytes), "cudaMallocHost");
  check(cudaMallocHost(&c->host_out, c->bytes), "cudaMallocHost");
  check(cudaStreamCreateWithFlags(&c->back, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
  check(cudaEventCreateWithFlags(&c->fork, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  check(cudaEventCreateWithFlags(&c->join, cudaEventDisableTiming), "cudaEventCreateWithFlags");
  memset(c->host_in, 1, c->bytes);
  fill(c->d, c->bytes, 0xffffffffu, 0xffffffffu);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return 0;
}

/* One call of the GEMM: D = A^T B, alpha 1, beta 0 (C is D); a failed
 * call ends the test (FAIL). */
static void run_gemm(void *arg)
{
  cal *c = arg;
  double one64 = 1, zero64 = 0;
  float one32 = 1, zero32 = 0;
  int one_i = 1, zero_i = 0;
  const void *alpha = c->row->scale == CUDA_R_64F ? (const void *)&one64
                      : c->row->scale == CUDA_R_32I ? (const void *)&one_i : (const void *)&one32;
  const void *beta = c->row->scale == CUDA_R_64F ? (const void *)&zero64
                     : c->row->scale == CUDA_R_32I ? (const void *)&zero_i : (const void *)&zero32;
  cublasStatus_t s = cublaslt.cublasLtMatmul(cublaslt.handle, c->op, alpha, c->a, c->la, c->b, c->lb, beta, c->d,
                                       c->ld, c->d, c->ld, &c->algo, c->ws, WORKSPACE, c->stream);
  perf__cublas_check((int)s, "cublasLtMatmul", __FILE__, __LINE__);
}

/* Describes the GEMM of c->row (m = n = k = N, A transposed) and picks
 * cuBLASLt's first algorithm for it. Returns 0, or 1 with why. */
static int plan_gemm(cal *c, char *why, size_t len)
{
  const gemm_row *r = c->row;
  const uint64_t n = PERF__CALIBRATE_GEMM_N;
  cublasOperation_t tr = CUBLAS_OP_T;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t h;
  int found = 0;
  size_t ws = WORKSPACE;
  cublasStatus_t s = cublaslt.cublasLtMatmulDescCreate(&c->op, r->compute, r->scale);
  if (!s) s = cublaslt.cublasLtMatmulDescSetAttribute(c->op, CUBLASLT_MATMUL_DESC_TRANSA, &tr, sizeof tr);
  if (!s) s = cublaslt.cublasLtMatrixLayoutCreate(&c->la, r->ab, n, n, (int64_t)n);
  if (!s) s = cublaslt.cublasLtMatrixLayoutCreate(&c->lb, r->ab, n, n, (int64_t)n);
  if (!s) s = cublaslt.cublasLtMatrixLayoutCreate(&c->ld, r->cd, n, n, (int64_t)n);
  if (!s) s = cublaslt.cublasLtMatmulPreferenceCreate(&pref);
  if (!s)
    s = cublaslt.cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                                sizeof ws);
  if (!s)
    s = cublaslt.cublasLtMatmulAlgoGetHeuristic(cublaslt.handle, c->op, c->la, c->lb, c->ld, c->ld, pref, 1, &h,
                                          &found);
  if (pref) cublaslt.cublasLtMatmulPreferenceDestroy(pref);
  if (s || !found) {
    snprintf(why, len, "cuBLASLt has no %s GEMM for this GPU (status %d, %d %s)",
             perf__peaks_type_word(r->type), (int)s, found,
             perf__units_noun(found, "algorithm", "algorithms"));
    return 1;
  }
  c->algo = h.algo;
  return 0;
}

/* Makes the GEMM's plan and buffers. Returns 0, or 1 with why; ends the
 * test on a CUDA error. */
static int make_gemm(cal *c, perf_flop_type t, char *why, size_t len)
{
  const size_t n = PERF__CALIBRATE_GEMM_N;
  c->row = NULL;
  for (size_t i = 0; i < sizeof gemms / sizeof gemms[0]; i++)
    if (gemms[i].type == t) c->row = &gemms[i];
  if (!c->row) return snprintf(why, len, "no calibration for %s", perf__peaks_type_word(t)), 1;
  if (load_lt()) return snprintf(why, len, "%s", cublaslt.why), 1;
  if (plan_gemm(c, why, len)) return 1;
  if (alloc(&c->a, n * n * c->row->ab_bytes, why, len) ||
      alloc(&c->b, n * n * c->row->ab_bytes, why, len) ||
      alloc(&c->d, n * n * c->row->cd_bytes, why, len) || alloc(&c->ws, WORKSPACE, why, len))
    return 1;
  fill(c->a, n * n * c->row->ab_bytes, c->row->even, c->row->odd);
  fill(c->b, n * n * c->row->ab_bytes, c->row->even, c->row->odd);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return 0;
}

/* See calibrate.h. */
int perf__calibrate_link_ways(const perf_workload *w)
{
  int ways = (w->bytes_written > 0 ? PERF__LINK_TO_DEVICE : 0) | (w->bytes_read > 0 ? PERF__LINK_TO_HOST : 0);
  return ways ? ways : PERF__LINK_BOTH;
}

/* The slot of cals a calibration keeps its state in (-1: no such one). */
static int slot(perf__calibrate_peak peak, perf_flop_type t)
{
  if (peak == PERF__CAL_DRAM) return 0;
  if (peak == PERF__CAL_LINK) return LINK;
  return peak == PERF__CAL_MATH && t > PERF_FLOP_NONE && t < PERF_FLOP_TYPE_COUNT ? (int)t : -1;
}

/* See calibrate.h. */
int perf__calibrate_make(perf__calibrate_peak peak, perf_flop_type t, const perf_workload *like,
                         perf_workload *out, char *why, size_t len)
{
  static char names[LINK + 1][40];
  int k = slot(peak, t);
  if (k < 0) return snprintf(why, len, "no such calibration"), 1;
  cal *c = &cals[k];
  perf__context_on_release(release);
  if (!c->made) {
    c->made = 1; /* from here release() frees what is made, however this ends */
    load_kernels();
    int no = k == 0 ? make_copy(c, why, len) : k == LINK ? make_link(c, why, len)
                                                         : make_gemm(c, t, why, len);
    if (no) {
      free_cal(c);
      return 1;
    }
  }
  c->stream = like->stream;
  if (k == LINK) c->ways = perf__calibrate_link_ways(like); /* claims run one at a time */
  double n = PERF__CALIBRATE_GEMM_N;
  if (k == 0) snprintf(names[k], sizeof names[k], "perfgate_copy");
  else if (k == LINK) snprintf(names[k], sizeof names[k], "perfgate_%s", perf__peaks_link_word(c->ways));
  else snprintf(names[k], sizeof names[k], "cublasLt_%s_gemm", perf__peaks_type_word(t));
  *out = (perf_workload){.name = names[k], .fn = k == 0 ? run_copy : k == LINK ? run_link : run_gemm,
                         .arg = c, .stream = like->stream, .clock = like->clock};
  if (k == 0) out->bytes_read = out->bytes_written = (double)c->bytes;
  else if (k == LINK) {
    out->bytes_written = c->ways & PERF__LINK_TO_DEVICE ? (double)c->bytes : 0;
    out->bytes_read = c->ways & PERF__LINK_TO_HOST ? (double)c->bytes : 0;
  } else out->flops = 2 * n * n * n, out->flop_type = t;
  return 0;
}

/* See calibrate.h. */
char *perf__calibrate_describe(perf__calibrate_peak peak, perf_flop_type t, int ways, char *buf,
                               size_t len)
{
  if (peak == PERF__CAL_DRAM)
    snprintf(buf, len, "perfgate's streaming copy of %.2f GiB into another",
             (cals[0].bytes ? (double)cals[0].bytes : (double)PERF__CALIBRATE_COPY_BYTES) / (1 << 30));
  else if (peak == PERF__CAL_LINK)
    snprintf(buf, len, "perfgate's pinned %s of %zu MiB %s", ways == PERF__LINK_BOTH ? "copies" : "copy",
             PERF__CALIBRATE_LINK_BYTES >> 20,
             ways == PERF__LINK_TO_DEVICE ? "to the device"
             : ways == PERF__LINK_TO_HOST ? "from the device"
                                          : "to the device and back at once");
  else
    snprintf(buf, len, "a cuBLASLt %s GEMM, %d^3, algorithm by cuBLASLt's heuristic",
             perf__peaks_type_word(t), PERF__CALIBRATE_GEMM_N);
  return buf;
}
