/* jsonreport.c — the one writer of perfgate-report/1, for --json, --merge and embedders. */
/* It writes the run, totals, preflight, fingerprints, the tests with their
 * claim records, and headroom. */
#include "report/jsonreport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "baseline/machine.h"
#include "host/preflight.h"
#include "record/claimrec.h"
#include "util/status.h"
#include "util/version.h"
#include "history/secret.h"
#include "report/headroom.h"
#include "report/tally.h"
#include "worker/process/probe.h"

/* A fingerprint as one JSON object of strings. Never fails (j->oom). */
static void json_kvs(perf__json *j, const perf__baseline *b)
{
  perf__json_raw(j, "{");
  for (size_t k = 0; k < b->nfp; k++) {
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, b->fp[k].key);
    perf__json_raw(j, ": ");
    perf__json_str(j, b->fp[k].value);
  }
  perf__json_raw(j, "}");
}

/* The "fingerprint" member's value: this host's (the one place a report
 * builds it), and gpu's (NULL or empty: null). Never fails (j->oom). */
static void fingerprint_of(perf__json *j, const perf__baseline *gpu)
{
  perf__baseline host = {0};
  perf__machine_host(&host);
  perf__json_raw(j, "{\"host\": ");
  json_kvs(j, &host);
  perf__json_raw(j, ", \"gpu\": ");
  if (gpu && gpu->nfp) json_kvs(j, gpu);
  else perf__json_raw(j, "null");
  perf__json_raw(j, "}");
}

/* Starts member name of an object: ", " before all but the first (*n
 * counts them). Never fails (j->oom). */
static void key(perf__json *j, int *n, const char *name)
{
  perf__json_raw(j, (*n)++ ? ", " : "");
  perf__json_str(j, name);
  perf__json_raw(j, ": ");
}

/* The command line, each argument's secrets masked
 * (--history=postgresql://u:***@...). Never fails (j->oom). */
static void json_argv(perf__json *j, int argc, const char *const *argv)
{
  perf__json_raw(j, "[");
  for (int k = 0; k < argc; k++) {
    char *arg = perf__secret_masked(argv[k]);
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, arg ? arg : "***");
    free(arg);
  }
  perf__json_raw(j, "]");
}

/* The C runner's options that come before "shard" (before = 1) or after
 * it. Never fails (j->oom). */
static void run_options(perf__json *j, const perf__options_cli *cli, int before, int *n)
{
  if (!before) {
    key(j, n, "repeat");
    perf__json_raw(j, "%llu", (unsigned long long)cli->repeat);
    key(j, n, "shuffle");
    perf__json_raw(j, "%s", cli->shuffle ? "true" : "false");
    return;
  }
  key(j, n, "seed");
  perf__json_raw(j, "%llu", (unsigned long long)cli->seed);
  key(j, n, "budget_s");
  perf__json_num(j, cli->budget_s);
  key(j, n, "timeout_s");
  perf__json_num(j, cli->timeout_s);
  key(j, n, "device");
  if (cli->device_label >= 0) perf__json_raw(j, "%d", cli->device_label);
  else perf__json_raw(j, "null");
}

/* The run's last members: the merged reports' runs, then an embedder's
 * own. Never fails (j->oom). */
static void run_tail(perf__json *j, const perf__jsonreport_run *r, int *n)
{
  if (r->runs_key) {
    key(j, n, r->runs_key);
    perf__json_raw(j, "[");
    for (size_t k = 0; k < r->nruns; k++) {
      perf__json_raw(j, k ? ", " : "");
      if (r->runs[k]) perf__jsontree_write(j, r->runs[k]);
      else perf__json_raw(j, "null");
    }
    perf__json_raw(j, "]");
  }
  for (size_t k = 0; r->extra && r->extra->type == PERF__J_OBJECT && k < r->extra->n; k++) {
    key(j, n, r->extra->keys[k]);
    perf__jsontree_write(j, r->extra->kids[k]);
  }
}

