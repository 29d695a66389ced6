/* unit_verdict.c — sequential decisions: look schedule, decision rule, error rates under repeated looks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "selftest.h"
#include "base/clock.h"
#include "worker/verdict.h"

ST_TEST(look_schedule_grows_and_ends_at_max_rounds)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  ST_EQ(perf__verdict_look_at(&c, 1), c.first_look);
  ST_EQ(perf__verdict_look_at(&c, 1), 12);
  ST_EQ(perf__verdict_look_at(&c, 2), 18);
  ST_EQ(perf__verdict_look_at(&c, 3), 27);
  int prev = 0, ok = 1;
  for (int k = 1; k <= c.max_looks; k++) {
    int at = perf__verdict_look_at(&c, k);
    ok &= at > prev || at == c.max_rounds;
    prev = at;
  }
  ST_CHECK(ok);
  ST_EQ(perf__verdict_look_at(&c, c.max_looks), c.max_rounds);
}

ST_TEST(decision_rule)
{
  perf__claim f = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_decide(&f, 1.6, 1.9), PERF__PASS);
  ST_EQ(perf__verdict_decide(&f, 1.5, 1.9), PERF__PASS);
  ST_EQ(perf__verdict_decide(&f, 1.2, 1.4), PERF__FAIL);
  ST_EQ(perf__verdict_decide(&f, 1.4, 1.6), PERF__INCONCLUSIVE);
  ST_EQ(perf__verdict_decide(&f, NAN, NAN), PERF__INCONCLUSIVE);
  perf__claim s = {PERF__CLAIM_SIMILAR, 0.25}; /* [0.8, 1.25] */
  ST_EQ(perf__verdict_decide(&s, 0.9, 1.1), PERF__PASS);
  ST_EQ(perf__verdict_decide(&s, 1.3, 1.5), PERF__FAIL);
  ST_EQ(perf__verdict_decide(&s, 0.5, 0.7), PERF__FAIL);
  ST_EQ(perf__verdict_decide(&s, 0.7, 0.9), PERF__INCONCLUSIVE);
  ST_EQ(perf__verdict_decide(&s, 0.7, 1.3), PERF__INCONCLUSIVE);
}

/* Synthetic ABBA rounds: per-iteration times with a known ratio b/a, a
 * drift shared by both halves of a round, and independent noise. */
typedef struct synth {
  perf__rng rng;
  double ratio, noise;
  double delay_s; /* wall time one round takes */
  int calls;
} synth;

static int synth_round(void *ctx, double *a, double *b)
{
  synth *s = ctx;
  double drift = 0.1 * perf__rng_normal(&s->rng);
  *a = 1e-5 * exp(drift + s->noise * perf__rng_normal(&s->rng));
  *b = s->ratio * 1e-5 * exp(drift + s->noise * perf__rng_normal(&s->rng));
  s->calls++;
  for (double t0 = perf__clock_now(); perf__clock_now() - t0 < s->delay_s;) {
  }
  return 0;
}

static int fail_round(void *ctx, double *a, double *b)
{
  (void)ctx;
  *a = *b = 1;
  return PERF__ECUDA;
}

static perf__verdict_cfg sim_cfg(void)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  c.reps = 1000;       /* fewer resamples: hundreds of simulated claims */
  c.max_rounds = 256;  /* 9 looks: 12, 18, ..., 210, 256 */
  c.budget_s = 0;      /* rounds, not time, bound the simulation */
  return c;
}

/* Counts verdicts of `runs` simulated claims sampled to at most `cap`
 * rounds (0: sim_cfg's). */
static void simulate_to(perf__claim claim, double ratio, double noise, int runs,
                        int cap, int counts[PERF__OUTCOME_COUNT], int *max_rounds)
{
  perf__verdict_cfg c = sim_cfg();
  if (cap) c.max_rounds = cap;
  synth s = {.ratio = ratio, .noise = noise};
  perf__verdict_result r;
  perf__rng boot;
  perf__rng_seed(&s.rng, 99);
  perf__rng_seed(&boot, 7);
  *max_rounds = 0;
  for (int i = 0; i < runs; i++) {
    if (perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r) == 0)
      counts[r.verdict]++;
    if (r.rounds > *max_rounds) *max_rounds = r.rounds;
  }
}

