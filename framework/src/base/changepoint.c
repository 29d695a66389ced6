/* changepoint.c — where a series of measurements shifted: E-divisive means with a permutation test (Welch's t-test on short segments). */
#include "base/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/rng.h"
#include "base/status.h"

enum { MAX_SEGMENTS = 256 };

/* The split of v[0..m) with the largest divergence Q, into *q; each side
 * at least min long. O(m^2): the three sums move with the split. Returns
 * the size of the part before it (0 when m < 2 min). */
static size_t best_split(const double *v, size_t m, size_t min, double *q)
{
  double total = 0, within_before = 0, between = 0;
  for (size_t i = 0; i < m; i++)
    for (size_t k = i + 1; k < m; k++) total += fabs(v[i] - v[k]);
  double within_after = total;
  size_t best = 0;
  *q = 0;
  for (size_t t = 0; t + min <= m; t++) { /* t values before the split */
    if (t >= min && t >= 2 && m - t >= 2) {
      double a = (double)t, b = (double)(m - t);
      double e = 2 * between / (a * b) - within_before / (a * (a - 1) / 2) -
                 within_after / (b * (b - 1) / 2);
      double qt = a * b / (double)m * e;
      if (!best || qt > *q) *q = qt, best = t;
    }
    double to_before = 0, to_after = 0; /* v[t] against each side */
    for (size_t i = 0; i < t; i++) to_before += fabs(v[i] - v[t]);
    for (size_t j = t + 1; j < m; j++) to_after += fabs(v[t] - v[j]);
    within_before += to_before;
    within_after -= to_after;
    between += to_after - to_before;
  }
  return best;
}

/* The permutation test's p-value for a best split of divergence q in
 * v[0..m): how often the values in random order split at least as well,
 * over reps permutations. It stops once the count shows p above p_max
 * (most tests of a stationary segment stop within a few dozen), and
 * spends at most about 4e9 distance terms on one test, never fewer than
 * 1999 permutations. scratch holds m values. Never fails. */
static double p_value(const double *v, size_t m, size_t min, double q, unsigned reps,
                      double p_max, perf__rng *rng, double *scratch)
{
  double cap = 4e9 / ((double)m * (double)m);
  if (cap < reps) reps = cap > 1999 ? (unsigned)cap : (reps < 1999 ? reps : 1999);
  unsigned as_large = 0, enough = (unsigned)(p_max * (reps + 1.0));
  memcpy(scratch, v, m * sizeof *v);
  for (unsigned r = 0; r < reps && as_large + 1 <= enough; r++) {
    for (size_t i = m - 1; i > 0; i--) {
      size_t j = perf__rng_below(rng, (uint32_t)(i + 1));
      double s = scratch[i];
      scratch[i] = scratch[j], scratch[j] = s;
    }
    double qp;
    best_split(scratch, m, min, &qp);
    if (qp >= q * (1 - 1e-12)) as_large++;
  }
  /* Stopped early or not, this is at most the p-value all reps would give,
   * and above p_max whenever the test stopped early. */
  return (as_large + 1.0) / (reps + 1.0);
}

/* The regularized incomplete beta function I_x(a, b), by its continued
 * fraction (modified Lentz), on the side where it converges fast. Never
 * fails: NaN only for a NaN argument. */
static double incomplete_beta(double x, double a, double b)
{
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incomplete_beta(1 - x, b, a);
  double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x)) / a;
  double f = 1, c = 1, d = 0;
  for (int i = 0; i <= 400; i++) {
    int m = i / 2;
    double num = !i ? 1 : i % 2 ? -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
                                : (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + num * d;
    d = 1 / (fabs(d) < 1e-300 ? 1e-300 : d);
    c = 1 + num / (fabs(c) < 1e-300 ? 1e-300 : c);
    f *= c * d;
    if (fabs(1 - c * d) < 1e-14) break;
  }
  return front * (f - 1);
}

/* Mean and sample variance of v[0..n). */
static void moments(const double *v, size_t n, double *mu, double *var)
{
  double s = 0, ss = 0;
  for (size_t i = 0; i < n; i++) s += v[i];
  *mu = s / (double)n;
  for (size_t i = 0; i < n; i++) ss += (v[i] - *mu) * (v[i] - *mu);
  *var = ss / (double)(n - 1);
}

/* Welch's two-sided t-test of v[0..t) against v[t..m), its p-value times
 * the number of splits the best one was chosen from (Bonferroni), at most
 * 1. Never fails. */
