/* activity.h — CUPTI's Activity API over an untimed pass: the GPU work it ran, into a trace. */
/* Each kernel, copy and memset the pass's calls ran, with its GPU
 * timestamps. */
#ifndef PERF_ACTIVITY_H
#define PERF_ACTIVITY_H

#include <stddef.h>

#include "baseline/trace.h"

/* A call site a pass noted for the driver call with correlation id corr
 * (the id CUPTI gives the call and the copy or memset it queued): the API
 * the user called into api[len] and "file:line (fn)" into where[len].
 * Returns 1 when it has one, 0 otherwise. */
typedef int perf__activity_site_fn(unsigned corr, char *api, size_t alen, char *where, size_t wlen,
                                   void *ctx);

/* Starts recording kernels (concurrent), copies and memsets, with CUPTI
 * attached by the caller (worker/sync/cupti.h) and before the calls to
 * trace. Returns 0, or PERF__EIO with why[len] (a profiler holds CUPTI's
 * activity: ncu, nsys; an older CUPTI), nothing left enabled. */
int perf__activity_begin(char *why, size_t len);

/* Waits for every device (its error, if any, is left for the caller),
 * flushes and stops recording, and adds what was recorded to t (not
 * finished: the caller adds its host syncs and perf__trace_finish-es it):
 * kernels by demangled name (when the C++
 * runtime's demangler is loaded; t->names says) and grid and block; copies
 * and memsets by the API call and site site() gives (NULL: none) and
 * direction and host memory kind. Must run before CUPTI is detached.
 * When CUPTI could not flush its records, t gets none and t->why_not
 * says so (a short trace would explain a change that did not happen).
 * Never fails (without memory the trace is short of items, t->dropped
 * counts them). */
void perf__activity_end(perf__trace *t, perf__activity_site_fn *site, void *ctx);

/* Stops recording if a test ended inside a pass. Never fails. */
void perf__activity_release(void);

#endif
