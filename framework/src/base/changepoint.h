/* changepoint.h — where a series of measurements shifted: E-divisive means with a permutation test (Welch's t-test on short segments). */
#ifndef PERF_CHANGEPOINT_H
#define PERF_CHANGEPOINT_H

/* E-divisive means (Matteson and James, 2014; the method hunter runs over
 * benchmark histories) splits a series where the energy distance between
 * the part before and the part after is largest,
 *
 *   Q(t) = t (n - t) / n * [ 2/(t (n-t)) sum |x_i - y_j|
 *                            - 1/C(t,2) sum |x_i - x_k| - 1/C(n-t,2) sum |y_j - y_k| ],
 *
 * and keeps the split only when a permutation test says so: the largest
 * Q over the same segment's values in random order is at least as large
 * in at most p_max of the permutations. Accepted splits divide the series,
 * and the segment holding the next largest Q is tried, until none passes.
 * It assumes nothing about the distribution (no normality), and a trend
 * shows as the split that separates its ends best.
 *
 * The permutation test runs up to 9999 permutations (its smallest
 * p-value, 1e-4, well under p_max) and stops as soon as p is sure to be
 * above p_max. With a clean step only the same partition and its mirror
 * split as well, so no number of permutations gives p below
 * 2 / C(m, split): where that is not under p_max / 2 (C(m, split) < 4000
 * at 0.001: a 5/5 split of 10 values has 252 arrangements, 7/7 of 14 has
 * 3432), the split is tested instead with Welch's t-test on its two sides,
 * the p-value multiplied by the number of splits the best was chosen from
 * (Bonferroni). The t-test assumes roughly normal noise (per-commit
 * medians are), as hunter does for all its tests (Fleming et al., ICPE
 * 2023).
 */

#include <stddef.h>
#include <stdint.h>

typedef struct perf__changepoint_opts {
  size_t min_segment;     /* shortest segment on either side (default 5) */
  unsigned permutations;  /* per test, at most (default 9999) */
  double p_max;           /* accept when p <= this (default 0.001) */
  uint64_t seed;          /* of the permutations: the same input gives the
                             same answer */
} perf__changepoint_opts;

/* One shift. */
typedef struct perf__changepoint {
  size_t at;      /* index of the first value after the shift */
  double before;  /* mean of the segment before it (up to the previous
                     change point) */
  double after;   /* mean of the segment after it (up to the next) */
  double size;    /* after / before - 1: +0.03 is 3 % slower for a time */
  double p;       /* the test's p-value */
  int t_test;     /* 1: Welch's t-test decided it (a short segment); 0: the
                     permutation test */
} perf__changepoint;

/* The defaults above. Never fails. */
void perf__changepoint_defaults(perf__changepoint_opts *o);

/* Finds up to max change points in x[0..n), in index order, into out.
 * Returns how many, 0 when the series is too short or stationary, or
 * PERF__ENOMEM, or PERF__EINVAL for a bad option (min_segment < 2,
 * permutations < 19, p_max outside (0, 1)) or a value that is not
 * finite. */
int perf__changepoint_find(const double *x, size_t n, const perf__changepoint_opts *o,
                           perf__changepoint *out, size_t max);

#endif
