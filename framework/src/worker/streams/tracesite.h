/* tracesite.h — call sites of a routing pass's copies, memsets and host syncs, for the trace. */
#ifndef PERF_TRACESITE_H
#define PERF_TRACESITE_H

#include <stddef.h>

#include "baseline/trace.h"

/* Forgets the last pass's sites. Never fails. */
void perf__tracesite_begin(void);

/* Inside the pass's CUPTI handler, on the thread that made the call: notes
 * the copy or memset the driver call with correlation id corr queues
 * (sync 0), or a call that makes the host wait (sync 1, why: "explicit",
 * "synchronous copy"), with api the call the user made and its stack.
 * Never fails (past 256 notes, calls are not named). */
void perf__tracesite_note(unsigned corr, const char *api, int sync, const char *why);

/* The site of the copy or memset with correlation id corr, as
 * perf__activity_site_fn (worker/sync/activity.h) wants it. */
int perf__tracesite_lookup(unsigned corr, char *api, size_t alen, char *where, size_t wlen,
                           void *ctx);

/* Adds the noted host syncs to t (unfinished: one occurrence each). Never
 * fails. */
void perf__tracesite_syncs(perf__trace *t);

#endif
