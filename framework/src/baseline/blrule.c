/* blrule.c — a baseline entry's statistics: clean runs, tolerance, and the check's decision. */
/* Which update runs are clean, the tolerance their spread allows, and the
 * check's decision with that spread. */
#include "baseline/blrule.h"

#include <math.h>
#include <string.h>

#include "host/clock.h"
#include "stats/dist.h"
#include "stats/stats.h"
#include "util/status.h"
#include "perfgate.h"

/* Standard deviation of v[0..n) about their mean; 0 for n < 2. */
static double sd(const double *v, int n)
{
  if (n < 2) return 0;
  double mean = 0, ss = 0;
  for (int i = 0; i < n; i++) mean += v[i];
  mean /= n;
  for (int i = 0; i < n; i++) ss += (v[i] - mean) * (v[i] - mean);
  return sqrt(ss / (n - 1));
}

/* The highest known SM clock of n runs (0: none known). */
static unsigned fastest(const unsigned *mhz, int n)
{
  unsigned top = 0;
  for (int i = 0; mhz && i < n; i++)
    if (mhz[i] > top) top = mhz[i];
  return top;
}

/* Marks the runs to leave out in f->why and each run's offset in f->off. */
static void judge(const double *v, const unsigned *mhz, int n, perf__blrule_fit *f)
{
  double scratch[PERF__BL_MAX_RUNS];
  double mid = perf__stats_median_of(v, (size_t)n, scratch);
  double mad = perf__stats_mad_of(v, (size_t)n, scratch);
  double far = fmax(PERF__BLR_OUT_Z * 1.4826 * mad, PERF__BLR_OUT_MIN * mid);
  unsigned top = f->top_mhz = fastest(mhz, n);
  for (int i = 0; i < n; i++) {
    f->off[i] = (v[i] - mid) / mid;
    if (mhz && mhz[i] && mhz[i] < (1 - PERF__BL_CLOCK_MOVED) * top && v[i] - mid > 1.4826 * mad)
      f->why[i] = PERF__BLR_LOW_CLOCK;
    else if (fabs(v[i] - mid) > far)
      f->why[i] = PERF__BLR_OUTLIER;
  }
}

/* See blrule.h. */
int perf__blrule_fit_runs(const double *v, const unsigned *mhz, int n, perf__blrule_fit *f)
{
  memset(f, 0, sizeof *f);
  if (n < 1 || n > PERF__BL_MAX_RUNS) return PERF__EINVAL;
  for (int i = 0; i < n; i++)
    if (!(v[i] > 0) || !isfinite(v[i])) return PERF__EINVAL;
  judge(v, mhz, n, f);
  double clean[PERF__BL_MAX_RUNS], scratch[PERF__BL_MAX_RUNS];
  for (int i = 0; i < n; i++)
    if (f->why[i] == PERF__BLR_CLEAN) clean[f->nclean++] = v[i];
  f->too_few = n - f->nclean > perf__blrule_max_out(n);
  const double *use = f->too_few ? v : clean;
  int k = f->too_few ? n : f->nclean;
  f->nruns = n;
  f->median = perf__stats_median_of(use, (size_t)k, scratch);
  f->spread = sd(use, k) / f->median;
  f->floor = 0;
  f->line = PERF__BLR_WRITE_CEILING;
  perf__blrule_raise_floor(f, PERF__BLR_FLOOR);
  return 0;
}

/* See blrule.h. */
int perf__blrule_fit_all(const double *v, int n, perf__blrule_fit *f)
{
  int rc = perf__blrule_fit_runs(v, NULL, n, f);
  if (rc) return rc;
  double scratch[PERF__BL_MAX_RUNS], floor = f->floor;
  memset(f->why, 0, sizeof f->why);
  f->nclean = n, f->too_few = 0;
  f->median = perf__stats_median_of(v, (size_t)n, scratch);
  f->spread = sd(v, n) / f->median;
  f->floor = 0;
  perf__blrule_raise_floor(f, floor);
  return 0;
}

/* See blrule.h. */
int perf__blrule_max_out(int n)
{
  int more = (n - 2) / PERF__BLR_OUT_EVERY;
  return more > PERF__BLR_MAX_OUT ? more : PERF__BLR_MAX_OUT;
}

