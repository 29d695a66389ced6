/* stats.c — order statistics and the bootstrap interval for a ratio of medians. */
#include "stats/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

static void swap(double *a, double *b)
{
  double t = *a;
  *a = *b;
  *b = t;
}

/* Hoare-style quickselect with median-of-three pivots; O(n) expected. */
double perf__stats_select(double *v, size_t n, size_t k)
{
  size_t lo = 0, hi = n - 1;
  while (hi > lo) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < v[lo]) swap(&v[mid], &v[lo]);
    if (v[hi] < v[lo]) swap(&v[hi], &v[lo]);
    if (v[hi] < v[mid]) swap(&v[hi], &v[mid]);
    double pivot = v[mid];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) i++;
      while (v[j] > pivot) j--;
      if (i <= j) {
        swap(&v[i], &v[j]);
        i++;
        if (j == 0) break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return v[k];
  }
  return v[k];
}

/* NaN for n == 0; otherwise never fails. */
double perf__stats_median(double *v, size_t n)
{
  if (n == 0) return NAN;
  double upper = perf__stats_select(v, n, n / 2);
  if (n % 2) return upper;
  /* After selection, v[0..n/2) holds the smaller half: its max is the lower
   * middle value. */
  double lower = v[0];
  for (size_t i = 1; i < n / 2; i++)
    if (v[i] > lower) lower = v[i];
  return 0.5 * (lower + upper);
}

/* NaN for n == 0; otherwise never fails. */
double perf__stats_median_of(const double *v, size_t n, double *scratch)
{
  if (n == 0) return NAN;
  memcpy(scratch, v, n * sizeof *v);
  return perf__stats_median(scratch, n);
}

/* NaN for n == 0; p is clamped to [0, 1]. */
double perf__stats_quantile_sorted(const double *s, size_t n, double p)
{
  if (n == 0) return NAN;
  if (p <= 0) return s[0];
  if (p >= 1) return s[n - 1];
  double h = p * (double)(n - 1);
  size_t i = (size_t)h;
  if (i + 1 >= n) return s[n - 1];
  return s[i] + (h - (double)i) * (s[i + 1] - s[i]);
}

/* NaN for n == 0; scratch must hold n doubles. */
double perf__stats_mad_of(const double *v, size_t n, double *scratch)
{
  if (n == 0) return NAN;
  double med = perf__stats_median_of(v, n, scratch);
  for (size_t i = 0; i < n; i++) scratch[i] = fabs(v[i] - med);
  return perf__stats_median(scratch, n);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Fails with PERF__EINVAL or PERF__ENOMEM (see stats.h). */
int perf__stats_boot_ratio_ci(const double *num, const double *den, size_t n,
                              const perf__stats_boot *boot, double *lo, double *hi)
{
  double level = boot->level;
  unsigned reps = boot->reps;
  if (n < 2 || reps < 10 || !(level > 0 && level < 1)) return PERF__EINVAL;
  if (n > UINT32_MAX) return PERF__EINVAL;
  double *rn = malloc(n * sizeof *rn);
  double *rd = malloc(n * sizeof *rd);
  double *ratios = malloc(reps * sizeof *ratios);
  if (!rn || !rd || !ratios) {
    free(rn);
    free(rd);
    free(ratios);
    return PERF__ENOMEM;
  }
  for (unsigned b = 0; b < reps; b++) {
    for (size_t i = 0; i < n; i++) {
      uint32_t j = perf__rng_below(boot->rng, (uint32_t)n);
      rn[i] = num[j];
      rd[i] = den[j];
    }
    ratios[b] = perf__stats_median(rn, n) / perf__stats_median(rd, n);
  }
  qsort(ratios, reps, sizeof *ratios, cmp_double);
  *lo = perf__stats_quantile_sorted(ratios, reps, level / 2);
  *hi = perf__stats_quantile_sorted(ratios, reps, 1 - level / 2);
  free(rn);
  free(rd);
  free(ratios);
  return 0;
}

/* Samples excluded on each side: the largest j >= 1 with P(B < j) <= level/2
 * for B ~ Binomial(n, 1/2); 1 when none qualifies. */
static size_t median_ci_depth(size_t n, double level)
{
  double cdf = 0, logn = lgamma((double)n + 1) - (double)n * log(2.0);
  size_t j = 1;
  for (size_t i = 0; i < n / 2; i++) {
    cdf += exp(logn - lgamma((double)i + 1) - lgamma((double)(n - i) + 1));
    if (cdf > level / 2) break;
    j = i + 1; /* P(B < i + 1) <= level/2: x_(i+1) may bound it */
  }
  return j; /* <= n/2 for n >= 2, so s_(j) <= s_(n+1-j) */
}

/* Fails with PERF__EINVAL for n == 0, PERF__ENOMEM without scratch. */
int perf__stats_median_ci(const double *v, size_t n, double level, double *lo, double *hi)
{
  if (n == 0) return PERF__EINVAL;
  double *s = malloc(n * sizeof *s);
  if (!s) return PERF__ENOMEM;
  memcpy(s, v, n * sizeof *s);
  qsort(s, n, sizeof *s, cmp_double);
  size_t j = median_ci_depth(n, level); /* 1-based: [s_(j), s_(n-j+1)] */
  *lo = s[j - 1];
  *hi = s[n - j];
  free(s);
  return 0;
}

/* See stats.h. */
int perf__stats_median_within(const double *v, size_t n, double rel, double *scratch)
{
  double lo = 0, hi = 0;
  int err = perf__stats_median_ci(v, n, 0.05, &lo, &hi);
  if (err) return err;
  double m = perf__stats_median_of(v, n, scratch);
  return m > 0 && hi - m <= rel * m && m - lo <= rel * m;
}
