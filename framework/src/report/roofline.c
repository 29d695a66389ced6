/* roofline.c — a workload's time on two GPUs predicted from its work and their measured peaks. */
#include "report/roofline.h"

#include <stdio.h>
#include <string.h>

#include "baseline/blrule.h"
#include "host/clock.h"
#include "baseline/trace.h"

static const struct {
  const char *adjective, *noun;
} bounds[] = {
#define PERF__X(sym, adjective, noun) {adjective, noun},
    PERF__ROOFLINE_BOUND_MAP(PERF__X)
#undef PERF__X
};

/* The clocks a calibration may be on, in perfgate.h's table order. */
static const char *const clocks[] = {
#define PERF__X(sym, name) name,
    PERF_CLOCK_MAP(PERF__X)
#undef PERF__X
};

/* See roofline.h. */
const char *perf__roofline_adjective(perf__roofline_bound k)
{
  return (unsigned)k < PERF__ROOF_NBOUNDS ? bounds[k].adjective : "?";
}

/* See roofline.h. */
const char *perf__roofline_noun(perf__roofline_bound k)
{
  return (unsigned)k < PERF__ROOF_NBOUNDS ? bounds[k].noun : "?";
}

/* The bytes trace (JSON text) copies over the host link each way, into
 * out (none when it does not parse). Never fails. */
static void link_bytes(const char *trace, perf__roofline_work *out)
{
  perf__trace t;
  char why[200];
  double up, down;
  if (!trace || perf__trace_parse(trace, &t, why, sizeof why)) return;
  perf__trace_host_copy_bytes(&t, &up, &down);
  perf__trace_free(&t);
  out->amount[PERF__ROOF_LINK] = up + down;
  out->link_ways = (up > 0 ? PERF__LINK_TO_DEVICE : 0) | (down > 0 ? PERF__LINK_TO_HOST : 0);
}

/* See roofline.h. */
int perf__roofline_work_of(const perf__peaks_work *w, const char *trace, perf__roofline_work *out)
{
  memset(out, 0, sizeof *out);
  if (!perf__peaks_declared(w)) return 0;
  out->amount[PERF__ROOF_DRAM] = perf__peaks_bytes(w);
  out->amount[PERF__ROOF_MATH] = w->flops;
  out->type = w->type;
  link_bytes(trace, out);
  return 1;
}

/* See roofline.h. */
const char *perf__roofline_what(const perf__roofline_work *w, perf__roofline_bound k)
{
  if (k == PERF__ROOF_LINK) return perf__peaks_link_word(w->link_ways);
  return k == PERF__ROOF_MATH ? perf__peaks_type_word(w->type) : "dram";
}

/* See roofline.h. */
double perf__roofline_rate(const perf__baseline_entry *e)
{
  double work = e->work.flops > 0 ? e->work.flops : perf__peaks_bytes(&e->work);
  return work > 0 && e->median_s > 0 ? work / e->median_s : 0;
}

/* The rate b's calibration entry named name measured, or 0. Never fails. */
static double rate_of(const perf__baseline *b, const char *name)
{
  const perf__baseline_entry *e = perf__baseline_find(b, PERF__BLR_REFERENCE_TEST, name);
  return e ? perf__roofline_rate(e) : 0;
}

/* See roofline.h. */
double perf__roofline_peak(const perf__baseline *b, const perf__roofline_work *w,
                           perf__roofline_bound k, const char *clock, char *name, size_t len)
{
  const char *what = perf__roofline_what(w, k);
  double rate = rate_of(b, perf__baseline_peak_name(what, clock, name, len));
  for (size_t c = 0; !(rate > 0) && c < sizeof clocks / sizeof *clocks; c++) {
    char other[96];
    rate = rate_of(b, perf__baseline_peak_name(what, clocks[c], other, sizeof other));
    if (rate > 0) snprintf(name, len, "%s", other);
  }
  return rate;
}

/* See roofline.h. */
double perf__roofline_time(const perf__roofline_work *w, const double *rate,
                           perf__roofline_bound *bound)
{
  double t = 0;
  for (int k = 0; k < PERF__ROOF_NBOUNDS; k++) {
    if (!(w->amount[k] > 0)) continue;
    if (!(rate[k] > 0)) return *bound = (perf__roofline_bound)k, -1;
    if (w->amount[k] / rate[k] > t) t = w->amount[k] / rate[k], *bound = (perf__roofline_bound)k;
  }
  return t;
}

/* See roofline.h. */
perf__roofline_none perf__roofline_predict(const perf__roofline_work *w,
                                           const double rate[2][PERF__ROOF_NBOUNDS],
                                           perf__roofline_prediction *p, int *gpu,
                                           perf__roofline_bound *bound)
{
  memset(p, 0, sizeof *p);
  for (int g = 0; g < 2; g++) {
    p->time_s[g] = perf__roofline_time(w, rate[g], &p->bound[g]);
    if (p->time_s[g] == 0) return PERF__ROOF_NO_WORK;
    if (p->time_s[g] < 0) {
      *gpu = g, *bound = p->bound[g];
      return PERF__ROOF_NO_PEAK;
    }
  }
  p->ratio = p->time_s[0] / p->time_s[1];
  return PERF__ROOF_PREDICTED;
}
