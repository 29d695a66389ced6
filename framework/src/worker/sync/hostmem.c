/* hostmem.c — the kind of memory a CUDA call's pointers point to, asked of the driver. */
/* Device, pageable, pinned or managed memory. */
#include "worker/sync/hostmem.h"

#include <cuda.h>
#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

#include "worker/sync/cupti.h"
#include "worker/device/gpu.h"

/* perf__hostmem_sides reads parameter structs as arrays of pointer-sized
 * words; these pin the layouts it relies on (a header change fails the
 * build). */
#define WORD(type, field, k) \
  _Static_assert(offsetof(type, field) == (k) * sizeof(void *), #type "." #field)
WORD(cudaMemcpy_v3020_params, src, 1);
WORD(cudaMemcpyAsync_v3020_params, src, 1);
WORD(cudaMemcpy2D_v3020_params, src, 2);
WORD(cudaMemcpy2DAsync_v3020_params, src, 2);
WORD(cudaMemcpyToSymbol_v3020_params, src, 1);
WORD(cudaMemcpyFromSymbol_v3020_params, dst, 0);
WORD(cudaMemcpyToArray_v3020_params, src, 3);
WORD(cudaMemcpy2DToArray_v3020_params, src, 3);
WORD(cudaMemcpyFromArray_v3020_params, dst, 0);
WORD(cudaMemset_v3020_params, devPtr, 0);
WORD(cudaMemset2D_v3020_params, devPtr, 0);
WORD(cudaFree_v3020_params, devPtr, 0);
WORD(cudaFreeHost_v3020_params, ptr, 0);
WORD(cudaHostUnregister_v4000_params, ptr, 0);
WORD(cuMemcpy_params, src, 1);
WORD(cuMemcpyAsync_params, src, 1);
WORD(cuMemcpyHtoD_v2_params, srcHost, 1);
WORD(cuMemcpyDtoH_v2_params, dstHost, 0);
WORD(cuMemcpyHtoDAsync_v2_params, srcHost, 1);
WORD(cuMemcpyDtoHAsync_v2_params, dstHost, 0);
WORD(cuMemsetD8_v2_params, dstDevice, 0);
WORD(cuMemsetD2D8_v2_params, dstDevice, 0);
WORD(cuMemFree_v2_params, dptr, 0);
WORD(cuMemFreeHost_params, p, 0);
WORD(cuMemHostUnregister_params, p, 0);

typedef CUresult (*pointer_query_fn)(unsigned, CUpointer_attribute *, void **,
                                     CUdeviceptr);
static pointer_query_fn query;

/* See hostmem.h. */
void perf__hostmem_init(void)
{
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult q;
  if (query) return;
  cudaError_t e = cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000,
                                                   cudaEnableDefault, &q);
  perf__gpu_tolerate(e);
  if (e == cudaSuccess && q == cudaDriverEntryPointSuccess) query = (pointer_query_fn)fn;
}

/* What p points to; PERF__MEM_NONE for NULL. Asks the driver, which
 * leaves the runtime's last-error state (the user's) alone and answers
 * "no CUDA memory" for pageable host pointers. */
static perf__synctable_mem mem_of(const void *p)
{
  if (!p) return PERF__MEM_NONE;
  if (!query) return PERF__MEM_UNKNOWN;
  CUpointer_attribute at[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                               CU_POINTER_ATTRIBUTE_IS_MANAGED};
  unsigned type = 0, managed = 0;
  void *out[2] = {&type, &managed};
  perf__cupti_quiet_begin();
  CUresult r = query(2, at, out, (CUdeviceptr)(uintptr_t)p);
  perf__cupti_quiet_end();
  if (r != CUDA_SUCCESS) return PERF__MEM_UNKNOWN;
  if (managed) return PERF__MEM_MANAGED;
  if (type == CU_MEMORYTYPE_DEVICE || type == CU_MEMORYTYPE_ARRAY)
    return PERF__MEM_DEVICE;
  return type == CU_MEMORYTYPE_HOST ? PERF__MEM_PINNED : PERF__MEM_PAGEABLE;
}

/* One side of a driver 2D/3D copy, from its declared memory type. */
static perf__synctable_mem cu_side(CUmemorytype t, const void *host, CUdeviceptr dev)
{
  switch (t) {
  case CU_MEMORYTYPE_HOST:
    return mem_of(host);
  case CU_MEMORYTYPE_UNIFIED:
    return mem_of((const void *)(uintptr_t)dev);
  default:
    return PERF__MEM_DEVICE;
  }
}

/* One side of a runtime 3D copy: an array, or a pitched pointer. */
static perf__synctable_mem rt3d_side(cudaArray_const_t a, const void *ptr)
{
  return a ? PERF__MEM_DEVICE : mem_of(ptr);
}

/* See hostmem.h. Parameter structs hold pointers and size_t in their first
 * fields, so they are read as pointer arrays. */
void perf__hostmem_sides(const perf__synctable_entry *e, const void *params,
                         perf__synctable_mem *dst, perf__synctable_mem *src)
{
  void *const *p = params;
  *dst = *src = PERF__MEM_NONE;
  switch (e->ptrs) {
  case PERF__PTRS_DST_SRC:
    *dst = mem_of(p[0]);
    *src = mem_of(p[1]);
    break;
  case PERF__PTRS_DST: /* a copy from a symbol, a memset or a free */
    *dst = mem_of(p[0]);
    *src = PERF__MEM_DEVICE;
    break;
  case PERF__PTRS_SRC2: /* a copy to a symbol */
    *dst = PERF__MEM_DEVICE;
    *src = mem_of(p[1]);
    break;
  case PERF__PTRS_DST_PITCH_SRC:
    *dst = mem_of(p[0]);
    *src = mem_of(p[2]);
    break;
  case PERF__PTRS_SRC4: /* a copy to an array */
    *dst = PERF__MEM_DEVICE;
    *src = mem_of(p[3]);
    break;
  case PERF__PTRS_RT3D: {
    const struct cudaMemcpy3DParms *m = p[0];
    *dst = rt3d_side(m->dstArray, m->dstPtr.ptr);
    *src = rt3d_side(m->srcArray, m->srcPtr.ptr);
    break;
  }
  case PERF__PTRS_CU2D: {
    const CUDA_MEMCPY2D *m = p[0];
    *dst = cu_side(m->dstMemoryType, m->dstHost, m->dstDevice);
    *src = cu_side(m->srcMemoryType, m->srcHost, m->srcDevice);
    break;
  }
  case PERF__PTRS_CU3D: {
    const CUDA_MEMCPY3D *m = p[0];
    *dst = cu_side(m->dstMemoryType, m->dstHost, m->dstDevice);
    *src = cu_side(m->srcMemoryType, m->srcHost, m->srcDevice);
    break;
  }
  default:
    break;
  }
}