/* The "run" member. Never fails (j->oom). */
static void json_run(perf__json *j, const perf__jsonreport_run *r)
{
  int n = 0;
  perf__json_raw(j, "\"run\": {");
  if (r->merged) key(j, &n, "merged"), perf__json_raw(j, "true");
  key(j, &n, "perfgate");
  if (r->perfgate) perf__json_str(j, r->perfgate);
  else perf__json_raw(j, "null");
  if (r->started) {
    char when[32];
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(r->started));
    key(j, &n, "started");
    perf__json_str(j, when);
  }
  key(j, &n, "exit_code");
  perf__json_raw(j, "%d", r->exit_code);
  if (r->argc >= 0) key(j, &n, "argv"), json_argv(j, r->argc, r->argv);
  if (r->cli) run_options(j, r->cli, 1, &n);
  key(j, &n, "shard");
  perf__json_raw(j, "{\"index\": %ld, \"total\": %ld", r->shard_index, r->shard_total);
  if (r->run_id && *r->run_id) perf__json_raw(j, ", \"run_id\": "), perf__json_str(j, r->run_id);
  perf__json_raw(j, "}");
  if (r->cli) run_options(j, r->cli, 0, &n);
  run_tail(j, r, &n);
  perf__json_raw(j, "},\n");
}

/* See jsonreport.h. */
int perf__jsonreport_run_key(const char *name)
{
  static const char *const own[] = {"merged", "perfgate", "started", "exit_code", "argv", "seed",
                                    "budget_s", "timeout_s", "device", "shard", "repeat",
                                    "shuffle", "shards", "devices"};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++)
    if (!strcmp(name, own[k])) return 1;
  return 0;
}

/* The "totals" member. Never fails (j->oom). */
static void json_totals(perf__json *j, const perf__jsonreport_totals *t)
{
  perf__json_raw(j, "\"totals\": {\"tests\": %.0f, \"passed\": %.0f, \"failed\": %.0f, "
                    "\"skipped\": %.0f, \"seconds\": ",
                 t->tests, t->passed, t->failed, t->skipped);
  perf__json_num(j, t->seconds);
  perf__json_raw(j, "},\n");
}

/* Starts a list's next item on a line of its own (*k counts them). Never
 * fails (j->oom). */
static void next_item(perf__json *j, size_t *k)
{
  perf__json_raw(j, (*k)++ ? ",\n  " : "\n  ");
}

/* A document's parts: the one shape of perfgate-report/1, which each entry
 * point fills with its own writers of the preflight's and the tests' items
 * (each item begun with next_item), of the fingerprint's value and of what
 * follows the tests. */
typedef struct shape {
  const perf__jsonreport_run *run;
  perf__jsonreport_totals totals;
  void (*preflight)(perf__json *j, const void *ctx, size_t *k);
  void (*fingerprint)(perf__json *j, const void *ctx);
  void (*tests)(perf__json *j, const void *ctx, size_t *k);
  void (*tail)(perf__json *j, const void *ctx); /* NULL: nothing */
  const void *ctx;
} shape;

/* The document s describes. Never fails (j->oom). */
static void document(perf__json *j, const shape *s)
{
  size_t k = 0;
  perf__json_raw(j, "{\"schema\": ");
  perf__json_str(j, PERF__JSONREPORT_SCHEMA);
  perf__json_raw(j, ",\n");
  json_run(j, s->run);
  json_totals(j, &s->totals);
  perf__json_raw(j, "\"preflight\": [");
  s->preflight(j, s->ctx, &k);
  perf__json_raw(j, "],\n\"fingerprint\": ");
  s->fingerprint(j, s->ctx);
  perf__json_raw(j, ",\n\"tests\": [");
  k = 0;
  s->tests(j, s->ctx, &k);
  perf__json_raw(j, "\n]");
  if (s->tail) s->tail(j, s->ctx);
  perf__json_raw(j, "}\n");
}

/* ---- The C runner's document: its results ---------------------------- */

/* The C runner's run, its tests and their results. */
typedef struct runner {
  const perf__options_cli *cli;
  const perf__result_set *res;
} runner;

/* The C runner's preflight: each GPU's readings before the run, with the
 * host's and the causes that made the runner unfit. Never fails (j->oom). */
static void runner_preflight(perf__json *j, const void *ctx, size_t *k)
{
  const runner *x = ctx;
  for (int i = 0; i < x->cli->npreflight; i++) {
    next_item(j, k);
    perf__preflight_json(j, &x->cli->preflight[i]);
  }
}

