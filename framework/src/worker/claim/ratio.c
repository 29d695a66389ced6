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
#include "worker/claim/baselinecheck.h"
#include "worker/claim/compare.h"
#include "worker/context.h"
#include "worker/claim/sweep.h"

/* The claim's requirement, e.g. "needs >= 1.300x". Never fails. */
static void requirement(const perf__verdict_claim *c, char *buf, size_t len)
{
  if (c->kind == PERF__CLAIM_FASTER)
    snprintf(buf, len, "needs >= %.3fx", c->threshold);
  else
    snprintf(buf, len, "needs within [%.3f, %.3f]", 1 / (1 + c->threshold), 1 + c->threshold);
}

/* Sends the claim's record and counts it. Never fails (without memory the
 * record goes without its verdict line). */
static void record(perf__claimrec_kind kind, perf_outcome v, const char *msg,
                   perf__claimrec_ratio *m)
{
  perf__claimrec r = {.message = strdup(msg), .outcome = v, .kind = kind, .ratio = *m};
  *m = (perf__claimrec_ratio){0};
  perf__context_claim(&r);
  perf__claimrec_free(&r);
}

/* The median SM clock of a workload's samples (0: unknown). */
static unsigned last_mhz(const perf__claimrec_workload *w)
{
  return perf__baseline_mhz_of(w->sm_clock_mhz, w->sm_clock_mhz ? w->nsamples : 0).median;
}

/* Runs one ratio claim made at file:line; returns 1 when it held (or was
 * taken from a first attempt where it did). Ends the test on a fatal
 * failure, a CUDA error, a missing device or misuse. */
static int run_claim(perf_workload *a, perf_workload *b, perf__verdict_claim c, const char *head,
                     const char *an, const char *bn, const char *file, int line, int fatal)
{
  perf__compare_result m;
  int faster = c.kind == PERF__CLAIM_FASTER;
  char point[96];
  if (perf__context_claim_open(file, line, perf__sweep_tag(point, sizeof point), 0))
    return perf__context_claim_kept(head);
  perf__compare_run(a, b, c, faster ? "FASTER" : "SIMILAR", perf__context_alpha_share(), head,
                    an, bn, &m);
  perf__baselinecheck_pair(a, b, &m);
  perf__baselinecheck_peaks(&m.rec.a, a, m.rec.clock);
  perf__baselinecheck_peaks(&m.rec.b, b, m.rec.clock);
  char word[96], need[64];
  if (m.r.verdict == PERF_OUTCOME_INCONCLUSIVE && m.r.why)
    snprintf(word, sizeof word, "%s (%s)", perf__status_word(m.r.verdict), m.r.why);
  else
    snprintf(word, sizeof word, "%s", perf__status_word(m.r.verdict));
  requirement(&c, need, sizeof need);
  perf__compare_print(head, word, need, faster ? "speedup" : "ratio", a, b, &m);
  char key[400], tag[96], msg[1024];
  snprintf(key, sizeof key, "%s%s", perf__compare_claim_text(head),
           perf__sweep_tag(tag, sizeof tag));
  perf__baselinecheck_ratio(a, key, m.r.ratio);
  perf_outcome v = m.r.verdict;
  if (v == PERF_OUTCOME_FAIL) {
    perf__baselinecheck_explain(a, m.r.med_a, last_mhz(&m.rec.a));
    if (b != a) perf__baselinecheck_explain(b, m.r.med_b, last_mhz(&m.rec.b));
  }
  snprintf(msg, sizeof msg, "%s: %s", head, perf__status_word(v));
  record(faster ? PERF__CLAIMREC_FASTER : PERF__CLAIMREC_SIMILAR, v, msg, &m.rec);
  perf__context_claim_close();
  if (v != PERF_OUTCOME_PASS && fatal) perf__context_end(PERF_OUTCOME_FAIL, 0, "%s: %s", head, perf__status_word(v));
  return v == PERF_OUTCOME_PASS;
}

/* See ratio.h. */
char *perf__ratio_head(char *buf, size_t len, int similar, double x, const char *an,
                       const char *bn, const char *file, int line)
{
  char tag[96];
  snprintf(buf, len, "%s(%s, %s, %g) at %s:%d%s", similar ? "SIMILAR" : "FASTER", an, bn, x, file,
           line, perf__sweep_tag(tag, sizeof tag));
  return buf;
}

/* Public: PERF_EXPECT_FASTER / PERF_ASSERT_FASTER. A factor that is not a
 * positive number ends the test as ERROR. */
int perf__faster(perf_workload *a, perf_workload *b, double factor, const char *an,
                 const char *bn, const char *file, int line, int fatal)
{
  char head[300];
  perf__ratio_head(head, sizeof head, 0, factor, an, bn, file, line);
  if (!(factor > 0 && isfinite(factor)))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: the factor must be a positive number", head);
  return run_claim(a, b, (perf__verdict_claim){PERF__CLAIM_FASTER, factor}, head, an, bn, file, line, fatal);
}

/* Public: PERF_EXPECT_SIMILAR / PERF_ASSERT_SIMILAR. A tolerance that is
 * not a positive number ends the test as ERROR. */
int perf__similar(perf_workload *a, perf_workload *b, double tolerance, const char *an,
                  const char *bn, const char *file, int line, int fatal)
{
  char head[300];
  perf__ratio_head(head, sizeof head, 1, tolerance, an, bn, file, line);
  if (!(tolerance > 0 && isfinite(tolerance)))
    perf__context_end(PERF_OUTCOME_ERROR, 0,
                      "%s: the tolerance must be a positive number (0.05 = 5 %%)", head);
  return run_claim(a, b, (perf__verdict_claim){PERF__CLAIM_SIMILAR, tolerance}, head, an, bn, file, line, fatal);
}
