/* merge.c — combines a sharded run's --json reports into one report, exit code and charts. */
/* The reports come from files, or from its shards' documents in the history. */
#define _GNU_SOURCE
#include "report/merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <time.h>

#include "report/jsonreport.h"
#include "report/recorder.h"
#include "report/report.h"
#include "record/claimrec.h"
#include "io/json.h"
#include "io/jsontree.h"
#include "util/label.h"
#include "util/progname.h"
#include "util/status.h"
#include "util/units.h"
#include "report/result.h"

enum { MAX_SHARDS = 4096 };

static const char *text_of(const perf__jsontree_node *o, const char *key)
{
  const perf__jsontree_node *n = perf__jsontree_get(o, key);
  return n && n->type != PERF__J_OBJECT && n->type != PERF__J_ARRAY ? n->text : "";
}

/* The perfgate version a report names ("" for a report that does not say:
 * one written before reports carried it). Never fails. */
static const char *version_of(const perf__jsontree_node *report)
{
  return text_of(perf__jsontree_get(report, "run"), "perfgate");
}

/* The run id report r's shard carries ("" when none). Never fails. */
static const char *run_id_of(const perf__jsontree_node *r)
{
  const perf__jsontree_node *id =
      perf__jsontree_get(perf__jsontree_get(perf__jsontree_get(r, "run"), "shard"), "run_id");
  return id && id->type == PERF__J_STRING ? id->text : "";
}

/* Checks one report: a perfgate report whose run id, if any, keeps the
 * one rule of run ids (util/label.h: a report an older perfgate wrote may
 * hold one cut or with a newline); returns 0 or 2 after a message. */
static int check(const char *path, const perf__jsontree_node *r, long *total, char *seen, int shards)
{
  const perf__jsontree_node *schema = perf__jsontree_get(r, "schema"), *run = perf__jsontree_get(r, "run"),
                    *shard = perf__jsontree_get(run, "shard"), *tests = perf__jsontree_get(r, "tests");
  if (!schema || schema->type != PERF__J_STRING || strcmp(schema->text, PERF__JSONREPORT_SCHEMA) ||
      !tests || tests->type != PERF__J_ARRAY || !shard) {
    fprintf(stderr, "%s: --merge: %s is not a perfgate --json report\n", perf__progname(), path);
    return 2;
  }
  for (size_t k = 0; k < tests->n; k++) {
    char why[700];
    if (perf__jsonreport_check_test(tests->kids[k], why, sizeof why)) {
      fprintf(stderr, "%s: --merge: %s: %s: not a report this perfgate wrote\n", perf__progname(),
              path, why);
      return 2;
    }
  }
  char why[400];
  if (*run_id_of(r) && perf__label_check("its run id (run.shard.run_id)", run_id_of(r), why, sizeof why)) {
    fprintf(stderr, "%s: --merge: %s: %s\n", perf__progname(), path, why);
    return 2;
  }
  if (!shards) return 0;
  long idx = (long)perf__jsontree_num(perf__jsontree_get(shard, "index"), -1),
       tot = (long)perf__jsontree_num(perf__jsontree_get(shard, "total"), -1);
  if (tot < 1 || tot > MAX_SHARDS || idx < 0 || idx >= tot || (*total && tot != *total)) {
    fprintf(stderr, "%s: --merge: %s: shard %ld of %ld does not belong with the others "
                    "(%ld %s)\n", perf__progname(), path, idx, tot, *total,
            perf__units_noun(*total, "shard", "shards"));
    return 2;
  }
  *total = tot;
  if (seen[idx]++) {
    fprintf(stderr, "%s: --merge: %s: shard %ld appears twice\n", perf__progname(), path, idx);
    return 2;
  }
  return 0;
}

/* The merged run's exit code (the worst of r[0..n)'s) and its totals (the
 * sums of theirs). Never fails. */
