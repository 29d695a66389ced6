/* unit_changepoint.c — E-divisive on synthetic series: a step found at its commit, a creep reported, stationary series left alone. */
#include <math.h>
#include <stdio.h>

#include "base/changepoint.h"
#include "base/rng.h"
#include "base/status.h"
#include "selftest.h"

/* n values of 1 + 1 % Gaussian noise, times (1 + step) from index at on
 * and times (1 + creep * i) for the i-th. */
static void series(double *x, size_t n, perf__rng *r, size_t at, double step, double creep)
{
  for (size_t i = 0; i < n; i++)
    x[i] = (1 + 0.01 * perf__rng_normal(r)) * (i >= at ? 1 + step : 1) * (1 + creep * (double)i);
}

/* A 3 % step in 1 % noise over 30 commits, at commit 15: found in each of
 * 20 series, at commit 15 or next to it. Exactly at 15 in most: with a 3
 * sigma step, a boundary value's noise makes it look like the other side
 * about 1 time in 8 (for any estimator, the least-squares one included),
 * so "exact in all 20" would be a flaky check. */
ST_TEST(changepoint_step_found_at_its_commit)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  perf__rng r;
  perf__rng_seed(&r, 42);
  int exact = 0, near = 0, found = 0, extra = 0;
  for (int s = 0; s < 20; s++) {
    double x[30];
    perf__changepoint cp[8];
    series(x, 30, &r, 15, 0.03, 0);
    int k = perf__changepoint_find(x, 30, &o, cp, 8);
    found += k >= 1;
    extra += k > 1 ? k - 1 : 0;
    for (int c = 0; c < k; c++) {
      exact += cp[c].at == 15;
      if (cp[c].at < 14 || cp[c].at > 16) continue;
      near++;
      ST_CHECKF(cp[c].size > 0.02 && cp[c].size < 0.04, "size %.4f", cp[c].size);
    }
  }
  printf("    3 %% step at 15 of 30, 1 %% noise: found in %d of 20, at 15 in %d, "
         "within 1 in %d, %d extra\n", found, exact, near, extra);
  ST_EQ(found, 20);
  ST_EQ(near, 20);
  ST_CHECKF(exact >= 15, "at commit 15 in %d of 20", exact);
  ST_CHECKF(extra <= 1, "%d extra change points", extra);
}

/* A creep of 0.5 % per commit over 20 commits (10 % in all) is reported. */
ST_TEST(changepoint_creep_is_reported)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  perf__rng r;
  perf__rng_seed(&r, 7);
  int reported = 0;
  for (int s = 0; s < 20; s++) {
    double x[20];
    perf__changepoint cp[8];
    series(x, 20, &r, 20, 0, 0.005);
    reported += perf__changepoint_find(x, 20, &o, cp, 8) >= 1;
  }
  printf("    0.5 %% per commit over 20 commits: reported in %d of 20\n", reported);
  ST_EQ(reported, 20);
}

/* 100 stationary series of 50 points: at most 1 false change point in all. */
ST_TEST(changepoint_stationary_series_stay_quiet)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  perf__rng r;
  perf__rng_seed(&r, 99);
  int false_cps = 0;
  for (int s = 0; s < 100; s++) {
    double x[50];
    perf__changepoint cp[8];
    series(x, 50, &r, 50, 0, 0);
    o.seed = (uint64_t)s + 1;
    int k = perf__changepoint_find(x, 50, &o, cp, 8);
    false_cps += k > 0 ? k : 0;
  }
  printf("    100 stationary series of 50: %d false change points\n", false_cps);
  ST_CHECKF(false_cps <= 1, "%d false change points", false_cps);
}

