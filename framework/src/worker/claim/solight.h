/* solight.h — speed-of-light claims: a workload's share of the DRAM bandwidth or math rate this GPU achieves, decided against calibration work timed in the same ABBA rounds. */
#ifndef PERF_SOLIGHT_H
#define PERF_SOLIGHT_H

#include <stddef.h>

/* The claim's head, "BANDWIDTH(w, 0.8) at f.c:9" (math: "FLOPS(...)"),
 * with the sweep point inside a sweep. Returns buf; truncates. Never
 * fails. */
char *perf__solight_head(char *buf, size_t len, int math, double share, const char *wn,
                         const char *file, int line);

#endif
