/* unit_judge.c — the commit report's rule, down to its error rates on seeded simulations. */
/* Student's t, digamma and trigamma; a series' band (since its last change
 * point) and its moderated prior; one GPU's series judged at a commit, with
 * false-alarm and detection rates. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats/dist.h"
#include "stats/rng.h"
#include "util/status.h"
#include "history/band.h"
#include "history/judge.h"
#include "selftest.h"

/* Known values of the functions (digamma(1) = -Euler's gamma, trigamma(1)
 * = pi^2/6, the t distribution's tails from its tables), and the inverse
 * of trigamma. */
ST_TEST(judge_distributions_match_their_known_values)
{
  ST_NEAR(perf__dist_digamma(1), -0.5772156649015329, 1e-10);
  ST_NEAR(perf__dist_digamma(0.5), -1.9635100260214235, 1e-10);
  ST_NEAR(perf__dist_trigamma(1), 1.6449340668482264, 1e-10);
  ST_NEAR(perf__dist_trigamma(20), 0.05127082293520, 1e-10);
  ST_NEAR(perf__dist_trigamma_inverse(perf__dist_trigamma(0.3)), 0.3, 1e-7);
  ST_NEAR(perf__dist_trigamma_inverse(perf__dist_trigamma(42)), 42, 1e-5);
  ST_NEAR(perf__dist_student_upper(2.015, 5), 0.05, 1e-4);     /* t(5) 95th percentile */
  ST_NEAR(perf__dist_student_upper(-2.015, 5), 0.95, 1e-4);
  ST_NEAR(perf__dist_student_upper(3.0902, INFINITY), 0.001, 1e-6); /* the normal's */
  ST_NEAR(perf__dist_student_p(2.228, 10), 0.05, 1e-4);
  ST_CHECK(isnan(perf__dist_student_p(1, 0)) && isnan(perf__dist_trigamma(-1)));
}

/* Which way is worse comes from the claim kinds' table: a median higher, a
 * FASTER or speed-of-light ratio lower, a SIMILAR ratio farther from 1. */
ST_TEST(judge_worse_follows_the_claim_kind)
{
  ST_EQ(perf__judge_worse_of(0, NULL), PERF__JUDGE_HIGHER);
  ST_EQ(perf__judge_worse_of(1, "FASTER"), PERF__JUDGE_LOWER);
  ST_EQ(perf__judge_worse_of(1, "BANDWIDTH"), PERF__JUDGE_LOWER);
  ST_EQ(perf__judge_worse_of(1, "SIMILAR"), PERF__JUDGE_FARTHER);
  ST_EQ(perf__judge_worse_of(1, "SOMETHING_NEW"), PERF__JUDGE_LOWER);
}

/* A band reads its series since the last change point: 10 commits at 1
 * then 10 at 1.2 give a band of the last 10; one high value at the end is
 * no level yet and stays in; identical values still have the floor's
 * deviation, so a 0.5 % move is not 100 deviations. */
ST_TEST(judge_band_starts_at_the_last_change_point)
{
  double v[20];
  perf__rng r;
  perf__rng_seed(&r, 7);
  for (int i = 0; i < 20; i++) v[i] = (i < 10 ? 1.0 : 1.2) * (1 + 0.005 * perf__rng_normal(&r));
  perf__band b;
  ST_EQ(perf__band_of(v, NULL, NULL, 20, &b), 0);
  ST_CHECKF(b.cut && b.from == 10 && b.n == 10 && fabs(b.mean - log(1.2)) < 0.01, "from %zu n %zu", b.from, b.n);
  for (int i = 0; i < 12; i++) v[i] = 1 + 0.005 * perf__rng_normal(&r);
  v[11] = 1.3;
  ST_EQ(perf__band_of(v, NULL, NULL, 12, &b), 0);
  ST_CHECKF(!b.cut && b.n == 12, "a suspected change is not a level: from %zu", b.from);
  for (int i = 0; i < 6; i++) v[i] = 2.0;
  ST_EQ(perf__band_of(v, NULL, NULL, 6, &b), 0);
  perf__band_prior none = {0, 0, 0, 0};
  perf__band_fall f;
  perf__band_fall_of(&b, &none, 2.01, &f);
  ST_CHECKF(f.sd == PERF__BAND_FLOOR && f.t < 6, "t %.1f sd %g", f.t, f.sd);
  v[3] = -1;
  ST_EQ(perf__band_of(v, NULL, NULL, 6, &b), PERF__EINVAL);
}

/* Smyth's prior: bands of one variance give many degrees of freedom (no
 * more than their own), bands whose variances differ a hundredfold too
 * few to lend (none); fewer than three bands give none. */