static void simulate(perf__claim claim, double ratio, double noise, int runs,
                     int counts[PERF__OUTCOME_COUNT], int *max_rounds)
{
  simulate_to(claim, ratio, noise, runs, 0, counts, max_rounds);
}

ST_TEST(clear_speedup_passes_at_the_first_look)
{
  int counts[PERF__OUTCOME_COUNT] = {0}, rounds;
  simulate((perf__claim){PERF__CLAIM_FASTER, 2}, 4, 0.05, 50, counts, &rounds);
  ST_EQ(counts[PERF__PASS], 50);
  ST_EQ(rounds, 12);
}

/* Time a round spends idling (waiting out a power cap) is not sampling. */
static double fake_idle;
static double fake_idled_s(void) { return fake_idle; }

/* A round whose whole wall time is reported as idle: however long the
 * machine's load makes it, none of it is sampling. */
static int idle_round(void *ctx, double *a, double *b)
{
  double t0 = perf__clock_now();
  int err = synth_round(ctx, a, b);
  fake_idle += perf__clock_now() - t0;
  return err;
}

ST_TEST(idle_time_does_not_spend_the_budget)
{
  perf__verdict_cfg c = sim_cfg();
  c.budget_s = 0.015; /* less than one 20 ms round */
  perf__claim claim = {PERF__CLAIM_FASTER, 2};
  perf__verdict_result r;
  perf__rng boot;
  synth s = {.ratio = 4, .noise = 0.05, .delay_s = 0.02};
  perf__rng_seed(&s.rng, 5);
  perf__rng_seed(&boot, 7);
  /* counted: the budget is gone after the first round */
  ST_EQ(perf__verdict_run(&c, &claim, idle_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF__INCONCLUSIVE);
  ST_EQ(r.rounds, 1);
  /* reported as idle: the claim samples on to its first look and passes */
  c.idled_s = fake_idled_s;
  ST_EQ(perf__verdict_run(&c, &claim, idle_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF__PASS);
  ST_EQ(r.rounds, 12);
}

ST_TEST(clear_shortfall_fails)
{
  int counts[PERF__OUTCOME_COUNT] = {0}, rounds;
  simulate((perf__claim){PERF__CLAIM_FASTER, 8}, 4, 0.05, 50, counts, &rounds);
  ST_EQ(counts[PERF__FAIL], 50);
  simulate((perf__claim){PERF__CLAIM_FASTER, 1.1}, 1, 0.05, 50, counts, &rounds);
  ST_EQ(counts[PERF__FAIL], 100);
}

ST_TEST(similar_passes_for_equal_and_fails_for_4x)
{
  int counts[PERF__OUTCOME_COUNT] = {0}, rounds;
  simulate((perf__claim){PERF__CLAIM_SIMILAR, 0.05}, 1, 0.02, 50, counts, &rounds);
  ST_EQ(counts[PERF__PASS], 50);
  int c2[PERF__OUTCOME_COUNT] = {0};
  simulate((perf__claim){PERF__CLAIM_SIMILAR, 0.5}, 4, 0.05, 50, c2, &rounds);
  ST_EQ(c2[PERF__FAIL], 50);
}

/* The error the repeated looks could inflate: with the true speedup exactly
 * at the threshold, any decision is wrong, and noisy data keeps most runs
 * sampling to the last look, so every look gets its chance to err. The
 * bound alpha holds for the sum of both kinds of error; the Bonferroni
 * spending is conservative, so the observed rate is well below it. */
ST_TEST(repeated_looks_keep_the_error_rate)
{
  int counts[PERF__OUTCOME_COUNT] = {0}, rounds;
  enum { RUNS = 200 };
  simulate((perf__claim){PERF__CLAIM_FASTER, 1.5}, 1.5, 0.3, RUNS, counts,
           &rounds);
  int wrong = counts[PERF__PASS] + counts[PERF__FAIL];
  printf("    %d wrong decisions (PASS %d, FAIL %d) of %d\n", wrong, counts[PERF__PASS], counts[PERF__FAIL], RUNS);
  ST_CHECKF(wrong <= RUNS * 0.05, "%d wrong decisions (PASS %d, FAIL %d) of %d",
            wrong, counts[PERF__PASS], counts[PERF__FAIL], RUNS);
  ST_EQ(rounds, 256);
  /* Cut short after 3 looks, the last look spends 10/12 of alpha: the sum
   * of the levels is still alpha, and so is the bound. */
  int cut[PERF__OUTCOME_COUNT] = {0};
  simulate_to((perf__claim){PERF__CLAIM_FASTER, 1.5}, 1.5, 0.3, RUNS, 27, cut, &rounds);
  wrong = cut[PERF__PASS] + cut[PERF__FAIL];
  printf("    cut at 27 rounds: %d wrong decisions of %d\n", wrong, RUNS);
  ST_CHECKF(wrong <= RUNS * 0.05, "cut at 27 rounds: %d wrong decisions of %d", wrong, RUNS);
  ST_EQ(rounds, 27);
  /* Far from the threshold the same noise still decides. */
  int far[PERF__OUTCOME_COUNT] = {0};
  simulate((perf__claim){PERF__CLAIM_FASTER, 1.5}, 3, 0.3, 50, far, &rounds);
  ST_EQ(far[PERF__PASS], 50);
}

ST_TEST(undecided_at_max_rounds_is_inconclusive)
{
  perf__verdict_cfg c = sim_cfg();
  c.max_rounds = 16;
  synth s = {.ratio = 1.5, .noise = 0.3};
  perf__rng boot;
  perf__rng_seed(&s.rng, 3);
  perf__rng_seed(&boot, 3);
  perf__verdict_result r;
  perf__claim claim = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF__INCONCLUSIVE);
  ST_EQ(r.rounds, 16);
  ST_CHECK(r.lo < 1.5 && r.hi > 1.5);
  ST_CHECK(r.why != NULL);
  /* Looks at 12 and 16: the last one spends all but the first's alpha. */
  ST_EQ(r.looks, 2);
  ST_CHECKF(fabs(r.level - (c.alpha - c.alpha / c.max_looks)) < 1e-12, "level %g", r.level);
}

/* A claim the budget cuts short gets the alpha of the looks it never
 * reached: the same rounds decide at the final look's level where they
 * would straddle at a per-look level. */
ST_TEST(last_look_spends_the_alpha_left)
{
  perf__verdict_cfg c = sim_cfg();
  perf__claim similar = {PERF__CLAIM_SIMILAR, 0.05};
  int decided_cut = 0, decided_flat = 0;
  for (int seed = 1; seed <= 40; seed++) {
    synth s = {.ratio = 1, .noise = 0.06};
    perf__rng boot;
    perf__rng_seed(&s.rng, (unsigned)seed);
    perf__rng_seed(&boot, (unsigned)seed);
    perf__verdict_result r;
    c.max_rounds = 41; /* looks at 12, 18, 27, 41: the 4th is the last */
    ST_EQ(perf__verdict_run(&c, &similar, synth_round, NULL, &s, &boot, &r), 0);
    ST_CHECKF(r.verdict != PERF__FAIL, "A/A SIMILAR failed: [%g, %g]", r.lo, r.hi);
    ST_CHECKF(fabs(r.level - (r.looks == 4 ? c.alpha * 9 / 12 : c.alpha / 12)) < 1e-12,
              "%d looks at level %g", r.looks, r.level);
    decided_cut += r.verdict == PERF__PASS;
    c.max_looks = 4; /* the same schedule with every look at alpha/12 */
    c.alpha = 0.05 * 4 / 12;
    perf__rng_seed(&s.rng, (unsigned)seed);
    perf__rng_seed(&boot, (unsigned)seed);
    ST_EQ(perf__verdict_run(&c, &similar, synth_round, NULL, &s, &boot, &r), 0);
    decided_flat += r.verdict == PERF__PASS;
    c = sim_cfg();
  }
  printf("    A/A SIMILAR(5 %%) passes: %d of 40 with the alpha left, %d without\n",
         decided_cut, decided_flat);
  ST_CHECKF(decided_cut > decided_flat, "%d vs %d", decided_cut, decided_flat);
}

ST_TEST(time_budget_ends_sampling)
{
  perf__verdict_cfg c = sim_cfg();
  c.max_rounds = 1 << 20;
  c.budget_s = 0.2;
  synth s = {.ratio = 1.5, .noise = 0.3, .delay_s = 1e-3};
  perf__rng boot;
  perf__rng_seed(&s.rng, 5);
  perf__rng_seed(&boot, 5);
  perf__verdict_result r;
  perf__claim claim = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF__INCONCLUSIVE);
  ST_CHECK(r.looks <= c.max_looks);
  /* Each round takes at least 1 ms of wall time, so no more than 200 fit
   * in the budget, however fast the machine; the first look (12 rounds)
   * is always reached, however slow (the budget stretches 5x for it). How
   * many rounds between those depends on the machine's load. */
  ST_CHECKF(r.rounds >= 12 && r.rounds <= 200, "rounds %d", r.rounds);
  ST_CHECK(r.why != NULL && !strcmp(r.why, "time budget spent"));
  ST_CHECK(r.seconds >= c.budget_s);
  /* The look the budget ended with spent what was left of alpha. */
  double left = c.alpha - (r.looks - 1) * (c.alpha / c.max_looks);
  ST_CHECKF(fabs(r.level - left) < 1e-12, "level %g after %d looks", r.level, r.looks);
}

