/* verdict.c — the verdict rule of a ratio-of-medians claim. */
/* Rounds drawn through a callback, looks at an interval, alpha spending, and
 * the decision. */
#include "worker/claim/verdict.h"

#include <math.h>
#include <stdlib.h>

#include "host/clock.h"

/* Never fails. */
void perf__verdict_defaults(perf__verdict_cfg *cfg)
{
  cfg->alpha = 0.05;
  cfg->max_looks = 12;
  cfg->first_look = 12;
  cfg->growth = 1.5;
  cfg->max_rounds = 512;
  cfg->reps = 10000;
  cfg->budget_s = 2.0;
  cfg->stretch = 5.0;
  cfg->idled_s = NULL;
  cfg->now_s = NULL;
  cfg->early = 1;
  cfg->prune = NULL;
}

/* Never fails; see verdict.h. */
int perf__verdict_early_rounds(const perf__verdict_cfg *cfg)
{
  int m = 2;
  while (m < cfg->first_look && ldexp(1, 1 - m) > cfg->alpha) m++;
  return cfg->early && m < cfg->first_look ? m : 0;
}

/* What to do at n rounds after elapsed seconds, the budget spent before
 * the first look. */
enum pace { PACE_STOP, PACE_STRETCH, PACE_EARLY };

/* STRETCH when first_look rounds at this pace still fit in the stretched
 * budget, or the early look's rounds do and are not all there yet; EARLY
 * when they are there; STOP otherwise. Never fails. */
static enum pace short_of_first_look(const perf__verdict_cfg *cfg, int n, double elapsed)
{
  double room = cfg->stretch * cfg->budget_s, per_round = elapsed / n;
  int m = perf__verdict_early_rounds(cfg);
  if (per_round * cfg->first_look <= room) return PACE_STRETCH;
  if (m && n >= m) return PACE_EARLY;
  return m && per_round * m <= room ? PACE_STRETCH : PACE_STOP;
}

/* The level of the last look after `made` looks at alpha/max_looks each:
 * what is left of alpha, so that the levels of all looks sum to alpha. A
 * budget that ends sampling early thus gives its one last look the alpha
 * of the looks that will never happen. Never fails. */
static double final_level(const perf__verdict_cfg *cfg, int made)
{
  double each = cfg->alpha / cfg->max_looks, left = cfg->alpha - made * each;
  return left > each ? left : each;
}

/* Never fails; the result is within [first_look, max_rounds]. */
int perf__verdict_look_at(const perf__verdict_cfg *cfg, int k)
{
  if (k >= cfg->max_looks) return cfg->max_rounds;
  double r = cfg->first_look;
  for (int i = 1; i < k; i++) r = ceil(r * cfg->growth);
  return r < cfg->max_rounds ? (int)r : cfg->max_rounds;
}

/* Never fails; see verdict.h. */
perf__verdict_side perf__verdict_side_of(double t, double lo, double hi)
{
  double up = 1 + t, down = 1 / up;
  if (!(lo <= hi)) return PERF__SIDE_UNDECIDED;
  if (lo >= up) return PERF__SIDE_FASTER;
  if (hi < down) return PERF__SIDE_SLOWER;
  if (t > 0 && lo >= down && hi <= up) return PERF__SIDE_TIED;
  return PERF__SIDE_UNDECIDED;
}

/* Never fails. NaN bounds give INCONCLUSIVE. */
perf_outcome perf__verdict_decide(const perf__verdict_claim *claim, double lo, double hi)
{
  if (!(lo <= hi)) return PERF_OUTCOME_INCONCLUSIVE;
  if (claim->kind == PERF__CLAIM_SIDE)
    return perf__verdict_side_of(claim->threshold, lo, hi) == PERF__SIDE_UNDECIDED
               ? PERF_OUTCOME_INCONCLUSIVE
               : PERF_OUTCOME_PASS;
  if (claim->kind == PERF__CLAIM_FASTER) {
    if (lo >= claim->threshold) return PERF_OUTCOME_PASS;
    if (hi < claim->threshold) return PERF_OUTCOME_FAIL;
    return PERF_OUTCOME_INCONCLUSIVE;
  }
  double up = 1 + claim->threshold, down = 1 / up;
  if (lo >= down && hi <= up) return PERF_OUTCOME_PASS;
  if (lo > up || hi < down) return PERF_OUTCOME_FAIL;
  return PERF_OUTCOME_INCONCLUSIVE;
}

/* Fills medians and the point ratio of the claim from n rounds. */
static void summarise(const perf__verdict_claim *claim, const double *a,
                      const double *b, int n, double *scratch,
                      perf__verdict_result *out)
{
  out->rounds = n;
  out->med_a = perf__stats_median_of(a, (size_t)n, scratch);
  out->med_b = perf__stats_median_of(b, (size_t)n, scratch);
  out->mad_a = perf__stats_mad_of(a, (size_t)n, scratch);
  out->mad_b = perf__stats_mad_of(b, (size_t)n, scratch);
  out->ratio = claim->kind != PERF__CLAIM_SIMILAR ? out->med_b / out->med_a
                                                 : out->med_a / out->med_b;
}