static int totals_of(perf__jsontree_node **r, int n, perf__jsonreport_totals *t)
{
  int code = 0;
  double *sum[] = {&t->tests, &t->passed, &t->failed, &t->skipped, &t->seconds};
  static const char *const keys[] = {"tests", "passed", "failed", "skipped", "seconds"};
  *t = (perf__jsonreport_totals){0};
  for (int i = 0; i < n; i++) {
    int c = (int)perf__jsontree_num(perf__jsontree_get(perf__jsontree_get(r[i], "run"), "exit_code"), 2);
    code = c > code ? c : code;
    for (int k = 0; k < 5; k++)
      *sum[k] += perf__jsontree_num(perf__jsontree_get(perf__jsontree_get(r[i], "totals"), keys[k]), 0);
  }
  return code;
}

/* The merged document of the checked reports r[0..n) into j, through the
 * one report writer: each report's run listed under "shards" (or
 * "devices"), their preflights and tests one after the other, the first
 * one's fingerprint; its totals in *t and exit code in *code. Returns 0,
 * or 2 after a message (no memory). */
static int merged(perf__json *j, perf__jsontree_node **r, int n, int shards, const perf__merge_whole *whole,
                  perf__jsonreport_totals *t, int *code)
{
  const perf__jsontree_node **part = calloc(3 * (size_t)n, sizeof *part);
  if (!part) return fprintf(stderr, "%s: --merge: out of memory\n", perf__progname()), 2;
  for (int i = 0; i < n; i++) {
    part[i] = perf__jsontree_get(r[i], "run");
    part[n + i] = perf__jsontree_get(r[i], "preflight");
    part[2 * n + i] = perf__jsontree_get(r[i], "tests");
  }
  *code = totals_of(r, n, t);
  perf__jsonreport_trees d = {
      .run = {.merged = 1, .perfgate = *version_of(r[0]) ? version_of(r[0]) : NULL,
              .exit_code = *code, .argc = -1, .shard_index = whole ? whole->index : 0,
              .shard_total = whole ? whole->total : 1, .run_id = whole ? whole->run_id : run_id_of(r[0]),
              .runs_key = shards ? "shards" : "devices", .runs = part, .nruns = (size_t)n},
      .totals = *t, .preflight = part + n, .npreflight = (size_t)n, .tests = part + 2 * n,
      .ntests = (size_t)n, .fingerprint = perf__jsontree_get(r[0], "fingerprint")};
  perf__jsonreport_write_trees(j, &d);
  free(part);
  return 0;
}

/* The merged report from the checked reports r[0..n) into j (the
 * caller frees it), written to out. Returns its exit code, or 2 after a
 * message. */
static int write_merged(const char *out, perf__jsontree_node **r, int n, int shards,
                        const perf__merge_whole *whole, perf__json *j)
{
  perf__jsonreport_totals t;
  int code = 0;
  int err = merged(j, r, n, shards, whole, &t, &code);
  if (!err) err = perf__report_save("--merge", out, j) ? 2 : 0;
  if (err) return err;
  printf("perfgate: merged %d %s into %s: %.0f passed, %.0f failed, %.0f skipped; exit %d\n",
         n, perf__units_noun(n, "report", "reports"), out, t.passed, t.failed, t.skipped, code);
  return code;
}

/* The outcome member "outcome" of o names; ERROR when none. Never fails. */
static perf_outcome outcome_of(const perf__jsontree_node *o)
{
  perf_outcome v = perf__status_outcome(text_of(o, "outcome"));
  return v == PERF_OUTCOME_COUNT ? PERF_OUTCOME_ERROR : v;
}

/* The "first_attempt" of a test that ran twice (confirm before failing)
 * into r->first: its outcome, reason, time, worker and claim records (for
 * the headroom). Never fails (without it, or without memory, none). */
