/* synctable.c — which CUDA runtime and driver calls block the host, by call and pointers. */
#include "worker/sync/synctable.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <stdio.h>

/* Every call that can block the host. Callback ids come from the installed
 * CUPTI headers (CUDA 13 routes cudaDeviceSynchronize to cuCtxSynchronize_v2,
 * which is listed). Legacy _v1 driver entry points with 32-bit pointers are
 * left out: 64-bit programs never reach them. */
static const perf__synctable_entry table[] = {
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, "cudaStreamSynchronize_ptsz", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, "cudaEventSynchronize", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaThreadSynchronize_v3020, "cudaThreadSynchronize", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000, "cudaMemcpy_ptds", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, "cudaMemcpy2D", PERF__RULE_COPY, PERF__PTRS_DST_PITCH_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000, "cudaMemcpy2D_ptds", PERF__RULE_COPY, PERF__PTRS_DST_PITCH_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020, "cudaMemcpyToSymbol", PERF__RULE_COPY, PERF__PTRS_SRC2},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000, "cudaMemcpyToSymbol_ptds", PERF__RULE_COPY, PERF__PTRS_SRC2},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020, "cudaMemcpyFromSymbol", PERF__RULE_COPY, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000, "cudaMemcpyFromSymbol_ptds", PERF__RULE_COPY, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, "cudaMemcpyAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, "cudaMemcpy2DAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_PITCH_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000, "cudaMemcpy2DAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_PITCH_SRC},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020, "cudaMemcpyToSymbolAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_SRC2},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000, "cudaMemcpyToSymbolAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_SRC2},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020, "cudaMemcpyFromSymbolAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000, "cudaMemcpyFromSymbolAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, "cudaMemset", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000, "cudaMemset_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020, "cudaMemset2D", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_ptds_v7000, "cudaMemset2D_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree", PERF__RULE_FREE, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, "cudaFreeHost", PERF__RULE_FREE, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000, "cudaHostUnregister", PERF__RULE_FREE, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, "cuCtxSynchronize_v2", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, "cuStreamSynchronize_ptsz", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, "cuEventSynchronize", PERF__RULE_ALWAYS, PERF__PTRS_NONE},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy, "cuMemcpy", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds, "cuMemcpy_ptds", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, "cuMemcpyHtoD_v2_ptds", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, "cuMemcpyDtoH_v2_ptds", PERF__RULE_COPY, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, "cuMemcpyAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz, "cuMemcpyAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, "cuMemcpyHtoDAsync_v2_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, "cuMemcpyDtoHAsync_v2_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST_SRC},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, "cuMemsetD8_v2", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2_ptds, "cuMemsetD8_v2_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2, "cuMemsetD16_v2", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD16_v2_ptds, "cuMemsetD16_v2_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, "cuMemsetD32_v2", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2_ptds, "cuMemsetD32_v2_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", PERF__RULE_FREE, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost, "cuMemFreeHost", PERF__RULE_FREE, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister, "cuMemHostUnregister", PERF__RULE_FREE, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArray_v3020, "cudaMemcpyToArray", PERF__RULE_COPY, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArray_v3020, "cudaMemcpy2DToArray", PERF__RULE_COPY, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArray_ptds_v7000, "cudaMemcpyToArray_ptds", PERF__RULE_COPY, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArray_ptds_v7000, "cudaMemcpy2DToArray_ptds", PERF__RULE_COPY, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArrayAsync_v3020, "cudaMemcpyToArrayAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArrayAsync_v3020, "cudaMemcpy2DToArrayAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToArrayAsync_ptsz_v7000, "cudaMemcpyToArrayAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DToArrayAsync_ptsz_v7000, "cudaMemcpy2DToArrayAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_SRC4},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArray_v3020, "cudaMemcpyFromArray", PERF__RULE_COPY, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArray_v3020, "cudaMemcpy2DFromArray", PERF__RULE_COPY, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArray_ptds_v7000, "cudaMemcpyFromArray_ptds", PERF__RULE_COPY, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArray_ptds_v7000, "cudaMemcpy2DFromArray_ptds", PERF__RULE_COPY, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArrayAsync_v3020, "cudaMemcpyFromArrayAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArrayAsync_v3020, "cudaMemcpy2DFromArrayAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromArrayAsync_ptsz_v7000, "cudaMemcpyFromArrayAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DFromArrayAsync_ptsz_v7000, "cudaMemcpy2DFromArrayAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_DST},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_v3020, "cudaMemcpy3D", PERF__RULE_COPY, PERF__PTRS_RT3D},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3D_ptds_v7000, "cudaMemcpy3D_ptds", PERF__RULE_COPY, PERF__PTRS_RT3D},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020, "cudaMemcpy3DAsync", PERF__RULE_COPY_ASYNC, PERF__PTRS_RT3D},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000, "cudaMemcpy3DAsync_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_RT3D},
    {PERF__DOMAIN_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaFreeArray_v3020, "cudaFreeArray", PERF__RULE_FREE, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2, "cuMemcpy2D_v2", PERF__RULE_COPY, PERF__PTRS_CU2D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2, "cuMemcpy2DUnaligned_v2", PERF__RULE_COPY, PERF__PTRS_CU2D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2_ptds, "cuMemcpy2D_v2_ptds", PERF__RULE_COPY, PERF__PTRS_CU2D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2_ptds, "cuMemcpy2DUnaligned_v2_ptds", PERF__RULE_COPY, PERF__PTRS_CU2D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2, "cuMemcpy2DAsync_v2", PERF__RULE_COPY_ASYNC, PERF__PTRS_CU2D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2_ptsz, "cuMemcpy2DAsync_v2_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_CU2D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2, "cuMemcpy3D_v2", PERF__RULE_COPY, PERF__PTRS_CU3D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2_ptds, "cuMemcpy3D_v2_ptds", PERF__RULE_COPY, PERF__PTRS_CU3D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2, "cuMemcpy3DAsync_v2", PERF__RULE_COPY_ASYNC, PERF__PTRS_CU3D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2_ptsz, "cuMemcpy3DAsync_v2_ptsz", PERF__RULE_COPY_ASYNC, PERF__PTRS_CU3D},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2, "cuMemsetD2D8_v2", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2, "cuMemsetD2D16_v2", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2, "cuMemsetD2D32_v2", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D8_v2_ptds, "cuMemsetD2D8_v2_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D16_v2_ptds, "cuMemsetD2D16_v2_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemsetD2D32_v2_ptds, "cuMemsetD2D32_v2_ptds", PERF__RULE_MEMSET, PERF__PTRS_DST},
    {PERF__DOMAIN_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuArrayDestroy, "cuArrayDestroy", PERF__RULE_FREE, PERF__PTRS_DST},
};

