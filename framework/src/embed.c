/* embed.c — claims run from another test runner (the Python package), in this process. */
/* One test at a time: its lines and claim records handed to a sink, and the
 * run's report. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/file.h"
#include "io/jsontree.h"
#include "cli/options.h"
#include "util/status.h"
#include "perfgate.h"
#include "record/verdictline.h"
#include "report/jsonreport.h"
#include "supervisor/baselinedir.h"
#include "supervisor/rebaseline.h"
#include "worker/claim/bldoor.h"
#include "worker/claim/blclaim.h"
#include "worker/claim/ratio.h"
#include "worker/claim/solight.h"
#include "worker/sync/callsite.h"
#include "worker/context.h"
#include "worker/device/gpu.h"
#include "worker/sample/workload.h"
#include "worker/sync/syncdetect.h"

/* The one test an embedder runs at a time. */
static struct {
  int running, ended;
  int busy;         /* a claim is running: another call would clobber it */
  pthread_t owner;  /* the thread that began the test */
  perf__context_result res;
  jmp_buf *end;
  perf_embed_sink *sink;
  void *ctx;
} emb;

/* The context's sink: every line to the embedder's. */
static void to_embedder(perf_line_kind kind, const char *line)
{
  char verdict[4096]; /* a claim's verdict line, rendered from its record, before it */
  if (!emb.sink) return;
  if (kind == PERF_LINE_CLAIM && perf__verdictline_of_text(line, verdict, sizeof verdict))
    emb.sink((int)PERF_LINE_DETAIL, verdict, emb.ctx);
  emb.sink((int)kind, line, emb.ctx);
}

/* Public: see perfgate.h. */
int perf_embed_begin(const char *name, const perf_embed_options *o, perf_embed_sink *sink, void *ctx)
{
  if (emb.running || perf__context_running()) return 2;
  perf__context_opt.budget_s = o && o->budget_s > 0 ? o->budget_s : 2;
  perf__context_opt.seed = o && o->seed ? o->seed : 1;
  perf__context_opt.verbose = o ? o->verbose : 0;
  perf__context_opt.baseline_dir = o && o->baseline_dir ? o->baseline_dir : "baselines";
  perf__context_opt.update_baselines = o ? o->update_baselines : 0;
  emb.sink = sink;
  emb.ctx = ctx;
  perf__context_set_sink(to_embedder);
  perf__workload_on_unqueued(perf__bldoor_explain);
  emb.end = perf__context_begin(name ? name : "embedded", &emb.res);
  perf__gpu_test_begin();
  emb.owner = pthread_self();
  emb.busy = 0;
  emb.running = 1;
  emb.ended = 0;
  return 0;
}

/* 0 when a call may run now; -1 when no test runs (or it ended); -2 when
 * called from inside a running claim (a workload calling perfgate) or
 * from another thread than the one that began the test. */
static int may_enter(void)
{
  if (!emb.running) return -1;
  if (emb.busy || !pthread_equal(emb.owner, pthread_self())) return -2;
  return emb.ended ? -1 : 0;
}

/* Timing after a sync check attached CUPTI in this process is refused:
 * ends the test as ERROR naming the fix. head names the claim. */
static void refuse_after_sync_check(const char *head)
{
  if (perf__syncdetect_used())
    perf__context_end(PERF_OUTCOME_ERROR, 0,
                      "%s: a host-sync check ran earlier in this process (CUPTI was attached): "
                      "timing now could be disturbed by it. Run sync checks after every timing "
                      "claim (mark their tests @pytest.mark.perf_sync: the plugin runs them last) "
                      "or in a process of their own", head);
}

/* One call into the core: its arguments, for the body that runs it. */
typedef struct call {
  perf_workload *a, *b;
  double x;
  const char *an, *bn, *text;
  perf__site at; /* where the embedder made it; never fatal */
  int n, at_least, similar;
} call;

/* Runs body(c) with the test's end jump armed in this frame, so that a
 * claim that ends the test (an ERROR, a skip) comes back here and never
 * unwinds the embedder's frames. Returns body's value, -1 when the test
 * ended (now or before), -2 as may_enter says. */
static int armed(int (*body)(const call *), const call *c)
{
  int m = may_enter();
  if (m) return m;
  emb.busy = 1;
  if (setjmp(*emb.end)) {
    emb.ended = 1;
    emb.busy = 0;
    return -1;
  }
  int r = body(c);
  emb.busy = 0;
  return r;
}

/* A ratio claim. The C runner times in a worker that never had a sync
 * check's CUPTI attached; a process that embeds perfgate cannot be
 * replaced, so it refuses to time after one (an H100 showed +0.4 % to
 * +4.5 % on a 7 us op after a check, within noise but not ruled out). */
