/* ratio.c — PERF_EXPECT_FASTER and PERF_EXPECT_SIMILAR: one comparison and what it reports. */
/* Its verdict line, its record and its baseline entries. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/ratio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "util/status.h"
#include "perfgate.h"
#include "worker/claim/bldoor.h"
#include "worker/claim/claim.h"
#include "worker/claim/compare.h"
#include "worker/context.h"
#include "worker/claim/sweep.h"
#include "worker/claim/throughput.h"

/* The claim's measure (claim.h): a against b, sampled until decided. */
static perf_outcome measure(perf__claim *c)
{
  const perf__verdict_claim *v = c->self;
  int faster = v->kind == PERF__CLAIM_FASTER;
  perf__compare_ask ask = {*v, faster ? "FASTER" : "SIMILAR", perf__context_alpha_share(), c->head};
  perf__compare_run(c->a, c->b, &ask, &c->m);
  c->why = c->m.r.why;
  return c->m.r.verdict;
}

/* The claim's feed (claim.h): both workloads, and the ratio for the
 * file's ratio rows. */
static void feed(perf__claim *c)
{
  char key[400], tag[96];
  perf__claim_feed_pair(c);
  snprintf(key, sizeof key, "%s%s", perf__compare_claim_text(c->head),
           perf__sweep_tag(tag, sizeof tag));
  perf__bldoor_ratio(c->a, key, c->m.r.ratio);
}

/* After the claim's record, whose verdict line is rendered from it
 * (record/verdictline.h): each workload's throughput line (claim.h's
 * print). */
static void print(perf__claim *c, const char *word)
{
  (void)word;
  perf__throughput_print(&c->m.rec.a, c->m.rec.clock);
  if (c->b != c->a) perf__throughput_print(&c->m.rec.b, c->m.rec.clock);
}

static const perf__claim_kind faster_kind = {
    .rec = PERF__CLAIMREC_FASTER, .rendered = 1, .measure = measure, .feed = feed,
    .print = print, .record = perf__claim_record_ratio, .explain = perf__claim_explain_pair};
static const perf__claim_kind similar_kind = {
    .rec = PERF__CLAIMREC_SIMILAR, .rendered = 1, .measure = measure, .feed = feed,
    .print = print, .record = perf__claim_record_ratio, .explain = perf__claim_explain_pair};

/* The claim v of a against b made at `at`, its kind and sweep tag set. */
static perf__claim claim_of(perf_workload *a, perf_workload *b, perf__verdict_claim *v,
                            perf__site at)
{
  perf__claim c = {.kind = v->kind == PERF__CLAIM_FASTER ? &faster_kind : &similar_kind,
                   .file = at.file, .line = at.line, .fatal = at.fatal, .a = a, .b = b,
                   .self = v};
  perf__sweep_tag(c.tag, sizeof c.tag);
  return c;
}

/* See ratio.h. */
char *perf__ratio_head(char *buf, size_t len, int similar, double x, perf__names names,
                       perf__site at)
{
  char tag[96];
  snprintf(buf, len, "%s(%s, %s, %g) at %s:%d%s", similar ? "SIMILAR" : "FASTER", names.a,
           names.b, x, at.file, at.line, perf__sweep_tag(tag, sizeof tag));
  return buf;
}

/* Public: PERF_EXPECT_FASTER / PERF_ASSERT_FASTER. A factor that is not a
 * positive number ends the test as ERROR. */
int perf__faster(perf_workload *a, perf_workload *b, double factor, perf__names names,
                 perf__site at)
{
  perf__verdict_claim v = {PERF__CLAIM_FASTER, factor};
  perf__claim c = claim_of(a, b, &v, at);
  perf__ratio_head(c.head, sizeof c.head, 0, factor, names, at);
  if (!(factor > 0 && isfinite(factor)))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: the factor must be a positive number", c.head);
  if (!a->name) a->name = names.a;
  if (!b->name) b->name = names.b;
  return perf__claim_run(&c);
}

/* Public: PERF_EXPECT_SIMILAR / PERF_ASSERT_SIMILAR. A tolerance that is
 * not a positive number ends the test as ERROR. */
int perf__similar(perf_workload *a, perf_workload *b, double tolerance, perf__names names,
                  perf__site at)
{
  perf__verdict_claim v = {PERF__CLAIM_SIMILAR, tolerance};
  perf__claim c = claim_of(a, b, &v, at);
  perf__ratio_head(c.head, sizeof c.head, 1, tolerance, names, at);
  if (!(tolerance > 0 && isfinite(tolerance)))
    perf__context_end(PERF_OUTCOME_ERROR, 0,
                      "%s: the tolerance must be a positive number (0.05 = 5 %%)", c.head);
  if (!a->name) a->name = names.a;
  if (!b->name) b->name = names.b;
  return perf__claim_run(&c);
}
