/* blwhy.c — what a baseline check names beside a slower time: trace change, host load, scale. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/blwhy.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/blrule.h"
#include "host/clock.h"
#include "host/hostcause.h"
#include "util/units.h"
#include "worker/claim/hostnoise.h"
#include "worker/context.h"
#include "worker/sample/reference.h"
#include "worker/sample/workload.h"

/* The CPUs this process kept busy at once since snapshot before (its CPU
 * time over the wall time), when other processes kept a share of the
 * host's CPUs busy that issue 31's rule names (PERF__HOSTCAUSE_OTHERS);
 * 0 otherwise, inside a pair's window (pair: the snapshot covers two
 * workloads, so neither's own parallelism can be told from it), or when a snapshot could not be
 * read. Never fails. */
static double own_cpus_beside_others(const perf__hostload *before, int pair)
{
  perf__hostload now;
  if (pair) return 0;
  perf__hostload_read(&now, 0);
  double wall = now.t - before->t, others = perf__hostcause_others(before, &now);
  if (!now.proc_ok || !before->proc_ok || !(wall > 0) || now.online < 1 ||
      others / now.online < PERF__HOSTCAUSE_OTHERS)
    return 0;
  return (now.proc_cpu_s - before->proc_cpu_s) / wall;
}

/* See blwhy.h. */
int perf__blwhy_host_busy(const perf_workload *w, const perf__hostload *host,
                          const perf__blwhy_slower *x, char *note, size_t len)
{
  const perf__wstate *st = w->perf__state;
  char cause[500];
  if (!host || !perf__blrule_ref_applies(PERF__BLR_REF_HOST, perf__clock_name(st->clock),
                                         st->queue_share, st->uses_gpu))
    return 0;
  if (!perf__hostnoise_cause_since(host, cause, sizeof cause)) return 0;
  double cpus = own_cpus_beside_others(host, x->pair);
  if (perf__blrule_parallel_busy_explains(cpus)) {
    snprintf(note, len, "; the host: %.360s; its own threads kept %.1f CPUs busy at once, and a "
             "parallel workload waits for its slowest thread: a busy host slows it without "
             "bound", cause, cpus);
    return 1;
  }
  snprintf(note, len, "; the host: %s", cause);
  return perf__blrule_busy_host_explains(x->rel, x->se, x->host_rel, x->in_band);
}

/* See blwhy.h. */
void perf__blwhy_explain(const perf__baseline_entry *e, const perf_workload *w, double median,
                         unsigned mhz)
{
  const perf__trace *now = &w->perf__state->trace;
  enum { LEN = 1 << 14 };
  char why[240];
  perf__trace was;
  if (!w->perf__state->uses_gpu) return;
  if (!e->trace || !now->calls) {
    perf__context_line(PERF_LINE_DETAIL, "  what changed in the GPU's work: not known: %s",
                       !e->trace ? "the baseline entry has no trace (re-record it with "
                                   "--update-baselines to keep one)"
                       : now->why_not[0] ? now->why_not : "no trace was taken now");
    return;
  }
  char *buf = malloc(LEN);
  if (!buf || perf__trace_parse(e->trace, &was, why, sizeof why)) {
    perf__context_line(PERF_LINE_DETAIL, "  what changed in the GPU's work: not known: %s",
                       buf ? why : "out of memory");
    free(buf);
    return;
  }
  perf__trace_explain(&(perf__trace_side){&was, e->median_s, e->sm_clock.median},
                      &(perf__trace_side){now, median, mhz}, PERF__TRACE_CHANGED, buf, LEN);
  perf__context_line(PERF_LINE_DETAIL, "  what changed in the GPU's work since the baseline "
                     "(recorded %s; traced with CUPTI's Activity API outside the timed samples), "
                     "by the time each change explains:", e->recorded);
  char *save = NULL;
  for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
    perf__context_line(PERF_LINE_DETAIL, "%s", line);
  perf__trace_free(&was);
  free(buf);
}

/* See blwhy.h. */
void perf__blwhy_inband_note(const perf__inband *ib, int on_all, const perf__baseline_entry *ref,
                             char *note, size_t len)
{
  note[0] = '\0';
  if (!ib || !ib->slow || !ref || !(ref->median_s > 0)) return;
  perf__reference slow = perf__inband_reference(ib, 1);
  snprintf(note, len, "; the machine ran %d of %d sample %s slow (perfgate's host_reference "
           "%+.1f%% beside %s, above its band of %+.1f%%): %s", ib->slow, ib->batches,
           perf__units_noun(ib->batches, "batch", "batches"),
           100 * (slow.median / ref->median_s - 1), ib->slow == 1 ? "it" : "them",
           100 * (ib->band_s / ref->median_s - 1),
           on_all ? "too few samples were taken beside readings within the band, so all "
                         "are compared"
                       : "their samples are left out");
}

/* See blwhy.h. */
double perf__blwhy_launch_scale(const perf__baseline_entry *e, double launch_now, char *note,
                                size_t len)
{
  char now[32], was[32];
  const char *how = " beside the samples";
  note[0] = '\0';
  if (!(e->launch_s > 0)) return 1;
  if (!(launch_now > 0)) {
    perf__reference r;
    how = " after the samples";
    cudaError_t err = perf__reference_launch(&r);
    if (err) {
      snprintf(note, len, "; launch-normalized entry, but perfgate's launch_reference could not "
               "be read: %s (a slower time is not decided)", cudaGetErrorString(err));
      return 0;
    }
    launch_now = r.median;
  }
  double f = perf__blrule_per_launch(1, e->launch_s, launch_now);
  snprintf(note, len, "; launch-normalized: perfgate's launch_reference took %s per launch%s vs "
           "%s at update (submit clock, %+.1f%%), so the time is scaled by %.3f",
           perf__units_time(now, sizeof now, launch_now), how,
           perf__units_time(was, sizeof was, e->launch_s), 100 * (launch_now / e->launch_s - 1), f);
  return f;
}

/* See blwhy.h. */
int perf__blwhy_host_paced(const perf_workload *w)
{
  const perf__wstate *st = w->perf__state;
  return perf__blrule_ref_applies(PERF__BLR_REF_HOST, perf__clock_name(st->clock),
                                  st->queue_share, st->uses_gpu);
}

/* See blwhy.h. */
int perf__blwhy_entry_host_paced(const perf__baseline_entry *e, const perf_workload *w)
{
  perf__trace t = {0};
  perf__blrule_traced what;
  char why[160];
  int traced = e->trace && !perf__trace_parse(e->trace, &t, why, sizeof why) &&
               perf__blrule_traced_of(&t, &what);
  perf__trace_free(&t);
  return perf__blrule_pace_of(e->clock, w->perf__state->queue_share, 1, traced ? &what : NULL,
                              e->median_s) != PERF__BLR_PACE_GPU;
}
