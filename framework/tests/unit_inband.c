/* unit_inband.c — perf__inband_samples: batches, the reference around each, slow ones left out. */
#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "selftest.h"
#include "host/clock.h"
#include "util/status.h"
#include "perfgate.h"
#include "worker/context.h"
#include "worker/sample/inband.h"
#include "worker/sample/workload.h"

/* About 100 us of host work per call, each call 1 us longer than the one
 * before (unit_workload.c: no two samples equal). */
static void spin(void *arg)
{
  static int calls;
  double len = 1e-4 + 1e-6 * (calls++ % 100);
  (void)arg;
  for (double t0 = perf__clock_now(); perf__clock_now() - t0 < len;) {
  }
}

static void silent(perf_line_kind kind, const char *line) { (void)kind, (void)line; }

enum { CASES = 5 };
static double t[PERF__INBAND_MAX], scratch[PERF__INBAND_MAX];
static perf__inband ib[CASES];
static int n[CASES], err[CASES];
static char why[CASES][200];

/* The cases below, inside a test context (a sampling error ends it). The
 * bands are logic, not timing: none, far above any reading (1 hour), below
 * every reading (1 ps). */
/* perf__inband_samples into t and scratch, the count into *n. */
static int inband(perf_workload *w, perf__inband *ib, perf__workload_want want, int *n, char *why)
{
  perf__workload_out o = {t, NULL, scratch, 0};
  int e = perf__inband_samples(w, ib, want, &o, why, 200);
  *n = o.n;
  return e;
}

static void sample_cases(void)
{
  perf_workload w = PERF_WORKLOAD(spin, NULL, .name = "spin");
  perf__workload_prepare(&w, 1e-4, 0.5);
  /* no band: every batch kept; any interval is within +-infinity, so it
   * stops at the first batch boundary past min_n */
  err[0] = inband(&w, &ib[0], (perf__workload_want){5, 64, 60, HUGE_VAL}, &n[0], why[0]);
  ib[1].band_s = 3600;
  err[1] = inband(&w, &ib[1], (perf__workload_want){3, 10, 60, 1e-12}, &n[1], why[1]);
  /* every reading above the band: every batch left out until its room ends */
  ib[2].band_s = 1e-12;
  err[2] = inband(&w, &ib[2], (perf__workload_want){8, 64, 60, 1e-12}, &n[2], why[2]);
  /* bad counts are refused before any sample */
  err[3] = inband(&w, &ib[3], (perf__workload_want){0, 8, 1, 0}, &n[3], why[3]);
  err[4] = inband(&w, &ib[4], (perf__workload_want){8, 65, 1, 0}, &n[4], why[4]);
}

/* Each count is exact whatever the host's speed. */
ST_TEST(inband_batches_keep_or_leave_out_by_the_reference_band)
{
  perf__context_result res;
  perf__context_set_sink(silent);
  jmp_buf *end = perf__context_begin("unit.inband", &res);
  if (setjmp(*end) == 0) sample_cases();
  perf__context_finish_checks();
  perf__context_finish();
  ST_EQ(res.outcome, PERF_OUTCOME_PASS);
  for (int i = 0; i < 3; i++) ST_EQ(err[i], 0);
  /* two batches of 4; a reading before, and one after each */
  ST_CHECKF(n[0] == 8 && ib[0].batches == 2 && ib[0].slow == 0 && ib[0].nread == 3 &&
                ib[0].nout == 0 && ib[0].read_cost_s > 0,
            "%d samples, %d batches", n[0], ib[0].batches);
  perf__reference r = perf__inband_reference(&ib[0], 0);
  ST_CHECK(r.n == 3 && r.median > 0 && perf__inband_reference(&ib[0], 1).n == 0);
  /* max_n 10: batches of 4, 4 and 2 */
  ST_CHECKF(n[1] == 10 && ib[1].batches == 3 && ib[1].nread == 4, "%d samples, %d batches", n[1],
            ib[1].batches);
  ST_CHECK(perf__inband_reference(&ib[1], 0).n == 4 && perf__inband_reference(&ib[1], 1).n == 0);
  /* none kept: 64 samples left out in 16 batches, every reading slow */
  ST_CHECKF(n[2] == 0 && ib[2].nout == PERF__INBAND_MAX && ib[2].slow == ib[2].batches &&
                ib[2].batches == PERF__INBAND_MAX / PERF__INBAND_BATCH && ib[2].out_t[0] > 5e-5,
            "%d kept, %d out, %d of %d batches slow", n[2], ib[2].nout, ib[2].slow,
            ib[2].batches);
  ST_CHECK(perf__inband_reference(&ib[2], 1).n == ib[2].nread &&
           perf__inband_reference(&ib[2], 0).n == 0);
  /* enough to decide on: min_n, or 3 x min_n once a batch was left out */
  ST_CHECK(perf__inband_enough(&ib[0], 8, 8) && !perf__inband_enough(&ib[0], 7, 8));
  ST_CHECK(!perf__inband_enough(&ib[2], 23, 8) && perf__inband_enough(&ib[2], 24, 8));
  ST_EQ(err[3], PERF__EINVAL);
  ST_EQ(err[4], PERF__EINVAL);
  ST_EQ(n[3] + n[4], 0);
  ST_CHECKF(strstr(why[4], "1 <= min_n <= max_n <= 64 (got 8, 65)") != NULL, "%s", why[4]);
}
