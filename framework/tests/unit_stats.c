/* unit_stats.c — order statistics, the RNG and the bootstrap interval, on known data. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"
#include "stats/rng.h"
#include "stats/stats.h"
#include "util/status.h"

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

ST_TEST(median_of_known_sets)
{
  double odd[] = {5, 1, 4, 2, 3};
  double even[] = {10, 2, 8, 4};
  double one[] = {7};
  double dup[] = {2, 2, 2, 1, 2, 3};
  ST_NEAR(perf__stats_median(odd, 5), 3, 0);
  ST_NEAR(perf__stats_median(even, 4), 6, 0);
  ST_NEAR(perf__stats_median(one, 1), 7, 0);
  ST_NEAR(perf__stats_median(dup, 6), 2, 0);
  ST_CHECK(isnan(perf__stats_median(one, 0)));
}

ST_TEST(select_agrees_with_sorting)
{
  perf__rng r;
  perf__rng_seed(&r, 42);
  double v[257], s[257], w[257];
  int bad = 0;
  for (int trial = 0; trial < 200; trial++) {
    size_t n = 1 + perf__rng_below(&r, 257);
    for (size_t i = 0; i < n; i++) /* many ties on purpose */
      v[i] = (double)perf__rng_below(&r, trial % 2 ? 5 : 1000);
    memcpy(s, v, n * sizeof *v);
    qsort(s, n, sizeof *s, cmp);
    for (size_t k = 0; k < n; k += 1 + n / 7) {
      memcpy(w, v, n * sizeof *v);
      if (perf__stats_select(w, n, k) != s[k]) bad++;
    }
    memcpy(w, v, n * sizeof *v);
    double med = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    if (perf__stats_median(w, n) != med) bad++;
  }
  ST_EQ(bad, 0);
}

ST_TEST(quantiles_and_mad)
{
  double s[] = {1, 2, 3, 4, 5};
  double v[] = {1, 2, 3, 4, 100}, scratch[5];
  ST_NEAR(perf__stats_quantile_sorted(s, 5, 0), 1, 0);
  ST_NEAR(perf__stats_quantile_sorted(s, 5, 1), 5, 0);
  ST_NEAR(perf__stats_quantile_sorted(s, 5, 0.5), 3, 0);
  ST_NEAR(perf__stats_quantile_sorted(s, 5, 0.125), 1.5, 1e-12);
  ST_NEAR(perf__stats_mad_of(v, 5, scratch), 1, 0); /* robust to the outlier */
  ST_NEAR(v[4], 100, 0);                      /* input untouched */
}

ST_TEST(rng_is_seeded_and_uniform)
{
  perf__rng a, b;
  perf__rng_seed(&a, 7);
  perf__rng_seed(&b, 7);
  int same = 1;
  for (int i = 0; i < 100; i++) same &= perf__rng_next(&a) == perf__rng_next(&b);
  ST_CHECK(same);
  int counts[10] = {0};
  for (int i = 0; i < 100000; i++) counts[perf__rng_below(&a, 10)]++;
  for (int k = 0; k < 10; k++)
    ST_CHECKF(abs(counts[k] - 10000) < 500, "bucket %d has %d", k, counts[k]);
  double sum = 0, sq = 0;
  for (int i = 0; i < 100000; i++) {
    double z = perf__rng_normal(&a);
    sum += z;
    sq += z * z;
  }
  ST_NEAR(sum / 100000, 0, 0.02);
  ST_NEAR(sq / 100000, 1, 0.03);
}

ST_TEST(bootstrap_constant_ratio_is_exact)
{
  double a[20], b[20], lo = 0, hi = 0;
  perf__rng r;
  perf__rng_seed(&r, 1);
  for (int i = 0; i < 20; i++) {
    a[i] = 1 + i;
    b[i] = 3 * (1 + i);
  }
  ST_EQ(perf__stats_boot_ratio_ci(b, a, 20, &(perf__stats_boot){0.01, 1000, &r}, &lo, &hi), 0);
  /* Every resample pairs b = 3a, so the ratio of medians is 3 exactly. */
  ST_NEAR(lo, 3, 1e-12);
  ST_NEAR(hi, 3, 1e-12);
}

ST_TEST(bootstrap_rejects_bad_input)
{
  double a[2] = {1, 2}, lo = -1, hi = -1;
  perf__rng r;
  perf__rng_seed(&r, 1);
  perf__stats_boot ok = {0.05, 1000, &r}, few = {0.05, 5, &r}, wide = {1.5, 1000, &r};
  ST_EQ(perf__stats_boot_ratio_ci(a, a, 1, &ok, &lo, &hi), PERF__EINVAL);
  ST_EQ(perf__stats_boot_ratio_ci(a, a, 2, &few, &lo, &hi), PERF__EINVAL);
  ST_EQ(perf__stats_boot_ratio_ci(a, a, 2, &wide, &lo, &hi), PERF__EINVAL);
  ST_NEAR(lo, -1, 0);
}

