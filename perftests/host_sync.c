/* host_sync.c — documents 000 and 003: which CUDA calls block the host, each at its call site. */
#include <cublas_v2.h>
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "perfgate.h"

enum { N = 1 << 20 }; /* bytes per buffer */

typedef struct bufs {
  cudaStream_t s;
  cudaEvent_t ev;
  void *dev, *dev2, *pinned, *managed, *pageable, *registered;
  float *x, *y;
  cublasHandle_t blas;
  CUresult (*cu_ctx_sync)(void);
  CUresult (*cu_dtoh)(void *, CUdeviceptr, size_t);
  cudaGraphExec_t graph;
} bufs;

/* Each operation notes the line of its CUDA call: the finding must name it. */
enum {
  OP_DEVICE_SYNC, OP_STREAM_SYNC, OP_EVENT_SYNC, OP_CU_CTX_SYNC, OP_CU_DTOH,
  OP_MEMCPY_D2H_PAGEABLE, OP_MEMCPY_H2D_PAGEABLE, OP_MEMCPY_D2H_PINNED,
  OP_ASYNC_D2H_PAGEABLE, OP_ASYNC_H2D_PAGEABLE, OP_MEMSET_PINNED,
  OP_MEMSET_MANAGED, OP_FREE, OP_FREE_HOST, OP_HOST_UNREGISTER, OP_SDOT_HOST,
  OP_STREAM_QUERY, OP_EVENT_QUERY, OP_ASYNC_D2H_PINNED, OP_ASYNC_H2D_PINNED,
  OP_ASYNC_D2D, OP_KERNEL, OP_MALLOC_FREE_ASYNC, OP_MEMSET_DEVICE, OP_GRAPH,
  OP_COUNT
};
static int line_of[OP_COUNT];
#define AT(op, call)          \
  do {                        \
    line_of[op] = __LINE__;   \
    PERF_CUDA(call);          \
  } while (0)

