/* unit_verdict.c — sequential decisions: look schedule, rule, error rates under repeated looks. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "selftest.h"
#include "host/clock.h"
#include "worker/claim/verdict.h"

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
  perf__verdict_claim f = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_decide(&f, 1.6, 1.9), PERF_OUTCOME_PASS);
  ST_EQ(perf__verdict_decide(&f, 1.5, 1.9), PERF_OUTCOME_PASS);
  ST_EQ(perf__verdict_decide(&f, 1.2, 1.4), PERF_OUTCOME_FAIL);
  ST_EQ(perf__verdict_decide(&f, 1.4, 1.6), PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(perf__verdict_decide(&f, NAN, NAN), PERF_OUTCOME_INCONCLUSIVE);
  perf__verdict_claim s = {PERF__CLAIM_SIMILAR, 0.25}; /* [0.8, 1.25] */
  ST_EQ(perf__verdict_decide(&s, 0.9, 1.1), PERF_OUTCOME_PASS);
  ST_EQ(perf__verdict_decide(&s, 1.3, 1.5), PERF_OUTCOME_FAIL);
  ST_EQ(perf__verdict_decide(&s, 0.5, 0.7), PERF_OUTCOME_FAIL);
  ST_EQ(perf__verdict_decide(&s, 0.7, 0.9), PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(perf__verdict_decide(&s, 0.7, 1.3), PERF_OUTCOME_INCONCLUSIVE);
}

/* The shape of a round's noise on the log scale; each has median 0, so
 * the median of a round's value is known. */
enum shape {
  NORMAL,  /* log-normal times */
  SKEWED,  /* Exp(1) - ln 2: a right tail, as delays make */
  HEAVY    /* Student t with 2 degrees of freedom (infinite variance) */
};

/* A fake clock that rounds advance by their cost: the budget's logic
 * without wall time, the same on a loaded machine as on a quiet one. */
static double fake_now;
static double fake_clock(void) { return fake_now; }

/* Synthetic ABBA rounds: per-iteration times with a known ratio b/a, a
 * drift shared by both halves of a round, and independent noise. */
typedef struct synth {
  perf__rng rng;
  double ratio, noise;
  double delay_s; /* wall time one round takes */
  double cost_s;  /* fake-clock time one round takes */
  enum shape shape;
  double noise_b; /* b's noise scale when it differs from a's (0: the same) */
  int no_drift;   /* no shared drift (the medians of a and b are then 1e-5
                     and ratio * 1e-5 exactly, whatever the shapes) */
  int calls;
} synth;

/* One draw of noise of shape `shape`, median 0. */
static double draw(perf__rng *r, enum shape shape)
{
  if (shape == NORMAL) return perf__rng_normal(r);
  double e = -log(1 - perf__rng_unit(r));
  if (shape == SKEWED) return e - log(2);
  double t = perf__rng_normal(r) / sqrt(e > 1e-300 ? e : 1e-300);
  return t > 40 ? 40 : t < -40 ? -40 : t;
}

