/* unit_headroom.c — the headroom report from made-up claim records. */
/* Grouping by test and claim, outcomes, flips, headroom, and the threshold
 * that held. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "report/headroom.h"
#include "selftest.h"

/* A result named name with copies of the given claim records. */
static perf__result result_of(const char *name, const perf__claimrec *claims, size_t n)
{
  perf__result r = {0};
  snprintf(r.name, sizeof r.name, "%s", name);
  for (size_t i = 0; i < n; i++) {
    perf__claimrec c;
    ST_EQ(perf__claimrec_copy(&c, &claims[i]), 0);
    perf__result_add_claim(&r, &c);
  }
  return r;
}

/* A ratio claim's record with what the headroom reads: message, outcome,
 * kind, threshold, ratio and interval. */
static perf__claimrec ratio_claim(perf__claimrec_kind kind, const char *msg, perf_outcome o,
                                  double threshold, double ratio, double lo, double hi)
{
  return (perf__claimrec){.message = strdup(msg), .outcome = o, .kind = kind,
                          .ratio = {.threshold = threshold, .ratio = ratio, .interval = {lo, hi}}};
}

static perf__claimrec faster(double lo, double hi, perf_outcome o)
{
  char msg[200];
  snprintf(msg, sizeof msg, "FASTER(a, b, 2) at t.c:9: %s", perf__status_word(o));
  return ratio_claim(PERF__CLAIMREC_FASTER, msg, o, 2, (lo + hi) / 2, lo, hi);
}

ST_TEST(headroom_groups_runs_and_finds_the_worst_bound)
{
  perf__claimrec similar = ratio_claim(PERF__CLAIMREC_SIMILAR, "SIMILAR(a, a, 0.05) at t.c:12: PASS",
                                       PERF_OUTCOME_PASS, 0.05, 1.0, 0.98, 1.03);
  perf__claimrec truth = {.message = strdup("TRUE(x) at t.c:3 holds"), .outcome = PERF_OUTCOME_PASS};
  perf__claimrec run1[] = {faster(2.2, 2.6, PERF_OUTCOME_PASS), similar, truth};
  perf__claimrec run2[] = {faster(2.1, 2.5, PERF_OUTCOME_PASS), similar};
  perf__claimrec run3[] = {faster(1.9, 2.4, PERF_OUTCOME_INCONCLUSIVE), similar};
  perf__result r[4] = {result_of("s.t", run1, 3), result_of("s.t", run2, 2),
                       result_of("s.t", run3, 2), result_of("s.other", run1, 1)};
  perf__headroom_row *rows;
  size_t n = perf__headroom_build(r, 4, &rows);
  ST_EQ(n, 3); /* FASTER in s.t, SIMILAR in s.t, FASTER in s.other; TRUE left out */
  /* least headroom first: s.t's FASTER (1.9 / 2) */
  ST_STR(rows[0].test, "s.t");
  ST_STR(rows[0].claim, "FASTER(a, b, 2) at t.c:9");
  ST_EQ(rows[0].runs, 3);
  ST_EQ(rows[0].passed, 2);
  ST_EQ(rows[0].inconclusive, 1);
  ST_EQ(rows[0].flips, 1);
  ST_NEAR(rows[0].headroom, 0.95, 1e-12);
  ST_NEAR(rows[0].held_at, 1.9 / 1.05, 1e-12);
  ST_NEAR(rows[0].ratio_median, 2.3, 1e-12);
  /* SIMILAR: min(0.98 * 1.05, 1.05 / 1.03); held at 1.05 * max(1.03, 1 / 0.98) - 1 */
  ST_STR(rows[1].claim, "SIMILAR(a, a, 0.05) at t.c:12");
  ST_NEAR(rows[1].headroom, fmin(0.98 * 1.05, 1.05 / 1.03), 1e-12);
  ST_NEAR(rows[1].held_at, 1.05 * 1.03 - 1, 1e-12);
  ST_EQ(rows[1].flips, 0);
  ST_STR(rows[2].test, "s.other");
  ST_NEAR(rows[2].headroom, 1.1, 1e-12);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  perf__headroom_print(f, rows, n);
  perf__headroom_markdown(f, rows, n);
  perf__headroom_svg(f, rows, n);
  fclose(f);
  ST_CHECK(text && strstr(text, "<< FLIPS") && strstr(text, "2 PASS, 1 INCONCLUSIVE"));
  ST_CHECK(text && strstr(text, "### Headroom over 3 runs") && strstr(text, "| 0.950 (flips) |"));
  ST_CHECK(text && strstr(text, "<svg") && strstr(text, "0.950 FASTER(a, b, 2) s.t"));
  free(text);
  free(rows);
  for (int i = 0; i < 4; i++) perf__result_free(&r[i]);
  perf__claimrec *mine[] = {&run1[0], &run2[0], &run3[0], &similar, &truth};
  for (int i = 0; i < 5; i++) perf__claimrec_free(mine[i]);
}
