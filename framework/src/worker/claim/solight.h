/* solight.h — speed-of-light claims: a workload's share of the rate this GPU achieves. */
/* The rate of DRAM, of the host link or of math, decided against calibration
 * work timed in the same ABBA rounds. */
#ifndef PERF_SOLIGHT_H
#define PERF_SOLIGHT_H

#include <stddef.h>

#include "perfgate.h"

/* The claim's head, "BANDWIDTH(w, 0.8) at f.c:9" (what: 0 BANDWIDTH, 1
 * FLOPS, 2 LINK_BANDWIDTH, as perfgate.h's macros pass it), with the sweep
 * point inside a sweep. Returns buf; truncates. Never fails. */
char *perf__solight_head(char *buf, size_t len, int what, double share, const char *wn,
                         perf__site at);

#endif
