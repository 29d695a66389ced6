/* workload.h — measuring one workload: clock choice, cold start, batch sizing, warm-up, samples. */
#ifndef PERF_WORKLOAD_H
#define PERF_WORKLOAD_H

#include "perfgate.h"
#include "worker/sample/retake.h"
#include "worker/streams/streamcheck.h"
#include "worker/sample/wstate.h"


/* A launch-bound events-clock measurement, as a clause for a verdict line:
 * "; launch-bound: the host took 97% of the events time to queue the
 * work, so it times the host's pace (it differs between processes);
 * .clock = PERF_CLOCK_DEVICE times the GPU's work alone", or "" (another
 * clock, or the host queued well ahead: share below 0.9). Returns buf.
 * Never fails. */
const char *perf__workload_launch_note(const perf_workload *w, char *buf, size_t len);

/* 1 when the running test's time to wait for co-tenants to leave
 * (PERF__COTENANT_MAX_WAIT_MS) is spent: shared samples are kept from now
 * on. Never fails. */
int perf__workload_alone_spent(void);

/* Resolves w's clock and, on first use in this test, times the first call
 * alone, sizes the batch so that one sample lasts at least 1000x the clock's
 * floor and at least min_sample_s, and warms up until the per-iteration time
 * settles (all within cap_s seconds).
 * A later call only re-warms with two samples. CUDA failures end the test
 * (FAIL, or SKIP when there is no device); misuse ends it as ERROR. */
void perf__workload_prepare(perf_workload *w, double min_sample_s, double cap_s);

/* w's median is about to be compared across runs (a BASELINE claim): a
 * neighbour's traffic on the host link marks its samples as shared from
 * now on, though w itself does not copy. Returns 1 when this turned the
 * link's watch on (the caller pauses it after the measurement:
 * perf__cotenant_link_pause), 0 when it was on already or is not read.
 * Another process's copies take the DRAM bandwidth and copy engines w
 * shares (issue 50, H200: a DRAM-bound kernel 1.1-1.4 % slower than alone
 * on that card beside 256 MiB host-to-device copies in a loop, which NVML
 * shows as no SM use): too little to move a ratio of two workloads timed
 * in alternation, enough to cross a 1 % baseline tolerance. Never fails
 * (without GPM the link is not read). */
int perf__workload_crosses_runs(const perf_workload *w);

/* One sample of w's batch; returns 0 and the time per iteration in seconds,
 * or PERF__ECUDA / PERF__ENODEV with a description in why[len]. A sample
 * during which any of the worker's threads was preempted (an involuntary
 * context switch: other load on the host) is retaken, up to 20 times; a GPU workload's
 * sample after which NVML reports a throttle reason is retaken too (see
 * retake.h), and one that another process shared the GPU with after
 * waiting for it to leave (cotenant.h; at most PERF__COTENANT_MAX_WAIT_MS
 * per test, then kept and counted); st->rt counts all, st->last_mhz is the
 * sample's SM clock. */
int perf__workload_sample(perf_workload *w, double *per_iter_s, char *why,
                    size_t len);

/* How many samples a measurement takes: at least min_n, at most max_n,
 * stopping once the median's 95 % interval lies within +-rel of it (rel >
 * 0) or budget_s seconds of sampling have passed. */
typedef struct perf__workload_want {
  int min_n, max_n;
  double budget_s, rel;
} perf__workload_want;

/* Where samples go: t[0..max_n) per iteration, each one's SM clock into
 * mhz[0..max_n) (NULL: not kept), scratch of max_n; n: how many. */
typedef struct perf__workload_out {
  double *t;
  unsigned *mhz;
  double *scratch;
  int n;
} perf__workload_out;

/* Samples w into o (after perf__workload_prepare) until at least
 * want.min_n are taken and either the median's 95 % interval lies within
 * +-want.rel of it (perf__stats_median_within) or want.budget_s seconds of
 * sampling have passed (time spent idling for a throttled GPU or a
 * co-tenant not counted); never more than want.max_n. o->n gets the count,
 * and w's state shared_n the samples another process used the GPU during
 * (as NVML told after the last one). The precision stop ends a long
 * kernel's measurement after a few samples that agree, while a noisy one
 * keeps sampling to the budget. Returns 0; PERF__EINVAL unless 1 <= min_n
 * <= max_n; a sample's error (as perf__workload_sample) or the
 * interval's, with o->n the samples taken before it. */
int perf__workload_samples_mhz(perf_workload *w, perf__workload_want want, perf__workload_out *o,
                               char *why, size_t len);
/* The same into t and scratch, without clocks, the count into *n. */
int perf__workload_samples(perf_workload *w, perf__workload_want want, double *t,
                           double *scratch, int *n, char *why, size_t len);

/* Sets what is called with a workload the device clock cannot time (one
 * iteration never queued behind the blocking kernel), before its test
 * ends as ERROR: the claims' side, which says what changed in its GPU work
 * since its baseline entry (claim/bldoor.h), median and SM clock 0
 * (not measured). Set once by the worker; NULL: nothing. Never fails. */
void perf__workload_on_unqueued(void (*fn)(const perf_workload *w, double median, unsigned mhz));

/* Seconds this process has idled before retaking throttled samples (for
 * budgets that should not count it). Never fails. */
double perf__workload_idled_s(void);

/* Gives the running test its whole idle budget again (PERF__MAX_REST_MS):
 * for a benchmark that takes many independent measurements inside one
 * test, as separate tests would. Never fails. */
void perf__workload_rest_reset(void);


#endif
