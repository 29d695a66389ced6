/* resource.c — a test's registered resources: PERF_ALLOC_* memory and PERF_DEFER cleanups, released when the test ends. */
#include <stdlib.h>

#include "perfgate.h"
#include "base/units.h"
#include "worker/context.h"
#include "worker/device/gpu.h"

/* Cleanups for each kind; a failed free fails a passing test (PERF_CUDA). */
static void free_device(void *p) { perf__cuda_check(cudaFree(p), "cudaFree", __FILE__, __LINE__); }
static void free_pinned(void *p)
{
  perf__cuda_check(cudaFreeHost(p), "cudaFreeHost", __FILE__, __LINE__);
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
    p = calloc(1, bytes ? bytes : 1);
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
