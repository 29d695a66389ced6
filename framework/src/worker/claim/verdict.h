/* verdict.h — the verdict rule of a ratio-of-medians claim. */
#ifndef PERF_VERDICT_H
#define PERF_VERDICT_H

#include <stddef.h>

#include "stats/stats.h"
#include "util/status.h"

/* Method (see decide_* and perf__verdict_run):
 *  - Data: one (a, b) pair per ABBA round; a = mean of the round's two A
 *    samples, b = mean of its two B samples (linear drift cancels).
 *  - Statistic: ratio of medians over rounds; interval: percentile bootstrap
 *    over rounds (pairs resampled together, so shared drift stays paired).
 *  - Repeated looks: at most max_looks looks, each at level alpha/max_looks
 *    (Bonferroni over looks): the chance that any look decides wrongly is at
 *    most alpha, however early sampling stops.
 *  - Looks at first_look rounds, then growing by growth, the last one at
 *    max_rounds; if the time budget runs out first, one final look is made
 *    with what was sampled, and a still-straddling interval is INCONCLUSIVE.
 *  - Alpha spending: the final look (budget spent, max_rounds or max_looks
 *    reached) is made at the level left over, alpha minus alpha/max_looks
 *    per look already made. The levels of the looks made still sum to at
 *    most alpha, so the bound holds; a claim the budget cuts short gets the
 *    alpha of the looks it never reached, and decides where data allow.
 *  - Rounds too slow for first_look of them to fit in the budget stretch
 *    it, up to stretch times, so that the first look happens: the looks and
 *    their levels are the same, so the error rate is too; only time grows.
 *  - Rounds too slow even for that get one early look instead (only then:
 *    a claim that reaches first_look never has one). It needs
 *    perf__verdict_early_rounds() rounds, m, the smallest with 2^(1-m) <=
 *    alpha, and the budget stretches for them too. Its interval is the hull
 *    of two: the range [min, max] of the rounds' own ratios (a sign test,
 *    exact whatever the distribution) and the bootstrap interval, both at
 *    level 2^(1-m). PASS needs every round's ratio to clear the threshold
 *    and the ratio of medians' bootstrap to agree. The range only widens
 *    as rounds come, so it is wrong at any look from m rounds on only if it
 *    was wrong on the first m: at most 2^-m each way, when the median of
 *    the rounds' ratios is at the threshold, however sampling stopped. The
 *    look is the only one its claim gets, so it spends alpha as the
 *    budget-ended look does (2^(1-m) <= alpha, nothing spent before). */
typedef struct perf__verdict_cfg {
  double alpha;     /* total error rate over all looks */
  int max_looks;    /* looks at most (including the final one) */
  int first_look;   /* rounds before the first look; fewer: no decision.
                     * A percentile bootstrap of a median cannot reach the
                     * per-look level on very few rounds (with 8, even
                     * [min, max] covers the median only 99.2 % of the
                     * time), so the first look waits for 12. */
  double growth;    /* rounds at look k+1 = ceil(rounds at look k * growth) */
  int max_rounds;   /* the last look happens here at the latest */
  unsigned reps;    /* bootstrap resamples per look */
  double budget_s;  /* wall-clock budget for sampling; <= 0: unlimited */
  double stretch;   /* the budget may grow to stretch * budget_s when the
                       first look would not fit in it otherwise (1: never) */
  double (*idled_s)(void); /* seconds idled so far, not counted against the
                              budget (NULL: none) */
  double (*now_s)(void);   /* the clock the budget is kept on (NULL:
                              perf__clock_now; a test's fake clock) */
  int early;               /* 1: the early look for rounds too slow for
                              first_look (0: off, as before issue 31) */
  /* Before each look (NULL: none): how many of the n rounds a[], b[] still
   * stand, those moved to the front in order; the rest were found
   * disturbed since they were taken (a neighbour's traffic that the host
   * link showed after them) and count as skipped, and sampling goes on
   * for their places. ctx is perf__verdict_run's. */
  int (*prune)(void *ctx, double *a, double *b, int n);
} perf__verdict_cfg;

/* FASTER and SIMILAR are claims; SIDE is a crossover point's question:
 * is a slower than b, tied with it, or faster, with tie margin threshold
 * (tied: the speedup within [1/(1+t), 1+t]). */
