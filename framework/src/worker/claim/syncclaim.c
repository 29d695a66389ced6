/* syncclaim.c — the sync checks (entry points in perfgate.h): host syncs counted, then decided. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/syncclaim.h"

#include <stdio.h>
#include <string.h>

#include "perfgate.h"
#include "record/claimrec.h"
#include "worker/claim/claim.h"
#include "worker/context.h"
#include "worker/sync/syncdetect.h"

enum { HEAD_LEN = 300 }; /* a head's length, "SYNCS(w, 0) at f.c:9" */

/* A sync check's state between its steps. */
typedef struct syncs {
  perf_workload *w;           /* the workload counted in measure; NULL: a
                                 region, counted before the claim runs */
  perf__syncdetect_pass pass; /* the count */
  perf__claimrec_syncs y;     /* what is wanted (wanted, at_least), and for
                                 the record (strings borrowed) */
  char got[64], said[400];
} syncs;

/* No CUPTI (claim.h's measure): the check fails, or is skipped with
 * --allow-no-sync-check, saying why. */
static perf_outcome cannot_look(perf__claim *c, syncs *s)
{
  if (perf__context_opt.allow_no_sync_check) {
    perf__context_line(PERF_LINE_DETAIL, "%s: SKIPPED: cannot look for host syncs: %s", c->head,
                       s->pass.cannot);
    c->why = "cannot look for host syncs";
    return PERF_OUTCOME_SKIP;
  }
  snprintf(s->said, sizeof s->said, ": cannot look for host syncs: %s", s->pass.cannot);
  c->said = s->said;
  s->y = (perf__claimrec_syncs){.cannot = s->pass.cannot};
  return PERF_OUTCOME_FAIL;
}

/* Decides on the count (claim.h's measure): in every iteration exactly
 * the syncs wanted, or at least them. */
static perf_outcome decide(perf__claim *c, syncs *s)
{
  const perf__syncdetect_pass *p = &s->pass;
  int ok = 1, n = s->y.wanted;
  for (int i = 0; i < p->iterations; i++)
    ok &= s->y.at_least ? p->total[i] >= n : p->total[i] == n;
  perf__syncdetect_count_text(s->got, sizeof s->got, p->total, p->iterations);
  snprintf(s->said, sizeof s->said, ": %s host sync%s%s", s->got, strcmp(s->got, "1") ? "s" : "",
           p->iterations > 1 ? " per iteration" : "");
  c->said = s->said;
  s->y.got = s->got;
  s->y.iterations = p->iterations;
  s->y.pass_s = p->pass_s;
  s->y.cupti_s = p->cupti_s;
  return ok ? PERF_OUTCOME_PASS : PERF_OUTCOME_FAIL;
}

/* The check's measure (claim.h): a workload's pass run here, a region's
 * taken as counted; then decided. Ends the test as
 * perf__syncdetect_workload. */
static perf_outcome measure(perf__claim *c)
{
  syncs *s = c->self;
  if (s->w) perf__syncdetect_workload(s->w, c->head, &s->pass);
  return s->pass.cannot[0] ? cannot_look(c, s) : decide(c, s);
}

/* The record (claim.h): the count against what was wanted. Never fails
 * (without memory the record goes without its strings). */
static void record(perf__claim *c, perf__claimrec *r)
{
  const syncs *s = c->self;
  r->syncs = s->y;
  r->syncs.got = s->y.got ? strdup(s->y.got) : NULL;
  r->syncs.cannot = s->y.cannot ? strdup(s->y.cannot) : NULL;
}

/* After the verdict line, rendered from the record (claim.h's print): a
 * line for each sync's call site, published as perf_sync_findings; none
 * when nothing was counted. Never fails. */