static void first_of(const perf__jsontree_node *t, perf__result *r)
{
  const perf__jsontree_node *f = perf__jsontree_get(t, "first_attempt"),
                            *c = perf__jsontree_get(f, "claims");
  if (!f || f->type != PERF__J_OBJECT || !(r->first = calloc(1, sizeof *r->first))) return;
  perf__result_attempt *a = r->first;
  a->outcome = outcome_of(f);
  snprintf(a->reason, sizeof a->reason, "%s", text_of(f, "reason"));
  a->seconds = perf__jsontree_num(perf__jsontree_get(f, "seconds"), 0);
  a->worker_pid = (long)perf__jsontree_num(perf__jsontree_get(f, "worker_pid"), 0);
  size_t n = c && c->type == PERF__J_ARRAY ? c->n : 0;
  a->claims = n ? calloc(n, sizeof *a->claims) : NULL;
  for (size_t k = 0; a->claims && k < n; k++) {
    char err[400];
    if (perf__claimrec_read(c->kids[k], &a->claims[a->nclaims], err, sizeof err) == 0)
      a->nclaims++;
  }
}

/* One test of a report as the supervisor knew it: name, outcome, reason,
 * time, claim records, its first attempt and lines. Never fails (without
 * memory, or with a claim record that cannot be read, less). */
static void result_of(const perf__jsontree_node *t, perf__result *r)
{
  snprintf(r->name, sizeof r->name, "%s", text_of(t, "name"));
  snprintf(r->reason, sizeof r->reason, "%s", text_of(t, "reason"));
  r->outcome = outcome_of(t);
  first_of(t, r);
  r->seconds = perf__jsontree_num(perf__jsontree_get(t, "seconds"), 0);
  r->worker_pid = (long)perf__jsontree_num(perf__jsontree_get(t, "worker_pid"), 0);
  const perf__jsontree_node *c = perf__jsontree_get(t, "claims"), *l = perf__jsontree_get(t, "lines"),
                    *v = perf__jsontree_get(t, "lines_verbose");
  for (size_t k = 0; c && c->type == PERF__J_ARRAY && k < c->n; k++) {
    perf__claimrec rec;
    char err[400];
    if (perf__claimrec_read(c->kids[k], &rec, err, sizeof err) == 0)
      perf__result_add_claim(r, &rec); /* one that cannot be read makes no chart */
  }
  for (size_t k = 0; l && l->type == PERF__J_ARRAY && k < l->n; k++)
    if (l->kids[k]->type == PERF__J_STRING) {
      int verbose = v && v->type == PERF__J_ARRAY && k < v->n && v->kids[k]->text &&
                    !strcmp(v->kids[k]->text, "true");
      char *s = strdup(l->kids[k]->text);
      if (s) perf__result_add_line(r, verbose, s);
    }
}

/* When the first report's run began; now when it does not say. */
static time_t started_of(const perf__jsontree_node *report)
{
  struct tm tm = {0};
  const char *s = text_of(perf__jsontree_get(report, "run"), "started");
  char *end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return end && !*end ? timegm(&tm) : time(NULL);
}

/* --plots and --html for the merged reports r[0..n). Returns 0 or 2. */
static int pages(const perf__options_cli *cli, perf__jsontree_node **r, int n, int code)
{
  size_t total = 0, k = 0;
  for (int i = 0; i < n; i++) total += perf__jsontree_get(r[i], "tests")->n;
  perf__result *res = calloc(total ? total : 1, sizeof *res);
  if (!res) return fprintf(stderr, "%s: --merge: out of memory\n", perf__progname()), 2;
  for (int i = 0; i < n; i++) {
    const perf__jsontree_node *t = perf__jsontree_get(r[i], "tests");
    for (size_t j = 0; j < t->n; j++) result_of(t->kids[j], &res[k++]);
  }
  int err = perf__report_pages(cli, res, k, started_of(r[0]), code);
  for (size_t j = 0; j < k; j++) perf__result_free(&res[j]);
  free(res);
  return err ? 2 : 0;
}

