/* clock.c — the clocks' names, the host monotonic clock and the measured floor of the host timer. */
#define _POSIX_C_SOURCE 200809L
#include "base/clock.h"

#include "perfgate.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "base/stats.h"

/* Never fails on Linux: CLOCK_MONOTONIC always exists. */
double perf__clock_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Never fails. */
const char *perf__clock_name(int clock)
{
  switch ((perf_clock)clock) {
  case PERF_CLOCK_EVENTS:
    return "events";
  case PERF_CLOCK_WALL:
    return "wall";
  case PERF_CLOCK_SUBMIT:
    return "submit";
  case PERF_CLOCK_DEVICE:
    return "device";
  case PERF_CLOCK_COLD:
    return "cold";
  default:
    return "auto";
  }
}

enum { FLOOR_READS = 2001 };

/* Never fails: on the (impossible) allocation failure it falls back to the
 * clock's advertised resolution. */
void perf__clock_host_floor(perf__floor *f)
{
  static double d[FLOOR_READS];
  double step = INFINITY;
  for (int i = 0; i < FLOOR_READS; i++) {
    double t0 = perf__clock_now(), t1 = perf__clock_now();
    d[i] = t1 - t0;
    if (d[i] > 0 && d[i] < step) step = d[i];
  }
  struct timespec res;
  clock_getres(CLOCK_MONOTONIC, &res);
  double advertised = (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
  f->floor_s = perf__stats_median(d, FLOOR_READS);
  if (f->floor_s < advertised) f->floor_s = advertised;
  f->step_s = isfinite(step) ? step : advertised;
  f->measured = 1;
}
