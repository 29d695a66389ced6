/* unit_headroom.c — the headroom report from made-up claim records: grouping by test and claim, outcomes, flips, headroom, the threshold that held. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/headroom.h"
#include "selftest.h"

/* A result named name with the given claim records. */
static perf__result result_of(const char *name, const char **claims, size_t n)
{
  perf__result r = {0};
  snprintf(r.name, sizeof r.name, "%s", name);
  for (size_t i = 0; i < n; i++) perf__result_add_claim(&r, strdup(claims[i]));
  return r;
}

static const char *faster(double lo, double hi, const char *outcome, char *buf, size_t len)
{
  snprintf(buf, len, "{\"message\": \"FASTER(a, b, 2) at t.c:9: %s\", \"outcome\": \"%s\", "
           "\"kind\": \"FASTER\", \"threshold\": 2, \"ratio\": %g, \"interval\": [%g, %g]}",
           outcome, outcome, (lo + hi) / 2, lo, hi);
  return buf;
}

ST_TEST(headroom_groups_runs_and_finds_the_worst_bound)
{
  char f1[400], f2[400], f3[400];
  const char *similar = "{\"message\": \"SIMILAR(a, a, 0.05) at t.c:12: PASS\", "
                        "\"outcome\": \"PASS\", \"kind\": \"SIMILAR\", \"threshold\": 0.05, "
                        "\"ratio\": 1.0, \"interval\": [0.98, 1.03]}";
  const char *truth = "{\"message\": \"TRUE(x) at t.c:3 holds\", \"outcome\": \"PASS\"}";
  const char *run1[] = {faster(2.2, 2.6, "PASS", f1, sizeof f1), similar, truth};
  const char *run2[] = {faster(2.1, 2.5, "PASS", f2, sizeof f2), similar};
  const char *run3[] = {faster(1.9, 2.4, "INCONCLUSIVE", f3, sizeof f3), similar};
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
}
