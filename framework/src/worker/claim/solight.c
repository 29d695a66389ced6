/* solight.c — speed-of-light claims: a workload's share of the rate this GPU achieves. */
/* The rate of DRAM, of the host link or of math, decided against calibration
 * work timed in the same ABBA rounds. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/solight.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/clock.h"
#include "baseline/peaks.h"
#include "util/units.h"
#include "perfgate.h"
#include "worker/claim/bldoor.h"
#include "worker/claim/claim.h"
#include "worker/claim/compare.h"
#include "worker/claim/sweep.h"
#include "worker/claim/throughput.h"
#include "worker/context.h"
#include "worker/device/fingerprint.h"
#include "worker/sample/calibrate.h"
#include "worker/sample/workload.h"

/* The claims, one row each: X(peak, word, record kind). Their what
 * argument (perfgate.h) is the row's index. */
#define SOL_MAP(X)                                   \
  X(PERF__CAL_DRAM, "BANDWIDTH", PERF__CLAIMREC_BANDWIDTH) \
  X(PERF__CAL_MATH, "FLOPS", PERF__CLAIMREC_FLOPS)         \
  X(PERF__CAL_LINK, "LINK_BANDWIDTH", PERF__CLAIMREC_LINK_BANDWIDTH)

static const struct sol_row {
  perf__calibrate_peak peak;
  const char *word;
  perf__claimrec_kind kind;
} rows[] = {
#define X(peak, word, kind) {peak, word, kind},
    SOL_MAP(X)
#undef X
};
enum { NROWS = sizeof rows / sizeof rows[0] };

/* The claim: a share w's rate must reach of the rate of the calibration
 * work. With ta, tb the two medians per iteration and wa, wb the work of
 * one iteration of each, the share is (wa / ta) / (wb / tb) = (tb / ta) x
 * (wa / wb): FASTER(w, calibration, share x wb / wa) is the same claim,
 * decided by the same rule on the same rounds; its ratio and interval
 * times wa / wb are the share and its interval. */
typedef struct sol {
  const struct sol_row *row;
  double share, scale; /* scale: wa / wb */
  double work;         /* wa */
  perf_flop_type type;
  int ways; /* the link's: perf__calibrate_link_ways of w */
  perf_workload cal; /* the calibration work */
  char why[300];     /* why there is none */
} sol;

/* See solight.h. */
char *perf__solight_head(char *buf, size_t len, int what, double share, const char *wn,
                         perf__site at)
{
  char tag[96];
  snprintf(buf, len, "%s(%s, %g) at %s:%d%s", (unsigned)what < NROWS ? rows[what].word : "?", wn,
           share, at.file, at.line, perf__sweep_tag(tag, sizeof tag));
  return buf;
}

/* The work of w that the claim is about: its flops, or its bytes. Never
 * fails. */
static double work_of(const sol *s, const perf__peaks_work *k)
{
  return s->row->peak == PERF__CAL_MATH ? k->flops : perf__peaks_bytes(k);
}

/* Ends the test as ERROR when w cannot make the claim: no work of the
 * claim's kind declared, or (DRAM) a working set L2 may serve on a clock
 * that keeps L2 warm. Returns w's work of that kind. */
static double checked_work(const char *head, const perf_workload *w, const sol *s)
{
  perf__throughput_check(head, w);
  perf__peaks_work k = perf__throughput_work(w);
  double work = work_of(s, &k);
  if (!(work > 0))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: workload '%s' declares no %s", head, w->name,
                      s->row->peak == PERF__CAL_MATH
                          ? ".flops (and .flop_type): what one iteration computes"
                          : ".bytes_read or .bytes_written: what one iteration moves");
  const perf__peaks_device *d = perf__fingerprint_peaks();
  if (s->row->peak == PERF__CAL_DRAM && !perf__clock_flushes_l2(w->clock) &&
      perf__peaks_fits_l2(d, &k))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: workload '%s' moves %.1f MiB an iteration, less "
                      "than %d x the %.0f MiB L2: its bytes may come from L2, not DRAM; give it "
                      ".clock = PERF_CLOCK_COLD (L2 flushed before each sample) or a working set "
                      "larger than L2", head, w->name, perf__peaks_bytes(&k) / (1 << 20),
                      PERF__PEAKS_L2_FACTOR, d->l2_bytes / (1 << 20));
  return work;
}

/* The spec peak the claim's share is also given of (0: unknown), and how
 * it was computed into basis. Never fails. */
static double spec_of(const sol *s, const perf__claimrec_workload *a, char *basis, size_t len)
{
  basis[0] = '\0';
  if (s->row->peak == PERF__CAL_LINK) /* both ways: twice one way's */
    return perf__peaks_link(perf__fingerprint_peaks(), basis, len) / (s->ways == PERF__LINK_BOTH ? 1 : 2);
  if (s->row->peak == PERF__CAL_MATH) {
    snprintf(basis, len, "%s", a->spec_math_basis ? a->spec_math_basis : "");
    return a->spec_math;
  }
  return a->spec_dram;
}

/* The record (claim.h): the share as the ratio (its interval, the
 * claim's share as the threshold), and the measured peak in w's workload
 * record. Never fails (without memory the record goes short of its
 * strings). */