/* One look: interval and decision. Returns 0 or a bootstrap error. */
static int look(const perf__verdict_cfg *cfg, const perf__verdict_claim *claim,
                const double *a, const double *b, int n, perf__rng *rng,
                perf__verdict_result *out)
{
  const double *num = claim->kind != PERF__CLAIM_SIMILAR ? b : a;
  const double *den = claim->kind != PERF__CLAIM_SIMILAR ? a : b;
  perf__stats_boot boot = {out->level, cfg->reps, rng};
  int err = perf__stats_boot_ratio_ci(num, den, (size_t)n, &boot, &out->lo, &out->hi);
  if (err) return err;
  out->looks++;
  out->verdict = n >= cfg->first_look ? perf__verdict_decide(claim, out->lo, out->hi)
                                      : PERF_OUTCOME_INCONCLUSIVE;
  return 0;
}

/* The range of the rounds' own ratios num[i]/den[i]; NaN bounds when one
 * is not a number. */
static void ratio_range(const double *num, const double *den, int n, double *lo, double *hi)
{
  *lo = INFINITY, *hi = -INFINITY;
  for (int i = 0; i < n; i++) {
    double r = num[i] / den[i];
    if (r != r) {
      *lo = *hi = NAN;
      return;
    }
    if (r < *lo) *lo = r;
    if (r > *hi) *hi = r;
  }
}

/* The early look (see verdict.h): the hull of the rounds' range and the
 * bootstrap interval, both at level 2^(1-m). Returns 0 or a bootstrap
 * error. */
static int early_look(const perf__verdict_cfg *cfg, const perf__verdict_claim *claim,
                      const double *a, const double *b, int n, perf__rng *rng,
                      perf__verdict_result *out)
{
  const double *num = claim->kind != PERF__CLAIM_SIMILAR ? b : a;
  const double *den = claim->kind != PERF__CLAIM_SIMILAR ? a : b;
  double lo, hi, blo, bhi;
  out->level = ldexp(1, 1 - perf__verdict_early_rounds(cfg));
  perf__stats_boot boot = {out->level, cfg->reps, rng};
  int err = perf__stats_boot_ratio_ci(num, den, (size_t)n, &boot, &blo, &bhi);
  if (err) return err;
  ratio_range(num, den, n, &lo, &hi);
  out->lo = lo < blo ? lo : blo;
  out->hi = hi > bhi ? hi : bhi;
  if (lo != lo) out->lo = out->hi = NAN; /* a ratio not a number: undecided */
  out->looks++;
  out->early = 1;
  out->verdict = perf__verdict_decide(claim, out->lo, out->hi);
  return 0;
}

/* The buffers of the run in progress. A round function may leave the run
 * by longjmp (a CUDA error inside a workload ends the test): they stay
 * reachable here, and perf__verdict_release frees them. */
static double *live_rounds;

/* See verdict.h. */
void perf__verdict_release(void)
{
  free(live_rounds);
  live_rounds = NULL;
}

/* One claim's sampling and looks: perf__verdict_run's state. */
typedef struct run {
  const perf__verdict_cfg *cfg;
  const perf__verdict_claim *claim;
  perf__verdict_round_fn *next;
  void *ctx;
  perf__verdict_result *out;
  double *a, *b, *scratch; /* the rounds' values, and room for the bootstrap */
  int n, k, due;           /* rounds kept, the look due next and at how many rounds */
  double (*now)(void);
  double t0, idle0;
  int err;                 /* the first error: PERF__ENOMEM, next()'s or the bootstrap's */
} run;

/* Sampling seconds so far: the idling cfg counts (waiting out a power cap)
 * left out. Never fails. */
static double sampled_s(const run *r)
{
  return r->now() - r->t0 - (r->cfg->idled_s ? r->cfg->idled_s() - r->idle0 : 0);
}

/* Takes the next round into r (a disturbed one is counted as skipped, not
 * kept) and says in *elapsed the sampling seconds so far (the clock read
 * once per round) and in *spent whether they spent the budget. Returns 1
 * when the loop goes on to the look checks, 0 when it stops (r->err, or
 * out->why when sampling stopped), -1 for another round first. */
static int take_round(run *r, double *elapsed, int *spent)
{
  int err = r->next(r->ctx, &r->a[r->n], &r->b[r->n]);
  if (err == PERF__VERDICT_STOP) {
    r->out->why = "sampling stopped";
    return 0;
  }
  int skip = err == PERF__VERDICT_SKIP;
  if (skip) err = 0, r->out->skipped++;
  if ((r->err = err)) return 0;
  r->n += !skip;
  *elapsed = sampled_s(r);
  *spent = r->cfg->budget_s > 0 && *elapsed >= r->cfg->budget_s;
  if (skip && !*spent) return -1;
  if (!r->n) {
    r->out->why = "time budget spent: every round was disturbed";
    return 0;
  }
  return 1;
}

