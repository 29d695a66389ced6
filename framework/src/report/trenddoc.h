/* trenddoc.h — the trend report as a document: each series' chart and change points, as a page. */
/* report/trendreport.c reads the history and finds the change points; the
 * page that the report-format table's rows write (report/report.h: a
 * row's trend writer) and each chart are rendered from them here. */
#ifndef PERF_TRENDDOC_H
#define PERF_TRENDDOC_H

#include <stddef.h>
#include <stdio.h>

#include "history/series.h"
#include "history/trend.h"

/* One series with what was found in it. */
typedef struct perf__trenddoc_series {
  perf__trend_series t;
  double band[2]; /* the baseline's tolerance band (NaN: none) */
} perf__trenddoc_series;

/* The trend report's document: the series with what was found in each. */
typedef struct perf__trenddoc {
  const perf__series_set *set;
  const perf__trenddoc_series *f;
  size_t n;
} perf__trenddoc;

/* The series' own change points (not part of a machine shift), and how
 * many of them are suspected. */
size_t perf__trenddoc_own_cuts(const perf__trend_series *t, size_t *suspected);

/* The chart of one series as SVG text (malloc'd), or NULL without
 * memory. */
char *perf__trenddoc_chart(const perf__series_set *set, const perf__trenddoc_series *x);

/* The page: per GPU, the series with change points first, then every
 * chart. Returns 0 (stream errors show in ferror(p)). */
int perf__trenddoc_html(FILE *p, const perf__trenddoc *doc);

#endif
