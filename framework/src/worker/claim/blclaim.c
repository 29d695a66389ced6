/* blclaim.c — PERF_EXPECT_BASELINE: one workload timed alone, against its entry in the file. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/blclaim.h"

#include <stdio.h>
#include <string.h>

#include "baseline/blrule.h"
#include "host/clock.h"
#include "stats/stats.h"
#include "util/units.h"
#include "worker/claim/bldoor.h"
#include "worker/claim/blwhy.h"
#include "worker/claim/claim.h"
#include "worker/claim/hostnoise.h"
#include "worker/claim/sweep.h"
#include "worker/context.h"
#include "worker/device/cotenant.h"
#include "worker/device/gpu.h"
#include "worker/sample/inband.h"
#include "worker/sample/reference.h"
#include "worker/sample/workload.h"

/* A baseline measurement: 8 to 64 samples, until the median's 95 %
 * interval is within +-0.2 % (or a quarter of its entry's between-process
 * spread, where that is wider: precision()) or the budget is spent. */
enum { MAX_SAMPLES = 64, MIN_SAMPLES = 8 };
_Static_assert((int)MAX_SAMPLES <= (int)PERF__INBAND_MAX, "an in-band check keeps up to MAX_SAMPLES");
static const double PRECISION = 0.002;

/* How precise w's median must be: PRECISION, or less where its entry's
 * runs differ more between processes than that (blrule.h: a quarter of
 * their spread), so that a check does not buy precision the comparison
 * cannot use. A malformed file ends the test (perf__bldoor_entry). */
static double precision(const perf_workload *w)
{
  if (perf__context_opt.update_baselines) return PRECISION;
  return perf__blrule_precision(perf__bldoor_entry(w), PRECISION);
}

/* See blclaim.h. */
char *perf__blclaim_head(char *buf, size_t len, const char *name, perf__site at)
{
  char tag[96];
  snprintf(buf, len, "BASELINE(%s) at %s:%d%s", name, at.file, at.line, perf__sweep_tag(tag, sizeof tag));
  return buf;
}

/* Samples w for a baseline check into o (t and mhz with room for 2 x
 * MAX_SAMPLES; scratch as much): a host-paced workload, for an update or against
 * a file with the host reference's entry, in batches beside the host
 * reference (ibc->ib, inband.h; when too few were kept to decide on,
 * perf__inband_enough, the left-out ones are added and ibc->on_all set),
 * another as perf__workload_samples_mhz (ibc->ib then NULL). Returns 0 or a
 * sampling error, with why. */
static int sample(perf_workload *w, perf__bldoor_inband *ibc, perf__workload_out *o, char *why,
                  size_t len)
{
  double band = perf__bldoor_host_band(w);
  perf__workload_want want = {MIN_SAMPLES, MAX_SAMPLES, perf__context_opt.budget_s, precision(w)};
  perf__inband *ib = ibc->ib;
  if (!perf__blwhy_host_paced(w) || (!perf__context_opt.update_baselines && !(band > 0))) {
    ibc->ib = NULL; /* no band to keep samples by: the reference is timed after, if at all */
    return perf__workload_samples_mhz(w, want, o, why, len);
  }
  ib->band_s = band;
  if (ibc->launch && perf__blrule_ref_applies(PERF__BLR_REF_LAUNCH, perf__clock_name(w->perf__state->clock),
                                              w->perf__state->queue_share, w->perf__state->uses_gpu) &&
      !perf__reference_launch_open(ibc->launch))
    ib->launch = ibc->launch;
  int err = perf__inband_samples(w, ib, want, o, why, len);
  if (err || perf__inband_enough(ib, o->n, MIN_SAMPLES)) return err;
  ibc->on_all = 1;
  for (int i = 0; i < ib->nout && o->n < 2 * MAX_SAMPLES; i++, o->n++)
    o->t[o->n] = ib->out_t[i], o->mhz[o->n] = ib->out_mhz[i];
  return 0;
}

/* A verbose line: what reading the host reference between w's sample
 * batches cost (ibc->ib NULL: nothing). Never fails. */
static void inband_cost(const perf_workload *w, const perf__bldoor_inband *ibc)
{
  const perf__inband *ib = ibc->ib;
  if (!ib) return;
  char read[32], band[32] = "no band: every batch kept";
  perf__reference in = perf__inband_reference(ib, 0);
  if (ib->band_s > 0) {
    snprintf(band, sizeof band, "band ");
    perf__units_time(band + 5, sizeof band - 5, ib->band_s);
  }
  perf__context_line(PERF_LINE_VERBOSE, "%s: sampled in %d %s of up to %d (%d left out), "
                     "perfgate's host reference read %d %s between them (%s%s, %s; "
                     "%.1f ms of reference work%s, host clock)", w->name, ib->batches,
                     perf__units_noun(ib->batches, "batch", "batches"), PERF__INBAND_BATCH,
                     ib->slow, ib->nread, perf__units_noun(ib->nread, "time", "times"), in.n ? "median " : "none within the band",
                     in.n ? perf__units_time(read, sizeof read, in.median) : "", band,
                     1e3 * ib->read_cost_s, ib->nlaunch ? ", the launch reference's with it" : "");
}

/* The launch reference a PERF_EXPECT_BASELINE reads beside its batches.
 * Static, not on the stack: a CUDA error or a fatal check inside the
 * workload ends the test by longjmp, and close_launcher must still find
 * its stream. */
static perf__reference_launcher launcher;

/* The release hook: closes the launch reference a check left open. Never
 * fails. */
