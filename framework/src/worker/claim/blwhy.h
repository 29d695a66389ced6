/* blwhy.h — what a baseline check names beside a slower time: trace change, host load, scale. */
/* The clauses and detail lines a check's verdict line adds (bldoor.c), each
 * from the entry, the workload's state and what was read beside it. */
#ifndef PERF_BLWHY_H
#define PERF_BLWHY_H

#include <stddef.h>

#include "baseline/baseline.h"
#include "host/hostload.h"
#include "perfgate.h"
#include "worker/sample/inband.h"

/* A slower check's change against its entry: rel (standard error se),
 * the host reference's change host_rel, whether the samples decided on
 * were taken beside readings within the reference's band (in_band), and
 * whether the host's snapshot covers two workloads of one comparison
 * (pair). */
typedef struct perf__blwhy_slower {
  double rel, se, host_rel;
  int in_band, pair;
} perf__blwhy_slower;

/* 1 when the host interfered with a host-paced measurement of w (the
 * clocks the host reference applies to) since host (NULL: unknown), by a
 * cause issue 31's rule names, and that explains its slowdown x by
 * baseline/blrule.h; "; the host: CAUSE" into note[len] whenever a cause
 * is named. An absolute comparison cannot cancel a busy host as ABBA
 * rounds do. Never fails. */
int perf__blwhy_host_busy(const perf_workload *w, const perf__hostload *host,
                          const perf__blwhy_slower *x, char *note, size_t len);

/* Detail lines: what changed in w's GPU work between the trace of entry
 * e and the one the routing pass took now (worker/streams/streamcheck.h),
 * for a median that went from e's to median (SM clock mhz now):
 * baseline/trace.h's explanation, or why there is none. Host work has
 * none. Never fails. */
void perf__blwhy_explain(const perf__baseline_entry *e, const perf_workload *w, double median,
                         unsigned mhz);

/* "; the machine ran 3 of 9 sample batches slow: ..." into note[len] when
 * an in-band check (ib, may be NULL; on_all: it decided on all its
 * samples) left batches out (ref: the host reference's entry), ""
 * otherwise. Never fails (truncates). */
void perf__blwhy_inband_note(const perf__inband *ib, int on_all, const perf__baseline_entry *ref,
                             char *note, size_t len);

/* A launch-normalized entry's scale for this process (baseline/blrule.h):
 * e->launch_s over perfgate's launch reference as read beside the samples
 * (launch_now > 0) or, without such readings, timed now; the clause for
 * the verdict line into note. Returns the scale, 1 where e is not
 * normalized, or 0 when the reference could not be read (note says why).
 * Never fails. */
double perf__blwhy_launch_scale(const perf__baseline_entry *e, double launch_now, char *note,
                                size_t len);

/* 1 when w's measurement is host-paced: the host reference applies to its
 * clock (baseline/blrule.h), so a check reads it between its sample
 * batches. Never fails. */
int perf__blwhy_host_paced(const perf_workload *w);

/* 1 when the host paces e's measurement as the update judged it
 * (perf__blrule_pace_of from its clock, w's queueing share and the trace
 * the entry holds; without one, a wall-clock entry counts as GPU-paced, as
 * at update). Never fails (a trace that does not parse counts as none). */
int perf__blwhy_entry_host_paced(const perf__baseline_entry *e, const perf_workload *w);

#endif
