/* hostnoise.c — host noise in a claim: kept out of the decision, its cause on the verdict line. */
/* Also perf_host_threads(), and the host's load read before and after
 * sampling. */
#include "worker/claim/hostnoise.h"

#include <stdio.h>
#include <string.h>

#include "host/clock.h"
#include "host/hostcause.h"
#include "host/hostshare.h"

/* Public: see perfgate.h. */
int perf_host_threads(void) { return perf__hostshare_threads(); }

static double read_s; /* spent reading the host's load, this process */

/* Reads the host's load into l, adding the time it took to read_s. Never
 * fails (unknown readings stay unknown). */
static void timed_read(perf__hostload *l)
{
  double t0 = perf__clock_now();
  perf__hostload_read(l, 0);
  read_s += perf__clock_now() - t0;
}

/* See hostnoise.h. */
void perf__hostnoise_begin(perf__hostload *before) { timed_read(before); }

/* See hostnoise.h. */
double perf__hostnoise_cost(void) { return read_s; }

/* See hostnoise.h. */
int perf__hostnoise_host_timed(perf_clock clock)
{
  return !perf__clock_held(clock);
}

/* See hostnoise.h. */
int perf__hostnoise_cause_since(const perf__hostload *before, char *buf, size_t len)
{
  perf__hostload after;
  timed_read(&after);
  return perf__hostcause_name(before, &after, perf__hostshare_cpus(), perf__hostshare_threads(),
                              buf, len);
}

/* See hostnoise.h. */
void perf__hostnoise_judge(const perf__hostload *before, perf_clock clock,
                           const perf__retake *d, perf__verdict_result *r, char *buf,
                           size_t len)
{
  if (d->kept_disturbed && perf__hostnoise_host_timed(clock) &&
      r->verdict != PERF_OUTCOME_INCONCLUSIVE) {
    r->verdict = PERF_OUTCOME_INCONCLUSIVE;
    r->why = "samples the host preempted on every retake would have decided it";
  }
  if (r->verdict != PERF_OUTCOME_INCONCLUSIVE) return;
  perf__hostload after;
  char cause[500];
  timed_read(&after);
  int named = perf__hostcause_name(before, &after, perf__hostshare_cpus(),
                                   perf__hostshare_threads(), cause, sizeof cause);
  size_t used = strlen(buf);
  if ((named || d->retaken || d->kept_disturbed) && used < len)
    snprintf(buf + used, len - used, "; the host: %s", cause);
}
