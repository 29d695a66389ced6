/* measrec.h — a comparison's measurement as its claim record holds it: both workloads, noise. */
#ifndef PERF_MEASREC_H
#define PERF_MEASREC_H

#include <stddef.h>

#include "perfgate.h"
#include "record/claimrec.h"
#include "worker/claim/verdict.h"
#include "worker/sample/retake.h"

/* The error rate of each workload's median interval in its record, the
 * reports and the charts (a 95 % interval). */
#define PERF__MEDIAN_LEVEL 0.05

/* One workload's side of a comparison, as sampled. */
typedef struct perf__measrec_side {
  const perf_workload *w;
  const double *t;            /* every sample, per iteration, in the order taken */
  const unsigned *mhz;        /* the SM clock after each (0: unknown) */
  size_t n;
  const perf__retake *before; /* its retake counts before the claim */
  double med, mad;            /* over the rounds */
  const double *ci;           /* the median's interval ([2]; NaN: unknown) */
} perf__measrec_side;

/* What a comparison measured and decided. */
typedef struct perf__measrec_in {
  const char *kind;                 /* "FASTER", "CROSSOVER_POINT" */
  double threshold;                 /* the claim's factor, tolerance or tie margin */
  const perf__verdict_result *r;    /* the verdict */
  const perf__measrec_side *a, *b;
  const perf__retake *d;            /* the disturbances of this claim's sampling */
  const char *disturbed;            /* the verdict's causes, "; ..." or "" */
} perf__measrec_in;

/* Fills o (its strings and arrays owned: perf__claimrec_free) with the
 * measurement in: the clock and how both were timed, both workloads with
 * every sample, the ratio, its interval and the verdict's cause, the sweep
 * point inside a sweep, what disturbed it. Never fails (without memory the
 * record goes short of strings and samples; the verdict is not
 * affected). */
void perf__measrec_fill(perf__claimrec_ratio *o, const perf__measrec_in *in);

/* The retake counts of both workloads so far (once when a == b). Never
 * fails. */
perf__retake perf__measrec_retakes(const perf_workload *a, const perf_workload *b);

/* What a claim's sampling retook, discarded or kept despite a disturbance
 * (d: the counts of this claim alone; throttle: the throttle reasons seen),
 * as "; N samples retaken and N kept although the host preempted them" and
 * "; N samples discarded and N kept while the GPU was throttled (...)" and
 * "; N samples retaken and N kept while another process used the GPU
 * (waited N s for it to leave)", each noun agreeing with its count; ""
 * when nothing was disturbed. Never fails (truncates to len). */
void perf__measrec_disturbed_text(const perf__retake *d, const char *throttle, char *buf,
                                  size_t len);

/* What a claim's sampling of a and b discarded or kept despite a
 * disturbance since `before` (returned), as perf__measrec_disturbed_text
 * into buf[len]. Never fails. */
perf__retake perf__measrec_disturbances(const perf_workload *a, const perf_workload *b,
                                        const perf__retake *before, char *buf, size_t len);

#endif
