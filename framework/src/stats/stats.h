/* stats.h — order statistics and the bootstrap interval for a ratio of medians. */
#ifndef PERF_STATS_H
#define PERF_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "stats/rng.h"

/* k-th smallest (0-based) of v[0..n); reorders v. n > 0, k < n. */
double perf__stats_select(double *v, size_t n, size_t k);
/* Median of v[0..n), reordering v; the mean of the two middle values for
 * even n. Returns NaN for n == 0. */
double perf__stats_median(double *v, size_t n);
/* Median of v[0..n) without touching v; needs scratch of n doubles. */
double perf__stats_median_of(const double *v, size_t n, double *scratch);
/* Quantile p in [0,1] of sorted s[0..n), linear interpolation between order
 * statistics (Hyndman-Fan type 7). NaN for n == 0. */
double perf__stats_quantile_sorted(const double *s, size_t n, double p);
/* Median absolute deviation of v[0..n) around its median (unscaled). */
double perf__stats_mad_of(const double *v, size_t n, double *scratch);

/* Distribution-free interval for the median of v[0..n): the order
 * statistics s_(j) and s_(n+1-j) with the largest j whose coverage
 * (Binomial(n, 1/2)) is at least 1 - level; [min, max] when n is too small
 * for that. Fails with PERF__EINVAL for n == 0, PERF__ENOMEM. */
int perf__stats_median_ci(const double *v, size_t n, double level, double *lo, double *hi);

/* 1 when the 95 % interval of the median of v[0..n) (perf__stats_median_ci)
 * lies within +-rel of the median, 0 when not (or the median is not
 * positive); scratch holds n values. Fails with PERF__EINVAL for n == 0,
 * PERF__ENOMEM. */
int perf__stats_median_within(const double *v, size_t n, double rel, double *scratch);

/* How a bootstrap resamples: level is the two-sided error of its interval
 * (e.g. 0.01 gives a 99 % interval), reps its resamples, rng what they
 * draw from. */
typedef struct perf__stats_boot {
  double level;
  unsigned reps;
  perf__rng *rng;
} perf__stats_boot;

/* Percentile-bootstrap confidence interval for median(num)/median(den),
 * where (num[i], den[i]) are paired observations (one ABBA round each);
 * rounds are resampled with replacement, keeping pairs together, as boot
 * says. Fails with PERF__EINVAL for n < 2, reps < 10 or a level outside
 * (0, 1), PERF__ENOMEM when the scratch space cannot be allocated; lo and
 * hi are untouched on failure. */
int perf__stats_boot_ratio_ci(const double *num, const double *den, size_t n,
                              const perf__stats_boot *boot, double *lo, double *hi);

#endif