/* See blrule.h: t with k - 1 degrees of freedom whose upper tail is
 * PERF__BLR_Z's with PERF__BLR_RUNS - 1, by bisection (the tail falls as
 * t grows), kept per k after the first call. */
double perf__blrule_z(int k)
{
  static double z[PERF__BL_MAX_RUNS + 1];
  if (k <= PERF__BLR_RUNS) return PERF__BLR_Z;
  if (k > PERF__BL_MAX_RUNS) k = PERF__BL_MAX_RUNS;
  if (z[k] > 0) return z[k];
  double tail = perf__dist_student_upper(PERF__BLR_Z, PERF__BLR_RUNS - 1), lo = 1, hi = PERF__BLR_Z;
  for (int i = 0; i < 60; i++) {
    double mid = (lo + hi) / 2;
    if (perf__dist_student_upper(mid, k - 1) > tail) lo = mid;
    else hi = mid;
  }
  return z[k] = (lo + hi) / 2;
}

/* The tolerance k clean runs of relative spread s allow, above floor. */
static double tolerance_of(double s, int k, double floor)
{
  double t = perf__blrule_z(k) * s * sqrt(1 + 1.0 / (k > 0 ? k : 1));
  return fmin(PERF__BL_TOLERANCE_MAX, fmax(floor, t));
}

/* See blrule.h. */
void perf__blrule_raise_floor(perf__blrule_fit *f, double floor)
{
  if (floor > f->floor) f->floor = fmin(floor, PERF__BL_TOLERANCE_MAX);
  f->tolerance = tolerance_of(f->spread, f->too_few ? f->nruns : f->nclean, f->floor);
  f->wide = f->tolerance > PERF__BLR_CEILING;
}

/* The chi-square quantile with df degrees of freedom at the normal's
 * quantile z (Wilson-Hilferty: within 2 % from 2 degrees of freedom). */
static double chi2_at(int df, double z)
{
  double a = 2.0 / (9 * df), c = 1 - a + z * sqrt(a);
  return df * c * c * c;
}

/* 1 when an entry of k clean runs (last: the most it may get), whose
 * spread lies between low and high (its 80 % bounds), is sure of its side
 * of line: its floor is over it, or its tolerance is under it at high, or
 * over it at low with the most runs. Never fails. */
static int sure_of(const perf__blrule_fit *f, int k, int last, double low, double high, double line)
{
  return f->floor > line || tolerance_of(high, k, f->floor) <= line ||
         tolerance_of(low, last, f->floor) > line;
}

/* See blrule.h. */
perf__blrule_settle perf__blrule_settled(const perf__blrule_fit *f, int max_runs)
{
  int n = f->nruns, out = n - f->nclean;
  if (n >= max_runs || out > perf__blrule_max_out(max_runs) || f->floor > f->line)
    return PERF__BLR_SETTLED; /* no run can change it */
  if (out > (n - 2) / PERF__BLR_OUT_EVERY)
    return f->too_few ? PERF__BLR_MORE_DISAGREE : PERF__BLR_MORE_LEFT_OUT;
  int k = f->nclean, df = k - 1, last = max_runs - out;
  if (df < 1) return PERF__BLR_SETTLED;
  double high = f->spread * sqrt(df / chi2_at(df, -PERF__BLR_SETTLE_Z));
  double low = f->spread * sqrt(df / chi2_at(df, PERF__BLR_SETTLE_Z));
  if (sure_of(f, k, last, low, high, PERF__BLR_CEILING) && sure_of(f, k, last, low, high, f->line))
    return PERF__BLR_SETTLED;
  return PERF__BLR_MORE_NEAR_CEILING;
}

/* See blrule.h. */
const char *perf__blrule_settle_word(perf__blrule_settle s)
{
  static const char *const words[] = {
#define PERF__BLR_SETTLE_WORD(id, word) word,
      PERF__BLR_SETTLE_MAP(PERF__BLR_SETTLE_WORD)
#undef PERF__BLR_SETTLE_WORD
  };
  return (unsigned)s < sizeof words / sizeof words[0] ? words[s] : "?";
}