/* Bad input is refused; a constant series and a short one have none. */
ST_TEST(changepoint_bad_input_and_edges)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  perf__changepoint cp[4];
  double flat[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, bad[3] = {1, NAN, 2};
  ST_EQ(perf__changepoint_find(flat, 12, &o, cp, 4), 0);
  ST_EQ(perf__changepoint_find(flat, 6, &o, cp, 4), 0);
  ST_EQ(perf__changepoint_find(bad, 3, &o, cp, 4), PERF__EINVAL);
  o.p_max = 1.5;
  ST_EQ(perf__changepoint_find(flat, 12, &o, cp, 4), PERF__EINVAL);
}

/* Ten commits, too few for a permutation test to reach p <= 0.001: the
 * best split is tested with Welch's t-test. A 3 % step after commit 5 in
 * 0.3 % noise (a GPU kernel's spread across runs) is found at 5 in each of
 * 20 series; 100 stationary series of 10 (1 % noise) give at most 1 false
 * one; and the t-test's p-value is Student's (1..5 against 6..10: t = 5
 * with 8 degrees of freedom, p = 0.0010528). */
ST_TEST(changepoint_short_series_use_welchs_t_test)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  perf__rng r;
  perf__rng_seed(&r, 5);
  int found = 0, false_cps = 0;
  for (int s = 0; s < 20; s++) {
    double x[10];
    perf__changepoint cp[4];
    for (int i = 0; i < 10; i++) x[i] = (1 + 0.003 * perf__rng_normal(&r)) * (i >= 5 ? 1.03 : 1);
    int k = perf__changepoint_find(x, 10, &o, cp, 4);
    found += k == 1 && cp[0].at == 5 && cp[0].t_test && cp[0].size > 0.02 && cp[0].size < 0.04;
  }
  for (int s = 0; s < 100; s++) {
    double x[10];
    perf__changepoint cp[4];
    series(x, 10, &r, 10, 0, 0);
    int k = perf__changepoint_find(x, 10, &o, cp, 4);
    false_cps += k > 0 ? k : 0;
  }
  printf("    10 commits, 3 %% step in 0.3 %% noise: found at 5 in %d of 20; "
         "100 stationary series of 10: %d false\n", found, false_cps);
  ST_EQ(found, 20);
  ST_CHECKF(false_cps <= 1, "%d false change points", false_cps);
  double ramp[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  perf__changepoint cp[2];
  o.p_max = 0.002;
  ST_EQ(perf__changepoint_find(ramp, 10, &o, cp, 1), 1);
  ST_NEAR(cp[0].p, 0.0010528, 2e-6);
  ST_EQ(cp[0].at, 5);
}

/* The t-test's p-value carries the number of candidate splits: 0..5
 * against 10..15 is t = 9.2582 with 10 degrees of freedom, two-sided p =
 * 3.2066e-6, and 12 values with segments of at least 5 have 3 candidate
 * splits (t = 5, 6, 7): p = 9.6197e-6. A clean step 5 from the end of 16
 * values (4368 arrangements: random order repeats that partition about
 * once in 2000, so 999 permutations alone would miss it 14-37 % of the
 * time) is found every time. */
ST_TEST(changepoint_t_test_counts_its_candidate_splits)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  double twelve[12] = {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15};
  perf__changepoint b[2];
  ST_EQ(perf__changepoint_find(twelve, 12, &o, b, 1), 1);
  ST_CHECKF(b[0].t_test && b[0].at == 6, "at %zu", b[0].at);
  ST_NEAR(b[0].p, 9.6197e-6, 2e-9);
  perf__changepoint_defaults(&o);
  perf__rng r;
  perf__rng_seed(&r, 11);
  int found = 0;
  for (int s = 0; s < 20; s++) {
    double x[16];
    perf__changepoint cp[2];
    for (int i = 0; i < 16; i++) x[i] = (1 + 0.001 * perf__rng_normal(&r)) * (i >= 11 ? 1.05 : 1);
    o.seed = (uint64_t)s + 1;
    found += perf__changepoint_find(x, 16, &o, cp, 2) >= 1 && cp[0].at == 11;
  }
  ST_EQ(found, 20);
}
