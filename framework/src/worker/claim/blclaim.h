/* blclaim.h — PERF_EXPECT_BASELINE: one workload timed alone, against its entry in the file. */
#ifndef PERF_BLCLAIM_H
#define PERF_BLCLAIM_H

#include <stddef.h>

#include "perfgate.h"

/* A baseline check's head, "BASELINE(name) at file:line", with the sweep
 * point's tag inside a sweep, into buf[len]. Returns buf; never fails
 * (truncates). */
char *perf__blclaim_head(char *buf, size_t len, const char *name, perf__site at);

#endif
