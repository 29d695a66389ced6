/* syncdetect.h — the untimed detection pass: CUPTI callbacks count the host syncs of a workload or a region. */
#ifndef PERF_SYNCDETECT_H
#define PERF_SYNCDETECT_H

/* 1 while a sync check is in progress (CUPTI attached): nothing may be
 * timed then. */
int perf__syncdetect_in_check(void);

/* 1 once this process has attached CUPTI for a sync check: the supervisor
 * retires such a worker after the test, as a precaution (on an H100, kernel
 * launches cost the same after 61 attach/detach cycles as before any). */
int perf__syncdetect_used(void);

#endif
