/* crossover.h — PERF_EXPECT_CROSSOVER: one comparison per sweep point, then where a overtakes b. */
#ifndef PERF_CROSSOVER_H
#define PERF_CROSSOVER_H

#include <stddef.h>

#include "worker/claim/verdict.h"
#include "util/status.h"

/* One sweep point of a crossover claim. */
typedef struct perf__crossover_point {
  double x;        /* the sweep variable */
  perf__verdict_side side; /* slower, faster (beyond the tie margin), tied, undecided */
  double speedup;  /* median(b) / median(a) */
} perf__crossover_point;

typedef struct perf__crossover_decision {
  perf_outcome verdict; /* PASS, FAIL or INCONCLUSIVE */
  double slow_max;       /* largest x where a is slower; NaN: none */
  double fast_min;       /* smallest x where a is faster; NaN: none */
  double estimate;       /* where the medians' ratio crosses 1; NaN: none */
  char why[480];         /* the reason, in words */
} perf__crossover_decision;

/* What a crossover claim asks: that a turns faster than b inside [lo, hi]
 * of the sweep variable; an, bn and var name a, b and it in the reason. */
typedef struct perf__crossover_ask {
  double lo, hi;
  const char *an, *bn, *var;
} perf__crossover_ask;

/* Decides "a is slower than b below some x and faster above it, and that x
 * lies in [q->lo, q->hi]" from n points in any order (see perfgate.h for
 * the rules): only slower and faster points (beyond the tie margin) place
 * the turn or contradict it; tied and undecided points do neither. Never
 * fails. */
void perf__crossover_decide(const perf__crossover_point *p, size_t n,
                            const perf__crossover_ask *q, perf__crossover_decision *d);

#endif