/* Never fails; linear search over a short table. */
const perf__synctable_entry *perf__synctable_lookup(int domain, unsigned cbid)
{
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
    if (table[i].domain == domain && table[i].cbid == cbid) return &table[i];
  return NULL;
}

/* Never fails. */
const perf__synctable_entry *perf__synctable_table(size_t *n)
{
  *n = sizeof table / sizeof table[0];
  return table;
}

static int host(perf__synctable_mem m)
{
  return m == PERF__MEM_PAGEABLE || m == PERF__MEM_PINNED ||
         m == PERF__MEM_MANAGED || m == PERF__MEM_UNKNOWN;
}

static int pageable(perf__synctable_mem m)
{
  return m == PERF__MEM_PAGEABLE || m == PERF__MEM_UNKNOWN;
}

static const char *side(perf__synctable_mem m) { return host(m) ? "host" : "device"; }

static const char *host_kind(perf__synctable_mem m)
{
  switch (m) {
  case PERF__MEM_PINNED:
    return "pinned";
  case PERF__MEM_MANAGED:
    return "managed";
  case PERF__MEM_UNKNOWN:
    return "unrecognised";
  default:
    return "pageable";
  }
}

/* Never fails; see synctable.h. */
int perf__synctable_decide(perf__synctable_rule rule, perf__synctable_mem dst, perf__synctable_mem src,
                      char *why, size_t len)
{
  switch (rule) {
  case PERF__RULE_ALWAYS:
    snprintf(why, len, "explicit synchronisation");
    return 1;
  case PERF__RULE_COPY:
    if (!host(dst) && !host(src)) return 0;
    snprintf(why, len, "synchronous, %s\u2192%s", side(src), side(dst));
    return 1;
  case PERF__RULE_COPY_ASYNC:
    if (!pageable(dst) && !pageable(src)) return 0;
    snprintf(why, len, "async copy with %s host memory, %s\u2192%s: waits",
             host_kind(pageable(src) ? src : dst), side(src), side(dst));
    return 1;
  case PERF__RULE_MEMSET:
    if (dst != PERF__MEM_PINNED && dst != PERF__MEM_MANAGED) return 0;
    snprintf(why, len, "memset into %s host memory", host_kind(dst));
    return 1;
  case PERF__RULE_FREE:
    if (dst == PERF__MEM_NONE) return 0;
    snprintf(why, len, "releasing memory synchronises the device");
    return 1;
  default:
    return 0;
  }
}

/* Never fails; see synctable.h. From the runtime's "API synchronization
 * behavior" page: a synchronous copy to host memory (pageable or pinned)
 * returns when it has completed, one from pinned memory is synchronous,
 * and one from pageable memory first syncs its stream and returns once the
 * data is staged; a memset into pinned memory is synchronous. Async copies
 * "might be" synchronous, frees "may" synchronise (a free of pool memory
 * does not), and managed memory is no longer promised anything: no wait. */
perf__synctable_host_wait perf__synctable_host_wait_of(perf__synctable_rule rule, perf__synctable_mem dst,
                                     perf__synctable_mem src)
{
  switch (rule) {
  case PERF__RULE_COPY:
    if (dst == PERF__MEM_PAGEABLE || dst == PERF__MEM_PINNED || src == PERF__MEM_PINNED)
      return PERF__WAIT_AFTER;
    return src == PERF__MEM_PAGEABLE && dst == PERF__MEM_DEVICE ? PERF__WAIT_BEFORE
                                                                : PERF__WAIT_NONE;
  case PERF__RULE_MEMSET:
    return dst == PERF__MEM_PINNED ? PERF__WAIT_AFTER : PERF__WAIT_NONE;
  default:
    return PERF__WAIT_NONE;
  }
}
