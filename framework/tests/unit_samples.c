/* unit_samples.c — perf__workload_samples' stopping rules (min, max, budget, precision) on a host workload. */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "selftest.h"
#include "base/clock.h"
#include "base/status.h"
#include "perfgate.h"
#include "worker/context.h"
#include "worker/workload.h"

/* About 200 us of host work per call. */
static void spin(void *arg)
{
  (void)arg;
  for (double t0 = perf__clock_now(); perf__clock_now() - t0 < 2e-4;) {
  }
}

static void silent(enum perf__line_kind kind, const char *line) { (void)kind, (void)line; }

/* Runs the four rules inside a test context; each count is exact whatever
 * the host's speed, except the budget stop, which only has to end well
 * before max_n. */
ST_TEST(samples_stop_at_min_max_budget_and_precision)
{
  enum { MAX = 400 };
  static double t[MAX];
  static int n[4], err[4];
  static char why[200];
  perf__context_result res;
  perf__context_set_sink(silent);
  jmp_buf *end = perf__context_begin("unit.samples", &res);
  if (setjmp(*end) == 0) {
    perf_workload w = PERF_WORKLOAD(spin, NULL, .name = "spin");
    perf__workload_prepare(&w, 1e-4, 0.5);
    /* any spread is within +-1000 %: stops at min_n */
    err[0] = perf__workload_samples(&w, t, 5, MAX, 60, 10.0, &n[0], why, sizeof why);
    /* no precision rule, no budget: min_n */
    err[1] = perf__workload_samples(&w, t, 7, MAX, 0, 0, &n[1], why, sizeof why);
    /* a precision no samples reach, a large budget: max_n */
    err[2] = perf__workload_samples(&w, t, 3, 12, 60, 1e-12, &n[2], why, sizeof why);
    /* the budget: 20 ms of 200 us samples ends long before 400 */
    err[3] = perf__workload_samples(&w, t, 3, MAX, 0.02, 1e-12, &n[3], why, sizeof why);
  }
  perf__context_finish_checks();
  perf__context_finish();
  ST_EQ(res.outcome, PERF__PASS);
  for (int i = 0; i < 4; i++) ST_EQ(err[i], 0);
  ST_EQ(n[0], 5);
  ST_EQ(n[1], 7);
  ST_EQ(n[2], 12);
  ST_CHECKF(n[3] >= 3 && n[3] < MAX, "budget stop after %d samples", n[3]);
  ST_CHECK(t[0] > 1e-4);
}