static void device_sync(void *a) { (void)a; AT(OP_DEVICE_SYNC, cudaDeviceSynchronize()); }
static void stream_sync(void *a) { bufs *b = a; AT(OP_STREAM_SYNC, cudaStreamSynchronize(b->s)); }
static void event_sync(void *a)
{
  bufs *b = a;
  PERF_CUDA(cudaEventRecord(b->ev, b->s));
  AT(OP_EVENT_SYNC, cudaEventSynchronize(b->ev));
}
static void cu_ctx_sync(void *a)
{
  bufs *b = a;
  line_of[OP_CU_CTX_SYNC] = __LINE__; PERF_EXPECT_TRUE(b->cu_ctx_sync() == CUDA_SUCCESS);
}
static void cu_dtoh(void *a)
{
  bufs *b = a;
  line_of[OP_CU_DTOH] = __LINE__; PERF_EXPECT_TRUE(b->cu_dtoh(b->pageable, (CUdeviceptr)b->dev, N) == CUDA_SUCCESS);
}
static void memcpy_d2h_pageable(void *a) { bufs *b = a; AT(OP_MEMCPY_D2H_PAGEABLE, cudaMemcpy(b->pageable, b->dev, N, cudaMemcpyDeviceToHost)); }
static void memcpy_h2d_pageable(void *a) { bufs *b = a; AT(OP_MEMCPY_H2D_PAGEABLE, cudaMemcpy(b->dev, b->pageable, N, cudaMemcpyHostToDevice)); }
static void memcpy_d2h_pinned(void *a) { bufs *b = a; AT(OP_MEMCPY_D2H_PINNED, cudaMemcpy(b->pinned, b->dev, N, cudaMemcpyDeviceToHost)); }
static void async_d2h_pageable(void *a) { bufs *b = a; AT(OP_ASYNC_D2H_PAGEABLE, cudaMemcpyAsync(b->pageable, b->dev, N, cudaMemcpyDeviceToHost, b->s)); }
static void async_h2d_pageable(void *a) { bufs *b = a; AT(OP_ASYNC_H2D_PAGEABLE, cudaMemcpyAsync(b->dev, b->pageable, N, cudaMemcpyHostToDevice, b->s)); }
static void memset_pinned(void *a) { bufs *b = a; AT(OP_MEMSET_PINNED, cudaMemset(b->pinned, 0, N)); }
static void memset_managed(void *a) { bufs *b = a; AT(OP_MEMSET_MANAGED, cudaMemset(b->managed, 0, N)); }
static void free_device(void *a)
{
  void *p;
  (void)a;
  PERF_CUDA(cudaMalloc(&p, N));
  AT(OP_FREE, cudaFree(p));
}
static void free_host(void *a)
{
  void *p;
  (void)a;
  PERF_CUDA(cudaMallocHost(&p, N));
  AT(OP_FREE_HOST, cudaFreeHost(p));
}
static void host_unregister(void *a)
{
  bufs *b = a;
  PERF_CUDA(cudaHostRegister(b->registered, N, cudaHostRegisterDefault));
  AT(OP_HOST_UNREGISTER, cudaHostUnregister(b->registered));
}
static void sdot_host(void *a)
{
  bufs *b = a;
  float r;
  line_of[OP_SDOT_HOST] = __LINE__; PERF_CUBLAS(cublasSdot(b->blas, N / 4, b->x, 1, b->y, 1, &r));
}
static void stream_query(void *a)
{
  bufs *b = a;
  cudaError_t e = cudaStreamQuery(b->s);
  PERF_EXPECT_TRUE(e == cudaSuccess || e == cudaErrorNotReady);
}
static void event_query(void *a)
{
  bufs *b = a;
  PERF_CUDA(cudaEventRecord(b->ev, b->s));
  cudaError_t e = cudaEventQuery(b->ev);
  PERF_EXPECT_TRUE(e == cudaSuccess || e == cudaErrorNotReady);
}
static void async_d2h_pinned(void *a) { bufs *b = a; AT(OP_ASYNC_D2H_PINNED, cudaMemcpyAsync(b->pinned, b->dev, N, cudaMemcpyDeviceToHost, b->s)); }
static void async_h2d_pinned(void *a) { bufs *b = a; AT(OP_ASYNC_H2D_PINNED, cudaMemcpyAsync(b->dev, b->pinned, N, cudaMemcpyHostToDevice, b->s)); }
static void async_d2d(void *a) { bufs *b = a; AT(OP_ASYNC_D2D, cudaMemcpyAsync(b->dev2, b->dev, N, cudaMemcpyDeviceToDevice, b->s)); }
static void kernel(void *a) { bufs *b = a; AT(OP_KERNEL, kern_fill_f16(b->dev, N / 2, 7, 1.0f, b->s)); }
static void malloc_free_async(void *a)
{
  bufs *b = a;
  void *p;
  PERF_CUDA(cudaMallocAsync(&p, N, b->s));
  AT(OP_MALLOC_FREE_ASYNC, cudaFreeAsync(p, b->s));
}
static void memset_device(void *a) { bufs *b = a; AT(OP_MEMSET_DEVICE, cudaMemset(b->dev, 0, N)); }
static void graph_replay(void *a) { bufs *b = a; AT(OP_GRAPH, cudaGraphLaunch(b->graph, b->s)); }

typedef struct op {
  int id;
  perf_fn *fn;
  const char *name;
  int syncs;          /* per iteration; -1: at least one */
  const char *api;    /* expected finding */
  const char *inside; /* expected library frame, or NULL */
} op;

