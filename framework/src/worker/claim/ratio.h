/* ratio.h — the head of PERF_EXPECT_FASTER's and PERF_EXPECT_SIMILAR's lines. */
/* Their entry points are in perfgate.h; their verdict lines, records and
 * messages begin with this head. */
#ifndef PERF_RATIO_H
#define PERF_RATIO_H

#include <stddef.h>

#include "perfgate.h"

/* A ratio claim's head, "FASTER(a, b, 1.3) at file:line" (with similar,
 * "SIMILAR(a, b, 0.05) at file:line"; a and b: names.a and names.b, file
 * and line: at's), with the sweep point's tag inside a sweep (" [n=256]"),
 * into buf[len]. Returns buf; never fails (truncates). */
char *perf__ratio_head(char *buf, size_t len, int similar, double x, perf__names names,
                       perf__site at);

#endif