static void record(perf__claim *c, perf__claimrec *r)
{
  const sol *s = c->self;
  r->kind = s->row->kind;
  perf__claim_record_ratio(c, r); /* a copy: c's own stays as measured, for print */
  perf__claimrec_ratio *q = &r->ratio;
  double wb = work_of(s, &q->b.work);
  char what[160], from[200];
  q->threshold = s->share;
  q->ratio *= s->scale;
  q->interval[0] *= s->scale;
  q->interval[1] *= s->scale;
  double *measured = s->row->peak == PERF__CAL_MATH   ? &q->a.measured_math
                     : s->row->peak == PERF__CAL_LINK ? &q->a.measured_link
                                                      : &q->a.measured_dram;
  *measured = wb / q->b.median_s;
  if (s->row->peak == PERF__CAL_LINK) { /* the spec of the ways w copies, and how */
    char basis[300], said[340];
    q->a.spec_link = spec_of(s, &q->a, basis, sizeof basis);
    snprintf(said, sizeof said, "%s%s", basis,
             !basis[0] || !(q->a.spec_link > 0) ? ""
             : s->ways == PERF__LINK_BOTH        ? "; both ways"
                                                 : "; one way");
    free(q->a.spec_link_basis);
    q->a.spec_link_basis = said[0] ? strdup(said) : NULL;
  }
  snprintf(from, sizeof from, "%s, in the same ABBA rounds",
           perf__calibrate_describe(s->row->peak, s->type, s->ways, what, sizeof what));
  free(q->a.measured_from);
  q->a.measured_from = strdup(from);
}

/* The claim's measure (claim.h): w against calibration work of the
 * claim's peak, in the same ABBA rounds; SKIP where this machine cannot
 * calibrate. Ends the test as ERROR when w queued no GPU work. */
static perf_outcome measure(perf__claim *c)
{
  sol *s = c->self;
  perf_workload *w = c->a;
  if (perf__calibrate_make(s->row->peak, s->type, w, &s->cal, s->why, sizeof s->why)) {
    perf__context_line(PERF_LINE_DETAIL, "%s: SKIPPED: no peak to measure on this machine: %s",
                       c->head, s->why);
    c->why = s->why;
    return PERF_OUTCOME_SKIP;
  }
  c->b = &s->cal;
  perf__peaks_work cw = perf__throughput_work(&s->cal);
  s->scale = s->work / work_of(s, &cw);
  perf__compare_ask ask = {{PERF__CLAIM_FASTER, s->share / s->scale}, s->row->word,
                           perf__context_alpha_share(), c->head};
  perf__compare_run(w, &s->cal, &ask, &c->m);
  if (!w->perf__state->uses_gpu)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: workload '%s' queued no GPU work: a share of the "
                      "GPU's peak is about GPU work", c->head, w->name);
  c->why = c->m.r.why;
  return c->m.r.verdict;
}

/* The median SM clock of w's samples in c's comparison. */
static perf__baseline_mhz mhz_of(const perf__claim *c)
{
  const perf__claimrec_workload *a = &c->m.rec.a;
  return perf__baseline_mhz_of(a->sm_clock_mhz, a->sm_clock_mhz ? a->nsamples : 0);
}

/* The claim's feed (claim.h): w measured, and the calibration as this
 * machine's peak. */
static void feed(perf__claim *c)
{
  const sol *s = c->self;
  const perf__compare_result *m = &c->m;
  perf__bldoor_measured(c->a, m->r.med_a, m->r.mad_a, m->r.rounds, mhz_of(c), &m->host_before,
                        m->launch_s);
  perf__bldoor_calibration(&s->cal, s->row->peak, s->type, &m->rec.b);
}

/* After the claim's record, whose verdict line is rendered from it
 * (record/verdictline.h): w's throughput line, but for the link's claim
 * (claim.h's print). */
static void print_claim(perf__claim *c, const char *word)
{
  const sol *s = c->self;
  (void)word;
  if (s->row->peak != PERF__CAL_LINK) perf__throughput_print(&c->m.rec.a, c->m.rec.clock);
}

/* After a FAIL (claim.h): what changed in w's work since its entry's trace. */
static void explain(perf__claim *c) { perf__bldoor_explain(c->a, c->m.r.med_a, mhz_of(c).median); }

static const perf__claim_kind kind = {.rec = PERF__CLAIMREC_BANDWIDTH, .rendered = 1,
                                      .measure = measure,
                                      .feed = feed, .print = print_claim, .explain = explain,
                                      .record = record};

/* Public: PERF_EXPECT_BANDWIDTH, _FLOPS, _LINK_BANDWIDTH (and ASSERT). A
 * share outside (0, 1] or a workload without the work is an ERROR; a
 * machine that cannot calibrate skips the claim. */
int perf__speed_of_light(perf_workload *w, double share, int what, const char *wn, perf__site at)
{
  perf__claim c = {.kind = &kind, .file = at.file, .line = at.line, .fatal = at.fatal, .a = w};
  perf__solight_head(c.head, sizeof c.head, what, share, wn, at);
  perf__sweep_tag(c.tag, sizeof c.tag);
  if ((unsigned)what >= NROWS) perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: no such claim", c.head);
  if (!(share > 0 && share <= 1))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: the share must be a number in (0, 1] (0.8: 80 %% "
                      "of the peak measured on this GPU)", c.head);
  if (!w->name) w->name = wn;
  sol s = {.row = &rows[what], .share = share};
  s.type = s.row->peak == PERF__CAL_MATH ? w->flop_type : PERF_FLOP_NONE;
  s.ways = perf__calibrate_link_ways(w);
  s.work = checked_work(c.head, w, &s);
  c.self = &s;
  return perf__claim_run(&c);
}
