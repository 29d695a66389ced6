/* streamops.c — the driver calls a routing pass follows: which queue work, record or wait. */
#include "worker/streams/streamops.h"

#include <cuda.h>
#include <stddef.h>
#include <string.h>

#define CB(n) CUPTI_DRIVER_TRACE_CBID_##n
#define AT(n, f) (int)offsetof(n##_params, f)
/* work with a stream parameter; the same with the per-thread twin */
#define WS(n, w, f) {CB(n), PERF__STREAMOPS_WORK, PERF__WORK_##w, AT(n, f), PERF__STREAMOPS_NO_EVENT, 0}
#define WS2(n, w, f) WS(n, w, f), {CB(n##_ptsz), PERF__STREAMOPS_WORK, PERF__WORK_##w, AT(n##_ptsz, f), PERF__STREAMOPS_NO_EVENT, 1}
/* work on the default stream; the same with the _ptds twin */
#define WD(n, w) {CB(n), PERF__STREAMOPS_WORK, PERF__WORK_##w, PERF__STREAMOPS_DEFAULT_STREAM, PERF__STREAMOPS_NO_EVENT, 0}
#define WD2(n, w) WD(n, w), {CB(n##_ptds), PERF__STREAMOPS_WORK, PERF__WORK_##w, PERF__STREAMOPS_DEFAULT_STREAM, PERF__STREAMOPS_NO_EVENT, 1}
#define EV2(n, kind)                                                                \
  {CB(n), kind, PERF__WORK_OTHER, AT(n, hStream), AT(n, hEvent), 0},               \
      {CB(n##_ptsz), kind, PERF__WORK_OTHER, AT(n##_ptsz, hStream), AT(n##_ptsz, hEvent), 1}

static const perf__streamops_op ops[] = {
    WS2(cuLaunchKernel, KERNEL, hStream),
    WS2(cuLaunchCooperativeKernel, KERNEL, hStream),
    {CB(cuLaunchKernelEx), PERF__STREAMOPS_WORK, PERF__WORK_KERNEL, PERF__STREAMOPS_LAUNCH_CONFIG, PERF__STREAMOPS_NO_EVENT, 0},
    {CB(cuLaunchKernelEx_ptsz), PERF__STREAMOPS_WORK, PERF__WORK_KERNEL, PERF__STREAMOPS_LAUNCH_CONFIG, PERF__STREAMOPS_NO_EVENT, 1},
    WS2(cuLaunchHostFunc, HOST_FN, hStream),
    WS2(cuStreamAddCallback, HOST_FN, hStream),
    WS2(cuGraphLaunch, GRAPH, hStream),
    WS2(cuMemcpyAsync, COPY, hStream),
    WS2(cuMemcpyHtoDAsync_v2, COPY, hStream),
    WS2(cuMemcpyDtoHAsync_v2, COPY, hStream),
    WS2(cuMemcpyDtoDAsync_v2, COPY, hStream),
    WS2(cuMemcpyHtoAAsync_v2, COPY, hStream),
    WS2(cuMemcpyAtoHAsync_v2, COPY, hStream),
    WS2(cuMemcpy2DAsync_v2, COPY, hStream),
    WS2(cuMemcpy3DAsync_v2, COPY, hStream),
    WS2(cuMemcpyPeerAsync, COPY, hStream),
    WS2(cuMemcpy3DPeerAsync, COPY, hStream),
    WS2(cuMemcpyBatchAsync, COPY, hStream),
    WS2(cuMemcpyBatchAsync_v2, COPY, hStream),
    WS2(cuMemcpy3DBatchAsync, COPY, hStream),
    WS2(cuMemcpy3DBatchAsync_v2, COPY, hStream),
    WS2(cuMemsetD8Async, MEMSET, hStream),
    WS2(cuMemsetD16Async, MEMSET, hStream),
    WS2(cuMemsetD32Async, MEMSET, hStream),
    WS2(cuMemsetD2D8Async, MEMSET, hStream),
    WS2(cuMemsetD2D16Async, MEMSET, hStream),
    WS2(cuMemsetD2D32Async, MEMSET, hStream),
    WS2(cuMemPrefetchAsync, OTHER, hStream),
    WS2(cuMemPrefetchAsync_v2, OTHER, hStream),
    WS2(cuMemPrefetchBatchAsync, OTHER, hStream),
    WS2(cuStreamWriteValue32, OTHER, stream),
    WS2(cuStreamWriteValue64, OTHER, stream),
    WS2(cuStreamWaitValue32, OTHER, stream),
    WS2(cuStreamWaitValue64, OTHER, stream),
    WS2(cuStreamWriteValue32_v2, OTHER, stream),
    WS2(cuStreamWriteValue64_v2, OTHER, stream),
    WS2(cuStreamWaitValue32_v2, OTHER, stream),
    WS2(cuStreamWaitValue64_v2, OTHER, stream),
    WS2(cuStreamBatchMemOp, OTHER, stream),
    WS2(cuStreamBatchMemOp_v2, OTHER, stream),
    WD2(cuMemcpy, COPY),
    WD2(cuMemcpyHtoD_v2, COPY),
    WD2(cuMemcpyDtoH_v2, COPY),
    WD2(cuMemcpyDtoD_v2, COPY),
    WD2(cuMemcpyDtoA_v2, COPY),
    WD2(cuMemcpyAtoD_v2, COPY),
    WD2(cuMemcpyHtoA_v2, COPY),
    WD2(cuMemcpyAtoH_v2, COPY),
    WD2(cuMemcpyAtoA_v2, COPY),
    WD2(cuMemcpy2D_v2, COPY),
    WD2(cuMemcpy2DUnaligned_v2, COPY),
    WD2(cuMemcpy3D_v2, COPY),
    WD2(cuMemcpyPeer, COPY),
    WD2(cuMemcpy3DPeer, COPY),
    WD2(cuMemsetD8_v2, MEMSET),
    WD2(cuMemsetD16_v2, MEMSET),
    WD2(cuMemsetD32_v2, MEMSET),
    WD2(cuMemsetD2D8_v2, MEMSET),
    WD2(cuMemsetD2D16_v2, MEMSET),
    WD2(cuMemsetD2D32_v2, MEMSET),
    EV2(cuEventRecord, PERF__STREAMOPS_RECORD),
    EV2(cuEventRecordWithFlags, PERF__STREAMOPS_RECORD),
    EV2(cuStreamWaitEvent, PERF__STREAMOPS_WAIT),
    {CB(cuStreamSynchronize), PERF__STREAMOPS_HOST_STREAM, PERF__WORK_OTHER, AT(cuStreamSynchronize, hStream), PERF__STREAMOPS_NO_EVENT, 0},
    {CB(cuStreamSynchronize_ptsz), PERF__STREAMOPS_HOST_STREAM, PERF__WORK_OTHER, AT(cuStreamSynchronize_ptsz, hStream), PERF__STREAMOPS_NO_EVENT, 1},
    {CB(cuEventSynchronize), PERF__STREAMOPS_HOST_EVENT, PERF__WORK_OTHER, PERF__STREAMOPS_DEFAULT_STREAM, AT(cuEventSynchronize, hEvent), 0},
    {CB(cuCtxSynchronize), PERF__STREAMOPS_HOST_CTX, PERF__WORK_OTHER, PERF__STREAMOPS_DEFAULT_STREAM, PERF__STREAMOPS_NO_EVENT, 0},
    {CB(cuCtxSynchronize_v2), PERF__STREAMOPS_HOST_CTX, PERF__WORK_OTHER, PERF__STREAMOPS_DEFAULT_STREAM, PERF__STREAMOPS_NO_EVENT, 0},
};

/* Stream-ordered calls that queue no GPU work (memory from a pool). */
static const char *const no_work[] = {"cuMemAllocAsync", "cuMemFreeAsync",
                                      "cuMemAllocFromPoolAsync", "cuStreamAttachMemAsync"};

/* See streamops.h. */
int perf__streamops_unfollowed(const char *name)
{
  if (!name || (!strstr(name, "Async") && strncmp(name, "cuLaunch", 8))) return 0;
  for (size_t i = 0; i < sizeof no_work / sizeof no_work[0]; i++) {
    size_t n = strlen(no_work[i]);
    if (!strncmp(name, no_work[i], n) && (!name[n] || !strcmp(name + n, "_ptsz")))
      return 0;
  }
  return 1;
}

/* See streamops.h. */
const perf__streamops_op *perf__streamops_lookup(CUpti_CallbackId id)
{
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (ops[i].cbid == id) return &ops[i];
  return NULL;
}