static const struct {
  const char *word, *why;
} paces[] = {
#define PERF__BLR_PACE_ROW(id, word, why) {word, why},
    PERF__BLR_PACE_MAP(PERF__BLR_PACE_ROW)
#undef PERF__BLR_PACE_ROW
};

/* See blrule.h. */
const char *perf__blrule_pace_word(perf__blrule_pace p) { return paces[p].word; }
const char *perf__blrule_pace_why(perf__blrule_pace p) { return paces[p].why; }

/* See blrule.h. */
perf__blrule_pace perf__blrule_pace_of(const char *clock, double queue_share, int uses_gpu,
                                       const perf__blrule_traced *t, double median_s)
{
  int c = perf__clock_of_name(clock);
  if (!uses_gpu || c < 0) return PERF__BLR_PACE_GPU;
  if (perf__clock_queues_host(c))
    return queue_share >= PERF__BLR_LAUNCH_BOUND ? PERF__BLR_PACE_LAUNCH : PERF__BLR_PACE_GPU;
  if (!perf__clock_host_side(c)) return PERF__BLR_PACE_GPU;
  if (perf__clock_drains_after(c)) return PERF__BLR_PACE_SUBMIT; /* the GPU's wait is not in it */
  if (!t) return PERF__BLR_PACE_GPU; /* no trace: not known */
  if (t->pageable) return PERF__BLR_PACE_PAGEABLE;
  return perf__blrule_gpu_bound(t, median_s) ? PERF__BLR_PACE_GPU : PERF__BLR_PACE_HOST_SHARE;
}

/* See blrule.h. */
int perf__blrule_traced_of(const perf__trace *t, perf__blrule_traced *out)
{
  *out = (perf__blrule_traced){perf__trace_pageable(t), perf__trace_device_s(t)};
  return t->calls > 0 && t->n > 0;
}

/* See blrule.h. */
int perf__blrule_gpu_bound(const perf__blrule_traced *t, double median_s)
{
  return t->device_s >= PERF__BLR_GPU_PACED * median_s;
}

/* See blrule.h. */
int perf__blrule_catches(const perf__baseline_entry *e, double change)
{
  double rel;
  long samples = e->nruns > 0 ? e->samples / e->nruns : e->samples;
  return perf__blrule_compare(e, e->median_s * (1 + change), e->spread_s, samples > 0 ? samples : 1,
                              &rel, NULL) == PERF__BL_SLOWER;
}

/* See blrule.h. */
double perf__blrule_spread(const perf__baseline_entry *e)
{
  if (e->nruns < 2 || !(e->median_s > 0)) return -1;
  return sd(e->runs_s, e->nruns) / e->median_s;
}

/* See blrule.h. */
double perf__blrule_precision(const perf__baseline_entry *e, double rel_min)
{
  double s = e ? perf__blrule_spread(e) : -1;
  return s > 0 ? fmax(rel_min, s / 4) : rel_min;
}

/* Standard error of a median from its MAD over n samples (normal
 * approximation). */
static double median_se(double mad, long n)
{
  return 1.2533 * 1.4826 * mad / sqrt((double)(n > 0 ? n : 1));
}

/* See blrule.h. */
perf__baseline_change perf__blrule_compare(const perf__baseline_entry *base, double median,
                                           double mad, long samples, double *rel, double *se)
{
  double diff = median - base->median_s, s = perf__blrule_spread(base);
  double var = pow(median_se(mad, samples), 2);
  if (s >= 0)
    var += pow(s * base->median_s, 2) * (1 + 1.0 / base->nruns);
  else
    var += pow(median_se(base->spread_s, base->samples), 2);
  *rel = diff / base->median_s;
  if (se) *se = sqrt(var) / base->median_s;
  if (fabs(diff) <= PERF__BLR_SIG * sqrt(var) || fabs(*rel) <= base->tolerance)
    return PERF__BL_SAME;
  return diff > 0 ? PERF__BL_SLOWER : PERF__BL_FASTER;
}

