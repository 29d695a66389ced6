/* resource.c — a test's PERF_ALLOC_* memory and PERF_DEFER cleanups, released when it ends. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfgate.h"
#include "util/units.h"
#include "worker/context.h"
#include "worker/device/gpu.h"

/* Cleanups for each kind; a failed free fails a passing test (PERF_CUDA). */
static void free_device(void *p) { perf__cuda_check(cudaFree(p), "cudaFree", __FILE__, __LINE__); }
static void free_pinned(void *p)
{
  perf__cuda_check(cudaFreeHost(p), "cudaFreeHost", __FILE__, __LINE__);
}

/* bytes (at least 1) of zeroed pageable memory starting on a page, so that
 * where a buffer starts within a cache line and a page is the same in every
 * process: malloc's 16-byte alignment follows the heap's history, and a CPU
 * loop's time with it (a 32 x 32 fp32 matmul whose output started 16 bytes
 * into a cache line ran 8.0 us, 0 or 32 bytes in 3.5 us, on the 2-core EPYC
 * VM, 2026-11-29). Exactly bytes are allocated (a sanitizer sees an
 * overrun) and all of them written now, unlike calloc's untouched pages.
 * NULL when out of memory. */
static void *host_pages(size_t bytes)
{
  long page = sysconf(_SC_PAGESIZE);
  void *p = NULL;
  size_t size = bytes ? bytes : 1;
  if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, size)) return NULL;
  memset(p, 0, size);
  return p;
}

/* Public: PERF_ALLOC_*. Returns the memory; a failure ends the test (FAIL,
 * or SKIP without a CUDA device; a bad kind is ERROR). */
void *perf__alloc(perf__alloc_kind kind, size_t bytes, const char *expr, const char *file, int line)
{
  void *p = NULL;
  switch (kind) {
  case PERF__ALLOC_DEVICE:
    perf__cuda_check(cudaMalloc(&p, bytes), "cudaMalloc", file, line);
    perf__context_defer(free_device, p, file, line);
    return p;
  case PERF__ALLOC_PINNED:
    perf__cuda_check(cudaMallocHost(&p, bytes), "cudaMallocHost", file, line);
    perf__context_defer(free_pinned, p, file, line);
    return p;
  case PERF__ALLOC_HOST:
    p = host_pages(bytes);
    if (!p)
      perf__context_end(PERF_OUTCOME_FAIL, 0, "out of memory: %zu %s for %s at %s:%d", bytes,
                        perf__units_noun((long long)bytes, "byte", "bytes"), expr, file, line);
    perf__context_defer(free, p, file, line);
    return p;
  }
  perf__context_end(PERF_OUTCOME_ERROR, 0, "%s at %s:%d: not a PERF_ALLOC_* kind", expr, file, line);
}

/* Public: PERF_DEFER. Outside a test it aborts (misuse); out of memory it
 * runs fn at once and fails the test. */
void perf__defer(void (*fn)(void *), void *arg, const char *file, int line)
{
  if (!fn) perf__context_end(PERF_OUTCOME_ERROR, 0, "PERF_DEFER at %s:%d: no function", file, line);
  if (!perf__context_running())
    perf__context_end(PERF_OUTCOME_ERROR, 0, "PERF_DEFER at %s:%d", file, line);
  perf__context_defer(fn, arg, file, line);
}
