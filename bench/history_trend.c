/* history_trend.c — times the two parts of what --trend --gpu --last does:
 * read the series of one GPU's newest commits (perf__series_query's .gpu
 * and .last), then find each one's change points (as report/trendreport.c's
 * analyse does, but on one thread, each series timed; nothing printed or
 * drawn).
 *   history-trend LOCATION GPU LAST [THROUGH [read]]
 * GPU '': every GPU; LAST: commits (0: all); THROUGH: only runs up to this
 * id (0: all); read: only read (what --commit-report reads). Prints one
 * line: runs, series, points, seconds to read, seconds to find the change
 * points, how many, the seconds spent on the series that have one, and the
 * most one series took. Built by bench/history-scale.sh. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "history/connect.h"
#include "history/series.h"
#include "history/trend.h"

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
  if (argc < 4) return fprintf(stderr, "usage: %s LOCATION GPU LAST [THROUGH [read]]\n", argv[0]), 2;
  perf__series_query q = {NULL, *argv[2] ? argv[2] : NULL, NULL, strtoul(argv[3], NULL, 10),
                          argc > 4 ? strtoll(argv[4], NULL, 10) : 0, 0, 0};
  perf__store *s = NULL;
  perf__series_set set;
  char err[600];
  double t0 = now();
  int rc = perf__connect_open(argv[1], 0, &s, err, sizeof err);
  if (!rc) rc = perf__series_load(s, &q, &set, err, sizeof err);
  if (s) perf__store_close(s);
  if (rc) return fprintf(stderr, "%s\n", err), 2;
  double t1 = now();
  size_t points = 0, changed = 0;
  long found = 0;
  double in_changed = 0, slowest = 0; /* seconds: in series with a change point; the most one took */
  for (size_t i = 0; i < set.n; i++) {
    perf__changepoint cp[8];
    double t = now();
    int n = argc < 6 ? perf__trend_changes(&set.s[i], cp, 8) : 0;
    if (n < 0) return fprintf(stderr, "out of memory\n"), 2;
    t = now() - t;
    if (n) found += n, changed++, in_changed += t;
    if (t > slowest) slowest = t;
    points += set.s[i].n;
  }
  printf("runs %zu series %zu points %zu read_s %.3f changes_s %.3f change_points %ld (in %zu series: "
         "%.3f s; slowest series %.3f s)\n", set.runs, set.n, points, t1 - t0, now() - t1, found,
         changed, in_changed, slowest);
  perf__series_free(&set);
  return 0;
}