/* The C runner's fingerprint: the host's, and device 0's (null without a
 * GPU), measured in a child. Never fails (j->oom). */
static void runner_fingerprint(perf__json *j, const void *ctx)
{
  (void)ctx;
  perf__baseline gpu = {0};
  perf__probe_gpu_fingerprint(&gpu);
  fingerprint_of(j, &gpu);
}

/* A test's claim records, lines and output. Never fails (j->oom). */
static void json_details(perf__json *j, const perf__result *r)
{
  perf__json_raw(j, ",\n   \"claims\": [");
  for (size_t k = 0; k < r->nclaims; k++) {
    perf__json_raw(j, "%s\n    ", k ? "," : "");
    perf__claimrec_write(j, &r->claims[k]);
  }
  perf__json_raw(j, "],\n   \"lines\": [");
  for (size_t k = 0; k < r->nlines; k++) {
    perf__json_raw(j, k ? ", " : "");
    perf__json_str(j, r->lines[k]);
  }
  perf__json_raw(j, "], \"lines_verbose\": [");
  for (size_t k = 0; k < r->nlines; k++)
    perf__json_raw(j, "%s%s", k ? ", " : "", r->verbose_only[k] ? "true" : "false");
  perf__json_raw(j, "], \"output\": ");
  perf__json_strn(j, r->output ? r->output : "", r->output_len);
  perf__json_raw(j, ", \"output_truncated\": %s}", r->output_truncated ? "true" : "false");
}

/* The first attempt of a test that ran twice (confirm before failing):
 * ", \"attempts\": 2, \"first_attempt\": {...}" with its outcome, reason,
 * time, worker and the claim records that are not among the final ones.
 * Never fails (j->oom). */
static void json_first(perf__json *j, const perf__result_attempt *a)
{
  perf__json_raw(j, ", \"attempts\": 2, \"first_attempt\": {\"outcome\": \"%s\", \"reason\": ",
                 perf__status_word(a->outcome));
  perf__json_str(j, a->reason);
  perf__json_raw(j, ", \"seconds\": ");
  perf__json_num(j, a->seconds);
  perf__json_raw(j, ", \"worker_pid\": %ld, \"claims\": [", a->worker_pid);
  for (size_t k = 0; k < a->nclaims; k++) {
    perf__json_raw(j, "%s\n    ", k ? "," : "");
    perf__claimrec_write(j, &a->claims[k]);
  }
  perf__json_raw(j, "]}");
}

/* One test. Never fails (j->oom). */
static void json_test(perf__json *j, const perf__registry_test *t, const perf__result *r, int device)
{
  perf__json_raw(j, "{\"name\": ");
  perf__json_str(j, r->name);
  if (device >= 0) perf__json_raw(j, ", \"device\": %d", device);
  perf__json_raw(j, ", \"suite\": ");
  perf__json_str(j, t->suite);
  perf__json_raw(j, ", \"file\": ");
  perf__json_str(j, t->file);
  perf__json_raw(j, ", \"line\": %d, \"outcome\": \"%s\", \"no_device\": %s, \"reason\": ",
                 t->line, perf__status_word(r->outcome), r->nodevice ? "true" : "false");
  perf__json_str(j, r->reason);
  perf__json_raw(j, ", \"seconds\": ");
  perf__json_num(j, r->seconds);
  perf__json_raw(j, ", \"worker_pid\": %ld", r->worker_pid);
  if (r->first) json_first(j, r->first);
  json_details(j, r);
}

/* The C runner's tests, each with its results. Never fails (j->oom). */
static void runner_tests(perf__json *j, const void *ctx, size_t *k)
{
  const runner *x = ctx;
  for (size_t i = 0; i < x->res->n; i++) {
    next_item(j, k);
    json_test(j, x->res->tests[i % x->res->nt], &x->res->r[i], x->cli->device_label);
  }
}

/* The headroom table, when a test ran more than once. Never fails
 * (j->oom; without memory, no table). */
static void runner_headroom(perf__json *j, const void *ctx)
{
  const runner *x = ctx;
  perf__headroom_row *rows;
  size_t nrows = perf__headroom_build(x->res->r, x->res->n, &rows);
  if (perf__headroom_repeated(rows, nrows)) perf__headroom_json(j, rows, nrows);
  free(rows);
}

