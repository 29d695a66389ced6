/* synctable.h — which CUDA runtime and driver calls block the host, by call and pointers. */
#ifndef PERF_SYNCTABLE_H
#define PERF_SYNCTABLE_H

#include <stddef.h>

/* How a call may block the host. */
typedef enum perf__synctable_rule {
  PERF__RULE_NONE = 0,  /* not a host sync (or not a call we classify) */
  PERF__RULE_ALWAYS,    /* explicit synchronisation */
  PERF__RULE_COPY,      /* synchronous copy: blocks when a side is host memory */
  PERF__RULE_COPY_ASYNC,/* async copy: blocks when a host side is pageable */
  PERF__RULE_MEMSET,    /* synchronous memset: blocks into pinned/managed host */
  PERF__RULE_FREE       /* frees synchronise the device (not for NULL) */
} perf__synctable_rule;

/* What a pointer points to, as the runtime reports it. */
typedef enum perf__synctable_mem {
  PERF__MEM_NONE = 0,   /* no pointer on this side (e.g. a symbol) or NULL */
  PERF__MEM_DEVICE,
  PERF__MEM_PAGEABLE,   /* ordinary host memory, unknown to CUDA */
  PERF__MEM_PINNED,     /* page-locked host memory */
  PERF__MEM_MANAGED,
  PERF__MEM_UNKNOWN     /* the query failed: treated as pageable host */
} perf__synctable_mem;

/* Which parameters of a call hold its pointers. */
typedef enum perf__synctable_ptrs {
  PERF__PTRS_NONE = 0,
  PERF__PTRS_DST_SRC,   /* first two parameters: dst, src */
  PERF__PTRS_DST,       /* first parameter only */
  PERF__PTRS_SRC2,      /* second parameter is src, dst is a symbol/device */
  PERF__PTRS_DST_PITCH_SRC, /* dst, pitch, src (2D copies) */
  PERF__PTRS_SRC4,      /* src is the fourth parameter; dst is an array */
  PERF__PTRS_RT3D,      /* one const struct cudaMemcpy3DParms * */
  PERF__PTRS_CU2D,      /* one const CUDA_MEMCPY2D * (memory types inside) */
  PERF__PTRS_CU3D       /* one const CUDA_MEMCPY3D * */
} perf__synctable_ptrs;

enum { PERF__DOMAIN_RUNTIME = 1, PERF__DOMAIN_DRIVER = 2 };

typedef struct perf__synctable_entry {
  int domain;
  unsigned cbid;
  const char *name;     /* the name the user knows: "cudaMemcpy" */
  perf__synctable_rule rule;
  perf__synctable_ptrs ptrs;
} perf__synctable_entry;

/* The table entry for a callback id; NULL for calls that never block. */
const perf__synctable_entry *perf__synctable_lookup(int domain, unsigned cbid);
/* All entries (for listing and tests). */
const perf__synctable_entry *perf__synctable_table(size_t *n);

/* Decides whether a call with rule and pointer kinds blocked the host.
 * Returns 1 with a description ("synchronous, device→host") in why[len],
 * or 0 when it did not. Never fails. */
int perf__synctable_decide(perf__synctable_rule rule, perf__synctable_mem dst, perf__synctable_mem src,
                      char *why, size_t len);

/* When a work-queuing call that may block makes the host wait, for the
 * stream-order model (streamorder.h): */
typedef enum perf__synctable_host_wait {
  PERF__WAIT_NONE = 0, /* not promised to wait for the GPU */
  PERF__WAIT_BEFORE,   /* for its stream's earlier work, not for itself
                          (a synchronous copy from pageable memory: staged) */
  PERF__WAIT_AFTER     /* for its stream's work up to and including itself */
} perf__synctable_host_wait;

/* The host wait of a call with rule and pointer kinds, from the CUDA
 * runtime's documented synchronisation behaviour; where the documentation
 * promises no wait ("might", "may") it answers PERF__WAIT_NONE: the model
 * then assumes none, which can only make a clock wait for more, never for
 * less. Explicit synchronisation (PERF__RULE_ALWAYS) names its stream or
 * event and is not decided here: PERF__WAIT_NONE. Never fails. */
perf__synctable_host_wait perf__synctable_host_wait_of(perf__synctable_rule rule, perf__synctable_mem dst,
                                     perf__synctable_mem src);

#endif