static int synth_round(void *ctx, double *a, double *b)
{
  synth *s = ctx;
  double drift = s->no_drift ? 0 : 0.1 * perf__rng_normal(&s->rng);
  *a = 1e-5 * exp(drift + s->noise * draw(&s->rng, s->shape));
  *b = s->ratio * 1e-5 *
       exp(drift + (s->noise_b > 0 ? s->noise_b : s->noise) * draw(&s->rng, s->shape));
  s->calls++;
  fake_now += s->cost_s;
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
static void simulate_to(perf__verdict_claim claim, double ratio, double noise, int runs,
                        int cap, int counts[PERF_OUTCOME_COUNT], int *max_rounds)
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

static void simulate(perf__verdict_claim claim, double ratio, double noise, int runs,
                     int counts[PERF_OUTCOME_COUNT], int *max_rounds)
{
  simulate_to(claim, ratio, noise, runs, 0, counts, max_rounds);
}

ST_TEST(clear_speedup_passes_at_the_first_look)
{
  int counts[PERF_OUTCOME_COUNT] = {0}, rounds;
  simulate((perf__verdict_claim){PERF__CLAIM_FASTER, 2}, 4, 0.05, 50, counts, &rounds);
  ST_EQ(counts[PERF_OUTCOME_PASS], 50);
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
  perf__verdict_claim claim = {PERF__CLAIM_FASTER, 2};
  perf__verdict_result r;
  perf__rng boot;
  synth s = {.ratio = 4, .noise = 0.05, .delay_s = 0.02};
  perf__rng_seed(&s.rng, 5);
  perf__rng_seed(&boot, 7);
  /* counted: the budget is gone after the first round */
  ST_EQ(perf__verdict_run(&c, &claim, idle_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(r.rounds, 1);
  /* reported as idle: the claim samples on to its first look and passes */
  c.idled_s = fake_idled_s;
  ST_EQ(perf__verdict_run(&c, &claim, idle_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_EQ(r.rounds, 12);
}

ST_TEST(clear_shortfall_fails)
{
  int counts[PERF_OUTCOME_COUNT] = {0}, rounds;
  simulate((perf__verdict_claim){PERF__CLAIM_FASTER, 8}, 4, 0.05, 50, counts, &rounds);
  ST_EQ(counts[PERF_OUTCOME_FAIL], 50);
  simulate((perf__verdict_claim){PERF__CLAIM_FASTER, 1.1}, 1, 0.05, 50, counts, &rounds);
  ST_EQ(counts[PERF_OUTCOME_FAIL], 100);
}

ST_TEST(similar_passes_for_equal_and_fails_for_4x)
{
  int counts[PERF_OUTCOME_COUNT] = {0}, rounds;
  simulate((perf__verdict_claim){PERF__CLAIM_SIMILAR, 0.05}, 1, 0.02, 50, counts, &rounds);
  ST_EQ(counts[PERF_OUTCOME_PASS], 50);
  int c2[PERF_OUTCOME_COUNT] = {0};
  simulate((perf__verdict_claim){PERF__CLAIM_SIMILAR, 0.5}, 4, 0.05, 50, c2, &rounds);
  ST_EQ(c2[PERF_OUTCOME_FAIL], 50);
}

/* The error the repeated looks could inflate: with the true speedup exactly
 * at the threshold, any decision is wrong, and noisy data keeps most runs
 * sampling to the last look, so every look gets its chance to err. The
 * bound alpha holds for the sum of both kinds of error; the Bonferroni
 * spending is conservative, so the observed rate is well below it. */
ST_TEST(repeated_looks_keep_the_error_rate)
{
  int counts[PERF_OUTCOME_COUNT] = {0}, rounds;
  enum { RUNS = 200 };
  simulate((perf__verdict_claim){PERF__CLAIM_FASTER, 1.5}, 1.5, 0.3, RUNS, counts,
           &rounds);
  int wrong = counts[PERF_OUTCOME_PASS] + counts[PERF_OUTCOME_FAIL];
  printf("    %d wrong decisions (PASS %d, FAIL %d) of %d\n", wrong, counts[PERF_OUTCOME_PASS], counts[PERF_OUTCOME_FAIL], RUNS);
  ST_CHECKF(wrong <= RUNS * 0.05, "%d wrong decisions (PASS %d, FAIL %d) of %d",
            wrong, counts[PERF_OUTCOME_PASS], counts[PERF_OUTCOME_FAIL], RUNS);
  ST_EQ(rounds, 256);
  /* Cut short after 3 looks, the last look spends 10/12 of alpha: the sum
   * of the levels is still alpha, and so is the bound. */
  int cut[PERF_OUTCOME_COUNT] = {0};
  simulate_to((perf__verdict_claim){PERF__CLAIM_FASTER, 1.5}, 1.5, 0.3, RUNS, 27, cut, &rounds);
  wrong = cut[PERF_OUTCOME_PASS] + cut[PERF_OUTCOME_FAIL];
  printf("    cut at 27 rounds: %d wrong decisions of %d\n", wrong, RUNS);
  ST_CHECKF(wrong <= RUNS * 0.05, "cut at 27 rounds: %d wrong decisions of %d", wrong, RUNS);
  ST_EQ(rounds, 27);
  /* Far from the threshold the same noise still decides. */
  int far[PERF_OUTCOME_COUNT] = {0};
  simulate((perf__verdict_claim){PERF__CLAIM_FASTER, 1.5}, 3, 0.3, 50, far, &rounds);
  ST_EQ(far[PERF_OUTCOME_PASS], 50);
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
  perf__verdict_claim claim = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
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
  perf__verdict_claim similar = {PERF__CLAIM_SIMILAR, 0.05};
  int decided_cut = 0, decided_flat = 0;
  for (int seed = 1; seed <= 40; seed++) {
    synth s = {.ratio = 1, .noise = 0.06};
    perf__rng boot;
    perf__rng_seed(&s.rng, (unsigned)seed);
    perf__rng_seed(&boot, (unsigned)seed);
    perf__verdict_result r;
    c.max_rounds = 41; /* looks at 12, 18, 27, 41: the 4th is the last */
    ST_EQ(perf__verdict_run(&c, &similar, synth_round, NULL, &s, &boot, &r), 0);
    ST_CHECKF(r.verdict != PERF_OUTCOME_FAIL, "A/A SIMILAR failed: [%g, %g]", r.lo, r.hi);
    ST_CHECKF(fabs(r.level - (r.looks == 4 ? c.alpha * 9 / 12 : c.alpha / 12)) < 1e-12,
              "%d looks at level %g", r.looks, r.level);
    decided_cut += r.verdict == PERF_OUTCOME_PASS;
    c.max_looks = 4; /* the same schedule with every look at alpha/12 */
    c.alpha = 0.05 * 4 / 12;
    perf__rng_seed(&s.rng, (unsigned)seed);
    perf__rng_seed(&boot, (unsigned)seed);
    ST_EQ(perf__verdict_run(&c, &similar, synth_round, NULL, &s, &boot, &r), 0);
    decided_flat += r.verdict == PERF_OUTCOME_PASS;
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
  perf__verdict_claim claim = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
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
  perf__verdict_claim claim = {PERF__CLAIM_FASTER, 1.5};
  ST_EQ(perf__verdict_run(&c, &claim, fail_round, NULL, NULL, &boot, &r), PERF__ECUDA);
  ST_EQ(r.rounds, 0);
}

/* Rounds too slow for the first look to fit in the budget stretch it (the
 * looks and levels are unchanged); rounds too slow even for the stretched
 * budget end the claim before its first look, or, when the early look's
 * rounds fit, at the early look (see the tests after this one). On the fake
 * clock, so that the number of rounds does not depend on the machine. */
ST_TEST(slow_rounds_stretch_the_budget_to_the_first_look)
{
  perf__verdict_cfg c = sim_cfg();
  c.now_s = fake_clock;
  c.budget_s = 0.06;  /* 12 rounds of 10 ms: 2x the budget */
  c.stretch = 100;
  synth s = {.ratio = 4, .noise = 0.05, .cost_s = 0.01};
  perf__rng boot;
  perf__rng_seed(&s.rng, 11);
  perf__rng_seed(&boot, 11);
  perf__verdict_result r;
  perf__verdict_claim claim = {PERF__CLAIM_FASTER, 2};
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_EQ(r.rounds, 12);
  ST_EQ(r.stretched, 1);
  ST_EQ(r.early, 0);
  c.stretch = 1; /* as before: no stretch, no look */
  c.budget_s = 0.05; /* spent at 5 rounds, before the early look's 6 */
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(r.rounds, 5);
  ST_CHECK(r.why && strstr(r.why, "before the first look"));
  c.stretch = 5;
  c.budget_s = 0.01; /* 6 rounds: 6x the budget, beyond the stretch */
  ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(r.rounds, 1);
}

/* The early look's round count: the smallest m with 2^(1-m) <= alpha. */
ST_TEST(early_look_needs_rounds_for_its_alpha)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  ST_EQ(perf__verdict_early_rounds(&c), 6); /* 2^-5 = 3.1 % <= 5 % < 2^-4 */
  c.alpha = 0.05 / 7;                        /* a 7-point CROSSOVER's point */
  ST_EQ(perf__verdict_early_rounds(&c), 9);  /* 2^-8 = 0.39 % <= 0.71 % */
  c.alpha = 0.05 / 64;                       /* would need 12: no early look */
  ST_EQ(perf__verdict_early_rounds(&c), 0);
  perf__verdict_defaults(&c);
  c.early = 0;
  ST_EQ(perf__verdict_early_rounds(&c), 0);
}

/* The default cfg (2 s budget, stretched up to 5x) on the fake clock, with
 * rounds that cost what fits `fit` of them into the stretched budget. */
static perf__verdict_cfg slow_cfg(synth *s, double fit)
{
  perf__verdict_cfg c;
  perf__verdict_defaults(&c);
  c.reps = 1000;
  c.now_s = fake_clock;
  s->cost_s = c.stretch * c.budget_s / (fit + 0.5);
  return c;
}

/* Issue 31's case: FASTER(gpu_io, cpu, 3) at 14.1x, its CPU side so slow
 * that 12 rounds did not fit in the stretched budget: INCONCLUSIVE "before
 * the first look" although every round said 14x. With 6 to 11 rounds
 * affordable it is decided at the early look (6 rounds); with 5 it cannot
 * be: no rule on 5 rounds can keep a false pass under 2.5 % whatever the
 * distribution (all 5 on one side happens 1 time in 32 at the threshold). */
ST_TEST(wide_margin_decides_at_the_early_look_when_rounds_are_slow)
{
  perf__verdict_claim faster3 = {PERF__CLAIM_FASTER, 3};
  for (int early = 0; early <= 1; early++)
    for (int fit = 5; fit <= 11; fit++) {
      synth s = {.ratio = 14.1, .noise = 0.15};
      perf__verdict_cfg c = slow_cfg(&s, fit);
      c.early = early;
      perf__rng boot;
      perf__rng_seed(&s.rng, (unsigned)fit);
      perf__rng_seed(&boot, (unsigned)fit);
      perf__verdict_result r;
      ST_EQ(perf__verdict_run(&c, &faster3, synth_round, NULL, &s, &boot, &r), 0);
      if (!early || fit < 6) { /* as before issue 31; and 5 rounds cannot decide */
        ST_CHECKF(r.verdict == PERF_OUTCOME_INCONCLUSIVE && r.why &&
                      strstr(r.why, "before the first look"),
                  "early %d, %d rounds fit: %s after %d rounds", early, fit,
                  perf__status_word(r.verdict), r.rounds);
        continue;
      }
      ST_CHECKF(r.verdict == PERF_OUTCOME_PASS, "%d rounds fit: %s [%g, %g] after %d rounds", fit,
                perf__status_word(r.verdict), r.lo, r.hi, r.rounds);
      ST_EQ(r.rounds, 6);
      ST_EQ(r.looks, 1);
      ST_EQ(r.early, 1);
      ST_EQ(r.stretched, 1);
      ST_CHECKF(r.lo >= 3 && r.lo <= r.ratio && r.ratio <= r.hi, "[%g, %g] ratio %g", r.lo,
                r.hi, r.ratio);
      ST_CHECKF(fabs(r.level - 1.0 / 32) < 1e-12, "level %g", r.level);
    }
  /* The other way: a clear shortfall FAILs, and a SIMILAR that holds
   * PASSes, each at the early look. */
  synth s = {.ratio = 1, .noise = 0.15};
  perf__verdict_cfg c = slow_cfg(&s, 8);
  perf__rng boot;
  perf__rng_seed(&s.rng, 3);
  perf__rng_seed(&boot, 3);
  perf__verdict_result r;
  ST_EQ(perf__verdict_run(&c, &faster3, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_FAIL);
  ST_EQ(r.rounds, 6);
  s.noise = 0.005;
  perf__verdict_claim similar = {PERF__CLAIM_SIMILAR, 0.05};
  ST_EQ(perf__verdict_run(&c, &similar, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_EQ(r.early, 1);
  /* On the threshold, rounds on both sides: undecided, and it says so. */
  s.ratio = 3, s.noise = 0.3;
  ST_EQ(perf__verdict_run(&c, &faster3, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_INCONCLUSIVE);
  ST_EQ(r.rounds, 6);
  ST_CHECKF(r.why && strstr(r.why, "early look did not decide"), "%s", r.why ? r.why : "");
  /* Spent after 8 rounds without a stretch: the early look comes there. */
  c.stretch = 1;
  s.ratio = 14.1, s.noise = 0.15, s.cost_s = c.budget_s / 7.5;
  ST_EQ(perf__verdict_run(&c, &faster3, synth_round, NULL, &s, &boot, &r), 0);
  ST_EQ(r.verdict, PERF_OUTCOME_PASS);
  ST_EQ(r.rounds, 8);
  ST_EQ(r.stretched, 0);
  ST_EQ(r.early, 1); /* its line's note: unit_verdictline */
}

/* Counts the verdicts of `runs` claims with rounds as in *proto, each its
 * own seed; cfg from slow_cfg(fit), or stretch 1 when fit < 0 (the budget
 * is then spent after -fit rounds, and the early look comes there). */
static void simulate_slow(perf__verdict_claim claim, const synth *proto, double fit, int runs,
                          int counts[PERF_OUTCOME_COUNT], int *rounds)
{
  perf__rng boot;
  perf__rng_seed(&boot, 17);
  *rounds = 0;
  for (int i = 0; i < runs; i++) {
    synth s = *proto;
    perf__verdict_cfg c = slow_cfg(&s, fit > 0 ? fit : 8);
    c.reps = 200; /* the bootstrap only has to agree: fewer resamples do */
    if (fit < 0) {
      c.stretch = 1;
      s.cost_s = c.budget_s / (-fit - 0.5); /* spent at round -fit */
    }
    perf__rng_seed(&s.rng, 1000u + (unsigned)i);
    perf__verdict_result r;
    if (perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r) == 0)
      counts[r.verdict]++;
    if (r.rounds > *rounds) *rounds = r.rounds;
  }
}

/* The early look's error rates with the truth on the threshold (any
 * decision is wrong): under log-normal, skewed and heavy-tailed noise, with
 * a shared drift; with a skewed b four times as spread as a, and no drift,
 * where the median of the rounds' ratios is not the ratio of medians (the
 * medians are exactly on the threshold); and with the look coming after 8
 * rounds instead of 6. The bound is 2^-6 = 1.6 % each way; the test allows
 * docs/deciding.md's 2.5 % each way, so it cannot fail by chance. */
ST_TEST(early_look_keeps_the_error_rate_at_the_threshold)
{
  enum { RUNS = 4000 };
  static const struct {
    const char *name;
    synth s;
    double fit;
  } cases[] = {
      {"log-normal", {.ratio = 1.5, .noise = 0.3}, 8},
      {"skewed", {.ratio = 1.5, .noise = 0.3, .shape = SKEWED}, 8},
      {"heavy-tailed", {.ratio = 1.5, .noise = 0.3, .shape = HEAVY}, 8},
      {"skewed, b 4x spread, no drift",
       {.ratio = 1.5, .noise = 0.1, .noise_b = 0.4, .shape = SKEWED, .no_drift = 1}, 8},
      {"heavy-tailed, b 4x spread, no drift",
       {.ratio = 1.5, .noise = 0.1, .noise_b = 0.4, .shape = HEAVY, .no_drift = 1}, 8},
      {"log-normal, look at 8 rounds", {.ratio = 1.5, .noise = 0.3}, -8},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    int counts[PERF_OUTCOME_COUNT] = {0}, rounds;
    simulate_slow((perf__verdict_claim){PERF__CLAIM_FASTER, 1.5}, &cases[k].s, cases[k].fit, RUNS,
                  counts, &rounds);
    int similar[PERF_OUTCOME_COUNT] = {0}, srounds;
    synth edge = cases[k].s;
    edge.ratio = 1 / 1.25; /* SIMILAR's ratio is a/b: on the band's edge 1.25 */
    simulate_slow((perf__verdict_claim){PERF__CLAIM_SIMILAR, 0.25}, &edge, cases[k].fit, RUNS, similar,
                  &srounds);
    printf("    %s: FASTER false pass %d, false fail %d; SIMILAR pass %d, fail %d; of %d\n",
           cases[k].name, counts[PERF_OUTCOME_PASS], counts[PERF_OUTCOME_FAIL], similar[PERF_OUTCOME_PASS],
           similar[PERF_OUTCOME_FAIL], RUNS);
    int most = RUNS / 40; /* 2.5 % */
    ST_CHECKF(counts[PERF_OUTCOME_PASS] <= most && counts[PERF_OUTCOME_FAIL] <= most &&
                  similar[PERF_OUTCOME_PASS] <= most && similar[PERF_OUTCOME_FAIL] <= most,
              "%s: %d %d %d %d of %d", cases[k].name, counts[PERF_OUTCOME_PASS], counts[PERF_OUTCOME_FAIL],
              similar[PERF_OUTCOME_PASS], similar[PERF_OUTCOME_FAIL], RUNS);
    ST_EQ(rounds, cases[k].fit > 0 ? 6 : 8); /* every claim ended at the early look */
    ST_EQ(srounds, rounds);
  }
}

/* Claims that reach the first look are run exactly as before: the early
 * look leaves their rounds, looks, intervals and verdicts alone, whether
 * their rounds are fast or slow enough to stretch the budget to 12. */
ST_TEST(early_look_leaves_claims_that_reach_the_first_look_alone)
{
  static const double fits[] = {100, 40, 12};
  int differ = 0, compared = 0, stretched = 0;
  for (size_t f = 0; f < sizeof fits / sizeof fits[0]; f++)
    for (int i = 0; i < 60; i++) {
      perf__verdict_result r[2];
      for (int early = 0; early <= 1; early++) {
        synth s = {.ratio = 1.5, .noise = 0.3};
        perf__verdict_cfg c = slow_cfg(&s, fits[f]);
        c.early = early;
        perf__rng boot;
        perf__rng_seed(&s.rng, 500u + (unsigned)i);
        perf__rng_seed(&boot, 500u + (unsigned)i);
        perf__verdict_claim claim = {PERF__CLAIM_FASTER, i % 2 ? 1.5 : 1.2};
        ST_EQ(perf__verdict_run(&c, &claim, synth_round, NULL, &s, &boot, &r[early]), 0);
      }
      compared++;
      stretched += r[1].stretched;
      differ += r[0].verdict != r[1].verdict || r[0].rounds != r[1].rounds ||
                r[0].looks != r[1].looks || r[0].lo != r[1].lo || r[0].hi != r[1].hi ||
                r[0].level != r[1].level || r[1].early;
    }
  ST_EQ(differ, 0);
  ST_CHECKF(stretched >= 60, "%d of %d stretched", stretched, compared);
}

/* A crossover point's three answers against tie margin t, and t = 0 as the
 * plain side of 1. */
ST_TEST(side_of_one_with_a_tie_margin)
{
  ST_EQ(perf__verdict_side_of(0.05, 1.06, 1.2), PERF__SIDE_FASTER);
  ST_EQ(perf__verdict_side_of(0.05, 0.5, 0.9), PERF__SIDE_SLOWER);
  ST_EQ(perf__verdict_side_of(0.05, 0.97, 1.04), PERF__SIDE_TIED);
  ST_EQ(perf__verdict_side_of(0.05, 1.001, 1.059), PERF__SIDE_UNDECIDED); /* straddles 1.05 */
  ST_EQ(perf__verdict_side_of(0.05, 0.9, 1.1), PERF__SIDE_UNDECIDED);
  ST_EQ(perf__verdict_side_of(0.05, NAN, NAN), PERF__SIDE_UNDECIDED);
  ST_EQ(perf__verdict_side_of(0, 1.001, 1.059), PERF__SIDE_FASTER);
  ST_EQ(perf__verdict_side_of(0, 0.97, 0.999), PERF__SIDE_SLOWER);
  ST_EQ(perf__verdict_side_of(0, 0.97, 1.04), PERF__SIDE_UNDECIDED); /* no ties at 0 */
  perf__verdict_claim side = {PERF__CLAIM_SIDE, 0.05};
  ST_EQ(perf__verdict_decide(&side, 0.97, 1.04), PERF_OUTCOME_PASS); /* decided: stop sampling */
  ST_EQ(perf__verdict_decide(&side, 1.001, 1.059), PERF_OUTCOME_INCONCLUSIVE);
}
