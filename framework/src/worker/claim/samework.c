/* samework.c — PERF_EXPECT_SAME_WORK: one call's GPU work, counted, against this GPU's baseline. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/samework.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "baseline/baseline.h"
#include "util/status.h"
#include "util/units.h"
#include "perfgate.h"
#include "worker/claim/bldoor.h"
#include "worker/claim/claim.h"
#include "worker/claim/sweep.h"
#include "worker/context.h"
#include "worker/device/gpu.h"
#include "worker/sync/syncdetect.h"
#include "worker/sync/workcount.h"

/* A time claim asks how long; this one asks what ran. One call of the
 * workload is counted by the GPU's hardware counters (worker/sync/
 * workcount.h: CUPTI's range profiler, set up for the count and torn down
 * before it returns, so no timing runs beside it) and its warp
 * instructions are compared with those this GPU's baseline file holds for
 * it: the same within PERF__BL_WORK_TOLERANCE, or not. Counts do not move
 * with clocks or neighbours, so one count decides on any runner; its DRAM
 * bytes read are reported beside it, not decided on. */

/* See samework.h. */
char *perf__samework_head(char *buf, size_t len, const char *name, perf__site at)
{
  char tag[96];
  snprintf(buf, len, "SAME_WORK(%s) at %s:%d%s", name, at.file, at.line,
           perf__sweep_tag(tag, sizeof tag));
  return buf;
}

/* The counted call: one iteration of the workload. Ends the test as the
 * workload's own failures do. */
static void call(void *arg)
{
  perf_workload *w = arg;
  w->fn(w->arg);
}

/* One call before the count, its work waited for: lazy initialisation is
 * not the steady state. No GPU, or a CUDA error the call caused, ends the
 * test (skipped, or ERROR). */
static void warm(perf_workload *w)
{
  const perf__gpu_info *g = perf__gpu();
  if (g->err) perf__gpu_end(g->err, g->reason);
  w->fn(w->arg);
  cudaError_t e = cudaDeviceSynchronize();
  if (e) perf__gpu_fail(e, "cudaDeviceSynchronize (before the work is counted)", NULL, 0);
}

/* Counts one call of w into c. Returns 1; 0 when the GPU's counters
 * cannot be read here (a device CUPTI cannot profile, counters kept to
 * admin users, another tool holding CUPTI), with why[len]. A CUDA error
 * during the count, or no memory, ends the test as ERROR. */
static int count(perf_workload *w, const char *head, perf__workcount *c, char *why, size_t len)
{
  perf__context_on_release(perf__workcount_release);
  int err = perf__workcount_run(call, w, c, why, len);
  if (err == PERF__ECUDA || err == PERF__ENOMEM)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: counting its work: %s", head, why);
  if (err) {
    perf__context_line(PERF_LINE_DETAIL, "%s: SKIPPED: the GPU's counters cannot be read here: %s",
                       head, why);
    snprintf(why, len, "the GPU's counters cannot be read here");
    return 0;
  }
  if (!(c->insts > 0))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: one call ran no GPU instruction (0 counted): "
                      "SAME_WORK counts the work of a workload's kernels", head);
  return 1;
}

/* The claim's state between its steps. */
typedef struct samework {
  char why[800];  /* why it was skipped */
  char said[120]; /* the record's message after the head */
  perf__claimrec_count count; /* for the record (was_recorded borrowed) */
} samework;

/* The count c for the record, with how it was taken. Never fails. */
static perf__claimrec_count count_of(const perf__workcount *c)
{
  return (perf__claimrec_count){.insts = c->insts, .dram_read = c->dram_read,
                                .passes = c->passes, .count_s = c->count_s,
                                .setup_s = c->setup_s};
}

/* With --update-baselines: records c as w's work count; PASS, the head
 * alone as the message. */
static perf_outcome record(perf__claim *k, const perf__workcount *c)
{
  samework *self = k->self;
  perf__bldoor_record_work(k->a, c->insts, c->dram_read);
  self->count = count_of(c);
  self->count.recorded = 1;
  k->said = "";
  return PERF_OUTCOME_PASS;
}

/* Compares c with w's count in this GPU's file: PASS within
 * PERF__BL_WORK_TOLERANCE, FAIL beyond; no count there skips the check,
 * saying why. */
static perf_outcome decide(perf__claim *k, const perf__workcount *c)
{
  samework *self = k->self;
  const perf__baseline_work *e = perf__bldoor_work(k->a, self->why, sizeof self->why);
  if (!e) {
    perf__context_line(PERF_LINE_DETAIL, "%s: SKIPPED: %s", k->head, self->why);
    k->why = self->why;
    return PERF_OUTCOME_SKIP;
  }
  double rel = c->insts / e->insts - 1;
  self->count = count_of(c);
  self->count.was_insts = e->insts;
  self->count.was_dram_read = e->dram_read;
  self->count.tolerance = PERF__BL_WORK_TOLERANCE;
  self->count.was_recorded = (char *)e->recorded; /* borrowed: copied into the record */
  snprintf(self->said, sizeof self->said, ": %+.2f%% warp instructions", 100 * rel);
  k->said = self->said;
  return fabs(rel) <= PERF__BL_WORK_TOLERANCE ? PERF_OUTCOME_PASS : PERF_OUTCOME_FAIL;
}

/* The record (claim.h): the count, and the baseline's. Never fails
 * (without memory the record goes without its date). */
static void record_count(perf__claim *k, perf__claimrec *r)
{
  const samework *self = k->self;
  r->count = self->count;
  r->count.was_recorded = self->count.was_recorded ? strdup(self->count.was_recorded) : NULL;
}

/* The claim's measure (claim.h): one call counted, then recorded or
 * decided. */
static perf_outcome measure(perf__claim *k)
{
  samework *self = k->self;
  perf__workcount c;
  warm(k->a);
  if (!count(k->a, k->head, &c, self->why, sizeof self->why)) {
    k->why = self->why;
    return PERF_OUTCOME_SKIP;
  }
  return perf__context_opt.update_baselines ? record(k, &c) : decide(k, &c);
}

/* No id: a count is not taken from a first attempt. Its line is rendered
 * from its record (record/verdictline.h). */
static const perf__claim_kind kind = {.rec = PERF__CLAIMREC_SAME_WORK, .rendered = 1,
                                      .measure = measure, .record = record_count};

/* Public: PERF_EXPECT_SAME_WORK / PERF_ASSERT_SAME_WORK. */
int perf__expect_same_work(perf_workload *w, const char *wn, perf__site at)
{
  samework self;
  perf__claim c = {.kind = &kind, .file = at.file, .line = at.line, .fatal = at.fatal,
                   .fresh = 1, .a = w, .self = &self};
  if (!w->name) w->name = wn;
  perf__samework_head(c.head, sizeof c.head, w->name, at);
  if (!w->fn) perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: needs a workload", c.head);
  if (perf__syncdetect_in_check())
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: counting inside a sync check (CUPTI is "
                      "attached there); move the claim out of PERF_NO_SYNC_IN", c.head);
  return perf__claim_run(&c);
}
