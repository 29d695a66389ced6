/* clock.c — the clocks' names, the host monotonic clock, the host timer's measured floor. */
#define _POSIX_C_SOURCE 200809L
#include "host/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats/stats.h"

/* Never fails on Linux: CLOCK_MONOTONIC always exists. */
double perf__clock_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Each clock's name, by its perf_clock value (0, auto, has none). */
static const char *const names[] = {
#define PERF__X(sym, name) [PERF_CLOCK_##sym] = name,
    PERF_CLOCK_MAP(PERF__X)
#undef PERF__X
};

static const struct clock_row {
  int clock;
  int host, events, held, flush, drain;
  long batch;
} rows[] = {
#define PERF__X(sym, h, e, b, f, d, m) {PERF_CLOCK_##sym, h, e, b, f, d, m},
    PERF__CLOCK_MAP(PERF__X)
#undef PERF__X
};
_Static_assert(sizeof rows / sizeof rows[0] + 1 == sizeof names / sizeof names[0],
               "each clock of perfgate.h's PERF_CLOCK_MAP needs one row in clock.h's PERF__CLOCK_MAP");

/* clock's row, or NULL (auto, or no clock). */
static const struct clock_row *row(int clock)
{
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].clock == clock) return &rows[i];
  return NULL;
}

/* See clock.h. */
const char *perf__clock_name(int clock)
{
  return row(clock) ? names[clock] : "auto";
}

/* See clock.h. */
int perf__clock_of_name(const char *name)
{
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (!strcmp(names[rows[i].clock], name)) return rows[i].clock;
  return -1;
}

/* See clock.h. */
int perf__clock_host_side(int clock) { return row(clock) ? row(clock)->host : 0; }
int perf__clock_by_events(int clock) { return row(clock) ? row(clock)->events : 0; }
int perf__clock_held(int clock) { return row(clock) ? row(clock)->held : 0; }
int perf__clock_flushes_l2(int clock) { return row(clock) ? row(clock)->flush : 0; }
int perf__clock_drains_after(int clock) { return row(clock) ? row(clock)->drain : 0; }
long perf__clock_max_batch(int clock) { return row(clock) ? row(clock)->batch : 1; }
int perf__clock_queues_host(int clock)
{
  return perf__clock_by_events(clock) && !perf__clock_held(clock);
}

enum { FLOOR_READS = 2001 };

/* Never fails: on the (impossible) allocation failure it falls back to the
 * clock's advertised resolution. */
void perf__clock_host_floor(perf__clock_floor *f)
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
