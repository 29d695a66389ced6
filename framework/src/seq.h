/* seq.h — sequential ABBA sampling of two workloads and the verdict on a ratio-of-medians claim. */
#ifndef PERF_SEQ_H
#define PERF_SEQ_H

#include <stddef.h>

#include "stats.h"
#include "status.h"

/* Method (see decide_* and perf__seq_run):
 *  - Data: one (a, b) pair per ABBA round; a = mean of the round's two A
 *    samples, b = mean of its two B samples (linear drift cancels).
 *  - Statistic: ratio of medians over rounds; interval: percentile bootstrap
 *    over rounds (pairs resampled together, so shared drift stays paired).
 *  - Repeated looks: at most max_looks looks, each at level alpha/max_looks
 *    (Bonferroni over looks): the chance that any look decides wrongly is at
 *    most alpha, however early sampling stops.
 *  - Looks at first_look rounds, then growing by growth, the last one at
 *    max_rounds; if the time budget runs out first, one final look is made
 *    with what was sampled, and a still-straddling interval is INCONCLUSIVE. */
typedef struct perf__seq_cfg {
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
} perf__seq_cfg;

typedef enum perf__claim_kind { PERF__CLAIM_FASTER, PERF__CLAIM_SIMILAR } perf__claim_kind;

typedef struct perf__claim {
  perf__claim_kind kind;
  double threshold; /* FASTER: factor; SIMILAR: tolerance */
} perf__claim;

typedef struct perf__seq_result {
  perf__outcome verdict; /* PASS, FAIL or INCONCLUSIVE */
  int rounds;
  int looks;
  double med_a, med_b;   /* medians per iteration, seconds */
  double mad_a, mad_b;   /* their median absolute deviations over rounds */
  double ratio;          /* FASTER: med_b/med_a; SIMILAR: med_a/med_b */
  double lo, hi;         /* interval of ratio; NaN when never looked */
  double level;          /* per-look two-sided error used for [lo, hi] */
  double seconds;        /* wall time spent sampling and deciding */
  const char *why;       /* for INCONCLUSIVE: what stopped sampling */
} perf__seq_result;

/* One ABBA round: returns 0 and the per-iteration times (seconds) of A and B,
 * or a negative error, which ends sampling. */
typedef int perf__round_fn(void *ctx, double *a, double *b);
/* Called after each look when set (for --verbose tracing). */
typedef void perf__look_fn(void *ctx, const perf__seq_result *now);

void perf__seq_defaults(perf__seq_cfg *cfg);
/* Rounds at which look k (1-based) happens under cfg. */
int perf__seq_look_at(const perf__seq_cfg *cfg, int k);
/* Decision for interval [lo, hi] of the claim's ratio: PASS, FAIL or
 * INCONCLUSIVE (keep sampling). */
perf__outcome perf__seq_decide(const perf__claim *claim, double lo, double hi);

/* Samples rounds from next() until a look decides, max_rounds is reached or
 * the budget is spent. Returns 0 with *out filled, or the first negative
 * error of next() or of the bootstrap (then *out holds what was measured). */
int perf__seq_run(const perf__seq_cfg *cfg, const perf__claim *claim,
                  perf__round_fn *next, perf__look_fn *trace, void *ctx,
                  perf__rng *rng, perf__seq_result *out);

/* Frees the buffers of a perf__seq_run that its round function left by
 * longjmp; a no-op otherwise. Never fails. */
void perf__seq_release(void);

#endif
