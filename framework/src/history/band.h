/* band.h — the band a series' next value falls in: the noise between runs of unchanged code. */
#ifndef PERF_BAND_H
#define PERF_BAND_H

#include <stddef.h>

/* Why the median of one run differs from the next run's on unchanged
 * code: another process, another clock, another placement in memory; the
 * within-run interval of either knows nothing of it. The band measures it
 * from the series itself: the values of its earlier commits, as log
 * values (a noise of a few per cent of the value, whatever the value),
 * since the last change point --trend's method finds among them (a level
 * the code left is not the noise of the level it is at). Its variance is
 * that of a few values, so it is moderated (Smyth 2004, limma's
 * empirical Bayes): the sample variances of all series of one GPU give a
 * prior, a scaled inverse chi-square with d0 degrees of freedom, and
 * each series' variance is pulled toward the prior's by its own degrees
 * of freedom against d0. Series that are all alike get a large d0 and
 * the normal's tails; a GPU whose series differ in noise gets a small one
 * and each series keeps its own. A new value y then has Student's t
 *
 *   t = (log y - mean) / (s~ * sqrt(1 + 1/n)),   d0 + n - 1 degrees of freedom,
 *
 * the prediction interval's statistic (s~ the moderated deviation). */

enum {
  PERF__BAND_MIN_COMMITS = 5, /* a band of fewer earlier commits decides nothing */
  PERF__BAND_WINDOW = 20      /* the newest earlier commits a band reads */
};

/* The least standard deviation between runs a band assumes, in log units
 * (0.1 %): no two processes measure a median closer than that, and a band
 * of identical values must not call the next 0.01 % a change. */
#define PERF__BAND_FLOOR 0.001

/* A prior's trend is kept when its slope is at least this many standard
 * errors from none. */
#define PERF__BAND_TREND_SE 3.0

/* The fewest left-out deviations a fit of tails reads; the fewest bands
 * a prior's trend is fitted to; the fewest degrees of freedom a prior
 * lends (a prior worth fewer runs says the series differ too much in
 * noise to lend each other theirs: under it, a quiet series among noisy
 * ones would take their noise: on an H200 a 0.4 % series got 1.7 %). */
enum { PERF__BAND_TAIL_MIN = 30, PERF__BAND_TREND_MIN = 8, PERF__BAND_PRIOR_MIN_DF = 4 };

typedef struct perf__band {
  size_t n;          /* earlier commits in it */
  size_t from;       /* the index (in the values given) of its first
                        commit: past the last change point, else the
                        window's start */
  int cut;           /* 1: it starts at a change point */
  double mean, var;  /* of the log values; var the sample variance, 0 for n < 2 */
  double floor;      /* the least deviation it assumes: PERF__BAND_FLOOR, or the
                        median within-run standard error of its values
                        (no run's value is surer than its own interval) */
  double x[PERF__BAND_WINDOW]; /* its n log values */
} perf__band;

/* The tails of a group's noise between runs: Student's t with nu degrees
 * of freedom (INFINITY: the normal's) at scale in the bands' deviations,
 * fitted to the bands' left-out deviations. */
typedef struct perf__band_tails {
  double nu, scale;
} perf__band_tails;

/* Smyth's prior: d0 degrees of freedom and the variance s0^2 of a band
 * centred at `at`, s0^2 exp(slope (centre - at)) at another centre (a
 * trend: a GPU's short workloads vary more between runs than its long
 * ones). df 0: no prior (each series on its own); INFINITY: every series
 * has the prior's variance. */
typedef struct perf__band_prior {
  double df, var, slope, at;
} perf__band_prior;

/* Where one value falls against a band. */
typedef struct perf__band_fall {
  double t, df;         /* the statistic above and its degrees of freedom */
  double p_up, p_down;  /* one-sided: a value this high or higher, this low or lower */
  double sd;            /* the moderated deviation between runs s~ (log units) */
  double rel;           /* y over the band's centre exp(mean), less 1 */
} perf__band_fall;

/* The band of v[0..n), a series' values at its earlier commits, oldest
 * first (positive; the newest PERF__BAND_WINDOW are read): those since
 * the last change point among them (perf__changepoint_find with --trend's
 * options; a suspected one, a few newest values apart, is not yet a
 * level and stays in). lo[i] and hi[i] (or NULL) are each value's
 * within-run interval: the noise between runs is never taken as less
 * than the noise within one (five values of a ratio within 0.1 % of each
 * other, each known to +-0.8 %, were a fluke on an H200, and the next run
 * 2.8 % off no regression). Returns 0, PERF__EINVAL for a value that is
 * not positive and finite, or PERF__ENOMEM. */
int perf__band_of(const double *v, const double *lo, const double *hi, size_t n, perf__band *b);

/* The prior from the bands b[0..n) of one GPU's series of one kind:
 * limma's fitFDist by moments over those with n >= 2 (each variance at
 * least PERF__BAND_FLOOR squared), with trend its variance a log-linear
 * function of the bands' centres (limma-trend; from PERF__BAND_TREND_MIN
 * bands on); no prior (df 0) with fewer than three bands, or one worth
 * fewer than PERF__BAND_PRIOR_MIN_DF degrees of freedom. Never fails. */
void perf__band_prior_of(const perf__band *b, size_t n, int trend, perf__band_prior *p);

/* Each of b's values against the others, left out of them, under the
 * prior p: the statistic perf__band_fall_of gives a value the band does
 * not hold, into out[0..b->n). Returns how many (none for fewer than 3
 * values). Never fails. */
size_t perf__band_left_out(const perf__band *b, const perf__band_prior *p, double *out);

/* Fits Student's t to the deviations r[0..n) by maximum likelihood (nu
 * on a grid from 1.5 to 100 and the normal, the scale by golden section
 * for each): what a group's history shows of its tails. Fewer than
 * PERF__BAND_TAIL_MIN deviations show nothing: the normal at scale 1.
 * Never fails. */
void perf__band_tails_of(const double *r, size_t n, perf__band_tails *t);

/* The one-sided chance under tails t of a deviation at least |dev| (the
 * band's statistic). Never fails. */
double perf__band_tail_p(const perf__band_tails *t, double dev);

/* Where y (positive) falls against b (n >= 2) with the prior p. Never
 * fails. */
void perf__band_fall_of(const perf__band *b, const perf__band_prior *p, double y,
                        perf__band_fall *f);

#endif