static void close_launcher(void) { perf__reference_launch_close(&launcher); }

/* Samples w for its check into s, with how (ibc) and the host's load
 * before (host). Ends the test on a sampling error (FAIL without memory,
 * as the GPU's error says otherwise). */
static void measure_alone(perf_workload *w, const char *head, perf__bldoor_inband *ibc,
                          perf__hostload *host, perf__bldoor_sampled *s)
{
  char why[600];
  double t[2 * MAX_SAMPLES], scratch[2 * MAX_SAMPLES];
  unsigned mhz[2 * MAX_SAMPLES];
  double budget = perf__context_opt.budget_s;
  perf__workload_prepare(w, budget / 2048, budget / 4);
  int linked = perf__workload_crosses_runs(w), n = 0;
  perf__hostnoise_begin(host);
  perf__context_on_release(close_launcher);
  perf__inband *ib = ibc->ib; /* sample() leaves ibc->ib NULL when it reads no band */
  perf__workload_out o = {t, mhz, scratch, 0};
  int err = sample(w, ibc, &o, why, sizeof why);
  n = o.n;
  s->launch_s = perf__inband_launch(ib);
  perf__reference_launch_close(&launcher);
  if (err == PERF__ENOMEM) perf__context_end(PERF_OUTCOME_FAIL, 0, "%s: %s", head, why);
  if (err) perf__gpu_end(err, why);
  inband_cost(w, ibc);
  s->median = perf__stats_median_of(t, (size_t)n, scratch);
  s->mad = perf__stats_mad_of(t, (size_t)n, scratch);
  s->n = n;
  s->clk = perf__baseline_mhz_of(mhz, (size_t)n);
  if (linked) perf__cotenant_link_pause(); /* read for this measurement only */
}

/* An update's record members into rec: what was recorded (its strings
 * malloc'd; without memory they go missing). Never fails. */
static void recorded(const perf_workload *w, const perf__bldoor_sampled *s,
                     perf__claimrec_baseline *rec)
{
  char timing[48], launch[240];
  snprintf(timing, sizeof timing, "%s clock", perf__clock_name(w->perf__state->clock));
  perf__workload_launch_note(w, launch, sizeof launch);
  *rec = (perf__claimrec_baseline){.recorded = 1, .now_s = s->median, .timing = strdup(timing),
                                   .samples = s->n, .sm_mhz = (int)s->clk.median,
                                   .notes = launch[0] ? strdup(launch) : NULL};
}

/* The claim's state between its steps. */
typedef struct blclaim {
  char said[240];            /* the record's message after the head, on a shared GPU */
  perf__bldoor_checked chk;  /* the record's members; a check's lines after its line */
} blclaim;

/* The claim's measure (claim.h): samples w alone; a shared GPU leaves it
 * INCONCLUSIVE; an update records it (PASS, the head alone as its
 * message); a check compares it with its entry (SKIP without one). */
static perf_outcome measure(perf__claim *c)
{
  blclaim *self = c->self;
  perf_workload *w = c->a;
  perf__inband ib = {0};
  perf__bldoor_inband ibc = {&ib, 0, &launcher};
  perf__hostload host;
  perf__bldoor_sampled s;
  measure_alone(w, c->head, &ibc, &host, &s);
  char cause[200];
  if (perf__bldoor_shared(w, c->head, &self->chk.rec, cause, sizeof cause)) {
    snprintf(self->said, sizeof self->said, ": %s%s",
             perf__status_word(PERF_OUTCOME_INCONCLUSIVE), cause);
    c->said = self->said;
    return PERF_OUTCOME_INCONCLUSIVE;
  }
  if (perf__context_opt.update_baselines) {
    perf__bldoor_record(w, &s, ibc.ib ? perf__inband_reference(ibc.ib, 0).median : 0);
    recorded(w, &s, &self->chk.rec);
    c->said = "";
    return PERF_OUTCOME_PASS;
  }
  perf_outcome o = perf__bldoor_check(w, c->head, &s, &host, ibc.ib ? &ibc : NULL, &self->chk);
  if (o == PERF_OUTCOME_SKIP) c->why = self->chk.skipped;
  return o;
}

/* The claim's record (claim.h): the members measure made, handed over.
 * Never fails. */
static void record(perf__claim *c, perf__claimrec *r)
{
  blclaim *self = c->self;
  r->baseline = self->chk.rec;
  self->chk.rec = (perf__claimrec_baseline){0};
}

/* The claim's print (claim.h): after its rendered line, a check's
 * throughput and what changed. Never fails. */
static void print(perf__claim *c, const char *word)
{
  blclaim *self = c->self;
  (void)word;
  perf__bldoor_after(c->a, &self->chk);
}

static const perf__claim_kind kind = {.rec = PERF__CLAIMREC_BASELINE, .rendered = 1,
                                      .measure = measure, .record = record, .print = print};

/* Public: PERF_EXPECT_BASELINE / PERF_ASSERT_BASELINE. */
int perf__expect_baseline(perf_workload *w, const char *wn, perf__site at)
{
  blclaim self = {0};
  perf__claim c = {.kind = &kind, .file = at.file, .line = at.line, .fatal = at.fatal, .a = w,
                   .b = w, .self = &self, .fresh = perf__context_opt.update_baselines};
  if (!w->name) w->name = wn;
  perf__blclaim_head(c.head, sizeof c.head, w->name, at);
  perf__sweep_tag(c.tag, sizeof c.tag);
  return perf__claim_run(&c);
}