/* Lognormal samples with a known ratio of medians: the 95 % interval must
 * cover the truth in about 95 % of repetitions (and not in all of them: an
 * interval that always covers would be uselessly wide). */
ST_TEST(bootstrap_interval_covers_truth)
{
  perf__rng r;
  perf__rng_seed(&r, 2024);
  enum { N = 40, REPS = 300 };
  double a[N], b[N];
  int covered = 0;
  for (int rep = 0; rep < REPS; rep++) {
    for (int i = 0; i < N; i++) {
      double drift = 0.05 * perf__rng_normal(&r); /* shared by the round */
      a[i] = exp(drift + 0.1 * perf__rng_normal(&r));
      b[i] = 2.5 * exp(drift + 0.1 * perf__rng_normal(&r));
    }
    double lo, hi;
    if (perf__stats_boot_ratio_ci(b, a, N, &(perf__stats_boot){0.05, 1000, &r}, &lo, &hi) == 0 &&
        lo <= 2.5 && 2.5 <= hi)
      covered++;
  }
  ST_CHECKF(covered >= 270 && covered <= 297, "covered %d of %d", covered, REPS);
}

/* The precision stop on fixed data: nine values 1.000 +- 0.001 have a 95 %
 * median interval [x(2), x(8)] = [0.99925, 1.00075], within +-0.2 % of the
 * median but not within +-0.05 %; scaled by 1e-6 the answer is the same
 * (the rule is relative). */
ST_TEST(median_within_a_relative_precision)
{
  double v[9] = {1.001, 0.999, 1.0, 1.00075, 0.99925, 1.0005, 0.9995, 1.00025, 0.99975};
  double tiny[9], scratch[9];
  for (int i = 0; i < 9; i++) tiny[i] = v[i] * 1e-6;
  ST_EQ(perf__stats_median_within(v, 9, 0.002, scratch), 1);
  ST_EQ(perf__stats_median_within(v, 9, 0.0005, scratch), 0);
  ST_EQ(perf__stats_median_within(tiny, 9, 0.002, scratch), 1);
  ST_EQ(perf__stats_median_within(tiny, 9, 0.0005, scratch), 0);
  /* lopsided: the interval reaches 2 % above the median on one side */
  double skew[9] = {1, 1, 1, 1, 1, 1.02, 1.02, 1.02, 1.02};
  ST_EQ(perf__stats_median_within(skew, 9, 0.01, scratch), 0);
  ST_EQ(perf__stats_median_within(skew, 9, 0.03, scratch), 1);
  ST_EQ(perf__stats_median_within(v, 0, 0.1, scratch), PERF__EINVAL);
}

ST_TEST(median_interval_uses_binomial_order_statistics)
{
  double v[10] = {9, 1, 8, 2, 7, 3, 6, 4, 5, 10}, lo, hi;
  ST_EQ(perf__stats_median_ci(v, 10, 0.05, &lo, &hi), 0);
  ST_NEAR(lo, 2, 0); /* n = 10 at 95 %: x(2) .. x(9), coverage 97.9 % */
  ST_NEAR(hi, 9, 0);
  ST_EQ(perf__stats_median_ci(v, 10, 0.01, &lo, &hi), 0);
  ST_NEAR(lo, 1, 0); /* 99 %: x(1) .. x(10) */
  ST_NEAR(hi, 10, 0);
  double w[3] = {3, 1, 2};
  ST_EQ(perf__stats_median_ci(w, 3, 0.05, &lo, &hi), 0); /* too few: min .. max */
  ST_NEAR(lo, 1, 0);
  ST_NEAR(hi, 3, 0);
  ST_CHECK(perf__stats_median_ci(w, 0, 0.05, &lo, &hi) != 0);
  /* Coverage: 2000 normal samples of 101, the interval holds the true
   * median 0 in at least 94 % (nominal >= 95 %). */
  perf__rng r;
  perf__rng_seed(&r, 7);
  int held = 0;
  for (int k = 0; k < 2000; k++) {
    double x[101];
    for (int i = 0; i < 101; i++) x[i] = perf__rng_normal(&r);
    perf__stats_median_ci(x, 101, 0.05, &lo, &hi);
    held += lo <= 0 && 0 <= hi;
  }
  ST_CHECKF(held >= 1880, "held %d of 2000", held);
}