ST_TEST(round_errors_stop_sampling)
{
  perf__verdict_cfg c = sim_cfg();
  perf__rng boot;
  perf__rng_seed(&boot, 1);
  perf__verdict_result r;
  perf__claim claim = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_run(&c, &claim, fail_round, NULL, NULL, &boot, &r), PERF__ECUDA);
  ST_EQ(r.rounds, 0);
}

/* Rounds too slow for the first look to fit in the budget stretch it (the
 * looks and levels are unchanged); rounds too slow even for the stretched
 * budget end the claim before its first look. */
ST_TEST(slow_rounds_stretch_the_budget_to_the_first_look)
{
  perf__verdict_cfg c = sim_cfg();
  c.budget_s = 0.06;  /* 12 rounds of 10 ms or more: at least 2x the budget */
  c.stretch = 100;    /* room for a loaded machine's slower rounds */
  synth s = {.ratio = 4, .noise = 0.05, .delay_s = 0.01};
  perf__rng boot;
  perf__rng_seed(&s.rng, 11);
  perf__rng_seed(&boot, 11);
  perf__verdict_result r;
  perf__claim claim = {PERF__CLAIM_FASTER, 2};
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF__PASS);
  ST_EQ(r.rounds, 12);
  ST_EQ(r.stretched, 1);
  c.stretch = 1; /* as before: no stretch, no look */
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF__INCONCLUSIVE);
  ST_CHECK(r.rounds < 12 && r.why && strstr(r.why, "before the first look"));
  c.stretch = 5;
  c.budget_s = 0.01; /* 12 rounds: at least 12x the budget, beyond the stretch */
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF__INCONCLUSIVE);
  ST_CHECK(r.rounds < 12);
}

