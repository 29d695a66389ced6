/* plot.h — the charts a run's claim records make. */
/* Time and throughput against a sweep's parameter, and ratios against their
 * thresholds. */
#ifndef PERF_PLOT_H
#define PERF_PLOT_H

#include <stddef.h>

#include "report/result.h"

typedef struct perf__plot_chart {
  char name[200]; /* file name without ".svg": "suite.test--time-n" */
  char *svg;      /* one <svg> element */
} perf__plot_chart;

/* The charts of one test, from its claim records:
 *  - per sweep parameter: time per iteration of each workload against it
 *    (log axes, the 95 % interval of each median as a band);
 *  - per ratio claim made in a sweep (FASTER, SIMILAR, CROSSOVER): its
 *    ratio and interval against the parameter, with what it needs;
 *  - the test's other FASTER and SIMILAR claims: one row each, its ratio
 *    and interval against what it needs.
 * Returns how many (*out is malloc'd, NULL for none). Never fails: a record
 * that cannot be read, or memory that runs out, costs charts, not the run. */
size_t perf__plot_test(const perf__result *r, perf__plot_chart **out);
void perf__plot_free(perf__plot_chart *c, size_t n);

/* Creates dir when missing. Returns 0, or -1 with "--plots=DIR: ..." in
 * err[len] when it is not a writable directory and cannot be made one. */
int perf__plot_mkdir(const char *dir, char *err, size_t len);

/* --plots=DIR: every chart of every result, as DIR/<name>.svg (each file
 * replaced atomically; dir created when missing; a repeated test's names get "-2", "-3"). Returns 0,
 * or PERF__EIO after printing which file could not be written. */
int perf__plot_dir(const char *dir, const perf__result *r, size_t n);

#endif
