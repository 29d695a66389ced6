/* trend.h — where a history series shifted: its change points by E-divisive means, placed on its commits. */
#ifndef PERF_TREND_H
#define PERF_TREND_H

#include <stddef.h>

#include "base/changepoint.h"
#include "history/series.h"

/* The fewest points a series needs to be tested: two segments of the
 * change-point method's shortest length. */
size_t perf__trend_min_points(void);

/* The change points of s's values (index order; each one's at is an index
 * into s->pts, the first point after the shift) into out[0..max). Returns
 * how many, 0 for a series shorter than perf__trend_min_points(), or
 * PERF__ENOMEM. The same series always gives the same answer. */
int perf__trend_changes(const perf__series *s, perf__changepoint *out, size_t max);

#endif
