/* svg.h — charts as SVG: lines with interval bands, reference lines and interval rows. */
/* The axes are log or linear. */
#ifndef PERF_SVG_H
#define PERF_SVG_H

#include <stddef.h>
#include <stdio.h>

/* How a point is marked. */
enum { PERF__MARK_PLAIN, PERF__MARK_PASS, PERF__MARK_FAIL, PERF__MARK_OPEN };

/* One line: n points (x[i], y[i]) with the band [lo[i], hi[i]] (lo, hi may
 * be NULL); points with a non-finite or, on a log axis, non-positive value
 * are left out. */
typedef struct perf__svg_series {
  const char *label;
  const double *x, *y, *lo, *hi;
  const int *mark; /* PERF__MARK_* per point; NULL: plain */
  size_t n;
} perf__svg_series;

typedef struct perf__svg_chart {
  const char *title, *xlabel, *ylabel;
  int xlog, ylog;
  int ytime;              /* y is seconds: ticks read "10 us" */
  const perf__svg_series *s;
  size_t ns;
  double hline[2];        /* dashed horizontal lines (thresholds) */
  size_t nhline;
  int has_hband, has_xband, has_vline;
  double hband[2];        /* shaded y range (where a SIMILAR holds) */
  double xband[2];        /* shaded x range (a crossover's [lo, hi]) */
  double vline;           /* dotted vertical line (an estimated crossover) */
  const char *vline_label;
  const char *const *xnames; /* x is 0..nxnames-1, each tick named (commits) */
  size_t nxnames;
  double cut[8];          /* red dashed vertical lines between x - 1 and x
                             (change points), each with its label */
  const char *cut_label[8];
  size_t ncut;
} perf__svg_chart;

/* One row of an interval chart: a claim's ratio, its interval and what it
 * needs (FASTER: >= need_lo; SIMILAR: within [need_lo, need_hi]). */
typedef struct perf__svg_row {
  const char *label;
  double value, lo, hi, need_lo, need_hi; /* need_hi NaN: one-sided */
  int mark;                               /* PERF__MARK_* */
} perf__svg_row;

/* Writes c as one <svg> element (with its namespace, so the same text is a
 * standalone file after an XML declaration, or inline HTML). Never fails
 * (stream errors show in ferror(f)); a chart with no drawable point says
 * so in place of its lines. */
void perf__svg_chart_write(FILE *f, const perf__svg_chart *c);
/* Writes rows on a shared log ratio axis with each row's requirement.
 * Never fails (stream errors show in ferror(f)). */
void perf__svg_rows_write(FILE *f, const char *title, const perf__svg_row *rows, size_t n);

#endif
