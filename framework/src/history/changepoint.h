/* changepoint.h — where a series of measurements shifted: its change points. */
#ifndef PERF_CHANGEPOINT_H
#define PERF_CHANGEPOINT_H

/* Three steps, after Taylor's change-point analysis (candidates, then
 * backward elimination) and hunter's (Fleming et al., ICPE 2023), which
 * splits with E-divisive and then removes the weakest change point until
 * each is significant and at least a minimum magnitude:
 *
 * 1. Candidates. E-divisive means (Matteson and James, 2014) splits a
 *    series where the energy distance between the part before and the
 *    part after is largest,
 *
 *      Q(t) = t (n - t) / n * [ 2/(t (n-t)) sum |x_i - y_j|
 *                               - 1/C(t,2) sum |x_i - x_k| - 1/C(n-t,2) sum |y_j - y_k| ],
 *
 *    then each part the same way, down to parts shorter than two
 *    segments: every split is a candidate, significant or not. A bump (a
 *    regression fixed a few commits later) has no significant single
 *    split in the whole series, but its two ends are candidates.
 *
 * 2. Backward elimination. Each candidate is judged in its window, from
 *    the candidate before it to the one after it: its size (the mean
 *    after over the mean before, minus 1) and its p-value. The weakest
 *    that fails is removed (one smaller than min_size first, the smallest
 *    first; then one whose p is above p_max, the largest first), its two
 *    neighbours are judged again in their wider windows, until every one
 *    left passes. So a bump keeps both ends, a step one, a creep the steps
 *    its segments can show, and pure noise none.
 *
 *    The p-value is a permutation test: how often the window's values in
 *    random order have a best split at least as large as the candidate's
 *    Q (the maximum over splits accounts for the split having been
 *    chosen). Up to 9999 permutations (smallest p 1e-4); a test stops as
 *    soon as p is sure to be above p_max, and while candidates are still
 *    being removed, after 999 permutations none of which split as well
 *    (it is run in full once no candidate fails). With a clean step only
 *    the same partition and its mirror split as well, so no number of
 *    permutations gives p below 2 / C(m, split): where that is not under
 *    p_max / 2 (C(m, split) < 4000 at 0.001: 5/5 of 10 has 252, 7/7 of 14
 *    3432), the split is tested with Welch's t-test on its two sides, the
 *    p-value multiplied by the number of splits the window has
 *    (Bonferroni). The t-test assumes roughly normal noise (per-commit
 *    medians are), as hunter does for all its tests.
 *
 * 3. The newest commits. Where the last segment holds a change fewer than
 *    min_segment values before the end, no split can show it; the split
 *    of the last segment with 1 .. min_segment - 1 values after it whose
 *    Student's t (pooled variance: one value after it is enough) is
 *    largest is tested, its p-value multiplied by the number of such
 *    splits, and reported as suspected when p <= p_max and it is at least
 *    min_size. When that split explains the last change point's window
 *    better than the change point itself (a change point put on the few
 *    newest values of a step 1 .. 4 values old), that change point is
 *    removed, its neighbour judged again, and the newest values tested
 *    after the one before it.
 */

#include <stddef.h>
#include <stdint.h>

typedef struct perf__changepoint_opts {
  size_t min_segment;     /* shortest segment on either side (default 5) */
  unsigned permutations;  /* per test, at most (default 9999) */
  double p_max;           /* accept when p <= this (default 0.001) */
  double min_size;        /* smallest |after / before - 1| reported
                             (default 0.01: the baseline check's tolerance
                             floor; smaller shifts are within what a
                             driver or a runner moves a median) */
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
  int t_test;     /* 1: a t-test decided it (a short window, or suspected);
                     0: the permutation test */
  int suspected;  /* 1: fewer than min_segment values from at to the end:
                     the newest values differ, not yet a change point */
} perf__changepoint;

/* The defaults above. Never fails. */
void perf__changepoint_defaults(perf__changepoint_opts *o);

/* Finds the change points of x[0..n), in index order, into out (the max
 * with the smallest p-values when there are more). Returns how many, 0
 * when the series is too short (fewer than min_segment + 1 values) or
 * stationary, or PERF__ENOMEM, or PERF__EINVAL for a bad option
 * (min_segment < 2, permutations < 19, p_max outside (0, 1), min_size
 * negative) or a value that is not finite. */
int perf__changepoint_find(const double *x, size_t n, const perf__changepoint_opts *o,
                           perf__changepoint *out, size_t max);

#endif