static int ratio(const call *c)
{
  char head[300];
  perf__names names = {c->an, c->bn, NULL};
  refuse_after_sync_check(perf__ratio_head(head, sizeof head, c->similar, c->x, names, c->at));
  return c->similar ? perf__similar(c->a, c->b, c->x, names, c->at)
                    : perf__faster(c->a, c->b, c->x, names, c->at);
}

/* Public: see perfgate.h. */
int perf_embed_faster(perf_workload *a, perf_workload *b, double factor, const char *an,
                      const char *bn, const char *file, int line)
{
  call c = {.a = a, .b = b, .x = factor, .an = an, .bn = bn, .at = {file, line, 0}};
  return armed(ratio, &c);
}

/* Public: see perfgate.h. */
int perf_embed_similar(perf_workload *a, perf_workload *b, double tolerance, const char *an,
                       const char *bn, const char *file, int line)
{
  call c = {.a = a, .b = b, .x = tolerance, .an = an, .bn = bn, .at = {file, line, 0},
            .similar = 1};
  return armed(ratio, &c);
}

/* A speed-of-light claim (x: the share; n: which, perf_embed_speed_of_light's
 * what), refused after a sync check as a ratio claim is. */
static int speed_of_light(const call *c)
{
  char head[300];
  refuse_after_sync_check(perf__solight_head(head, sizeof head, c->n, c->x, c->an, c->at));
  return perf__speed_of_light(c->a, c->x, c->n, c->an, c->at);
}

/* Public: see perfgate.h. */
int perf_embed_speed_of_light(perf_workload *w, double share, int what, const char *wn,
                              const char *file, int line)
{
  call c = {.a = w, .x = share, .an = wn, .at = {file, line, 0}, .n = what};
  return armed(speed_of_light, &c);
}

/* PERF_EXPECT_BASELINE, refused after a sync check as a ratio claim is. */
static int baseline(const call *c)
{
  char head[300];
  refuse_after_sync_check(perf__blclaim_head(head, sizeof head, c->an, c->at));
  return perf__expect_baseline(c->a, c->an, c->at);
}

/* Public: see perfgate.h. */
int perf_embed_baseline(perf_workload *w, const char *wn, const char *file, int line)
{
  call c = {.a = w, .an = wn, .at = {file, line, 0}};
  return armed(baseline, &c);
}

/* PERF_EXPECT_SAME_WORK. It times nothing, so it runs after a sync check
 * too; its count holds CUPTI only while it counts (workcount.h), and a
 * launch after it costs what it did before (docs/fidelity-counters.md). */
static int same_work(const call *c)
{
  return perf__expect_same_work(c->a, c->an, c->at);
}

/* Public: see perfgate.h. */
int perf_embed_same_work(perf_workload *w, const char *wn, const char *file, int line)
{
  call c = {.a = w, .an = wn, .at = {file, line, 0}};
  return armed(same_work, &c);
}

/* Public: see perfgate.h. */
void perf_embed_set_where(perf_embed_where *fn)
{
  perf__callsite_set_hook(fn);
}

/* PERF_EXPECT_SYNCS(_AT_LEAST): 1 when it held. */
static int syncs(const call *c)
{
  int before = emb.res.failures;
  perf__expect_syncs(c->a, c->n, c->at_least, c->an, c->at);
  return emb.res.failures == before;
}

/* Public: see perfgate.h. */
int perf_embed_syncs(perf_workload *w, int n, int at_least, const char *wn, const char *file,
                     int line)
{
  call c = {.a = w, .n = n, .at_least = at_least, .an = wn, .at = {file, line, 0}};
  return armed(syncs, &c);
}

/* The region PERF_NO_SYNC_IN runs, between open and close. */
static perf__sync_scope scope;
static int scope_failures;

/* PERF_NO_SYNC_IN's start: a workload is checked at once (0); a region is
 * attached, 1 to run it now. */
static int sync_open(const call *c)
{
  scope_failures = emb.res.failures;
  scope = perf__sync_open(c->a ? 1 : 0, c->a, c->text, c->at);
  return c->a ? 0 : perf__sync_step(&scope);
}

/* PERF_NO_SYNC_IN's end: 1 when it held. */
static int sync_close(const call *c)
{
  (void)c;
  while (perf__sync_step(&scope)) {
  }
  return emb.res.failures == scope_failures;
}

/* Public: see perfgate.h. */
int perf_embed_no_sync_open(perf_workload *w, const char *text, const char *file, int line)
{
  call c = {.a = w, .text = text, .at = {file, line, 0}};
  return armed(sync_open, &c);
}

