/* measrec.c — a comparison's measurement as its claim record holds it: both workloads, noise. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/measrec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "util/units.h"
#include "worker/claim/sweep.h"
#include "worker/claim/throughput.h"
#include "worker/device/gpuwatch.h"
#include "worker/sample/prepared.h"
#include "worker/sample/workload.h"

/* strdup that takes NULL; NULL without memory (the record is then short
 * of the string, the verdict is not affected). */
static char *dup(const char *s) { return s ? strdup(s) : NULL; }

/* A copy of n doubles (NULL without memory or when n == 0). */
static double *dup_times(const double *v, size_t n)
{
  double *c = n ? malloc(n * sizeof *c) : NULL;
  if (c) memcpy(c, v, n * sizeof *c);
  return c;
}

/* The GPU watch's part of a workload's record: SM clock after each sample
 * (0: unknown), the throttled samples this claim discarded and kept (counts
 * since `before`), and the reasons seen in this test. */
static void watch_record(perf__claimrec_workload *o, const perf__measrec_side *s)
{
  const perf__wstate *st = s->w->perf__state;
  const perf__retake *before = s->before;
  char names[120];
  if (!st->watched) return;
  o->watched = 1;
  o->sm_clock_mhz = s->n ? malloc(s->n * sizeof *o->sm_clock_mhz) : NULL;
  if (o->sm_clock_mhz) memcpy(o->sm_clock_mhz, s->mhz, s->n * sizeof *o->sm_clock_mhz);
  o->throttled_discarded = st->rt.throttled_discarded - before->throttled_discarded;
  o->throttled_kept = st->rt.throttled_kept - before->throttled_kept;
  o->throttle_reasons = dup(perf__gpuwatch_reason_names(st->throttle_seen, names, sizeof names));
}

/* Where the workload's GPU work went and what its clock waited for. */
static void route_record(perf__claimrec_workload *o, const perf_workload *w)
{
  static const char *const waits[] = {"nothing", "stream", "device", "?"};
  const perf__streamcheck_routing *r = &w->perf__state->route;
  o->waits_for = dup(waits[r->route]);
  o->gpu_work_checked = r->checked;
  o->undeclared_streams = r->undeclared;
  o->gpu_work = dup(!r->checked     ? r->why_not
                    : r->summary[0] ? r->summary
                                    : "none (no CUDA context in the process)");
}

/* One workload's part of the claim's record. */
static void workload_record(perf__claimrec_workload *o, const perf__measrec_side *s)
{
  const perf_workload *w = s->w;
  *o = (perf__claimrec_workload){
      .name = dup(w->name),
      .median_s = s->med,
      .median_interval_s = {s->ci[0], s->ci[1]},
      .median_confidence = 1 - PERF__MEDIAN_LEVEL,
      .mad_s = s->mad,
      .cold_start_s = w->perf__state->cold_s,
      .iterations_per_sample = w->perf__state->batch,
      .samples_s = dup_times(s->t, s->n),
  };
  o->nsamples = o->samples_s ? s->n : 0;
  route_record(o, w);
  watch_record(o, s);
  if (!perf__trace_copy(&o->trace, &w->perf__state->trace)) { /* the record keeps no events */
    free(o->trace.events);
    o->trace.events = NULL;
    o->trace.nevents = o->trace.cap_events = 0;
  }
  perf__throughput_record(o, w);
}

/* The sweep point the claim was made at, if any. */
static void sweep_record(perf__claimrec_sweep *o)
{
  if (!perf__sweep_active()) return;
  *o = (perf__claimrec_sweep){1, dup(perf__sweep_var()), perf__sweep_value(),
                              perf__sweep_index(), perf__sweep_points()};
}

/* The disturbances of a claim's sampling d, the rounds dropped as shared,
 * the early look, and the verdict line's causes (text: "; ..." or ""). */
static void noise_record(perf__claimrec_noise *o, const perf__retake *d, long shared_rounds,
                         int early, const char *text)
{
  *o = (perf__claimrec_noise){
      .host_retaken = d->retaken,
      .host_kept = d->kept_disturbed,
      .gpu_retaken = d->shared_retaken,
      .gpu_kept = d->shared_kept,
      .shared_rounds = shared_rounds,
      .early_look = early,
  };
  o->set = o->host_retaken || o->host_kept || o->gpu_retaken || o->gpu_kept ||
           shared_rounds || early || text[0];
  if (o->set) o->cause = dup(text[0] == ';' ? text + 2 : text);
}