/* --history: the merged report j, as written to the output, recorded as
 * one run. Returns 0, or PERF__EIO after a message. */
static int record(const perf__json *j, const perf__options_cli *cli)
{
  char err[600];
  perf__jsontree_node *doc = perf__jsontree_parse(j->s, "the merged report", err, sizeof err);
  if (!doc) {
    fprintf(stderr, "%s: --history: %s: the merged run was not recorded\n", perf__progname(), err);
    return PERF__EIO;
  }
  int e = perf__recorder_record(cli, doc, j->s, "merge", NULL);
  perf__jsontree_free(doc);
  return e;
}

/* Refuses reports written by different perfgate versions: their verdicts
 * were not decided by one program. Returns 0 or 2 after a message. */
static int one_version(char **in, int n, perf__jsontree_node **r)
{
  for (int i = 1; i < n; i++)
    if (strcmp(version_of(r[i]), version_of(r[0]))) {
      fprintf(stderr, "%s: --merge: %s was written by perfgate %s and %s by perfgate %s: "
                      "merge the reports of one perfgate's run\n", perf__progname(), in[0],
              *version_of(r[0]) ? version_of(r[0]) : "(unknown: no version in it)", in[i],
              *version_of(r[i]) ? version_of(r[i]) : "(unknown: no version in it)");
      return 2;
    }
  return 0;
}

/* The shards are of one run: the same run id, or none. Returns 0 or 2
 * after a message naming two that differ. */
static int one_run(char **in, int n, perf__jsontree_node **r)
{
  for (int i = 1; i < n; i++)
    if (strcmp(run_id_of(r[i]), run_id_of(r[0]))) {
      fprintf(stderr, "%s: --merge: %s is of run '%s' and %s of run '%s': the shards of one run "
                      "only\n", perf__progname(), in[0], run_id_of(r[0]), in[i], run_id_of(r[i]));
      return 2;
    }
  return 0;
}

/* The shards of total that seen lacks, "1, 3 and 5", into out[len] (a
 * long list ends ", ..."); returns how many there are. Never fails. */
static long missing_list(const char *seen, long total, char *out, size_t len)
{
  long left = 0, n = 0;
  for (long k = 0; k < total; k++) left += !seen[k];
  out[0] = '\0';
  for (long k = 0; k < total; k++) {
    size_t u = strlen(out);
    if (seen[k]) continue;
    if (u + 32 > len) {
      snprintf(out + u, len - u, ", ...");
      break;
    }
    n++;
    snprintf(out + u, len - u, "%s%ld", n == 1 ? "" : n == left ? " and " : ", ", k);
  }
  return left;
}

/* Refuses a run with a shard missing. Returns 0, or 2 after a message:
 * files name the first shard missing; the history every one it lacks
 * ("shards 1 and 3 of 4 (from 0) of run 'ID' are not in the history"). */
static int missing(const char *seen, long total, const perf__merge_history *h)
{
  char list[400];
  long n = missing_list(seen, total, list, sizeof list);
  if (!n) return 0;
  if (!h)
    fprintf(stderr, "%s: --merge: shard %ld of %ld is missing\n", perf__progname(),
            strtol(list, NULL, 10), total);
  else
    fprintf(stderr, "%s: --merge: %s %s of %ld (from 0) of run '%s' %s not in the history %s\n",
            perf__progname(), n > 1 ? "shards" : "shard", list, total, h->run_id,
            n > 1 ? "are" : "is", h->where);
  return 2;
}

/* Checks the reports r[0..n) (name[i] names r[i]) as one run's: each a
 * report, the shards' totals and indexes (none missing), one perfgate,
 * one run id. Returns 0 or 2 after a message. */
