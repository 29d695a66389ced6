/* nvtx.h — NVTX ranges, so that an Nsight Systems trace reads by test, claim and workload. */
#ifndef PERF_NVTX_H
#define PERF_NVTX_H

/* Opens a range named by printf-style text (at most 511 bytes). Free when no
 * tool is attached (NVTX v3 is header-only); never fails. */
void perf__nvtx_push(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Closes the innermost range; never fails. */
void perf__nvtx_pop(void);

#endif
