/* band.c — the band a series' next value falls in: the noise between runs of unchanged code. */
/* It comes from the series' earlier commits since its last change point: a
 * prediction interval on log values, its variance moderated across one GPU's
 * series, and how far outside it a new value lies. */
#define _DEFAULT_SOURCE /* M_PI */
#include "history/band.h"

#include <math.h>
#include <stdlib.h>

#include "history/changepoint.h"
#include "stats/dist.h"
#include "stats/stats.h"
#include "util/status.h"

/* The index in v[0..n) of the first value after the last change point
 * (0: none, or a series too short to have one); a suspected one is not
 * yet a level. Returns it, or a negative PERF__ code. */
static long last_cut(const double *v, size_t n)
{
  perf__changepoint_opts o;
  perf__changepoint cp[PERF__BAND_WINDOW];
  perf__changepoint_defaults(&o);
  if (n < o.min_segment + 1) return 0;
  int k = perf__changepoint_find(v, n, &o, cp, sizeof cp / sizeof cp[0]);
  if (k < 0) return k;
  size_t at = 0;
  for (int i = 0; i < k; i++)
    if (!cp[i].suspected && cp[i].at > at) at = cp[i].at;
  return (long)at;
}

/* The median of the within-run standard errors of v[from..n) (log
 * units), each from its interval [lo, hi] read as a 95 % one; 0 without
 * intervals. Never fails. */
static double within_run(const double *lo, const double *hi, size_t from, size_t n)
{
  double se[PERF__BAND_WINDOW];
  size_t k = 0;
  for (size_t i = from; lo && hi && i < n && k < PERF__BAND_WINDOW; i++)
    if (lo[i] > 0 && hi[i] > lo[i] && isfinite(hi[i])) se[k++] = (log(hi[i]) - log(lo[i])) / (2 * 1.96);
  return k ? perf__stats_median(se, k) : 0;
}

/* See band.h. */
int perf__band_of(const double *v, const double *lo, const double *hi, size_t n, perf__band *b)
{
  *b = (perf__band){0};
  size_t start = n > PERF__BAND_WINDOW ? n - PERF__BAND_WINDOW : 0;
  for (size_t i = start; i < n; i++)
    if (!(v[i] > 0) || !isfinite(v[i])) return PERF__EINVAL;
  long cut = last_cut(v + start, n - start);
  if (cut < 0) return (int)cut;
  b->from = start + (size_t)cut;
  b->cut = cut > 0;
  b->n = n - b->from;
  double s = 0, ss = 0;
  for (size_t i = b->from; i < n; i++) b->x[i - b->from] = log(v[i]), s += b->x[i - b->from];
  b->mean = b->n ? s / (double)b->n : NAN;
  for (size_t i = 0; i < b->n; i++) ss += (b->x[i] - b->mean) * (b->x[i] - b->mean);
  b->var = b->n > 1 ? ss / (double)(b->n - 1) : 0;
  b->floor = fmax(PERF__BAND_FLOOR, within_run(lo, hi, b->from, n));
  return 0;
}

/* A band's variance, at least the floor's. Never fails. */
static double floored(const perf__band *b)
{
  return b->var > b->floor * b->floor ? b->var : b->floor * b->floor;
}

/* Smyth's e of a band: log s^2 - digamma(d/2) + log(d/2), d = n - 1,
 * whose expectation is the log of the prior's variance plus a constant
 * of d0 alone. Never fails (n >= 2). */
static double e_of(const perf__band *b)
{
  double d = (double)(b->n - 1);
  return log(floored(b)) - perf__dist_digamma(d / 2) + log(d / 2);
}

/* See band.h. Each band's e (above) against its centre, the mean of its
 * log values: least squares gives the trend (with trend 0 the mean alone);
 * the residuals' variance less the mean of trigamma(d/2) is trigamma(d0/2)
 * (Smyth 2004, section 6.2; limma-trend when the prior follows the
 * centre). */