/* Public: see perfgate.h. */
int perf_embed_no_sync_close(void)
{
  call c = {0};
  return armed(sync_close, &c);
}

/* Public: see perfgate.h. */
int perf_embed_update_runs(void) { return PERF__UPDATE_RUNS; }

/* Public: see perfgate.h. */
void perf_embed_update_limits(int *most_runs, double *budget_s)
{
  static perf__options_cli cli; /* the table's defaults: a command line of no option */
  static int parsed;
  char *argv[] = {"perfgate", NULL}, err[200];
  if (!parsed) parsed = !perf__options_parse(1, argv, &cli, err, sizeof err);
  if (most_runs) *most_runs = parsed ? (int)cli.update_runs : PERF__UPDATE_RUNS;
  if (budget_s) *budget_s = parsed ? cli.update_budget_s : 0;
}

/* The update that m's lines make, taking up to max_runs runs, or NULL with
 * the reason in err[len] (out of memory, a malformed line). */
static perf__rebaseline_runs *update_of(const perf_embed_measurements *m, int max_runs, char *err,
                                        size_t len)
{
  perf__rebaseline_runs *u = perf__rebaseline_new(max_runs);
  if (!u) return snprintf(err, len, "out of memory"), NULL;
  for (size_t k = 0; k < m->n; k++)
    if (perf__rebaseline_take(u, m->lines[k], m->runs[k])) {
      snprintf(err, len, "a malformed measurement line (run %d): %.200s", m->runs[k], m->lines[k]);
      perf__rebaseline_free(u);
      return NULL;
    }
  return u;
}

/* Public: see perfgate.h. */
int perf_embed_wants_more(const perf_embed_measurements *m, const char *test, int run,
                          int max_runs, char *why, size_t len)
{
  why[0] = '\0';
  if (run < PERF__UPDATE_RUNS || run >= max_runs || max_runs > PERF__BL_MAX_RUNS)
    return snprintf(why, len, "run %d of at most %d: runs past the first %d are %d..%d", run,
                    max_runs, PERF__UPDATE_RUNS, PERF__UPDATE_RUNS, PERF__BL_MAX_RUNS - 1), -1;
  perf__rebaseline_runs *u = update_of(m, max_runs, why, len);
  if (!u) return -1;
  int more = perf__rebaseline_wants_more(u, test, run, why, len);
  perf__rebaseline_free(u);
  return more;
}

/* Public: see perfgate.h. */
int perf_embed_check_baselines(const char *dir, const char *who, char *err, size_t len)
{
  char *text = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&text, &n);
  if (!f) return snprintf(err, len, "%s: out of memory", who), 2;
  int bad = perf__baselinedir_check(dir, 0, who, NULL, f) || perf__baselinedir_host_file(dir, who, f);
  if (fclose(f)) { /* the messages could not be kept */
    free(text);
    return snprintf(err, len, "%s: out of memory", who), 2;
  }
  while (n && text[n - 1] == '\n') text[--n] = '\0';
  snprintf(err, len, "%s", bad ? text : "");
  free(text);
  return bad ? 2 : 0;
}

/* Public: see perfgate.h. */
int perf_embed_rebaseline(const perf_embed_measurements *m, int accept_wide, char *err,
                          size_t len)
{
  int most = PERF__UPDATE_RUNS; /* the runs the lines came from: 5, and the more runs */
  for (size_t k = 0; k < m->n; k++)
    if (m->runs[k] >= most && m->runs[k] < PERF__BL_MAX_RUNS) most = m->runs[k] + 1;
  perf__rebaseline_runs *u = update_of(m, most, err, len);
  int rc = u ? 0 : PERF__EPROTO;
  if (!rc && (rc = perf__rebaseline_write(u, accept_wide ? PERF__REBASELINE_ACCEPT_WIDE : 0, err,
                                          len)) == 0) {
    const char *names;
    size_t flagged = perf__rebaseline_flagged(u, &names);
    if (flagged)
      snprintf(err, len, "%zu %s not written (old entries kept): %s", flagged,
               flagged == 1 ? "entry" : "entries", names);
    perf__rebaseline_free(u);
    return flagged ? 1 : 0;
  }
  if (rc == PERF__ENOMEM) snprintf(err, len, "out of memory");
  perf__rebaseline_free(u);
  return 2;
}

/* Parses text, named what in err, into *n: a JSON array or object (want).
 * Returns 0, or 2 with the reason in err[len] (*n then NULL). */
