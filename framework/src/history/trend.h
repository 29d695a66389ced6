/* trend.h — where a history series shifted, and where a whole machine did. */
/* Change points by E-divisive means, placed on the series' commits; a
 * machine's shift is many workloads shifting at one commit. */
#ifndef PERF_TREND_H
#define PERF_TREND_H

#include <stddef.h>

#include "history/changepoint.h"
#include "history/series.h"

/* The most change points kept per series (svg.h draws 8). */
enum { PERF__TREND_MAX_CUTS = 8 };

/* A machine's shift needs at least this many of its workloads, and at
 * least half of those that could show it. */
enum { PERF__TREND_SHIFT_MIN = 3 };

/* One series with its change points, each marked when it is part of its
 * machine's shift. */
typedef struct perf__trend_series {
  const perf__series *s;
  perf__changepoint cp[PERF__TREND_MAX_CUTS];
  int ncp;
  int shift[PERF__TREND_MAX_CUTS]; /* 0: its own; k: part of the k-th shift
                                      perf__trend_shifts found */
} perf__trend_series;

/* Many of one GPU's workloads shifted the same way at one commit: a
 * driver, the clocks or the host changed, not each workload. */
typedef struct perf__trend_shift {
  size_t at;                /* index on the GPU's axis: the first commit after it */
  size_t moved, of;         /* workloads with a change point there, of those
                               tested with commits on both sides */
  double size;              /* their sizes' median */
  double smallest, largest; /* their sizes' range */
  int suspected;            /* each of them suspected (the newest commits) */
} perf__trend_shift;

/* The fewest points a series needs to be tested: two segments of the
 * change-point method's shortest length. */
size_t perf__trend_min_points(void);

/* The change points of s's values (index order; each one's at is an index
 * into s->pts, the first point after the shift) into out[0..max). Returns
 * how many, 0 for a series shorter than perf__trend_min_points(), or
 * PERF__ENOMEM. The same series always gives the same answer. */
int perf__trend_changes(const perf__series *s, perf__changepoint *out, size_t max);

/* perf__trend_changes of each t[i]->s into t[i]->cp and ncp (at most
 * PERF__TREND_MAX_CUTS), on up to threads threads at once (each series is
 * its own search: the answers are a loop's). A thread that cannot start
 * leaves its share to the others. Returns 0, or PERF__ENOMEM (that
 * series' ncp then negative). */
int perf__trend_changes_each(perf__trend_series *const *t, size_t n, int threads);

/* The machine's shifts among t[0..n), one GPU's series with their change
 * points: a commit where at least PERF__TREND_SHIFT_MIN workloads, and at
 * least half of those tested with commits on both sides of it, have a
 * change point the same way within one commit of it, of at most twice
 * their median size (one that moved more changed as well, and stays its
 * own). Ratio claims have no vote: measured within one process, they
 * cancel the machine. Each such change point is marked in its series'
 * shift[]; the shifts go into out[0..max), the one with the most
 * workloads first. Returns how many, or PERF__ENOMEM. */
int perf__trend_shifts(perf__trend_series *const *t, size_t n, perf__trend_shift *out, size_t max);

/* The change point before t->cp[k] that it undoes (the other way, back to
 * within the change-point method's minimum size of the level before that
 * one: a regression fixed), or -1. Never fails. */
int perf__trend_undoes(const perf__trend_series *t, int k);

#endif
