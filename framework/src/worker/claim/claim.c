/* claim.c — one claim's lifecycle, written once: open, measure, feed, print, record, close. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/claim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/verdictline.h"
#include "worker/claim/bldoor.h"
#include "worker/context.h"

/* The record's message into buf[len]: the head, then c->said, or ": WORD"
 * and ": detail". Never fails (truncates). */
static void message(const perf__claim *c, perf_outcome v, char *buf, size_t len)
{
  if (c->said)
    snprintf(buf, len, "%s%s", c->head, c->said);
  else
    snprintf(buf, len, "%s: %s%s%s", c->head, perf__status_word(v), c->detail ? ": " : "",
             c->detail ? c->detail : "");
}

/* Sends c's record (message msg; outcome v; the rest by the kind's
 * record method). Never fails (without memory the record goes short of
 * its strings). */
static void send(perf__claim *c, perf_outcome v, const char *msg)
{
  perf__claimrec r = {.outcome = v, .kind = c->kind->rec};
  if (c->kind->record) c->kind->record(c, &r);
  r.message = strdup(msg);
  perf__context_claim(&r);
  perf__claimrec_free(&r);
}

/* Closes c's claim where this run opened it: a fresh one opened none, and
 * may be made inside another's measurement (a TRUE in a workload), whose
 * id must stay. Never fails. */
static void close_claim(const perf__claim *c)
{
  if (!c->fresh) perf__context_claim_close();
}

/* The claims running, innermost first: a claim may be made inside
 * another's measurement (a TRUE in a workload). */
static perf__claim *running;

/* Frees what c measured for its record. Never fails. */
static void free_measured(perf__claim *c)
{
  perf__claimrec own = {.ratio = c->m.rec};
  perf__claimrec_free(&own);
  c->m.rec = (perf__claimrec_ratio){0};
}

/* The end hook (context.h): the test ends inside the claims running, whose
 * frames still hold what they measured. Never fails. */
static void ended(void)
{
  for (perf__claim *c = running; c; c = c->outer) free_measured(c);
  running = NULL;
}

/* Steps 2 to 7 of claim.h for c, its message into msg[len]. Returns the
 * outcome (c->pending: none yet). Ends the test as the kind's methods do. */
static perf_outcome steps(perf__claim *c, char *msg, size_t len)
{
  const perf__claim_kind *k = c->kind;
  perf_outcome v = k->measure(c);
  if (c->pending) return v;
  if (v == PERF_OUTCOME_SKIP) {
    perf__context_skipped_check("%s: %s", c->head, c->why ? c->why : "nothing to decide against");
    return v;
  }
  if (k->feed) k->feed(c);
  char word[400];
  perf__verdictline_word(v, c->why, word, sizeof word);
  message(c, v, msg, len);
  if (k->rendered) send(c, v, msg);
  if (k->print) k->print(c, word);
  if (!k->rendered) send(c, v, msg);
  if (v == PERF_OUTCOME_FAIL && k->explain) k->explain(c);
  return v;
}

/* See claim.h. */
int perf__claim_run(perf__claim *c)
{
  const perf__claim_kind *k = c->kind;
  if (!c->fresh && perf__context_claim_open(c->file, c->line, c->tag, c->once))
    return k->kept ? k->kept(c) : perf__context_claim_kept(c->head);
  char msg[1024];
  perf__context_on_end(ended);
  c->outer = running;
  running = c;
  perf_outcome v = steps(c, msg, sizeof msg);
  running = c->outer;
  if (c->pending) return close_claim(c), 1;
  free_measured(c);
  close_claim(c);
  if (v == PERF_OUTCOME_SKIP) return 0;
  if (v != PERF_OUTCOME_PASS && c->fatal) perf__context_end(PERF_OUTCOME_FAIL, 0, "%s", msg);
  return v == PERF_OUTCOME_PASS;
}

/* See claim.h. */
void perf__claim_feed_pair(perf__claim *c)
{
  perf__bldoor_pair(c->a, c->b, &c->m);
  perf__bldoor_peaks(&c->m.rec.a, c->a, c->m.rec.clock);
  perf__bldoor_peaks(&c->m.rec.b, c->b, c->m.rec.clock);
}

/* The median SM clock of a workload's samples (0: unknown). */
static unsigned last_mhz(const perf__claimrec_workload *w)
{
  return perf__baseline_mhz_of(w->sm_clock_mhz, w->sm_clock_mhz ? w->nsamples : 0).median;
}

/* See claim.h. */
void perf__claim_explain_pair(perf__claim *c)
{
  perf__bldoor_explain(c->a, c->m.r.med_a, last_mhz(&c->m.rec.a));
  if (c->b != c->a) perf__bldoor_explain(c->b, c->m.r.med_b, last_mhz(&c->m.rec.b));
}

/* See claim.h. */
void perf__claim_record_ratio(perf__claim *c, perf__claimrec *r)
{
  perf__claimrec copy, src = {.kind = r->kind, .ratio = c->m.rec};
  if (!perf__claimrec_copy(&copy, &src)) r->ratio = copy.ratio;
}