static const op ops[] = {
    {OP_DEVICE_SYNC, device_sync, "cudaDeviceSynchronize", 1, "cudaDeviceSynchronize", NULL},
    {OP_STREAM_SYNC, stream_sync, "cudaStreamSynchronize", 1, "cudaStreamSynchronize", NULL},
    {OP_EVENT_SYNC, event_sync, "cudaEventSynchronize", 1, "cudaEventSynchronize", NULL},
    {OP_CU_CTX_SYNC, cu_ctx_sync, "cuCtxSynchronize (driver)", 1, "cuCtxSynchronize", NULL},
    {OP_CU_DTOH, cu_dtoh, "cuMemcpyDtoH (driver, pageable)", 1, "cuMemcpyDtoH", NULL},
    {OP_MEMCPY_D2H_PAGEABLE, memcpy_d2h_pageable, "cudaMemcpy D2H pageable", 1, "cudaMemcpy", NULL},
    {OP_MEMCPY_H2D_PAGEABLE, memcpy_h2d_pageable, "cudaMemcpy H2D pageable", 1, "cudaMemcpy", NULL},
    {OP_MEMCPY_D2H_PINNED, memcpy_d2h_pinned, "cudaMemcpy D2H pinned", 1, "cudaMemcpy", NULL},
    {OP_ASYNC_D2H_PAGEABLE, async_d2h_pageable, "cudaMemcpyAsync D2H pageable", 1, "cudaMemcpyAsync", NULL},
    {OP_ASYNC_H2D_PAGEABLE, async_h2d_pageable, "cudaMemcpyAsync H2D pageable", 1, "cudaMemcpyAsync", NULL},
    {OP_MEMSET_PINNED, memset_pinned, "cudaMemset pinned host", 1, "cudaMemset", NULL},
    {OP_MEMSET_MANAGED, memset_managed, "cudaMemset managed", 1, "cudaMemset", NULL},
    {OP_FREE, free_device, "cudaFree", 1, "cudaFree", NULL},
    {OP_FREE_HOST, free_host, "cudaFreeHost", 1, "cudaFreeHost", NULL},
    {OP_HOST_UNREGISTER, host_unregister, "cudaHostUnregister", 1, "cudaHostUnregister", NULL},
    {OP_SDOT_HOST, sdot_host, "cublasSdot, host pointer mode", -1, "cudaStreamSynchronize", "cublasSdot"},
    {OP_STREAM_QUERY, stream_query, "cudaStreamQuery", 0, NULL, NULL},
    {OP_EVENT_QUERY, event_query, "cudaEventQuery", 0, NULL, NULL},
    {OP_ASYNC_D2H_PINNED, async_d2h_pinned, "cudaMemcpyAsync D2H pinned", 0, NULL, NULL},
    {OP_ASYNC_H2D_PINNED, async_h2d_pinned, "cudaMemcpyAsync H2D pinned", 0, NULL, NULL},
    {OP_ASYNC_D2D, async_d2d, "cudaMemcpyAsync D2D", 0, NULL, NULL},
    {OP_KERNEL, kernel, "kernel launch", 0, NULL, NULL},
    {OP_MALLOC_FREE_ASYNC, malloc_free_async, "cudaMallocAsync+cudaFreeAsync", 0, NULL, NULL},
    {OP_MEMSET_DEVICE, memset_device, "cudaMemset device", 0, NULL, NULL},
    {OP_GRAPH, graph_replay, "cudaGraphLaunch", 0, NULL, NULL},
};

static void *driver_fn(const char *name)
{
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q;
  PERF_CUDA(cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q));
  PERF_ASSERT_TRUE(q == cudaDriverEntryPointSuccess && fn != NULL);
  return fn;
}

static void destroy_stream(void *s) { PERF_CUDA(cudaStreamDestroy(s)); }
static void destroy_event(void *e) { PERF_CUDA(cudaEventDestroy(e)); }
static void destroy_blas(void *h) { PERF_CUBLAS(cublasDestroy(h)); }
static void destroy_graph(void *g) { PERF_CUDA(cudaGraphExecDestroy(g)); }
static void free_managed(void *p) { PERF_CUDA(cudaFree(p)); }

/* A graph of a kernel and a pinned copy: replaying it must never block. */
static void make_graph(bufs *b)
{
  cudaGraph_t g;
  PERF_CUDA(cudaStreamBeginCapture(b->s, cudaStreamCaptureModeThreadLocal));
  PERF_CUDA(kern_fill_f16(b->dev, N / 2, 3, 1.0f, b->s));
  PERF_CUDA(cudaMemcpyAsync(b->pinned, b->dev, N, cudaMemcpyDeviceToHost, b->s));
  PERF_CUDA(cudaStreamEndCapture(b->s, &g));
  PERF_CUDA(cudaGraphInstantiate(&b->graph, g, 0));
  PERF_DEFER(destroy_graph, b->graph);
  PERF_CUDA(cudaGraphDestroy(g));
}

