/* hostmem.h — the kind of memory a CUDA call's pointers point to, asked of the driver. */
/* Device, pageable, pinned or managed memory. */
#ifndef PERF_HOSTMEM_H
#define PERF_HOSTMEM_H

#include "worker/sync/synctable.h"

/* Resolves the driver's cuPointerGetAttributes once per process (through
 * the runtime). Never fails: without it every host pointer reads as
 * PERF__MEM_UNKNOWN. Call it before attaching CUPTI. */
void perf__hostmem_init(void);

/* The memory kinds of the destination and source of a listed call, from
 * the parameter struct CUPTI hands over (e->ptrs says where its pointers
 * are). Safe inside a CUPTI handler: the queries it makes are quiet (see
 * cupti.h). Never fails. */
void perf__hostmem_sides(const perf__synctable_entry *e, const void *params,
                         perf__synctable_mem *dst, perf__synctable_mem *src);

#endif
