/* samework.h — PERF_EXPECT_SAME_WORK (entry point in perfgate.h): one call's GPU work, counted. */
#ifndef PERF_SAMEWORK_H
#define PERF_SAMEWORK_H

#include <stddef.h>

#include "perfgate.h"

/* A work claim's head, "SAME_WORK(w) at file:line", with the sweep point's
 * tag inside a sweep (" [n=256]"), into buf[len]. Returns buf; never fails
 * (truncates). */
char *perf__samework_head(char *buf, size_t len, const char *name, perf__site at);

#endif