/* Any failure ends the test; all of it is released when the test ends. */
static void init(bufs *b)
{
  memset(b, 0, sizeof *b);
  PERF_CUDA(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
  PERF_DEFER(destroy_stream, b->s);
  PERF_CUDA(cudaEventCreate(&b->ev));
  PERF_DEFER(destroy_event, b->ev);
  PERF_ALLOC_DEVICE(b->dev, N);
  PERF_ALLOC_DEVICE(b->dev2, N);
  PERF_ALLOC_PINNED(b->pinned, N);
  PERF_CUDA(cudaMallocManaged(&b->managed, N, cudaMemAttachGlobal));
  PERF_DEFER(free_managed, b->managed);
  PERF_ALLOC_HOST(b->pageable, N);
  PERF_ALLOC_HOST(b->registered, N);
  PERF_ALLOC_DEVICE(b->x, N);
  PERF_ALLOC_DEVICE(b->y, N);
  PERF_CUDA(kern_fill_f16(b->x, N / 2, 1, 1.0f, b->s));
  PERF_CUDA(kern_fill_f16(b->y, N / 2, 2, 1.0f, b->s));
  PERF_CUBLAS(cublasCreate(&b->blas));
  PERF_DEFER(destroy_blas, b->blas);
  PERF_CUBLAS(cublasSetStream(b->blas, b->s));
  PERF_CUBLAS(cublasSetPointerMode(b->blas, CUBLAS_POINTER_MODE_HOST));
  b->cu_ctx_sync = (CUresult(*)(void))driver_fn("cuCtxSynchronize");
  b->cu_dtoh = (CUresult(*)(void *, CUdeviceptr, size_t))driver_fn("cuMemcpyDtoH");
  make_graph(b);
  PERF_CUDA(cudaStreamSynchronize(b->s));
}

/* A syncing operation has a finding that names its API and its call site
 * (and, for a library call, the library function). */
static void check_finding(const op *o)
{
  size_t n, k;
  const perf_sync_finding *f = perf_sync_findings(&n);
  for (k = 0; k < n; k++)
    if (!strncmp(f[k].api, o->api, strlen(o->api)) &&
        (!o->inside || strstr(f[k].inside, o->inside)))
      break;
  PERF_EXPECT_TRUE(k < n);
  if (k == n) return;
  printf("%-32s -> %s (%s)%s%s at %s\n", o->name, f[k].api, f[k].why,
         f[k].inside[0] ? " inside " : "", f[k].inside, f[k].where);
  PERF_EXPECT_TRUE(strstr(f[k].where, "perftests/host_sync.c") != NULL);
  PERF_EXPECT_TRUE(f[k].line == line_of[o->id]);
}

/* Every operation of issue 3's list: syncs found once per iteration with
 * the right name and line, non-syncs not found. */
PERF_TEST(host_sync, every_operation_is_classified)
{
  bufs b;
  init(&b);
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    const op *o = &ops[i];
    perf_workload w = PERF_WORKLOAD(o->fn, &b, .stream = b.s, .name = o->name);
    if (o->syncs < 0)
      PERF_EXPECT_SYNCS_AT_LEAST(w, 1);
    else
      PERF_EXPECT_SYNCS(w, o->syncs);
    if (o->syncs != 0) check_finding(o);
    else printf("%-32s -> no host sync\n", o->name);
  }
}

static void replay(void *a) { bufs *b = a; PERF_CUDA(cudaGraphLaunch(b->graph, b->s)); }
static void replay_then_sync(void *a)
{
  bufs *b = a;
  PERF_CUDA(cudaGraphLaunch(b->graph, b->s));
  PERF_CUDA(cudaStreamSynchronize(b->s));
}

/* Document 000: graph replay needs no host sync; a sync per replay is one. */
PERF_TEST(host_sync, graph_replay_never_blocks)
{
  bufs b;
  init(&b);
  perf_workload g = PERF_WORKLOAD(replay, &b, .stream = b.s);
  perf_workload gs = PERF_WORKLOAD(replay_then_sync, &b, .stream = b.s);
  PERF_NO_SYNC_IN(g);
  PERF_EXPECT_SYNCS(gs, 1);
  PERF_NO_SYNC_IN("queueing work") {
    PERF_CUDA(kern_fill_f16(b.dev, N / 2, 9, 1.0f, b.s));
    PERF_CUDA(cudaMemcpyAsync(b.pinned, b.dev, N, cudaMemcpyDeviceToHost, b.s));
  }
}