/* See measrec.h. */
void perf__measrec_fill(perf__claimrec_ratio *o, const perf__measrec_in *in)
{
  const perf__verdict_result *r = in->r;
  const perf_workload *a = in->a->w, *b = in->b->w;
  char how[400];
  *o = (perf__claimrec_ratio){
      .kind = dup(in->kind),
      .clock = dup(perf__clock_name(a->perf__state->clock)),
      .threshold = in->threshold,
      .ratio = r->ratio,
      .interval = {r->lo, r->hi},
      .confidence = 1 - r->level,
      .rounds = r->rounds,
      .looks = r->looks,
      .budget_stretched = r->stretched,
      .seconds = r->seconds,
      .why = dup(r->why),
      .timing = dup(perf__prepared_clock_text(a, b, how, sizeof how)),
  };
  workload_record(&o->a, in->a);
  workload_record(&o->b, in->b);
  sweep_record(&o->sweep);
  noise_record(&o->noise, in->d, a->perf__state->shared_n, r->early, in->disturbed);
}

/* See measrec.h. */
perf__retake perf__measrec_retakes(const perf_workload *a, const perf_workload *b)
{
  perf__retake r = a->perf__state->rt;
  if (a != b) {
    const perf__retake *o = &b->perf__state->rt;
    r.retaken += o->retaken;
    r.kept_disturbed += o->kept_disturbed;
    r.throttled_discarded += o->throttled_discarded;
    r.throttled_kept += o->throttled_kept;
    r.rested_ms += o->rested_ms;
    r.shared_retaken += o->shared_retaken;
    r.shared_kept += o->shared_kept;
    r.shared_waited_ms += o->shared_waited_ms;
  }
  return r;
}

/* See measrec.h. */
void perf__measrec_disturbed_text(const perf__retake *d, const char *throttle, char *buf,
                                  size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  if (d->retaken || d->kept_disturbed)
    used += (size_t)snprintf(buf, len, "; %ld %s retaken and %ld kept although the host "
                             "preempted %s", d->retaken,
                             perf__units_noun(d->retaken, "sample", "samples"), d->kept_disturbed,
                             perf__units_noun(d->retaken + d->kept_disturbed, "it", "them"));
  if ((d->throttled_discarded || d->throttled_kept) && used < len)
    used += (size_t)snprintf(buf + used, len - used, "; %ld %s discarded and %ld kept while "
                             "the GPU was throttled (%s)%s", d->throttled_discarded,
                             perf__units_noun(d->throttled_discarded, "sample", "samples"),
                             d->throttled_kept, throttle,
                             d->rested_ms > 0 ? ", after idling the GPU between retakes" : "");
  if ((d->shared_retaken || d->shared_kept) && used < len)
    snprintf(buf + used, len - used, "; %ld %s retaken and %ld kept while another process "
             "used the GPU (waited %.1f s for it to leave)", d->shared_retaken,
             perf__units_noun(d->shared_retaken, "sample", "samples"), d->shared_kept,
             (double)d->shared_waited_ms * 1e-3);
}

/* See measrec.h. */
perf__retake perf__measrec_disturbances(const perf_workload *a, const perf_workload *b,
                         const perf__retake *before, char *buf, size_t len)
{
  perf__retake now = perf__measrec_retakes(a, b);
  perf__retake d = {
      .retaken = now.retaken - before->retaken,
      .kept_disturbed = now.kept_disturbed - before->kept_disturbed,
      .throttled_discarded = now.throttled_discarded - before->throttled_discarded,
      .throttled_kept = now.throttled_kept - before->throttled_kept,
      .rested_ms = now.rested_ms - before->rested_ms,
      .shared_retaken = now.shared_retaken - before->shared_retaken,
      .shared_kept = now.shared_kept - before->shared_kept,
      .shared_waited_ms = now.shared_waited_ms - before->shared_waited_ms,
  };
  char names[120] = "";
  if (d.throttled_discarded || d.throttled_kept)
    perf__gpuwatch_reason_names(a->perf__state->throttle_seen | b->perf__state->throttle_seen,
                                names, sizeof names);
  perf__measrec_disturbed_text(&d, names, buf, len);
  return d;
}
