/* canary.c — a ratio claim's rounds beside a GPU co-tenant, each judged by a canary. */
/* The canary is an empty kernel (and a pinned copy, for claims that copy). */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "worker/claim/canary.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "host/clock.h"
#include "worker/device/cotenant.h"

/* The lowest turnaround and the lowest launch cost this process has read
 * (seconds); 0 none. */
static double anchor, launch;
/* The link probe's lowest readings, to the device and to the host
 * (seconds); 0 none. */
static double link_anchor[2];
/* The process's quiet stretch. */
static perf__canary_stretch stretch;

/* The band over anchor_s (seconds) at launch cost launch_s when the anchor
 * is at most most_s: max(PERF__CANARY_FACTOR x, + PERF__CANARY_SLACK_LAUNCHES
 * launch costs); 0 when it is not (or either is 0). Never fails. */
static double widen(double anchor_s, double launch_s, double most_s)
{
  if (!(anchor_s > 0) || !(launch_s > 0) || anchor_s > most_s) return 0;
  double band = PERF__CANARY_FACTOR * anchor_s, slack = PERF__CANARY_SLACK_LAUNCHES * launch_s;
  return band > anchor_s + slack ? band : anchor_s + slack;
}

/* The band of anchor over launch cost launch_s (seconds), 0 when the
 * anchor is not trusted. Never fails. */
static double band_of(double anchor_s, double launch_s)
{
  return widen(anchor_s, launch_s, PERF__CANARY_QUIET_LAUNCHES * launch_s);
}

/* See canary.h. */
double perf__canary_link_band(double anchor_s, double launch_s)
{
  return widen(anchor_s, launch_s,
               PERF__REFERENCE_LINK_BYTES / PERF__CANARY_LINK_FLOOR_BPS +
                   PERF__CANARY_QUIET_LAUNCHES * launch_s);
}

/* See canary.h. */
double perf__canary_link_band_now(int to_host)
{
  return perf__canary_link_band(link_anchor[to_host ? 1 : 0], launch);
}

/* See canary.h. */
void perf__canary_link(perf__canary *c, int to_device, int to_host)
{
  c->dirs = (to_device ? 1 : 0) | (to_host ? 2 : 0);
}

/* See canary.h. */
perf__canary_says perf__canary_judge(double anchor_s, double launch_s, double before,
                                     double after)
{
  double band = band_of(anchor_s, launch_s);
  if (!(band > 0) || !(before > 0) || !(after > 0)) return PERF__CANARY_UNJUDGED;
  return before <= band && after <= band ? PERF__CANARY_CLEAN : PERF__CANARY_DISTURBED;
}

/* See canary.h. */
int perf__canary_step(perf__canary_stretch *s, int quiet, double t)
{
  if (!quiet) {
    s->n = 0, s->from = 0;
    return 0;
  }
  if (!s->n++) s->from = t;
  if (s->n < PERF__CANARY_RUN || t - s->from < PERF__CANARY_RUN_S) return 0;
  s->left_at = t;
  return 1;
}

/* See canary.h. */
int perf__canary_trusted(long clean, long disturbed, const perf__canary_stretch *s, double t)
{
  long all = clean + disturbed;
  if (all < PERF__CANARY_TRIAL || disturbed <= PERF__CANARY_MAX_DISTURBED * (double)all) return 1;
  if (s->left_at > 0) return t - s->left_at <= PERF__CANARY_MEMORY_S;
  return s->first > 0 && t - s->first < PERF__CANARY_TRIAL_S;
}

/* See canary.h. */
double perf__canary_band(void) { return band_of(anchor, launch); }

/* Opens c: its stream, and a reading of the launch cost (the lowest kept).
 * Returns 0, or -1 after a CUDA error. */
static int open_canary(perf__canary *c)
{
  double s;
  if (perf__reference_launch_open(&c->l) || perf__reference_launch_reading(&c->l, &s)) return -1;
  if (!(launch > 0) || s < launch) launch = s;
  return 0;
}

