/* unit_claim.c — perf__claim_run: a claim's measurement is freed however its test ends. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest.h"
#include "perfgate.h"
#include "worker/claim/claim.h"
#include "worker/context.h"

static void silent(perf_line_kind kind, const char *line)
{
  (void)kind;
  (void)line;
}

/* Where the stand-in kind ends the test: in measure, in feed, or not. */
enum { END_IN_MEASURE, END_IN_FEED, END_NOT };
static int ends_at;

/* A measurement as a comparison leaves it in c->m.rec: owned strings and
 * samples. */
static void measured(perf__claim *c)
{
  c->m.rec.clock = strdup("wall");
  c->m.rec.a.name = strdup("a");
  c->m.rec.a.samples_s = calloc(16, sizeof(double));
  c->m.rec.a.nsamples = c->m.rec.a.samples_s ? 16 : 0;
}

static perf_outcome measure(perf__claim *c)
{
  measured(c);
  if (ends_at == END_IN_MEASURE)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: ended in measure", c->head);
  return PERF_OUTCOME_PASS;
}

static void feed(perf__claim *c)
{
  if (ends_at == END_IN_FEED)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: ended in feed", c->head);
}

static const perf__claim_kind kind = {.rec = PERF__CLAIMREC_FASTER, .rendered = 1,
                                      .measure = measure, .feed = feed};

/* A fatal check that does not hold, made inside the outer claim's
 * measurement (a TRUE in a workload). */
static perf_outcome false_check(perf__claim *c)
{
  c->said = " is false";
  return PERF_OUTCOME_FAIL;
}

static const perf__claim_kind inner = {.rec = PERF__CLAIMREC_TRUE, .rendered = 1,
                                       .measure = false_check};

static perf_outcome measure_around(perf__claim *c)
{
  measured(c);
  perf__claim t = {.kind = &inner, .fatal = 1, .fresh = 1};
  snprintf(t.head, sizeof t.head, "TRUE(x) at w.c:2");
  perf__claim_run(&t);
  return PERF_OUTCOME_PASS;
}

static const perf__claim_kind outer = {.rec = PERF__CLAIMREC_FASTER, .rendered = 1,
                                       .measure = measure_around};

/* The claim, outside the test's frames: read after the test ended. */
static perf__claim claim;

/* Runs a claim of kind k in a test; its result into *res. */
static void run_claim(const perf__claim_kind *k, int at, perf__context_result *res)
{
  ends_at = at;
  perf__context_set_sink(silent);
  jmp_buf *end = perf__context_begin("unit.claim", res);
  if (setjmp(*end) == 0) {
    claim = (perf__claim){.kind = k, .fresh = 1};
    snprintf(claim.head, sizeof claim.head, "K(a, b) at k.c:1");
    perf__claim_run(&claim);
    perf__context_settle();
  }
  perf__context_finish_checks();
  perf__context_finish();
  perf__context_set_sink(NULL);
}

/* Ended inside measure, inside feed, by a fatal claim inside the
 * measurement, or run to its end: the measurement is freed each time
 * (the sanitizer builds would report the leak too). */
ST_TEST(claim_measurement_is_freed_however_the_test_ends)
{
  perf__context_result res;
  run_claim(&kind, END_IN_MEASURE, &res);
  ST_EQ(res.outcome, PERF_OUTCOME_ERROR);
  ST_CHECKF(strstr(res.reason, "ended in measure") != NULL, "%s", res.reason);
  ST_CHECK(!claim.m.rec.clock && !claim.m.rec.a.name && !claim.m.rec.a.samples_s);
  run_claim(&kind, END_IN_FEED, &res);
  ST_EQ(res.outcome, PERF_OUTCOME_ERROR);
  ST_CHECKF(strstr(res.reason, "ended in feed") != NULL, "%s", res.reason);
  ST_CHECK(!claim.m.rec.clock && !claim.m.rec.a.name && !claim.m.rec.a.samples_s);
  run_claim(&outer, END_NOT, &res);
  ST_EQ(res.outcome, PERF_OUTCOME_FAIL);
  ST_CHECKF(!strcmp(res.reason, "TRUE(x) at w.c:2 is false"), "%s", res.reason);
  ST_CHECK(!claim.m.rec.clock && !claim.m.rec.a.name && !claim.m.rec.a.samples_s);
  run_claim(&kind, END_NOT, &res);
  ST_EQ(res.outcome, PERF_OUTCOME_PASS);
  ST_CHECK(!claim.m.rec.clock && !claim.m.rec.a.name && !claim.m.rec.a.samples_s);
}