static int parse_json(const char *text, const char *what, perf__jsontree_type want,
                      perf__jsontree_node **n, char *err, size_t len)
{
  *n = text ? perf__jsontree_parse(text, what, err, len) : NULL;
  if (!*n) {
    if (!text) snprintf(err, len, "%s is NULL", what);
    return 2;
  }
  if ((*n)->type == want && perf__jsontree_is_json(*n)) return 0;
  snprintf(err, len, "%s is not a JSON %s", what, want == PERF__J_ARRAY ? "array" : "object");
  perf__jsontree_free(*n);
  *n = NULL;
  return 2;
}

/* Checks an embedder's tests and run members: each test has an outcome
 * perfgate writes; no member repeats one perfgate writes in the run.
 * Returns 0, or 2 with the reason in err[len]. */
static int check_report(const perf__jsontree_node *tests, const perf__jsontree_node *extra,
                        char *err, size_t len)
{
  for (size_t k = 0; k < tests->n; k++)
    if (perf__jsonreport_check_test(tests->kids[k], err, len)) return 2;
  for (size_t k = 0; extra && k < extra->n; k++)
    if (perf__jsonreport_run_key(extra->keys[k]))
      return snprintf(err, len, "run_json's member \"%s\" is one perfgate writes itself",
                      extra->keys[k]), 2;
  return 0;
}

/* Writes the document of tests (and of run, its members extra: run_json
 * parsed) to path. Returns 0, or 2 with the reason in err[len]. */
static int write_report(const char *path, const perf__jsontree_node *tests,
                        const perf__jsontree_node *extra, const perf_embed_run *run, char *err,
                        size_t len)
{
  struct timespec now = {0};
  double started = run->started;
  time_t began = (time_t)started;
  perf__jsonreport_trees d = {
      .run = {.perfgate = perf_version(), .started = &began, .argc = run->argc,
              .argv = run->argv, .shard_total = 1, .extra = extra},
      .tests = &tests, .ntests = 1, .own_host = 1};
  d.totals = perf__jsonreport_count(&tests, 1);
  if (timespec_get(&now, TIME_UTC)) /* else 0: a clock that cannot be read */
    d.totals.seconds = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - started;
  d.run.exit_code = d.totals.failed > 0;
  perf__json j = {0};
  perf__jsonreport_write_trees(&j, &d);
  int e = j.oom ? (snprintf(err, len, "out of memory"), PERF__ENOMEM)
                : perf__file_replace(path, j.s, j.len, 0, NULL, err, len);
  perf__json_free(&j);
  return e ? 2 : 0;
}

/* Checks perf_embed_report's plain arguments. Returns 0, or 2 with the
 * reason in err[len]. */
static int check_args(const char *path, const perf_embed_run *run, char *err, size_t len)
{
  const char *bad = !path ? "path is NULL"
                    : !run ? "run is NULL"
                    : run->argc < 0 ? "argc is negative"
                    : run->argc && !run->argv ? "argv is NULL but argc is not 0"
                    : !(isfinite(run->started) && run->started >= 0) ? "started is not a time"
                                                                      : NULL;
  if (bad) snprintf(err, len, "%s", bad);
  return bad ? 2 : 0;
}

/* Public: see perfgate.h. */
int perf_embed_report(const char *path, const char *tests_json, const perf_embed_run *run,
                      char *err, size_t len)
{
  perf__jsontree_node *tests = NULL, *extra = NULL;
  int rc = check_args(path, run, err, len);
  if (!rc) rc = parse_json(tests_json, "tests_json", PERF__J_ARRAY, &tests, err, len);
  if (!rc && run->run_json)
    rc = parse_json(run->run_json, "run_json", PERF__J_OBJECT, &extra, err, len);
  if (!rc) rc = check_report(tests, extra, err, len);
  if (!rc) rc = write_report(path, tests, extra, run, err, len);
  perf__jsontree_free(tests);
  perf__jsontree_free(extra);
  return rc;
}

/* Public: see perfgate.h. */
int perf_embed_end(char *reason, size_t len)
{
  if (!emb.running) return -1;
  if (emb.busy || !pthread_equal(emb.owner, pthread_self())) return -2;
  if (!emb.ended) perf__context_settle();
  if (!setjmp(*emb.end)) perf__context_finish_checks();
  char why[400];
  if (perf__gpu_settle(why, sizeof why) &&
      (emb.res.outcome == PERF_OUTCOME_PASS || emb.res.outcome == PERF_OUTCOME_SKIP)) {
    emb.res.outcome = PERF_OUTCOME_FAIL;
    snprintf(emb.res.reason, sizeof emb.res.reason, "CUDA error after the test's last check: %s", why);
  }
  perf__context_finish();
  perf__context_set_sink(NULL);
  emb.running = 0;
  if (reason && len) snprintf(reason, len, "%s", emb.res.reason);
  return (int)emb.res.outcome;
}