static void print(perf__claim *c, const char *word)
{
  const syncs *s = c->self;
  int iters = s->pass.iterations;
  (void)word;
  if (s->pass.cannot[0]) return;
  size_t n;
  const perf_sync_finding *f = perf__syncdetect_sites(iters, s->w ? s->w->name : NULL, &n);
  for (size_t i = 0; i < n; i++) {
    char k[64];
    perf__syncdetect_count_text(k, sizeof k, perf__syncdetect_site_counts(i), iters);
    perf__context_line(PERF_LINE_DETAIL, "  %s (%s) x%s%s at %s%s%s", f[i].api, f[i].why, k,
                       iters > 1 ? " per iteration" : "", f[i].where,
                       f[i].inside[0] ? ", inside " : "", f[i].inside);
  }
  long more = perf__syncdetect_dropped();
  if (more)
    perf__context_line(PERF_LINE_DETAIL, "  ... and %ld more host syncs at other sites", more);
}

/* No id: a sync check is counted again in a second attempt. */
static const perf__claim_kind kind = {.rec = PERF__CLAIMREC_SYNCS, .rendered = 1,
                                      .measure = measure, .record = record, .print = print};

/* Runs the check headed head, made at at, its wants and count in s.
 * Returns 1 when it held; a fatal (ASSERT) failure ends the test. */
static int run(syncs *s, const char *head, perf__site at)
{
  perf__claim c = {.kind = &kind, .file = at.file, .line = at.line, .fatal = at.fatal,
                   .fresh = 1, .self = s};
  snprintf(c.head, sizeof c.head, "%s", head);
  return perf__claim_run(&c);
}

/* Public: PERF_EXPECT_SYNCS and friends. A count below 0 or no workload
 * ends the test as ERROR. */
int perf__expect_syncs(perf_workload *w, int n, int at_least, const char *wn, perf__site at)
{
  char head[HEAD_LEN];
  snprintf(head, sizeof head, "SYNCS%s(%s, %d) at %s:%d",
           at_least ? "_AT_LEAST" : "", w->name ? w->name : wn, n, at.file, at.line);
  if (n < 0 || !w->fn)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: needs a workload and a count >= 0", head);
  syncs s = {.w = w, .y = {.wanted = n, .at_least = at_least}};
  return run(&s, head, at);
}

/* ---- PERF_NO_SYNC_IN: the scope is a one-pass for loop ----------------- */

enum { SCOPE_DONE, SCOPE_RUN_BODY, SCOPE_BODY_RAN, SCOPE_NOT_LOOKING };

static void head_of(const perf__sync_scope *s, char *buf, size_t len)
{
  snprintf(buf, len, "NO_SYNC_IN(%s) at %s:%d", s->text, s->at.file, s->at.line);
}

/* Public: starts PERF_NO_SYNC_IN. A workload is checked at once (the loop
 * body, an empty statement, never runs); a region is run once by the loop
 * with CUPTI attached. Not a workload ends the test as ERROR. */
perf__sync_scope perf__sync_open(int is_workload, void *x, const char *text, perf__site at)
{
  perf__sync_scope s = {.state = SCOPE_DONE, .text = text, .at = at};
  char head[HEAD_LEN];
  syncs k = {0};
  head_of(&s, head, sizeof head);
  if (is_workload) {
    k.w = is_workload == 2 ? *(perf_workload **)x : x;
    if (!k.w || !k.w->fn)
      perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: not a workload (use PERF_WORKLOAD)", head);
    run(&k, head, at);
    return s;
  }
  if (perf__syncdetect_region_open(head, &k.pass)) {
    s.state = SCOPE_RUN_BODY;
    return s;
  }
  run(&k, head, at);
  s.state = SCOPE_NOT_LOOKING; /* the code still runs, unchecked */
  return s;
}

/* Public: 1 to run the region's body, 0 when the scope is over (the
 * region then decided). */
int perf__sync_step(perf__sync_scope *s)
{
  char head[HEAD_LEN];
  syncs k = {0};
  switch (s->state) {
  case SCOPE_RUN_BODY:
    s->state = SCOPE_BODY_RAN;
    return 1;
  case SCOPE_NOT_LOOKING:
    s->state = SCOPE_DONE;
    return 1;
  case SCOPE_BODY_RAN:
    perf__syncdetect_region_close(&k.pass);
    head_of(s, head, sizeof head);
    run(&k, head, s->at);
    s->state = SCOPE_DONE;
    return 0;
  default:
    return 0;
  }
}
