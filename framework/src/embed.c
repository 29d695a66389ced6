/* embed.c — claims run from another test runner (the Python package): a test in this process, its lines and claim records handed to a sink. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "base/status.h"
#include "perfgate.h"
#include "supervisor/rebaseline.h"
#include "worker/callsite.h"
#include "worker/context.h"
#include "worker/gpu.h"
#include "worker/syncdetect.h"

/* The one test an embedder runs at a time. */
static struct {
  int running, ended;
  int busy;         /* a claim is running: another call would clobber it */
  pthread_t owner;  /* the thread that began the test */
  perf__context_result res;
  jmp_buf *end;
  perf_embed_sink *sink;
  void *ctx;
} e;

/* The context's sink: every line to the embedder's. */
static void to_embedder(enum perf__line_kind kind, const char *line)
{
  if (e.sink) e.sink((int)kind, line, e.ctx);
}

/* Public: see perfgate.h. */
int perf_embed_begin(const char *name, const perf_embed_options *o, perf_embed_sink *sink, void *ctx)
{
  if (e.running || perf__context_running()) return 2;
  perf__context_opt.budget_s = o && o->budget_s > 0 ? o->budget_s : 2;
  perf__context_opt.seed = o && o->seed ? o->seed : 1;
  perf__context_opt.verbose = o ? o->verbose : 0;
  perf__context_opt.baseline_dir = o && o->baseline_dir ? o->baseline_dir : "baselines";
  perf__context_opt.update_baselines = o ? o->update_baselines : 0;
  e.sink = sink;
  e.ctx = ctx;
  perf__context_set_sink(to_embedder);
  e.end = perf__context_begin(name ? name : "embedded", &e.res);
  e.owner = pthread_self();
  e.busy = 0;
  e.running = 1;
  e.ended = 0;
  return 0;
}

/* 0 when a call may run now; -1 when no test runs (or it ended); -2 when
 * called from inside a running claim (a workload calling perfgate) or
 * from another thread than the one that began the test. */
static int may_enter(void)
{
  if (!e.running) return -1;
  if (e.busy || !pthread_equal(e.owner, pthread_self())) return -2;
  return e.ended ? -1 : 0;
}

/* Timing after a sync check attached CUPTI in this process is refused:
 * ends the test as ERROR naming the fix. head names the claim. */
static void refuse_after_sync_check(const char *head)
{
  if (perf__syncdetect_used())
    perf__context_end(PERF__ERROR, 0,
                      "%s: a host-sync check ran earlier in this process (CUPTI was attached): "
                      "timing now could be disturbed by it. Run sync checks after every timing "
                      "claim (mark their tests @pytest.mark.perf_sync: the plugin runs them last) "
                      "or in a process of their own", head);
}

/* Runs one ratio claim with the test's end jump armed here, so that a
 * claim that ends the test (an ERROR, a skip) comes back to this frame
 * and never unwinds the embedder's. */
static int claim(int similar, perf_workload *a, perf_workload *b, double x, const char *an,
                 const char *bn, const char *file, int line)
{
  int m = may_enter();
  if (m) return m;
  e.busy = 1;
  if (setjmp(*e.end)) {
    e.ended = 1;
    e.busy = 0;
    return -1;
  }
  /* The C runner times in a worker that never had a sync check's CUPTI
   * attached; a process that embeds perfgate cannot be replaced, so it
   * refuses to time after one (an H100 showed +0.4 % to +4.5 % on a 7 us
   * op after a check, within noise but not ruled out). */
  char head[400];
  snprintf(head, sizeof head, "%s(%s, %s) at %s:%d", similar ? "SIMILAR" : "FASTER", an, bn, file,
           line);
  refuse_after_sync_check(head);
  int r = similar ? perf__similar(a, b, x, an, bn, file, line, 0)
                  : perf__faster(a, b, x, an, bn, file, line, 0);
  e.busy = 0;
  return r;
}

/* Public: see perfgate.h. */
int perf_embed_faster(perf_workload *a, perf_workload *b, double factor, const char *an,
                      const char *bn, const char *file, int line)
{
  return claim(0, a, b, factor, an, bn, file, line);
}

