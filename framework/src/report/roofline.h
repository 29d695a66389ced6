/* roofline.h — a workload's time on two GPUs predicted from its work and their measured peaks. */
#ifndef PERF_ROOFLINE_H
#define PERF_ROOFLINE_H

#include <stddef.h>

#include "baseline/baseline.h"
#include "baseline/peaks.h"

/* What a baseline entry's time on another GPU should be, from what it
 * declared it does (baseline/peaks.h: bytes, flops of a type) and the peaks
 * both GPUs' files measured (their calibration entries, test "perfgate",
 * named PERF__BL_PEAK_PREFIX + what + "_" + clock: baseline.h): a
 * roofline. One iteration on a GPU takes at least each of
 *   declared bytes / its DRAM peak (the streaming copy, peak_dram_*),
 *   link bytes / its host link's peak (the pinned copies the ways the
 *     bytes go, peak_link*_*), where the link bytes are what the entry's
 *     trace copies between host and device (baseline/trace.h),
 *   declared flops / its math peak of their type (the GEMM, peak_fp16_*),
 * and the largest of them is its predicted time and names its bound;
 * the prediction is the ratio of the two GPUs' predicted times. A bound
 * the work has and a GPU has no peak for leaves no prediction (its term
 * might be the largest); no declared work leaves none either. */

/* The bounds: X(symbol, the bound's adjective, what its peak is of). */
#define PERF__ROOFLINE_BOUND_MAP(X)   \
  X(DRAM, "memory-bound", "DRAM")      \
  X(LINK, "link-bound", "host link")   \
  X(MATH, "compute-bound", "math")

typedef enum perf__roofline_bound {
#define PERF__X(sym, adjective, noun) PERF__ROOF_##sym,
  PERF__ROOFLINE_BOUND_MAP(PERF__X)
#undef PERF__X
  PERF__ROOF_NBOUNDS
} perf__roofline_bound;

/* One iteration's work, per bound: bytes through DRAM, bytes over the
 * host link, flops of one type (0: none of that). */
typedef struct perf__roofline_work {
  double amount[PERF__ROOF_NBOUNDS];
  perf_flop_type type; /* of the flops */
  int link_ways;       /* PERF__LINK_* of the link bytes; 0: none */
} perf__roofline_work;

/* The prediction for one workload on GPUs 0 and 1. */
typedef struct perf__roofline_prediction {
  double time_s[2];               /* predicted time of an iteration on each */
  perf__roofline_bound bound[2];  /* the bound that dominates on each */
  double ratio;                   /* time_s[0] / time_s[1]: > 1, faster on GPU 1 */
} perf__roofline_prediction;

/* Why there is no prediction (perf__roofline_predict). */
typedef enum perf__roofline_none {
  PERF__ROOF_PREDICTED, /* there is one */
  PERF__ROOF_NO_WORK,   /* the workload declares none */
  PERF__ROOF_NO_PEAK    /* a bound of its work has no peak on a GPU */
} perf__roofline_none;

/* The bound's adjective ("memory-bound") and what its peak is of
 * ("DRAM", "host link", "math"); "?" for a bad value. Never fail. */
const char *perf__roofline_adjective(perf__roofline_bound k);
const char *perf__roofline_noun(perf__roofline_bound k);

/* The work of an entry that declared w and whose trace (baseline/trace.h's
 * JSON text; NULL: none) copies link bytes: 1 into *out, or 0 when w
 * declares no work (*out then empty). A trace that does not parse adds
 * no link bytes. Never fails otherwise. */
int perf__roofline_work_of(const perf__peaks_work *w, const char *trace, perf__roofline_work *out);

/* The calibration's word for bound k of w: "dram", the link's word for
 * its ways ("link", "link_h2d", "link_d2h": peaks.h), or its flops'
 * type's ("fp16"). Never fails. */
const char *perf__roofline_what(const perf__roofline_work *w, perf__roofline_bound k);

/* The rate a calibration entry e measured, per second: its declared
 * flops (a GEMM's), else its bytes, over its median time; 0 when it
 * declares neither. Never fails. */
double perf__roofline_rate(const perf__baseline_entry *e);

/* The peak rate, per second, that b's calibration entry for bound k of w
 * measured (its declared bytes, or flops, over its median time): the entry
 * on clock first, else the first of the clocks (clock.h's table order)
 * that b holds one for; 0 when b has none (or its work or time is not
 * positive). name[len] gets the entry's workload name, or the one on
 * clock that was looked for. Never fails. */
double perf__roofline_peak(const perf__baseline *b, const perf__roofline_work *w,
                           perf__roofline_bound k, const char *clock, char *name, size_t len);

/* The time of w on a GPU whose peak rate per bound is rate[k] (0:
 * unknown): the largest of amount / rate over the bounds w has work for,
 * its bound into *bound. Returns the time, or 0 when w has no work, or -1
 * with *bound the first bound w has work for and that has no rate. Never
 * fails otherwise. */
double perf__roofline_time(const perf__roofline_work *w, const double *rate,
                           perf__roofline_bound *bound);

/* The prediction for w on GPUs 0 and 1 with peak rates rate[g][k]:
 * PERF__ROOF_PREDICTED and *p; or why there is none, and for NO_PEAK the
 * GPU and bound that lack a peak in *gpu and *bound (the first found).
 * Never fails. */
perf__roofline_none perf__roofline_predict(const perf__roofline_work *w,
                                           const double rate[2][PERF__ROOF_NBOUNDS],
                                           perf__roofline_prediction *p, int *gpu,
                                           perf__roofline_bound *bound);

#endif