static int check_all(char **name, perf__jsontree_node **r, int n, int shards,
                     const perf__merge_history *h)
{
  char *seen = calloc(MAX_SHARDS, 1);
  long total = 0;
  int code = !seen ? (fprintf(stderr, "%s: --merge: out of memory\n", perf__progname()), 2) : 0;
  for (int i = 0; !code && i < n; i++) code = check(name[i], r[i], &total, seen, shards);
  if (!code) code = one_version(name, n, r);
  if (!code && shards) code = one_run(name, n, r);
  if (!code) code = missing(seen, total, h);
  free(seen);
  return code;
}

/* What a merge is asked for. */
typedef struct ask {
  const char *out;                /* the merged report's file */
  int shards;                     /* 1: a sharded run's reports; 0: --devices' per-GPU ones */
  const perf__merge_whole *whole; /* the merged run's shard and run id (NULL: shard 0 of 1,
                                     the first report's run id) */
  const perf__options_cli *cli;   /* its command line, for the pages and --history (NULL: none) */
  const perf__merge_history *h;   /* where in the history the reports were read (NULL: files) */
} ask;

/* Merges the reports r[0..n) (name[i] names r[i]), checked first, as a
 * asks: into a->out; with a->cli, also its pages, and with its --history
 * (files only: a->h NULL) the merged run recorded. Returns the run's exit
 * code, or 2 after a message. */
static int merge_trees(const ask *a, char **name, perf__jsontree_node **r, int n)
{
  char err[1400];
  const perf__options_cli *cli = a->cli;
  int records = cli && cli->history && !a->h;
  int code = check_all(name, r, n, a->shards, a->h);
  if (!code && records && perf__recorder_check_merge(cli, r[0], name[0], err, sizeof err))
    code = (fprintf(stderr, "%s: %s\n", perf__progname(), err), 2);
  perf__json j = {0};
  if (!code) code = write_merged(a->out, r, n, a->shards, a->whole, &j);
  if (code != 2 && records && record(&j, cli)) code = 2;
  perf__json_free(&j);
  if (code != 2 && cli && (cli->plots || cli->html) && pages(cli, r, n, code)) code = 2;
  return code;
}

/* Reads the files in[0..n) into r. Returns 0 or 2 after a message. */
static int read_files(char **in, int n, perf__jsontree_node **r)
{
  for (int i = 0; i < n; i++) {
    char err[600];
    if (!(r[i] = perf__jsontree_read(in[i], err, sizeof err))) {
      fprintf(stderr, "%s: --merge: %s\n", perf__progname(), err);
      return 2;
    }
  }
  return 0;
}

/* Merges the files in[0..n) as a asks (a->h is NULL). */
static int merge(const ask *a, char **in, int n)
{
  if (n < 1) {
    fprintf(stderr, "%s: --merge=OUT needs the shards' --json reports after it\n", perf__progname());
    return 2;
  }
  perf__jsontree_node **r = calloc((size_t)n, sizeof *r);
  int code = !r ? (fprintf(stderr, "%s: --merge: out of memory\n", perf__progname()), 2)
                : read_files(in, n, r);
  if (!code) code = merge_trees(a, in, r, n);
  for (int i = 0; r && i < n; i++) perf__jsontree_free(r[i]);
  free(r);
  return code;
}

/* See merge.h. */
int perf__merge(const perf__options_cli *cli)
{
  ask a = {cli->merge, 1, NULL, cli, NULL};
  return merge(&a, cli->merge_in, cli->merge_n);
}

/* See merge.h. */
int perf__merge_documents(const perf__options_cli *cli, perf__jsontree_node **r, char **name, int n,
                          const perf__merge_history *h)
{
  ask a = {cli->merge, 1, NULL, cli, h};
  return merge_trees(&a, name, r, n);
}

/* See merge.h. */
int perf__merge_reports(const char *out, char **in, int n, int shards, const perf__merge_whole *whole)
{
  ask a = {out, shards, whole, NULL, NULL};
  return merge(&a, in, n);
}
