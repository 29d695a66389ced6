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
  int err = perf__stats_boot_ratio_ci(num, den, (size_t)n, out->level, cfg->reps,
                                rng, &out->lo, &out->hi);
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
  int err = perf__stats_boot_ratio_ci(num, den, (size_t)n, out->level, cfg->reps, rng,
                                      &blo, &bhi);
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

/* Never fails; see verdict.h. */
const char *perf__verdict_note(const perf__verdict_result *r)
{
  if (r->early)
    return r->stretched ? " (budget stretched: rounds too slow for the first look; early "
                          "look: every round's ratio and the bootstrap)"
                        : " (rounds too slow for the first look; early look: every round's "
                          "ratio and the bootstrap)";
  return r->stretched ? " (budget stretched: rounds too slow for the first look)" : "";
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

/* Errors: PERF__ENOMEM, or the first error of next() or the bootstrap. */
int perf__verdict_run(const perf__verdict_cfg *cfg, const perf__verdict_claim *claim,
                  perf__verdict_round_fn *next, perf__verdict_look_fn *trace, void *ctx,
                  perf__rng *rng, perf__verdict_result *out)
{
  double (*now)(void) = cfg->now_s ? cfg->now_s : perf__clock_now;
  double t0 = now(), idle0 = cfg->idled_s ? cfg->idled_s() : 0;
  size_t cap = (size_t)cfg->max_rounds;
  perf__verdict_release();
  live_rounds = malloc(3 * cap * sizeof *live_rounds);
  double *a = live_rounds, *b = a ? a + cap : NULL, *scratch = a ? a + 2 * cap : NULL;
  *out = (perf__verdict_result){.verdict = PERF_OUTCOME_INCONCLUSIVE, .lo = NAN,
                            .hi = NAN, .med_a = NAN, .med_b = NAN,
                            .mad_a = NAN, .mad_b = NAN,
                            .ratio = NAN,
                            .level = cfg->alpha / cfg->max_looks};
  int err = (!a || !b || !scratch) ? PERF__ENOMEM : 0;
  int n = 0, k = 1, due = perf__verdict_look_at(cfg, 1);
  while (!err) {
    err = next(ctx, &a[n], &b[n]);
    if (err == PERF__VERDICT_STOP) {
      out->why = "sampling stopped";
      err = 0;
      break;
    }
    int skip = err == PERF__VERDICT_SKIP;
    if (skip) err = 0, out->skipped++;
    if (err) break;
    n += !skip;
    double elapsed = now() - t0 - (cfg->idled_s ? cfg->idled_s() - idle0 : 0);
    int spent = cfg->budget_s > 0 && elapsed >= cfg->budget_s;
    if (skip && !spent) continue;
    if (!n) {
      out->why = "time budget spent: every round was disturbed";
      break;
    }
    enum pace pace = spent && n < cfg->first_look ? short_of_first_look(cfg, n, elapsed)
                                                  : PACE_STOP;
    if (pace == PACE_STRETCH) {
      out->stretched = 1;
      spent = 0;
    }
    if (n < due && !spent) continue;
    if (cfg->prune) {
      int kept = cfg->prune(ctx, a, b, n);
      out->skipped += n - kept;
      n = kept;
      if (n < due && !spent) continue;
      if (!n) {
        out->why = "time budget spent: every round was disturbed";
        break;
      }
    }
    if (n < 2) {
      out->why = "time budget spent before two rounds";
      break;
    }
    int last = spent || n >= cfg->max_rounds || k >= cfg->max_looks;
    if (last) out->level = final_level(cfg, out->looks);
    summarise(claim, a, b, n, scratch, out);
    err = pace == PACE_EARLY ? early_look(cfg, claim, a, b, n, rng, out)
                             : look(cfg, claim, a, b, n, rng, out);
    if (err) break;
    if (trace) trace(ctx, out);
    if (out->verdict != PERF_OUTCOME_INCONCLUSIVE) break;
    if (pace == PACE_EARLY) {
      out->why = "time budget spent before the first look, even stretched, and the early "
                 "look did not decide (the rounds' ratios or the bootstrap straddle): raise "
                 "--budget";
      break;
    }
    if (n < cfg->first_look) {
      out->why = "time budget spent before the first look, even stretched: raise --budget";
      break;
    }
    if (last) {
      out->why = spent ? "time budget spent" : "largest sample reached";
      break;
    }
    due = perf__verdict_look_at(cfg, ++k);
  }
  if (n > 0 && out->rounds != n) summarise(claim, a, b, n, scratch, out);
  out->seconds = now() - t0;
  perf__verdict_release();
  return err;
}