ST_TEST(judge_prior_follows_how_alike_the_series_are)
{
  perf__band b[12];
  perf__band_prior p;
  perf__rng r;
  perf__rng_seed(&r, 11);
  double v[10];
  for (int k = 0; k < 12; k++) {
    double sd = k % 2 ? 0.001 : 0.1;
    for (int i = 0; i < 10; i++) v[i] = exp(sd * perf__rng_normal(&r));
    ST_EQ(perf__band_of(v, NULL, NULL, 10, &b[k]), 0);
  }
  perf__band_prior_of(b, 12, 0, &p);
  ST_CHECKF(p.df == 0, "unlike series lend no noise: d0 %g", p.df);
  for (int k = 0; k < 12; k++) {
    for (int i = 0; i < 10; i++) v[i] = exp(0.01 * perf__rng_normal(&r));
    ST_EQ(perf__band_of(v, NULL, NULL, 10, &b[k]), 0);
  }
  perf__band_prior_of(b, 12, 0, &p);
  ST_CHECKF(p.df > 20 && p.df <= 12 * 9 && fabs(sqrt(p.var) - 0.01) < 0.003, "alike series: d0 %g s0 %g",
            p.df, sqrt(p.var));
  perf__band_prior_of(b, 2, 0, &p);
  ST_CHECK(p.df == 0);
}

enum { SERIES = 20, EARLIER = 10 };

/* One GPU at one commit: SERIES series (the first 6 ratios, the rest
 * workloads) with EARLIER earlier commits of 1 % noise; workload 6 moved
 * by planted, every workload by machine. Returns the GPU's count of
 * series of class cls, and *found whether workload 6 was WORSE. */
static int one_commit(perf__rng *r, double planted, double machine, const char *clock, int host,
                      perf__judge_class cls, int *found, perf__judge_machine *m)
{
  perf__judge_item it[SERIES];
  double v[EARLIER];
  for (int i = 0; i < SERIES; i++) {
    int claim = i < 6;
    for (int k = 0; k < EARLIER; k++) v[k] = (1 + i) * exp(0.01 * perf__rng_normal(r));
    double moved = claim ? 0 : (i == 6 ? planted : 0) + machine;
    it[i] = (perf__judge_item){.is_claim = claim, .clock = clock, .host = host,
                               .worse = claim ? PERF__JUDGE_LOWER : PERF__JUDGE_HIGHER,
                               .y = (1 + i) * exp(0.01 * perf__rng_normal(r)) * (1 + moved)};
    ST_EQ(perf__band_of(v, NULL, NULL, EARLIER, &it[i].band), 0);
  }
  size_t decided;
  ST_EQ(perf__judge_commit(it, SERIES, m, &decided), 0);
  ST_EQ(decided, SERIES);
  int n = 0;
  for (int i = 0; i < SERIES; i++) n += it[i].cls == cls;
  *found = it[6].cls == PERF__JUDGE_WORSE;
  return n;
}

/* The rates docs/history.md states, on 300 seeded GPU-commits each (the same
 * every run): unchanged code is REGRESSED in at most 2 % (the rule's 1 %
 * and the simulation's spread), a +8 % workload found in at least 95 %, a
 * machine 8 % slower is the machine's in at least 95 % and REGRESSED in
 * at most 2 %, and a workload 25 % slower on it still found. */
ST_TEST(judge_rates_by_simulation)
{
  perf__rng r;
  perf__rng_seed(&r, 48);
  perf__judge_machine m;
  int regressed = 0, found = 0, f, shifted = 0, moved_too = 0;
  for (int k = 0; k < 300; k++) regressed += one_commit(&r, 0, 0, "events", 0, PERF__JUDGE_WORSE, &f, &m) > 0;
  ST_CHECKF(regressed <= 6, "unchanged: %d of 300 REGRESSED", regressed);
  for (int k = 0; k < 300; k++) one_commit(&r, 0.08, 0, "events", 0, PERF__JUDGE_WORSE, &f, &m), found += f;
  ST_CHECKF(found >= 285, "+8 %%: found %d of 300", found);
  regressed = 0;
  for (int k = 0; k < 300; k++) {
    regressed += one_commit(&r, 0, 0.08, "events", 0, PERF__JUDGE_WORSE, &f, &m) > 0;
    shifted += m.moved > 0 && m.up && fabs(m.size - 0.08) < 0.02;
  }
  ST_CHECKF(shifted >= 285 && regressed <= 6, "machine +8 %%: %d of 300 seen, %d REGRESSED", shifted, regressed);
  for (int k = 0; k < 100; k++) one_commit(&r, 0.25, 0.08, "events", 0, PERF__JUDGE_WORSE, &f, &m), moved_too += f;
  ST_CHECKF(moved_too >= 95, "+25 %% on a machine +8 %%: found %d of 100", moved_too);
}

/* A host clock's tails: a workload 15 % slower among series of 1 % noise
 * on the GPU's clock is WORSE; on a host clock (at most 4 degrees of
 * freedom at the same spread) it is TAIL, the GPU not decided, while one
 * 40 % slower is still WORSE. */
ST_TEST(judge_host_clock_tails_leave_a_phase_undecided)
{
  perf__rng r;
  perf__rng_seed(&r, 4);
  perf__judge_machine m;
  int gpu = 0, tail = 0, far = 0, f;
  for (int k = 0; k < 100; k++) {
    one_commit(&r, 0.06, 0, "events", 0, PERF__JUDGE_WORSE, &f, &m), gpu += f;
    tail += one_commit(&r, 0.06, 0, "wall", 1, PERF__JUDGE_TAIL, &f, &m) > 0 && !f;
    one_commit(&r, 0.40, 0, "wall", 1, PERF__JUDGE_WORSE, &f, &m), far += f;
  }
  ST_CHECKF(gpu >= 90 && tail >= 50 && far >= 99, "events WORSE %d, wall TAIL %d, wall +40 %% WORSE %d", gpu,
            tail, far);
}