/* The rounds cfg's prune keeps (counting the rest as skipped). Returns 1
 * to look now, -1 for more rounds first, 0 to stop (every round pruned).
 * Never fails. */
static int prune(run *r, int spent)
{
  if (!r->cfg->prune) return 1;
  int kept = r->cfg->prune(r->ctx, r->a, r->b, r->n);
  r->out->skipped += r->n - kept;
  r->n = kept;
  if (r->n < r->due && !spent) return -1;
  if (!r->n) {
    r->out->why = "time budget spent: every round was disturbed";
    return 0;
  }
  return 1;
}

/* Why an undecided look is the last (its out->why), or NULL to go on.
 * Never fails. */
static const char *why_last(const run *r, enum pace pace, int last, int spent)
{
  if (pace == PACE_EARLY)
    return "time budget spent before the first look, even stretched, and the early look did "
           "not decide (the rounds' ratios or the bootstrap straddle): raise --budget";
  if (r->n < r->cfg->first_look)
    return "time budget spent before the first look, even stretched: raise --budget";
  if (last) return spent ? "time budget spent" : "largest sample reached";
  return NULL;
}

/* A look at r's rounds: the interval and its decision (traced). Returns 1
 * to sample on, 0 when decided or stopped (out->why says why, r->err on an
 * error). */
static int look_now(run *r, enum pace pace, int spent, perf__verdict_look_fn *trace,
                    perf__rng *rng)
{
  const perf__verdict_cfg *cfg = r->cfg;
  perf__verdict_result *out = r->out;
  if (r->n < 2) {
    out->why = "time budget spent before two rounds";
    return 0;
  }
  int last = spent || r->n >= cfg->max_rounds || r->k >= cfg->max_looks;
  if (last) out->level = final_level(cfg, out->looks);
  summarise(r->claim, r->a, r->b, r->n, r->scratch, out);
  r->err = pace == PACE_EARLY ? early_look(cfg, r->claim, r->a, r->b, r->n, rng, out)
                              : look(cfg, r->claim, r->a, r->b, r->n, rng, out);
  if (r->err) return 0;
  if (trace) trace(r->ctx, out);
  if (out->verdict != PERF_OUTCOME_INCONCLUSIVE) return 0;
  if ((out->why = why_last(r, pace, last, spent))) return 0;
  r->due = perf__verdict_look_at(cfg, ++r->k);
  return 1;
}

/* One step of the loop: a round, then a look when one is due. Returns 1
 * to go on, 0 when the claim is decided or sampling stopped. */
static int step(run *r, perf__verdict_look_fn *trace, perf__rng *rng)
{
  double elapsed = 0;
  int spent = 0, go = take_round(r, &elapsed, &spent);
  if (go <= 0) return go < 0;
  enum pace pace = spent && r->n < r->cfg->first_look
                       ? short_of_first_look(r->cfg, r->n, elapsed)
                       : PACE_STOP;
  if (pace == PACE_STRETCH) {
    r->out->stretched = 1;
    spent = 0;
  }
  if (r->n < r->due && !spent) return 1;
  if ((go = prune(r, spent)) <= 0) return go < 0;
  return look_now(r, pace, spent, trace, rng);
}

/* Errors: PERF__ENOMEM, or the first error of next() or the bootstrap. */
int perf__verdict_run(const perf__verdict_cfg *cfg, const perf__verdict_claim *claim,
                  perf__verdict_round_fn *next, perf__verdict_look_fn *trace, void *ctx,
                  perf__rng *rng, perf__verdict_result *out)
{
  run r = {.cfg = cfg, .claim = claim, .next = next, .ctx = ctx, .out = out, .k = 1,
           .now = cfg->now_s ? cfg->now_s : perf__clock_now};
  r.t0 = r.now(), r.idle0 = cfg->idled_s ? cfg->idled_s() : 0;
  size_t cap = (size_t)cfg->max_rounds;
  perf__verdict_release();
  live_rounds = malloc(3 * cap * sizeof *live_rounds);
  r.a = live_rounds, r.b = r.a ? r.a + cap : NULL, r.scratch = r.a ? r.a + 2 * cap : NULL;
  *out = (perf__verdict_result){.verdict = PERF_OUTCOME_INCONCLUSIVE, .lo = NAN,
                            .hi = NAN, .med_a = NAN, .med_b = NAN,
                            .mad_a = NAN, .mad_b = NAN,
                            .ratio = NAN,
                            .level = cfg->alpha / cfg->max_looks};
  r.err = (!r.a || !r.b || !r.scratch) ? PERF__ENOMEM : 0;
  r.due = perf__verdict_look_at(cfg, 1);
  while (!r.err && step(&r, trace, rng)) {
  }
  if (r.n > 0 && out->rounds != r.n) summarise(claim, r.a, r.b, r.n, r.scratch, out);
  out->seconds = r.now() - r.t0;
  perf__verdict_release();
  return r.err;
}