/* Involuntary context switches of the calling thread so far; -1 unknown. */
static long thread_preemptions(void)
{
  struct rusage ru;
  return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/* 1 when the host preempted the calling thread since thread_preemptions
 * said before (unknown, -1: not). Never fails. */
static int preempted_since(long before)
{
  return before >= 0 && thread_preemptions() != before;
}

/* The empty kernel's turnaround on c's stream into *s (way unused).
 * Returns the CUDA error, 0 none. */
static cudaError_t kernel_probe(perf__canary *c, int way, double *s)
{
  (void)way;
  return perf__reference_turnaround(&c->l, s);
}

/* A pinned copy's turnaround the way given (1: to the host) into *s.
 * Returns the CUDA error, 0 none. */
static cudaError_t copy_probe(perf__canary *c, int way, double *s)
{
  return perf__reference_link_turnaround(&c->l, &c->k, way, s);
}

/* probe's reading into *s, taken again (up to PERF__CANARY_RETAKES times)
 * while the host took this thread off its CPU during it: a host-timed
 * turnaround the host preempted says nothing of the GPU. The last one
 * stands, preempted or not. Returns the CUDA error, 0 none. */
static cudaError_t unpreempted(perf__canary *c, cudaError_t (*probe)(perf__canary *, int, double *),
                               int way, double *s)
{
  cudaError_t e = cudaSuccess;
  for (int k = 0; k <= PERF__CANARY_RETAKES; k++) {
    long before = thread_preemptions();
    e = probe(c, way, s);
    if (e || !preempted_since(before) || k == PERF__CANARY_RETAKES) break;
    c->preempted++; /* the last one stands, preempted or not */
  }
  return e;
}

/* See canary.h. */
int perf__canary_wakes(int idled, double read_at, double t)
{
  return idled && !(read_at > 0 && t - read_at <= PERF__CANARY_COLD_S);
}

/* See canary.h. */
double perf__canary_woken(double woke_s, double s, double anchor_s, double launch_s)
{
  if (!(woke_s > 0) || !(anchor_s > 0) || !(launch_s > 0)) return s;
  return woke_s > anchor_s + PERF__CANARY_WAKE_LAUNCHES * launch_s && woke_s > s ? woke_s : s;
}

/* The waking kernel's turnaround into *woke (0: none taken, or the host
 * preempted the thread during it: then it says nothing of the GPU), when
 * perf__canary_wakes says one is due. Returns the CUDA error, 0 none. */
static cudaError_t wake(perf__canary *c, double t, double *woke)
{
  *woke = 0;
  if (!perf__canary_wakes(c->idled, c->read_at, t)) return cudaSuccess;
  long before = thread_preemptions();
  cudaError_t e = perf__reference_turnaround(&c->l, woke);
  if (preempted_since(before)) *woke = 0;
  return e;
}

/* One reading into *s, opening c at the first; a waking kernel's wait
 * too long for a cold start stands for it (perf__canary_woken). Returns
 * 0, or -1 after a CUDA error (c then reads no more). */
static int reading(perf__canary *c, double *s)
{
  double t0 = perf__clock_now(), woke = 0;
  if (!c->l.st && open_canary(c)) c->failed = 1;
  if (!c->failed && (wake(c, t0, &woke) || unpreempted(c, kernel_probe, 0, s))) c->failed = 1;
  c->cost_s += (c->read_at = perf__clock_now()) - t0;
  if (c->failed) return -1;
  if (!(anchor > 0) || *s < anchor) anchor = *s;
  *s = perf__canary_woken(woke, *s, anchor, launch);
  return 0;
}

/* The link probe after a reading of c (its stream open): a copy each way
 * c copies, into l[way] (0: not read), opening its buffers at the first;
 * each counted as ours on the link. Returns 1 when a copy was above its
 * trusted band, 2 when every copy was within its band, 0 when the link is
 * not judged (no way to copy, a band not yet trusted and no copy above
 * one, or a CUDA error, which ends the probe for the claim). Never
 * fails. */
static int link_reading(perf__canary *c)
{
  if (!c->dirs || c->link_failed) return 0;
  double t0 = perf__clock_now();
  int judged = 1, delayed = 0;
  if (!c->k.host && perf__reference_link_open(&c->k)) c->link_failed = 1;
  for (int w = 0; w < 2 && !c->link_failed; w++) {
    double s;
    if (!(c->dirs & (1 << w))) continue;
    if (unpreempted(c, copy_probe, w, &s)) {
      c->link_failed = 1;
      break;
    }
    perf__cotenant_link_own(w ? 0 : PERF__REFERENCE_LINK_BYTES, w ? PERF__REFERENCE_LINK_BYTES : 0);
    if (!(link_anchor[w] > 0) || s < link_anchor[w]) link_anchor[w] = s;
    double band = perf__canary_link_band_now(w);
    judged &= band > 0;
    delayed |= band > 0 && s > band;
  }
  c->cost_s += perf__clock_now() - t0;
  return c->link_failed ? 0 : delayed ? 1 : judged ? 2 : 0;
}

/* 1 when $PERF_CANARY is "0": NVML's rule alone (the self-tests' stand-in
 * NVML shows neighbours the GPU does not have). Never fails. */
static int off(void)
{
  const char *v = getenv("PERF_CANARY");
  return v && !strcmp(v, "0");
}

/* 1 while c judges the rounds beside another process: not failed, not
 * given up, NVML has shown a neighbour and $PERF_CANARY is not "0". */
static int judging(const perf__canary *c)
{
  return !c->failed && !c->gave_up && perf__cotenant_state()->nspans && !off();
}

/* 1 when a reading s (seconds) is within the trusted band and the link
 * probe after it (link_reading's word) found no copy delayed. Never
 * fails. */
static int quiet_reading(double s, int link)
{
  double band = perf__canary_band();
  return band > 0 && s <= band && link != 1;
}

/* See canary.h. */
void perf__canary_between(perf__canary *c)
{
  double now;
  if (!c->last || !judging(c) || reading(c, &now)) return;
  int quiet = quiet_reading(now, link_reading(c));
  perf__canary_step(&stretch, quiet, perf__clock_now());
  if (perf__canary_band() > 0 && !quiet) c->loud = 1;
}

/* See canary.h. */
perf__canary_says perf__canary_round(perf__canary *c, int ready)
{
  double now = 0, before = c->last;
  int loud = c->loud;
  c->last = 0, c->loud = 0;
  if (!judging(c) || reading(c, &now)) {
    perf__cotenant_canary(0);
    return PERF__CANARY_UNJUDGED;
  }
  c->last = now;
  int link_before = c->link_last, link = c->link_last = link_reading(c);
  double band = perf__canary_band(), t = perf__clock_now();
  if (ready) stretch.n = 0; /* the warm-ups, or the last claim, ran unwatched before */
  int settled = perf__canary_step(&stretch, quiet_reading(now, link), t);
  perf__cotenant_canary(band > 0 ? (link == 2 ? 2 : 1) : 0);
  if (ready) return PERF__CANARY_UNJUDGED;
  perf__canary_says says = perf__canary_judge(anchor, launch, before, now);
  if (says == PERF__CANARY_UNJUDGED) return says;
  if (!stretch.first) stretch.first = t;
  if (says == PERF__CANARY_CLEAN && (link == 1 || link_before == 1 || loud))
    says = PERF__CANARY_DISTURBED;
  int delayed = says == PERF__CANARY_DISTURBED;
  if (says == PERF__CANARY_CLEAN && !settled) says = PERF__CANARY_DISTURBED;
  if (says == PERF__CANARY_CLEAN && link == 2 && link_before == 2) says = PERF__CANARY_CLEAN_LINK;
  int clean = says != PERF__CANARY_DISTURBED;
  if (!perf__canary_trusted(c->clean + clean, c->disturbed + !clean, &stretch, t)) {
    c->gave_up = 1; /* this round is NVML's to judge, not counted here */
    perf__cotenant_canary(0);
    return PERF__CANARY_UNJUDGED;
  }
  c->clean += clean, c->disturbed += !clean, c->delayed += delayed;
  c->link_clean += says == PERF__CANARY_CLEAN_LINK;
  return says;
}

/* See canary.h. */
void perf__canary_close(perf__canary *c)
{
  perf__reference_link_close(&c->k);
  perf__reference_launch_close(&c->l);
  perf__cotenant_canary(0);
}

/* See canary.h. */
void perf__canary_reset(void)
{
  anchor = launch = 0;
  link_anchor[0] = link_anchor[1] = 0;
  stretch = (perf__canary_stretch){0};
}
