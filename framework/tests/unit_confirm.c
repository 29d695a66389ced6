/* unit_confirm.c — confirm before failing, simulated: the error rates of two attempts. */
/* Each attempt at its share of alpha, against the rates stated for one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"
#include "record/confirm.h"
#include "stats/rng.h"
#include "supervisor/attempt.h"
#include "worker/claim/verdict.h"

/* Rounds of two workloads whose medians differ by ratio, with lognormal
 * noise of its own on each. */
typedef struct pair_gen {
  perf__rng rng;
  double ratio, noise;
} pair_gen;

static int gen_round(void *ctx, double *a, double *b)
{
  pair_gen *g = ctx;
  *a = 1e-5 * exp(g->noise * perf__rng_normal(&g->rng));
  *b = g->ratio * 1e-5 * exp(g->noise * perf__rng_normal(&g->rng));
  return 0;
}

/* The final outcomes of runs claims FASTER(a, b, 1.5) at a true ratio of
 * ratio: each judged once at share * alpha and, unless it passed, again
 * (a second attempt, fresh samples) when confirm is set. */
static void simulate(double ratio, double share, int confirm, int runs,
                     int final[PERF_OUTCOME_COUNT], int *second_attempts)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  c.reps = 1000;      /* fewer resamples: hundreds of simulated claims */
  c.max_rounds = 64;  /* 6 looks: 12, 18, 27, 41, 62, 64 */
  c.budget_s = 0;     /* rounds, not time, bound the simulation */
  c.alpha *= share;
  perf__verdict_claim claim = {PERF__CLAIM_FASTER, 1.5};
  pair_gen g = {.ratio = ratio, .noise = 0.3};
  perf__rng boot;
  perf__rng_seed(&g.rng, 31);
  perf__rng_seed(&boot, 5);
  *second_attempts = 0;
  for (int i = 0; i < runs; i++) {
    perf__verdict_result r1, r2;
    if (perf__verdict_run(&c, &claim, gen_round, NULL, &g, &boot, &r1)) continue;
    perf_outcome o = r1.verdict;
    if (confirm && o != PERF_OUTCOME_PASS) {
      ++*second_attempts;
      if (perf__verdict_run(&c, &claim, gen_round, NULL, &g, &boot, &r2)) continue;
      o = perf__confirm_final(r1.verdict, r2.verdict);
    }
    final[o]++;
  }
}

/* At a true ratio equal to the threshold every PASS is a false pass and
 * every FAIL a false fail. Confirmed with alpha/2 per attempt, the false
 * passes stay within the rate stated for one attempt at alpha (alpha/2 =
 * 2.5 %) and the false fails within alpha/4 = 1.25 %, each with two
 * binomial standard deviations for the simulation's own noise (the
 * bootstrap's coverage is approximate). Without the split (each attempt at
 * alpha) the same 1000 claims give 42 false passes (4.2 %: either attempt
 * may pass wrongly), beyond the bound; one attempt at alpha gives 23 and
 * 19. Far from the threshold the claims are still decided. (Under a slow
 * wrapper, valgrind, the first 200 claims only, with wider bounds.) */
ST_TEST(confirm_keeps_the_stated_error_rates)
{
  const int RUNS = st_slow() ? 200 : 1000; /* under valgrind: the first 200 */
  int at[PERF_OUTCOME_COUNT] = {0}, again;
  simulate(1.5, PERF__CONFIRM_ALPHA_SHARE, 1, RUNS, at, &again);
  printf("    at the threshold: PASS %d, FAIL %d, INCONCLUSIVE %d of %d (%d second attempts)\n",
         at[PERF_OUTCOME_PASS], at[PERF_OUTCOME_FAIL], at[PERF_OUTCOME_INCONCLUSIVE], RUNS, again);
  double pass_bound = RUNS * 0.025, fail_bound = RUNS * 0.0125;
  ST_CHECKF(at[PERF_OUTCOME_PASS] <= pass_bound + 2 * sqrt(pass_bound), "%d false passes of %d",
            at[PERF_OUTCOME_PASS], RUNS);
  ST_CHECKF(at[PERF_OUTCOME_FAIL] <= fail_bound + 2 * sqrt(fail_bound), "%d false fails of %d",
            at[PERF_OUTCOME_FAIL], RUNS);
  /* every claim that did not pass at once had a second attempt */
  ST_CHECK(again >= at[PERF_OUTCOME_FAIL] + at[PERF_OUTCOME_INCONCLUSIVE]);
  int clear[PERF_OUTCOME_COUNT] = {0}, none[PERF_OUTCOME_COUNT] = {0};
  simulate(3.0, PERF__CONFIRM_ALPHA_SHARE, 1, 50, clear, &again);
  ST_EQ(clear[PERF_OUTCOME_PASS], 50);
  ST_EQ(again, 0); /* a clear pass needs no second attempt */
  simulate(0.75, PERF__CONFIRM_ALPHA_SHARE, 1, 50, none, &again);
  ST_EQ(none[PERF_OUTCOME_FAIL], 50);
  ST_EQ(again, 50); /* a clear failure is confirmed, and fails again */
}

