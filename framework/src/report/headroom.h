/* headroom.h — each ratio claim across a report's runs: outcomes, flips, and its headroom. */
/* The ratio range, the worst interval bound against the threshold, and the
 * threshold that held every time. */
#ifndef PERF_HEADROOM_H
#define PERF_HEADROOM_H

#include <stddef.h>
#include <stdio.h>

#include "io/json.h"
#include "report/result.h"

/* The margin a threshold should keep from the worst interval bound seen. */
#define PERF__HEADROOM_MARGIN 0.05

/* One FASTER or SIMILAR claim (a sweep's per point) over every run of it.
 * Headroom is how far the worst run's interval stayed on the good side of
 * what the claim needs: FASTER(f) min over runs of lo / f; SIMILAR(t) min
 * over runs of min(lo (1+t), (1+t) / hi). Above 1 the claim held with that
 * much to spare in every run; below 1 some run did not clear it. */
typedef struct perf__headroom_row {
  char test[256];
  char claim[400];     /* "FASTER(a, b, 2) at t.c:9 [n=16]" */
  int similar;         /* SIMILAR (else at least: FASTER, BANDWIDTH, FLOPS) */
  const char *kind;    /* its word (claimrec.h), static */
  double threshold;    /* FASTER: factor; SIMILAR: tolerance */
  int runs, passed, failed, inconclusive;
  int flips;           /* runs whose outcome is not the most common one */
  double ratio_min, ratio_median, ratio_max;
  double lo_min, hi_max; /* the widest the intervals reached */
  double headroom;
  double held_at;      /* FASTER: the factor that held in every run with
                          PERF__HEADROOM_MARGIN to spare (min lo / 1.05);
                          SIMILAR: such a tolerance */
} perf__headroom_row;

/* The rows for results r[0..n), least headroom first: each judgement of a
 * claim is a run, a first attempt's that a second one judged again too. Claim records that
 * are not FASTER or SIMILAR, or cannot be read, are passed over. Returns
 * the number of rows (*rows malloc'd; free it), 0 with *rows NULL when
 * there are none or memory ran out. */
size_t perf__headroom_build(const perf__result *r, size_t n, perf__headroom_row **rows);

/* 1 when some claim ran more than once (--repeat): then its headroom is
 * news. Never fails. */
int perf__headroom_repeated(const perf__headroom_row *rows, size_t n);

/* The console table (for --repeat). Never fails. */
void perf__headroom_print(FILE *f, const perf__headroom_row *rows, size_t n);
/* A Markdown section with the table. Never fails. */
void perf__headroom_markdown(FILE *f, const perf__headroom_row *rows, size_t n);
/* ", \"headroom\": [...]" for the JSON report. Never fails (out of memory
 * shows in j->oom). */
void perf__headroom_json(perf__json *j, const perf__headroom_row *rows, size_t n);
/* The forest plot: each claim's ratio range and widest interval against
 * what it needs (FASTER divided by its factor, so every need sits at 1),
 * least headroom on top, as one <svg>. Never fails. */
void perf__headroom_svg(FILE *f, const perf__headroom_row *rows, size_t n);

#endif
