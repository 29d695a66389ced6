/* unit_workload.c — the stopping rules of perf__workload_samples (min, max, budget, precision). */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "selftest.h"
#include "host/clock.h"
#include "util/status.h"
#include "perfgate.h"
#include "worker/context.h"
#include "worker/sample/workload.h"

/* About 200 us of host work per call, each call 1 us longer than the one
 * before: no two samples are equal, so a precision of 1e-12 is never
 * reached. (A fixed 200 us spin is not enough: it ends at the first clock
 * read past 200 us, and on a clock that steps coarsely three samples in a
 * row came out identical to the last bit, which is "precise".) */
static void spin(void *arg)
{
  static int calls;
  double len = 2e-4 + 1e-6 * (calls++ % 1000);
  (void)arg;
  for (double t0 = perf__clock_now(); perf__clock_now() - t0 < len;) {
  }
}

static void silent(perf_line_kind kind, const char *line) { (void)kind, (void)line; }

/* Runs the rules inside a test context; each count is exact whatever the
 * host's speed, except the budget stop, which only has to end well before
 * max_n. */
ST_TEST(samples_stop_at_min_max_budget_and_precision)
{
  enum { MAX = 400 };
  static double t[MAX], scratch[MAX];
  static int n[6], err[6];
  static char why[6][200];
  perf__context_result res;
  perf__context_set_sink(silent);
  jmp_buf *end = perf__context_begin("unit.samples", &res);
  if (setjmp(*end) == 0) {
    perf_workload w = PERF_WORKLOAD(spin, NULL, .name = "spin");
    perf__workload_prepare(&w, 1e-4, 0.5);
    /* any interval is within +-infinity: stops at min_n */
    err[0] = perf__workload_samples(&w, (perf__workload_want){5, MAX, 60, HUGE_VAL}, t, scratch, &n[0], why[0], 200);
    /* no precision rule, no budget: min_n */
    err[1] = perf__workload_samples(&w, (perf__workload_want){7, MAX, 0, 0}, t, scratch, &n[1], why[1], 200);
    /* a precision no samples reach, a large budget: max_n */
    err[2] = perf__workload_samples(&w, (perf__workload_want){3, 12, 60, 1e-12}, t, scratch, &n[2], why[2], 200);
    /* the budget: 20 ms of 200 us samples ends long before 400 */
    err[3] = perf__workload_samples(&w, (perf__workload_want){3, MAX, 0.02, 1e-12}, t, scratch, &n[3], why[3], 200);
    /* bad counts are refused before any sample */
    err[4] = perf__workload_samples(&w, (perf__workload_want){0, MAX, 1, 0}, t, scratch, &n[4], why[4], 200);
    err[5] = perf__workload_samples(&w, (perf__workload_want){9, 8, 1, 0}, t, scratch, &n[5], why[5], 200);
  }
  perf__context_finish_checks();
  perf__context_finish();
  ST_EQ(res.outcome, PERF_OUTCOME_PASS);
  for (int i = 0; i < 4; i++) ST_EQ(err[i], 0);
  ST_EQ(n[0], 5);
  ST_EQ(n[1], 7);
  ST_EQ(n[2], 12);
  ST_CHECKF(n[3] >= 3 && n[3] < MAX, "budget stop after %d samples", n[3]);
  ST_CHECK(t[0] > 1e-4);
  ST_EQ(err[4], PERF__EINVAL);
  ST_EQ(err[5], PERF__EINVAL);
  ST_EQ(n[4] + n[5], 0);
  ST_CHECKF(strstr(why[5], "1 <= min_n <= max_n (got 9, 8)") != NULL, "%s", why[5]);
}
