/* syncdetect.h — the untimed pass in which CUPTI counts a workload's or region's host syncs. */
#ifndef PERF_SYNCDETECT_H
#define PERF_SYNCDETECT_H

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