/* Public: see perfgate.h. */
int perf_embed_similar(perf_workload *a, perf_workload *b, double tolerance, const char *an,
                       const char *bn, const char *file, int line)
{
  return claim(1, a, b, tolerance, an, bn, file, line);
}

/* Public: see perfgate.h. */
int perf_embed_baseline(perf_workload *w, const char *wn, const char *file, int line)
{
  int m = may_enter();
  if (m) return m;
  e.busy = 1;
  if (setjmp(*e.end)) {
    e.ended = 1;
    e.busy = 0;
    return -1;
  }
  char head[400];
  snprintf(head, sizeof head, "BASELINE(%s) at %s:%d", wn, file, line);
  refuse_after_sync_check(head);
  int r = perf__expect_baseline(w, wn, file, line, 0);
  e.busy = 0;
  return r;
}

/* Public: see perfgate.h. */
void perf_embed_set_where(perf_embed_where *fn)
{
  perf__callsite_set_hook(fn);
}

/* Public: see perfgate.h. */
int perf_embed_syncs(perf_workload *w, int n, int at_least, const char *wn, const char *file,
                     int line)
{
  int m = may_enter();
  if (m) return m;
  e.busy = 1;
  if (setjmp(*e.end)) {
    e.ended = 1;
    e.busy = 0;
    return -1;
  }
  int before = e.res.failures;
  perf__expect_syncs(w, n, at_least, wn, file, line, 0);
  e.busy = 0;
  return e.res.failures == before;
}

/* The region PERF_NO_SYNC_IN runs, between open and close. */
static perf__sync_scope scope;
static int scope_failures;

/* Public: see perfgate.h. */
int perf_embed_no_sync_open(perf_workload *w, const char *text, const char *file, int line)
{
  int m = may_enter();
  if (m) return m;
  e.busy = 1;
  if (setjmp(*e.end)) {
    e.ended = 1;
    e.busy = 0;
    return -1;
  }
  scope_failures = e.res.failures;
  scope = perf__sync_open(w ? 1 : 0, w, text, file, line, 0);
  e.busy = 0;
  if (w) return 0;
  return perf__sync_step(&scope); /* 1: run the region now */
}

/* Public: see perfgate.h. */
int perf_embed_no_sync_close(void)
{
  int m = may_enter();
  if (m) return m;
  e.busy = 1;
  if (setjmp(*e.end)) {
    e.ended = 1;
    e.busy = 0;
    return -1;
  }
  while (perf__sync_step(&scope)) {
  }
  e.busy = 0;
  return e.res.failures == scope_failures;
}

/* Public: see perfgate.h. */
int perf_embed_rebaseline(const char *const *lines, const int *runs, size_t n, char *err,
                          size_t len)
{
  perf__blu *u = perf__rebaseline_new();
  int rc = u ? 0 : PERF__ENOMEM;
  for (size_t k = 0; !rc && k < n; k++)
    if ((rc = perf__rebaseline_take(u, lines[k], runs[k])))
      snprintf(err, len, "a malformed measurement line: %.200s", lines[k]);
  if (!rc && (rc = perf__rebaseline_write(u, err, len)) == 0) {
    perf__rebaseline_free(u);
    return 0;
  }
  if (rc == PERF__ENOMEM) snprintf(err, len, "out of memory");
  perf__rebaseline_free(u);
  return 2;
}

/* Public: see perfgate.h. */
int perf_embed_end(char *reason, size_t len)
{
  if (!e.running) return -1;
  if (e.busy || !pthread_equal(e.owner, pthread_self())) return -2;
  if (!e.ended) perf__context_settle();
  if (!setjmp(*e.end)) perf__context_finish_checks();
  char why[400];
  if (perf__gpu_settle(why, sizeof why) &&
      (e.res.outcome == PERF__PASS || e.res.outcome == PERF__SKIP)) {
    e.res.outcome = PERF__FAIL;
    snprintf(e.res.reason, sizeof e.res.reason, "CUDA error after the test's last check: %s", why);
  }
  perf__context_finish();
  perf__context_set_sink(NULL);
  e.running = 0;
  if (reason && len) snprintf(reason, len, "%s", e.res.reason);
  return (int)e.res.outcome;
}