void perf__band_prior_of(const perf__band *b, size_t n, int trend, perf__band_prior *p)
{
  double sx = 0, se = 0, tri = 0, dsum = 0;
  size_t k = 0;
  *p = (perf__band_prior){0, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    if (b[i].n >= 2) {
      sx += b[i].mean, se += e_of(&b[i]), tri += perf__dist_trigamma((double)(b[i].n - 1) / 2), k++;
      dsum += (double)(b[i].n - 1);
    }
  if (k < (trend ? PERF__BAND_TREND_MIN : 3)) trend = 0;
  if (k < 3) return;
  double mx = sx / (double)k, me = se / (double)k, sxx = 0, sxe = 0, ss = 0;
  for (size_t i = 0; trend && i < n; i++)
    if (b[i].n >= 2) sxx += (b[i].mean - mx) * (b[i].mean - mx), sxe += (b[i].mean - mx) * (e_of(&b[i]) - me);
  double slope = trend && sxx > 0 ? sxe / sxx : 0;
  for (int pass = 0; pass < 2; pass++) {
    ss = 0;
    for (size_t i = 0; i < n; i++) {
      if (b[i].n < 2) continue;
      double r = e_of(&b[i]) - me - slope * (b[i].mean - mx);
      ss += r * r;
    }
    /* A trend no clearer than three standard errors is noise: fitting it
     * would scatter the series' priors at random (seen: 1.3 times the
     * stated false alarms on series that have none). */
    if (pass || slope == 0 || fabs(slope) > PERF__BAND_TREND_SE * sqrt(ss / (double)(k - 2) / sxx)) break;
    slope = 0;
  }
  double excess = ss / (double)(k - (slope != 0 ? 2 : 1)) - tri / (double)k;
  p->slope = slope, p->at = mx;
  /* No more degrees of freedom than the variances it was fitted to hold
   * together: with none beyond sampling's spread (d0 infinite), the prior
   * is their pooled variance, known to dsum degrees of freedom. */
  p->df = excess > 0 ? 2 * perf__dist_trigamma_inverse(excess) : INFINITY;
  if (p->df > dsum) p->df = dsum;
  p->var = exp(me + perf__dist_digamma(p->df / 2) - log(p->df / 2));
  if (p->df < PERF__BAND_PRIOR_MIN_DF) p->df = 0; /* too unlike to lend each other their noise */
}

/* The moderated variance of a sample variance var with d degrees of
 * freedom of band b under the prior p (at b's centre), at least b's
 * floor, and its degrees of freedom (*df). Never fails. */
static double moderated(double var, double d, const perf__band_prior *p, const perf__band *b,
                        double *df)
{
  double floor2 = b->floor * b->floor, v0 = p->var * exp(p->slope * (b->mean - p->at));
  if (var < floor2) var = floor2;
  *df = d;
  if (isinf(p->df)) *df = INFINITY, var = v0;
  else if (p->df > 0) var = (p->df * v0 + d * var) / (p->df + d), *df += p->df;
  return var < floor2 ? floor2 : var;
}

/* See band.h: each value's mean and sample variance without it by the
 * usual identities. */
size_t perf__band_left_out(const perf__band *b, const perf__band_prior *p, double *out)
{
  double n = (double)b->n, df;
  for (size_t i = 0; b->n >= 3 && i < b->n; i++) {
    double dev = b->x[i] - b->mean, ss = b->var * (n - 1) - n / (n - 1) * dev * dev;
    double var = moderated(ss > 0 ? ss / (n - 2) : 0, n - 2, p, b, &df);
    out[i] = n / (n - 1) * dev / sqrt(var * (1 + 1 / (n - 1)));
  }
  return b->n >= 3 ? b->n : 0;
}

/* See band.h. */
void perf__band_fall_of(const perf__band *b, const perf__band_prior *p, double y,
                        perf__band_fall *f)
{
  double d;
  f->sd = sqrt(moderated(b->var, (double)(b->n - 1), p, b, &d));
  f->df = d;
  f->t = (log(y) - b->mean) / (f->sd * sqrt(1 + 1 / (double)b->n));
  f->p_up = perf__dist_student_upper(f->t, d);
  f->p_down = perf__dist_student_upper(-f->t, d);
  f->rel = y / exp(b->mean) - 1;
}

/* The log-likelihood of r[0..n) under Student's t with nu degrees of
 * freedom (INFINITY: the normal) at scale s. Never fails. */
static double t_loglik(const double *r, size_t n, double nu, double s)
{
  double ll = -(double)n * log(s), k;
  if (isinf(nu)) {
    for (size_t i = 0; i < n; i++) ll -= 0.5 * (r[i] / s) * (r[i] / s);
    return ll - (double)n * 0.5 * log(2 * M_PI);
  }
  k = lgamma((nu + 1) / 2) - lgamma(nu / 2) - 0.5 * log(nu * M_PI);
  for (size_t i = 0; i < n; i++) ll += k - (nu + 1) / 2 * log1p((r[i] / s) * (r[i] / s) / nu);
  return ll;
}

/* The scale that maximises the likelihood of r[0..n) at nu (golden
 * section on log s over 0.05 .. 20, one likelihood a step), its
 * log-likelihood into *ll. Never fails. */
static double best_scale(const double *r, size_t n, double nu, double *ll)
{
  const double g = 0.6180339887498949;
  double lo = log(0.05), hi = log(20), a = hi - g * (hi - lo), b = lo + g * (hi - lo);
  double fa = t_loglik(r, n, nu, exp(a)), fb = t_loglik(r, n, nu, exp(b));
  for (int i = 0; i < 32; i++) {
    if (fa < fb) lo = a, a = b, fa = fb, b = lo + g * (hi - lo), fb = t_loglik(r, n, nu, exp(b));
    else hi = b, b = a, fb = fa, a = hi - g * (hi - lo), fa = t_loglik(r, n, nu, exp(a));
  }
  *ll = fa > fb ? fa : fb;
  return exp(fa > fb ? a : b);
}

/* See band.h. */
void perf__band_tails_of(const double *r, size_t n, perf__band_tails *t)
{
  static const double grid[] = {1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 15, 20, 30, 50, 100, INFINITY};
  *t = (perf__band_tails){INFINITY, 1};
  if (n < PERF__BAND_TAIL_MIN) return;
  double best = -INFINITY, ll;
  for (size_t k = 0; k < sizeof grid / sizeof grid[0]; k++) {
    double s = best_scale(r, n, grid[k], &ll);
    if (ll > best) best = ll, *t = (perf__band_tails){grid[k], s};
  }
}

/* See band.h. */
double perf__band_tail_p(const perf__band_tails *t, double dev)
{
  return perf__dist_student_upper(fabs(dev) / t->scale, t->nu);
}