/* See jsonreport.h. */
void perf__jsonreport_write(perf__json *j, const perf__options_cli *cli,
                            const perf__result_set *res, time_t started, int code)
{
  runner x = {cli, res};
  perf__jsonreport_run run = {.perfgate = perf_version(), .started = &started, .exit_code = code,
                              .argc = cli->argc, .argv = (const char *const *)cli->argv,
                              .cli = cli, .shard_index = cli->shard_index, .run_id = cli->run_id,
                              .shard_total = cli->shard_total};
  perf__tally c = perf__tally_count(res->r, res->n);
  perf__jsonreport_totals totals = {(double)c.tests,
                                    (double)(c.tests - c.failures - c.errors - c.skipped),
                                    (double)(c.failures + c.errors), (double)c.skipped, c.seconds};
  shape s = {&run, totals, runner_preflight, runner_fingerprint, runner_tests, runner_headroom, &x};
  document(j, &s);
}

/* ---- A document of JSON trees: --merge's, an embedder's -------------- */

/* The items of arrays a[0..n), one after the other. Never fails (j->oom). */
static void tree_items(perf__json *j, const perf__jsontree_node *const *a, size_t n, size_t *k)
{
  for (size_t i = 0; i < n; i++)
    for (size_t m = 0; a[i] && a[i]->type == PERF__J_ARRAY && m < a[i]->n; m++) {
      next_item(j, k);
      perf__jsontree_write(j, a[i]->kids[m]);
    }
}

/* The trees' preflight. Never fails (j->oom). */
static void trees_preflight(perf__json *j, const void *ctx, size_t *k)
{
  const perf__jsonreport_trees *d = ctx;
  tree_items(j, d->preflight, d->npreflight, k);
}

/* The trees' tests. Never fails (j->oom). */
static void trees_tests(perf__json *j, const void *ctx, size_t *k)
{
  const perf__jsonreport_trees *d = ctx;
  tree_items(j, d->tests, d->ntests, k);
}

/* This host's fingerprint, or the one the trees carry (NULL: null). Never
 * fails (j->oom). */
static void trees_fingerprint(perf__json *j, const void *ctx)
{
  const perf__jsonreport_trees *d = ctx;
  if (d->own_host) fingerprint_of(j, NULL);
  else if (d->fingerprint) perf__jsontree_write(j, d->fingerprint);
  else perf__json_raw(j, "null");
}

/* See jsonreport.h. */
void perf__jsonreport_write_trees(perf__json *j, const perf__jsonreport_trees *d)
{
  shape s = {&d->run, d->totals, trees_preflight, trees_fingerprint, trees_tests, NULL, d};
  document(j, &s);
}

/* The text of t's member key when it is a string, else NULL. Never
 * fails. */
static const char *string_of(const perf__jsontree_node *t, const char *key)
{
  const perf__jsontree_node *n = perf__jsontree_get(t, key);
  return n && n->type == PERF__J_STRING ? n->text : NULL;
}

/* See jsonreport.h. */
int perf__jsonreport_check_test(const perf__jsontree_node *t, char *err, size_t len)
{
  const char *o = string_of(t, "outcome"), *name = string_of(t, "name");
  if (perf__status_outcome(o) != PERF_OUTCOME_COUNT) return 0;
  snprintf(err, len, "test %s has %s outcome%s%s%s (PASS, FAIL, SKIP, ERROR or INCONCLUSIVE)",
           name ? name : "(unnamed)", o ? "the unknown" : "no", o ? " '" : "", o ? o : "",
           o ? "'" : "");
  return -1;
}

/* See jsonreport.h. */
perf__jsonreport_totals perf__jsonreport_count(const perf__jsontree_node *const *tests, size_t n)
{
  perf__jsonreport_totals t = {0};
  for (size_t i = 0; i < n; i++)
    for (size_t m = 0; tests[i] && tests[i]->type == PERF__J_ARRAY && m < tests[i]->n; m++) {
      perf_outcome o = perf__status_outcome(string_of(tests[i]->kids[m], "outcome"));
      t.tests++;
      t.passed += o == PERF_OUTCOME_PASS;
      t.failed += perf__tally_is_failure(o) || o == PERF_OUTCOME_ERROR;
      t.skipped += o == PERF_OUTCOME_SKIP;
    }
  return t;
}
