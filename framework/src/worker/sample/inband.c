/* inband.c — a host-paced workload sampled in batches, perfgate's references read between them. */
#include "worker/sample/inband.h"

#include <math.h>
#include <stdio.h>

#include "host/clock.h"
#include "stats/stats.h"
#include "util/status.h"
#include "worker/sample/workload.h"

/* Reads the launch reference into ib where it is asked for; on a CUDA
 * error stops reading it, its readings dropped. Never fails. */
static void read_launch(perf__inband *ib)
{
  double s;
  if (!ib->launch || ib->nlaunch >= PERF__INBAND_BATCHES + 1) return;
  if (perf__reference_launch_reading(ib->launch, &s)) {
    ib->launch = NULL;
    ib->nlaunch = 0;
    return;
  }
  ib->launch_s[ib->nlaunch++] = s;
}

/* Reads the host reference (and the launch one: read_launch) into ib,
 * counting its time. Returns 1 when the host reading is above the band.
 * Never fails. */
static int read_ref(perf__inband *ib)
{
  double t0 = perf__clock_now(), r = perf__reference_host_reading();
  read_launch(ib);
  ib->read_cost_s += perf__clock_now() - t0;
  if (ib->nread < PERF__INBAND_BATCHES + 1) ib->read_s[ib->nread++] = r;
  return ib->band_s > 0 && r > ib->band_s;
}

/* Keeps a left-out batch's k samples (t, mhz: may be NULL) in ib. Never
 * fails (beyond PERF__INBAND_MAX they are dropped: sampling stops there). */
static void leave_out(perf__inband *ib, const double *t, const unsigned *mhz, int k)
{
  for (int i = 0; i < k && ib->nout < PERF__INBAND_MAX; i++) {
    ib->out_t[ib->nout] = t[i];
    ib->out_mhz[ib->nout++] = mhz ? mhz[i] : 0;
  }
}

/* See inband.h. */
int perf__inband_enough(const perf__inband *ib, int n, int min_n)
{
  return n >= (ib->slow ? PERF__INBAND_EDGES * min_n : min_n);
}

/* 1 when sampling stops before another batch (*err gets a precision
 * check's error): enough samples in o (enough kept and precise to
 * want.rel; or want.min_n in all once the budget is spent), or no room. */
static int done(const perf__inband *ib, const perf__workload_out *o, perf__workload_want want,
                int over_budget, int *err, char *why, size_t len)
{
  const double *t = o->t;
  double *scratch = o->scratch, rel = want.rel;
  int n = o->n, min_n = want.min_n, max_n = want.max_n;
  if (n >= max_n || ib->batches >= PERF__INBAND_BATCHES || ib->nout >= PERF__INBAND_MAX) return 1;
  if (n + ib->nout >= min_n && over_budget) return 1;
  if (!perf__inband_enough(ib, n, min_n) || !(rel > 0)) return 0;
  int within = perf__stats_median_within(t, (size_t)n, rel, scratch);
  if (within < 0) {
    snprintf(why, len, "samples: %s", perf__status_strerror(within));
    *err = within;
  }
  return within != 0;
}

/* See inband.h. */
int perf__inband_samples(perf_workload *w, perf__inband *ib, perf__workload_want want,
                         perf__workload_out *o, char *why, size_t len)
{
  double *t = o->t;
  unsigned *mhz = o->mhz;
  int min_n = want.min_n, max_n = want.max_n, *n = &o->n;
  *n = 0;
  ib->batches = ib->slow = ib->nread = ib->nout = ib->nlaunch = 0;
  ib->read_cost_s = 0;
  if (min_n < 1 || max_n < min_n || max_n > PERF__INBAND_MAX) {
    snprintf(why, len, "samples: need 1 <= min_n <= max_n <= %d (got %d, %d)", PERF__INBAND_MAX,
             min_n, max_n);
    return PERF__EINVAL;
  }
  perf__wstate *st = w->perf__state;
  double t0 = perf__clock_now(), idle0 = perf__workload_idled_s();
  long shared = 0;
  int err = 0, before = read_ref(ib);
  for (;;) {
    double spent = perf__clock_now() - t0 - (perf__workload_idled_s() - idle0);
    if (done(ib, o, want, spent >= want.budget_s, &err, why, len)) break;
    int k = max_n - *n < PERF__INBAND_BATCH ? max_n - *n : PERF__INBAND_BATCH, got = 0;
    unsigned *at = mhz ? mhz + *n : NULL;
    perf__workload_out batch = {t + *n, at, o->scratch, 0};
    err = perf__workload_samples_mhz(w, (perf__workload_want){k, k, HUGE_VAL, 0}, &batch, why,
                                     len);
    got = batch.n;
    shared += st->shared_n;
    if (err) break;
    int after = read_ref(ib);
    ib->batches++;
    if (before || after) {
      ib->slow++;
      leave_out(ib, t + *n, at, got);
    } else
      *n += got;
    before = after;
  }
  st->shared_n = shared;
  st->shared_from = t0;
  st->shared_of = "sample";
  return err;
}

/* See inband.h. */
perf__reference perf__inband_reference(const perf__inband *ib, int slow)
{
  double v[PERF__INBAND_BATCHES + 1], scratch[PERF__INBAND_BATCHES + 1];
  perf__reference r = {0};
  for (int i = 0; i < ib->nread; i++) {
    int above = ib->band_s > 0 && ib->read_s[i] > ib->band_s;
    if (above == slow) v[r.n++] = ib->read_s[i];
  }
  if (!r.n) return r;
  r.median = perf__stats_median_of(v, (size_t)r.n, scratch);
  r.mad = perf__stats_mad_of(v, (size_t)r.n, scratch);
  return r;
}

/* See inband.h. */
double perf__inband_launch(const perf__inband *ib)
{
  double scratch[PERF__INBAND_BATCHES + 1];
  if (!ib->launch || !ib->nlaunch) return 0;
  return perf__stats_median_of(ib->launch_s, (size_t)ib->nlaunch, scratch);
}