/* A crossover point's three answers against tie margin t, and t = 0 as the
 * plain side of 1. */
ST_TEST(side_of_one_with_a_tie_margin)
{
  ST_EQ(perf__verdict_side(0.05, 1.06, 1.2), PERF__SIDE_FASTER);
  ST_EQ(perf__verdict_side(0.05, 0.5, 0.9), PERF__SIDE_SLOWER);
  ST_EQ(perf__verdict_side(0.05, 0.97, 1.04), PERF__SIDE_TIED);
  ST_EQ(perf__verdict_side(0.05, 1.001, 1.059), PERF__SIDE_UNDECIDED); /* straddles 1.05 */
  ST_EQ(perf__verdict_side(0.05, 0.9, 1.1), PERF__SIDE_UNDECIDED);
  ST_EQ(perf__verdict_side(0.05, NAN, NAN), PERF__SIDE_UNDECIDED);
  ST_EQ(perf__verdict_side(0, 1.001, 1.059), PERF__SIDE_FASTER);
  ST_EQ(perf__verdict_side(0, 0.97, 0.999), PERF__SIDE_SLOWER);
  ST_EQ(perf__verdict_side(0, 0.97, 1.04), PERF__SIDE_UNDECIDED); /* no ties at 0 */
  perf__claim side = {PERF__CLAIM_SIDE, 0.05};
  ST_EQ(perf__verdict_decide(&side, 0.97, 1.04), PERF__PASS); /* decided: stop sampling */
  ST_EQ(perf__verdict_decide(&side, 1.001, 1.059), PERF__INCONCLUSIVE);
}
