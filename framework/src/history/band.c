/* band.c — the noise between runs of unchanged code: from a series' earlier commits (since its last change point), the band its next commit's value falls in, a prediction interval on log values whose variance is moderated across one GPU's series, and how far outside it a new value lies. */
#define _DEFAULT_SOURCE /* M_PI */
#include "history/band.h"

#include <math.h>
#include <stdlib.h>

#include "base/changepoint.h"
#include "base/dist.h"
#include "base/status.h"

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

/* See band.h. */
int perf__band_of(const double *v, size_t n, perf__band *b)
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
  for (size_t i = b->from; i < n; i++) ss += (log(v[i]) - b->mean) * (log(v[i]) - b->mean);
  b->var = b->n > 1 ? ss / (double)(b->n - 1) : 0;
  return 0;
}

/* A band's variance, at least the floor's. Never fails. */
static double floored(const perf__band *b)
{
  return b->var > PERF__BAND_FLOOR * PERF__BAND_FLOOR ? b->var : PERF__BAND_FLOOR * PERF__BAND_FLOOR;
}

/* See band.h. Each variance s^2 with d = n - 1 degrees of freedom gives
 * e = log s^2 - digamma(d/2) + log(d/2), whose expectation is log s0^2 +
 * digamma(d0/2)... (Smyth 2004, section 6.2): the mean of e, and its
 * variance less the mean of trigamma(d/2), which is trigamma(d0/2). */
void perf__band_prior_of(const perf__band *b, size_t n, perf__band_prior *p)
{
  double se = 0, tri = 0, ss = 0;
  size_t k = 0;
  *p = (perf__band_prior){0, 0};
  for (size_t i = 0; i < n; i++) {
    if (b[i].n < 2) continue;
    double d = (double)(b[i].n - 1);
    se += log(floored(&b[i])) - perf__dist_digamma(d / 2) + log(d / 2);
    tri += perf__dist_trigamma(d / 2);
    k++;
  }
  if (k < 3) return;
  double mean = se / (double)k;
  for (size_t i = 0; i < n; i++) {
    if (b[i].n < 2) continue;
    double d = (double)(b[i].n - 1);
    double e = log(floored(&b[i])) - perf__dist_digamma(d / 2) + log(d / 2) - mean;
    ss += e * e;
  }
  double excess = ss / (double)(k - 1) - tri / (double)k;
  if (!(excess > 0)) {
    p->df = INFINITY;
    p->var = exp(mean);
    return;
  }
  p->df = 2 * perf__dist_trigamma_inverse(excess);
  p->var = exp(mean + perf__dist_digamma(p->df / 2) - log(p->df / 2));
}

/* The moderated variance of a sample variance var with d degrees of
 * freedom under the prior p, and its degrees of freedom (*df). Never
 * fails. */
static double moderated(double var, double d, const perf__band_prior *p, double *df)
{
  double floor2 = PERF__BAND_FLOOR * PERF__BAND_FLOOR;
  if (var < floor2) var = floor2;
  *df = d;
  if (isinf(p->df)) *df = INFINITY, var = p->var;
  else if (p->df > 0) var = (p->df * p->var + d * var) / (p->df + d), *df += p->df;
  return var < floor2 ? floor2 : var;
}

/* See band.h: each value's mean and sample variance without it by the
 * usual identities. */
size_t perf__band_left_out(const perf__band *b, const perf__band_prior *p, double *out)
{
  double n = (double)b->n, df;
  for (size_t i = 0; b->n >= 3 && i < b->n; i++) {
    double dev = b->x[i] - b->mean, ss = b->var * (n - 1) - n / (n - 1) * dev * dev;
    double var = moderated(ss > 0 ? ss / (n - 2) : 0, n - 2, p, &df);
    out[i] = n / (n - 1) * dev / sqrt(var * (1 + 1 / (n - 1)));
  }
  return b->n >= 3 ? b->n : 0;
}

/* See band.h. */
void perf__band_fall_of(const perf__band *b, const perf__band_prior *p, double y,
                        perf__band_fall *f)
{
  double d;
  f->sd = sqrt(moderated(b->var, (double)(b->n - 1), p, &d));
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
 * section on log s over 0.05 .. 20), its log-likelihood into *ll. Never
 * fails. */
static double best_scale(const double *r, size_t n, double nu, double *ll)
{
  const double g = 0.6180339887498949;
  double lo = log(0.05), hi = log(20);
  for (int i = 0; i < 60; i++) {
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
    if (t_loglik(r, n, nu, exp(a)) < t_loglik(r, n, nu, exp(b))) lo = a;
    else hi = b;
  }
  *ll = t_loglik(r, n, nu, exp((lo + hi) / 2));
  return exp((lo + hi) / 2);
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
