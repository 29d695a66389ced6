/* trend.c — where a history series shifted: its change points by E-divisive means, placed on its commits. */
#include "history/trend.h"

#include <stdlib.h>

#include "base/status.h"

/* See trend.h. */
size_t perf__trend_min_points(void)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  return 2 * o.min_segment;
}

/* See trend.h. */
int perf__trend_changes(const perf__series *s, perf__changepoint *out, size_t max)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  if (s->n < perf__trend_min_points()) return 0;
  double *x = malloc(s->n * sizeof *x);
  if (!x) return PERF__ENOMEM;
  for (size_t i = 0; i < s->n; i++) x[i] = s->pts[i].value;
  int n = perf__changepoint_find(x, s->n, &o, out, max);
  free(x);
  return n;
}
