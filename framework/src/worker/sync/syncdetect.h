/* syncdetect.h — the untimed pass in which CUPTI counts a workload's or region's host syncs. */
#ifndef PERF_SYNCDETECT_H
#define PERF_SYNCDETECT_H

/* Detection alone: attaching CUPTI, counting each host sync at its call
 * site, resolving the sites. The sync checks that decide on the counts are
 * a claim kind (worker/claim/syncclaim.c). */

#include <stddef.h>

#include "perfgate.h"

/* What one pass counted. */
typedef struct perf__syncdetect_pass {
  int iterations;                  /* calls counted (a region: 1) */
  int total[PERF_SYNC_ITERATIONS]; /* host syncs in each, at every site */
  double pass_s, cupti_s;          /* the pass's wall time; attaching and
                                      detaching CUPTI */
  char cannot[300]; /* why CUPTI could not attach (nothing counted), or "" */
} perf__syncdetect_pass;

/* The pass over workload w for the check headed head: one warm-up call
 * without CUPTI, then PERF_SYNC_ITERATIONS counted calls, into *p (with
 * p->cannot set when CUPTI could not attach). Ends the test without a
 * device (SKIP), inside another check (ERROR: checks cannot nest) or on a
 * CUDA error the calls caused. */
void perf__syncdetect_workload(perf_workload *w, const char *head, perf__syncdetect_pass *p);

/* Starts counting a region's host syncs (the check headed head). Returns
 * 1 while it counts, 0 when CUPTI could not attach (p->cannot says why;
 * the region then runs unchecked). Ends the test as
 * perf__syncdetect_workload. */
int perf__syncdetect_region_open(const char *head, perf__syncdetect_pass *p);
/* Stops counting the region opened last; its count into *p. Never fails. */
void perf__syncdetect_region_close(perf__syncdetect_pass *p);

/* Resolves the last pass's call sites and publishes them as
 * perf_sync_findings (iters: the pass's iterations; who: the workload
 * counted, named where a tail call hid its line, or NULL). Returns them,
 * *n of them. Never fails. */
const perf_sync_finding *perf__syncdetect_sites(int iters, const char *who, size_t *n);
/* Site i's host syncs in each iteration of the last pass. Never fails. */
const int *perf__syncdetect_site_counts(size_t i);
/* Host syncs of the last pass at sites beyond those kept (in its totals). */
long perf__syncdetect_dropped(void);
/* Counts c[iters] as text, "3" when every iteration had 3, else "[1, 2,
 * 1]", into buf[len]. Never fails (truncates). */
void perf__syncdetect_count_text(char *buf, size_t len, const int *c, int iters);

/* 1 while a sync check is in progress (CUPTI attached): nothing may be
 * timed then. */
int perf__syncdetect_in_check(void);

/* 1 once this process has attached CUPTI for a sync check. The C runner
 * keeps such a worker: each pass detaches and finalizes CUPTI, as the
 * routing pass before every timed claim does (on an H100 a launch cost
 * 0.757 us before any attach and 0.778 us after attach, unsubscribe and
 * cuptiFinalize; 1.003 us without the finalize, 2026-11-26). The embedding
 * (embed.c) still refuses timing after one. */
int perf__syncdetect_used(void);

#endif
