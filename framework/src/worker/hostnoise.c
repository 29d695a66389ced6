/* hostnoise.c — host noise in a claim: perf_host_threads(), the host's load before and after sampling, disturbed samples kept out of a decision, the cause on the verdict line. */
#define _POSIX_C_SOURCE 200809L
#include "worker/hostnoise.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/hostcause.h"
#include "base/hostshare.h"

enum { OTHERS_WINDOW_MS = 50 }; /* the first call's look at the host */

/* The CPUs other processes kept busy since the last call (a window of
 * OTHERS_WINDOW_MS on the first; the last answer when called again within
 * it), and *online the host's CPUs. Never fails: 0 when /proc cannot be
 * read. */
static double others_busy(int *online)
{
  static perf__hostload last;
  static double others;
  static int have;
  perf__hostload now;
  if (!have) {
    struct timespec w = {0, OTHERS_WINDOW_MS * 1000000L};
    perf__hostload_read(&last, 0);
    while (nanosleep(&w, &w) != 0 && errno == EINTR) {
    }
    have = 1;
  }
  perf__hostload_read(&now, 0);
  *online = now.online;
  if (now.t - last.t < OTHERS_WINDOW_MS * 1e-3) return others;
  others = perf__hostcause_others(&last, &now);
  last = now;
  return others;
}

/* Public: see perfgate.h. Other processes' load is counted only where this
 * process may use every CPU of the host (no affinity subset, no cpu.max
 * quota): /proc/stat's busy time is the host's, not a subset's. */
int perf_host_threads(void)
{
  int cpus = perf__hostshare_cpus(), online = 0;
  double others = others_busy(&online);
  return perf__hostshare_fit(perf__hostshare_threads(), cpus, cpus == online ? others : 0);
}

/* See hostnoise.h. */
void perf__hostnoise_begin(perf__hostload *before) { perf__hostload_read(before, 0); }

/* See hostnoise.h. */
int perf__hostnoise_host_timed(perf_clock clock)
{
  return clock != PERF_CLOCK_DEVICE && clock != PERF_CLOCK_COLD;
}

/* See hostnoise.h. */
void perf__hostnoise_judge(const perf__hostload *before, perf_clock clock,
                           const perf__retake *d, perf__verdict_result *r, char *buf,
                           size_t len)
{
  if (d->kept_disturbed && perf__hostnoise_host_timed(clock) &&
      r->verdict != PERF__INCONCLUSIVE) {
    r->verdict = PERF__INCONCLUSIVE;
    r->why = "samples the host preempted on every retake would have decided it";
  }
  if (r->verdict != PERF__INCONCLUSIVE) return;
  perf__hostload after;
  char cause[500];
  perf__hostload_read(&after, 0);
  int named = perf__hostcause_name(before, &after, perf__hostshare_cpus(),
                                   perf__hostshare_threads(), cause, sizeof cause);
  size_t used = strlen(buf);
  if ((named || d->retaken || d->kept_disturbed) && used < len)
    snprintf(buf + used, len - used, "; the host: %s", cause);
}