typedef enum perf__verdict_claim_kind {
  PERF__CLAIM_FASTER,
  PERF__CLAIM_SIMILAR,
  PERF__CLAIM_SIDE
} perf__verdict_claim_kind;

typedef struct perf__verdict_claim {
  perf__verdict_claim_kind kind;
  double threshold; /* FASTER: factor; SIMILAR: tolerance; SIDE: tie margin */
} perf__verdict_claim;

/* A SIDE claim's answer. */
typedef enum perf__verdict_side {
  PERF__SIDE_SLOWER = -1,   /* speedup below 1/(1+t), with confidence */
  PERF__SIDE_UNDECIDED = 0, /* the interval straddles a margin */
  PERF__SIDE_FASTER = 1,    /* speedup above 1+t */
  PERF__SIDE_TIED = 2       /* the interval inside [1/(1+t), 1+t] */
} perf__verdict_side;

typedef struct perf__verdict_result {
  perf_outcome verdict; /* PASS, FAIL or INCONCLUSIVE */
  int rounds;
  int looks;
  double med_a, med_b;   /* medians per iteration, seconds */
  double mad_a, mad_b;   /* their median absolute deviations over rounds */
  double ratio;          /* FASTER, SIDE: med_b/med_a; SIMILAR: med_a/med_b */
  double lo, hi;         /* interval of ratio; NaN when never looked */
  double level;          /* two-sided error of the last look's [lo, hi] */
  double seconds;        /* wall time spent sampling and deciding */
  int stretched;         /* the budget was stretched to reach the first look */
  int early;             /* the last look was the early look (range of the
                            rounds' ratios with the bootstrap) */
  const char *why;       /* for INCONCLUSIVE: what stopped sampling */
  int skipped;           /* rounds the round function skipped (disturbed) */
} perf__verdict_result;

/* One ABBA round: returns 0 and the per-iteration times (seconds) of A and B,
 * or a negative error, which ends sampling, or PERF__VERDICT_STOP: no round
 * and no error; sampling ends and the claim stands as the looks so far
 * left it (its why: "sampling stopped"), or PERF__VERDICT_SKIP: a round
 * was taken but is no evidence (disturbed); it is not counted, and
 * sampling goes on while the budget lasts (its time counts). */
#define PERF__VERDICT_STOP 1
#define PERF__VERDICT_SKIP 2
typedef int perf__verdict_round_fn(void *ctx, double *a, double *b);
/* Called after each look when set (for --verbose tracing). */
typedef void perf__verdict_look_fn(void *ctx, const perf__verdict_result *now);

void perf__verdict_defaults(perf__verdict_cfg *cfg);
/* Rounds at which look k (1-based) happens under cfg. */
int perf__verdict_look_at(const perf__verdict_cfg *cfg, int k);
/* Rounds the early look needs under cfg: the smallest m with 2^(1-m) <=
 * alpha (6 at alpha 0.05); 0 when cfg->early is off or m would not come
 * before first_look (no early look). Never fails. */
int perf__verdict_early_rounds(const perf__verdict_cfg *cfg);
/* Decision for interval [lo, hi] of the claim's ratio: PASS, FAIL or
 * INCONCLUSIVE (keep sampling). A SIDE claim PASSes when its side is
 * decided (perf__verdict_side), whichever it is. */
perf_outcome perf__verdict_decide(const perf__verdict_claim *claim, double lo, double hi);
/* The side that interval [lo, hi] of the speedup shows against tie margin
 * t. Never fails; NaN bounds give UNDECIDED. */
perf__verdict_side perf__verdict_side_of(double t, double lo, double hi);

/* Samples rounds from next() until a look decides, max_rounds is reached or
 * the budget is spent. Returns 0 with *out filled, or the first negative
 * error of next() or of the bootstrap (then *out holds what was measured). */
int perf__verdict_run(const perf__verdict_cfg *cfg, const perf__verdict_claim *claim,
                  perf__verdict_round_fn *next, perf__verdict_look_fn *trace, void *ctx,
                  perf__rng *rng, perf__verdict_result *out);

/* Frees the buffers of a perf__verdict_run that its round function left by
 * longjmp; a no-op otherwise. Never fails. */
void perf__verdict_release(void);

#endif