static double t_p_value(const double *v, size_t m, size_t t, size_t min)
{
  double ma, va, mb, vb, na = (double)t, nb = (double)(m - t);
  moments(v, t, &ma, &va);
  moments(v + t, m - t, &mb, &vb);
  double se2 = va / na + vb / nb;
  if (!(se2 > 0)) return ma == mb ? 1 : 0;
  double tt = (ma - mb) / sqrt(se2);
  double df = se2 * se2 / (va * va / (na * na * (na - 1)) + vb * vb / (nb * nb * (nb - 1)));
  double p = incomplete_beta(df / (df + tt * tt), df / 2, 0.5) * (double)(m - 2 * min + 1);
  return p < 1 ? p : 1;
}

/* Whether a permutation test can decide the best split of m values after
 * split of them at p_max. With a clean step, only the same partition and
 * its mirror image split as well, and random order draws one of them with
 * probability 2 / C(m, split): that is the smallest p-value any number of
 * permutations can give, so it must stay under p_max / 2, i.e.
 * C(m, split) >= 4 / p_max (4000 at 0.001: 5/5 of 10 has 252, 7/7 of 14
 * 3432, 5/11 of 16 4368). */
static int permutations_resolve(size_t m, size_t split, double p_max)
{
  double log_arrangements = lgamma((double)m + 1) - lgamma((double)split + 1) -
                            lgamma((double)(m - split) + 1);
  return log_arrangements >= log(4 / p_max);
}

/* See changepoint.h. */
void perf__changepoint_defaults(perf__changepoint_opts *o)
{
  *o = (perf__changepoint_opts){.min_segment = 5, .permutations = 9999, .p_max = 0.001, .seed = 1};
}

/* PERF__EINVAL for bad options or a value that is not finite. */
static int check_input(const double *x, size_t n, const perf__changepoint_opts *o)
{
  if (o->min_segment < 2 || o->permutations < 19 || !(o->p_max > 0 && o->p_max < 1))
    return PERF__EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return PERF__EINVAL;
  return 0;
}

static int by_index(const void *a, const void *b)
{
  size_t x = ((const perf__changepoint *)a)->at, y = ((const perf__changepoint *)b)->at;
  return (x > y) - (x < y);
}

/* Mean of x[lo..hi). */
static double mean(const double *x, size_t lo, size_t hi)
{
  double s = 0;
  for (size_t i = lo; i < hi; i++) s += x[i];
  return s / (double)(hi - lo);
}

/* Fills each change point's segment means and size, once all are known.
 * out[0..k) is sorted by index. Never fails. */
static void describe(const double *x, size_t n, perf__changepoint *out, size_t k)
{
  for (size_t c = 0; c < k; c++) {
    size_t lo = c ? out[c - 1].at : 0, hi = c + 1 < k ? out[c + 1].at : n;
    out[c].before = mean(x, lo, out[c].at);
    out[c].after = mean(x, out[c].at, hi);
    out[c].size = out[c].before != 0 ? out[c].after / out[c].before - 1 : NAN;
  }
}

/* See changepoint.h. */
int perf__changepoint_find(const double *x, size_t n, const perf__changepoint_opts *o,
                           perf__changepoint *out, size_t max)
{
  if (check_input(x, n, o)) return PERF__EINVAL;
  double *scratch = malloc((n ? n : 1) * sizeof *scratch);
  if (!scratch) return PERF__ENOMEM;
  perf__rng rng;
  perf__rng_seed(&rng, o->seed);
  size_t lo[MAX_SEGMENTS] = {0}, hi[MAX_SEGMENTS] = {n}, nseg = 1, k = 0;
  while (k < max && nseg < MAX_SEGMENTS) {
    size_t pick = 0, split = 0;
    double q = -1;
    for (size_t s = 0; s < nseg; s++) { /* the segment that splits best */
      double qs;
      size_t t = best_split(x + lo[s], hi[s] - lo[s], o->min_segment, &qs);
      if (t && qs > q) q = qs, pick = s, split = t;
    }
    if (!split) break;
    size_t m = hi[pick] - lo[pick];
    int t_test = !permutations_resolve(m, split, o->p_max);
    double p = t_test ? t_p_value(x + lo[pick], m, split, o->min_segment)
                      : p_value(x + lo[pick], m, o->min_segment, q, o->permutations, o->p_max, &rng,
                                scratch);
    if (p > o->p_max) break;
    out[k++] = (perf__changepoint){.at = lo[pick] + split, .p = p, .t_test = t_test};
    lo[nseg] = lo[pick] + split, hi[nseg] = hi[pick], nseg++;
    hi[pick] = lo[pick] + split;
  }
  free(scratch);
  qsort(out, k, sizeof *out, by_index);
  describe(x, n, out, k);
  return (int)k;
}