/* See blrule.h. */
int perf__blrule_clock_explains(const perf__baseline_entry *base, double median, unsigned mhz)
{
  unsigned was = base->sm_clock.median;
  if (!was || !mhz || !(base->median_s > 0) || mhz >= (1 - PERF__BL_CLOCK_MOVED) * was) return 0;
  double cycles = median / base->median_s * mhz / was - 1;
  return cycles <= base->tolerance;
}

static const struct {
  const char *name, *clock;
} refs[] = {
#define PERF__BLR_REF_ROW(id, name, clock) {name, clock},
    PERF__BLR_REFERENCE_MAP(PERF__BLR_REF_ROW)
#undef PERF__BLR_REF_ROW
};

/* See blrule.h. */
const char *perf__blrule_ref_name(perf__blrule_ref k) { return refs[k].name; }
const char *perf__blrule_ref_clock(perf__blrule_ref k) { return refs[k].clock; }

/* See blrule.h. */
int perf__blrule_ref_applies(perf__blrule_ref k, const char *clock, double queue_share,
                             int uses_gpu)
{
  int c = perf__clock_of_name(clock);
  int launch_bound = perf__clock_queues_host(c) && queue_share >= PERF__BLR_LAUNCH_BOUND;
  if (k == PERF__BLR_REF_GPU) return uses_gpu;
  if (k == PERF__BLR_REF_LAUNCH) return uses_gpu && (c == PERF_CLOCK_SUBMIT || launch_bound);
  return perf__clock_host_side(c) || launch_bound;
}

/* See blrule.h. */
int perf__blrule_card_undecided(const perf__baseline_entry *e, double rel, double se,
                                int host_paced)
{
  if (host_paced && !(e->launch_s > 0)) return 1;
  return rel - PERF__BLR_SIG * se <= e->tolerance + PERF__BLR_CARD_MARGIN;
}

/* See blrule.h. */
double perf__blrule_per_launch(double median, double launch_s, double reading)
{
  if (!(launch_s > 0) || !(reading > 0) || !isfinite(launch_s) || !isfinite(reading))
    return median;
  return median * launch_s / reading;
}

/* See blrule.h. */
int perf__blrule_ref_explains(const perf__baseline_entry *ref, double median, double mad,
                              long samples, double rel, double se, double *ref_rel)
{
  perf__baseline_change c = perf__blrule_compare(ref, median, mad, samples, ref_rel, NULL);
  return c == PERF__BL_SLOWER && *ref_rel > PERF__BLR_REF_MIN &&
         rel - PERF__BLR_SIG * se <= PERF__BLR_REF_FACTOR * *ref_rel;
}

/* See blrule.h. */
int perf__blrule_busy_host_explains(double rel, double se, double host_rel, int in_band)
{
  double floor = in_band ? PERF__BLR_REF_MIN : PERF__BLR_BUSY_MIN;
  return rel - PERF__BLR_SIG * se <= PERF__BLR_REF_FACTOR * fmax(host_rel, floor);
}

/* See blrule.h. */
int perf__blrule_parallel_busy_explains(double cpus)
{
  return cpus >= PERF__BLR_PARALLEL_MIN;
}

/* See blrule.h. */
int perf__blrule_slow_mode_explains(const perf__baseline_entry *e, double median, double *slow)
{
  *slow = 0;
  for (int i = 0; i < e->nslow; i++)
    if (e->slow_s[i] > *slow) *slow = e->slow_s[i];
  double mode = fmin(*slow, e->median_s * (1 + PERF__BLR_MODE_MAX));
  return *slow > 0 && median <= mode + e->median_s * fmin(e->tolerance, PERF__BLR_CEILING);
}

/* See blrule.h. */
double perf__blrule_ref_band(const perf__baseline_entry *ref)
{
  if (!ref || !(ref->median_s > 0)) return 0;
  return ref->median_s * (1 + fmax(PERF__BLR_REF_MIN, ref->tolerance));
}

/* See blrule.h. */
int perf__blrule_readings_explain(const perf__baseline_entry *ref, double median, double rel,
                                  double se, double *ref_rel)
{
  *ref_rel = ref->median_s > 0 ? median / ref->median_s - 1 : 0;
  return *ref_rel > PERF__BLR_READ_MIN && rel - PERF__BLR_SIG * se <= PERF__BLR_REF_FACTOR * *ref_rel;
}