/* Rounds that say nothing (a ratio of 1 against FASTER 1.5 at high noise),
 * then PERF__VERDICT_STOP after stop_after of them. */
typedef struct stopping {
  pair_gen g;
  int calls, stop_after;
} stopping;

static int stop_round(void *ctx, double *a, double *b)
{
  stopping *s = ctx;
  if (s->calls == s->stop_after) return PERF__VERDICT_STOP;
  s->calls++;
  return gen_round(&s->g, a, b);
}

/* A round function may end sampling without an error (compare.c: every
 * round so far shared with another process): the claim stands as the
 * looks left it, INCONCLUSIVE, with its rounds summarised. */
ST_TEST(verdict_round_function_stops_sampling_without_an_error)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  c.budget_s = 0;
  perf__verdict_claim claim = {.kind = PERF__CLAIM_FASTER, .threshold = 1.5};
  stopping s = {.g = {.ratio = 1.0, .noise = 0.5}, .stop_after = 14};
  perf__rng_seed(&s.g.rng, 5);
  perf__rng boot;
  perf__rng_seed(&boot, 6);
  perf__verdict_result r;
  ST_EQ(perf__verdict_run(&c, &claim, stop_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(r.rounds, 14);
  ST_EQ(r.looks, 1); /* the look at 12 rounds */
  ST_STR(r.why, "sampling stopped");
}

/* Rounds that alternate between disturbed (PERF__VERDICT_SKIP) and clean
 * ones, on a fake clock that moves 0.01 s a round. */
typedef struct skipping {
  pair_gen g;
  int calls, every; /* every `every`-th round clean; 0: none */
  double t;
} skipping;

static int skip_round(void *ctx, double *a, double *b)
{
  skipping *s = ctx;
  s->t += 0.01;
  if (!s->every || s->calls++ % s->every) return PERF__VERDICT_SKIP;
  return gen_round(&s->g, a, b);
}

static skipping *skip_clock_of;
static double skip_clock(void) { return skip_clock_of->t; }

/* A round function may leave a round out (the canary found another
 * process delayed it): it is not counted, sampling goes on until the
 * clean rounds decide, and a claim with none left by the budget's end is
 * INCONCLUSIVE saying so. */
ST_TEST(verdict_skipped_rounds_are_not_counted_and_the_budget_still_ends_sampling)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  c.budget_s = 2.0;
  c.now_s = skip_clock;
  perf__verdict_claim claim = {.kind = PERF__CLAIM_FASTER, .threshold = 1.5};
  skipping s = {.g = {.ratio = 3.0, .noise = 0.05}, .every = 3};
  skip_clock_of = &s;
  perf__rng_seed(&s.g.rng, 5);
  perf__rng boot;
  perf__rng_seed(&boot, 6);
  perf__verdict_result r;
  ST_EQ(perf__verdict_run(&c, &claim, skip_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_EQ(r.rounds, 12);  /* the first look, on clean rounds only */
  ST_EQ(r.skipped, 22); /* two of every three before the 12th clean one */
  skipping none = {.g = {.ratio = 3.0, .noise = 0.05}, .every = 0};
  skip_clock_of = &none;
  ST_EQ(perf__verdict_run(&c, &claim, skip_round, NULL, &none, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(r.rounds, 0);
  ST_STR(r.why, "time budget spent: every round was disturbed");
  ST_CHECK(none.t >= 2.0 && none.t < 2.02); /* stopped at the budget */
}

/* Rounds of which the first `shared` ran beside a neighbour (a ratio of
 * 1, where the claim's true one is 3), which only a later read shows: the
 * prune before each look drops them. */
typedef struct pruning {
  pair_gen g;
  int calls, total, shared, looks; /* calls: standing rounds; total: rounds taken */
  int flag[64]; /* per standing round: 1 shared */
} pruning;

static int prune_round(void *ctx, double *a, double *b)
{
  pruning *s = ctx;
  int shared = s->total++ < s->shared, err = gen_round(&s->g, a, b);
  if (shared) *b = *a;
  s->flag[s->calls++ % 64] = shared;
  return err;
}

static int prune_shared(void *ctx, double *a, double *b, int n)
{
  pruning *s = ctx;
  int k = 0;
  s->looks++;
  for (int i = 0; i < n && i < 64; i++)
    if (!s->flag[i]) a[k] = a[i], b[k] = b[i], s->flag[k++] = 0;
  s->calls = k; /* the next round's flag goes after the standing ones */
  return k;
}

/* Rounds a later read shows shared are dropped before the look and
 * sampling goes on for their places: the claim is decided on 12 clean
 * rounds, the dropped ones counted as skipped; kept, the shared rounds
 * would have left it undecided. */
ST_TEST(verdict_rounds_pruned_before_a_look_are_replaced_and_counted_as_skipped)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  c.budget_s = 0;
  perf__verdict_claim claim = {.kind = PERF__CLAIM_FASTER, .threshold = 1.5};
  pruning s = {.g = {.ratio = 3.0, .noise = 0.05}, .shared = 8};
  perf__rng_seed(&s.g.rng, 5);
  perf__rng boot;
  perf__rng_seed(&boot, 6);
  perf__verdict_result r;
  c.prune = prune_shared;
  ST_EQ(perf__verdict_run(&c, &claim, prune_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_EQ(r.rounds, 12);
  ST_EQ(r.skipped, 8);
  ST_EQ(s.looks, 2); /* at 12 rounds (8 dropped), then at 12 standing */
  pruning kept = {.g = {.ratio = 3.0, .noise = 0.05}, .shared = 8};
  perf__rng_seed(&kept.g.rng, 5);
  c.prune = NULL;
  c.max_rounds = 12;
  ST_EQ(perf__verdict_run(&c, &claim, prune_round, NULL, &kept, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
}

/* A first attempt whose undecided claims all stopped beside a co-tenant
 * that never left is not run again (a second attempt beside it says the
 * same), nor is one whose neighbour was still there as they ended, and a
 * line says so (a CROSSOVER too, when its undecided points all say so,
 * and a BASELINE whose line says so);
 * any other claim that did not pass (a FAIL, an INCONCLUSIVE for another
 * cause, or one whose neighbour left) keeps the second attempt. */
ST_TEST(attempt_a_test_left_undecided_by_a_co_tenant_is_not_run_again)
{
  /* the causes compare.c records (the record's noise.cause) */
  char stopped[] = "another process used the GPU during 13 of 13 rounds: pid 7, 40 % SM; "
                   "retaken for up to 2.0 s, " PERF__CONFIRM_STOPPED_SHARED ": run on a GPU no "
                   "other job shares";
  char left[] = "another process used the GPU during 30 of 40 rounds: pid 7, 40 % SM; retaken "
                "for up to 2.0 s: run on a GPU no other job shares";
  perf__claimrec c[3] = {
      {.id = "a.c:1", .outcome = PERF_OUTCOME_PASS, .kind = PERF__CLAIMREC_FASTER},
      {.id = "a.c:2", .outcome = PERF_OUTCOME_INCONCLUSIVE, .kind = PERF__CLAIMREC_FASTER,
       .ratio = {.noise = {.set = 1, .cause = stopped}}},
      {.id = "a.c:3", .outcome = PERF_OUTCOME_INCONCLUSIVE, .kind = PERF__CLAIMREC_SIMILAR,
       .ratio = {.noise = {.set = 1, .cause = stopped}}}};
  perf__result r = {.outcome = PERF_OUTCOME_FAIL, .claims = c, .nclaims = 3};
  ST_EQ(perf__attempt_needed(&r), 1);
  ST_EQ(perf__attempt_shared_out(&r), 1);
  ST_EQ(r.nlines, 1);
  ST_CHECK(r.nlines == 1 && !strcmp(r.lines[0], "confirmed: not run again: another process "
           "shared the GPU through all 2 undecided claims; a second attempt beside it would say "
           "the same"));
  for (size_t i = 0; i < r.nlines; i++) free(r.lines[i]);
  free(r.lines);
  free(r.verbose_only);
  r.lines = NULL, r.verbose_only = NULL, r.nlines = 0;
  c[2].ratio.noise.cause = left; /* its neighbour left: a second attempt may decide it */
  ST_EQ(perf__attempt_shared_out(&r), 0);
  char still[] = "another process used the GPU during 30 of 40 rounds: pid 7, 40 % SM; retaken "
                 "for up to 2.0 s, " PERF__CONFIRM_STILL_SHARED ": run on a GPU no other job "
                 "shares";
  c[2].ratio.noise.cause = still; /* it comes and goes, and was there at the end */
  ST_EQ(perf__attempt_shared_out(&r), 1);
  for (size_t i = 0; i < r.nlines; i++) free(r.lines[i]);
  free(r.lines);
  free(r.verbose_only);
  r.lines = NULL, r.verbose_only = NULL, r.nlines = 0;
  c[2].ratio.noise.cause = stopped;
  c[2].outcome = PERF_OUTCOME_FAIL; /* decided: confirmed as ever */
  ST_EQ(perf__attempt_shared_out(&r), 0);
  c[2].outcome = PERF_OUTCOME_INCONCLUSIVE;
  c[2].kind = PERF__CLAIMREC_CROSSOVER; /* no point undecided: its causes are not there */
  ST_EQ(perf__attempt_shared_out(&r), 0);
  ST_EQ(r.nlines, 0);
  /* a CROSSOVER open because its undecided points all stopped beside it */
  char undecided[] = "undecided", faster[] = "faster";
  perf__claimrec_point pt[3] = {
      {.x = 16, .side = faster, .measured = 1},
      {.x = 32, .side = undecided, .measured = 1, .m = {.noise = {.set = 1, .cause = stopped}}},
      {.x = 64, .side = undecided, .measured = 1, .m = {.noise = {.set = 1, .cause = still}}}};
  c[2].points = pt, c[2].npoints = 3;
  ST_EQ(perf__attempt_shared_out(&r), 1);
  for (size_t i = 0; i < r.nlines; i++) free(r.lines[i]);
  free(r.lines);
  free(r.verbose_only);
  r.lines = NULL, r.verbose_only = NULL, r.nlines = 0;
  pt[2].m.noise.cause = left; /* one point's neighbour left: a second attempt may decide it */
  ST_EQ(perf__attempt_shared_out(&r), 0);
  pt[2].m.noise.cause = NULL; /* one undecided for its own reasons (ties) */
  ST_EQ(perf__attempt_shared_out(&r), 0);
  ST_EQ(r.nlines, 0);
  /* a BASELINE (a plain record) says it in its line */
  char there[] = "BASELINE(m) at a.c:9: INCONCLUSIVE (another process used the GPU, "
                 PERF__CONFIRM_STILL_SHARED ")",
       gone[] = "BASELINE(m) at a.c:9: INCONCLUSIVE";
  perf__claimrec b = {.id = "a.c:9", .outcome = PERF_OUTCOME_INCONCLUSIVE, .message = there};
  perf__result rb = {.outcome = PERF_OUTCOME_FAIL, .claims = &b, .nclaims = 1};
  ST_EQ(perf__attempt_shared_out(&rb), 1);
  for (size_t i = 0; i < rb.nlines; i++) free(rb.lines[i]);
  free(rb.lines);
  free(rb.verbose_only);
  rb.lines = NULL, rb.verbose_only = NULL, rb.nlines = 0;
  b.message = gone; /* its neighbour left: a second attempt may decide it */
  ST_EQ(perf__attempt_shared_out(&rb), 0);
  ST_EQ(rb.nlines, 0);
}
