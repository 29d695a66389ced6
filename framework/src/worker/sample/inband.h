/* inband.h — a host-paced workload sampled in batches, perfgate's references read between them. */
#ifndef PERF_INBAND_H
#define PERF_INBAND_H

#include <stddef.h>

#include "perfgate.h"
#include "worker/sample/workload.h"
#include "worker/sample/reference.h"

/* A baseline check compares a workload's median with one recorded in
 * other processes. A shared VM runs in fast and slow phases that steal
 * time does not show (a 2-core EPYC VM, issue 49: a spin loop's checks
 * 3-92 % slow for seconds while its update's five runs agreed within
 * 0.4 %); perfgate's host reference timed once after the samples saw only
 * part of such a phase. So a host-paced check (the clocks the host
 * reference applies to, baseline/blrule.h) takes its samples in batches of
 * PERF__INBAND_BATCH and reads the host reference (worker/sample/
 * reference.h) before the first batch and after each one: a batch with a
 * reading on either side above the band (the reference's entry, by
 * baseline/blrule.h's rule) ran while the machine was slow, or at the edge of
 * such a phase, and its samples are left out of the decision (kept apart,
 * so that the check can say what all of them show). On the 2-core VM,
 * with a slow phase simulated (the test's processes stopped 0.5 ms in
 * every 1 ms for 3 s at a time), keeping a batch that had one reading
 * within the band gave 3 false FAILs in 60 unchanged checks (one decided on
 * kept samples half of which were slow); leaving it out, none in 60. An update samples the same way (no band: every batch
 * kept), so that both time the workload beside the same reference work. */
enum {
  PERF__INBAND_BATCH = 4,
  PERF__INBAND_EDGES = 3, /* where a batch was left out, min_n x this kept are enough */
  PERF__INBAND_MAX = 64,                                          /* kept, and left out */
  PERF__INBAND_BATCHES = 2 * PERF__INBAND_MAX / PERF__INBAND_BATCH /* at most */
};

typedef struct perf__inband {
  double band_s;  /* in: a reading above it is slow (<= 0: none, every batch kept) */
  int batches;    /* batches taken */
  int slow;       /* of them, next to a slow reading: left out */
  double read_s[PERF__INBAND_BATCHES + 1]; /* the readings, in order (host clock) */
  int nread;
  double out_t[PERF__INBAND_MAX];   /* the left-out batches' samples (per iteration) */
  unsigned out_mhz[PERF__INBAND_MAX];
  int nout;
  double read_cost_s; /* time spent reading the reference (host clock) */
  perf__reference_launcher *launch; /* in: also read perfgate's launch reference with each
                               reading (NULL: not; set NULL on its first error) */
  double launch_s[PERF__INBAND_BATCHES + 1]; /* its readings, seconds per launch */
  int nlaunch;
} perf__inband;

/* Samples w as perf__workload_samples_mhz does (want: the precision stop
 * on the kept samples), in batches with the host reference read around
 * each (above); the kept samples go to o (o->mhz: their SM clocks, may be
 * NULL), the left-out ones to ib. Sampling goes on while batches are left
 * out, until enough are kept (perf__inband_enough), the budget is spent
 * (then o->n may be too few: the caller decides on all samples) or
 * PERF__INBAND_MAX samples are taken. w's shared_n counts all batches.
 * Returns 0, PERF__EINVAL (max_n above PERF__INBAND_MAX, or as
 * perf__workload_samples_mhz), or a sample's error with o->n the kept
 * samples before it. */
int perf__inband_samples(perf_workload *w, perf__inband *ib, perf__workload_want want,
                         perf__workload_out *o, char *why, size_t len);

/* 1 when n kept samples are enough to decide on: min_n, or, where a batch
 * was left out, PERF__INBAND_EDGES x min_n (a phase shorter than a
 * reading's spacing can begin or end inside a batch whose readings both
 * stayed within the band: with that many kept, such a batch is at most a
 * sixth of them). Never fails. */
int perf__inband_enough(const perf__inband *ib, int n, int min_n);

/* The readings within the band (slow 0; every reading without one) or
 * above it (slow 1) as one measurement of the host reference (median, MAD
 * and count of the readings; all 0 when there is none). Never fails. */
perf__reference perf__inband_reference(const perf__inband *ib, int slow);

/* The median of the launch reference's readings (baseline/blrule.h: a
 * launch-normalized entry is judged over it), 0 when none was read. Never
 * fails. */
double perf__inband_launch(const perf__inband *ib);

#endif
