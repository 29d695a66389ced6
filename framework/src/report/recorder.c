/* recorder.c — --history: the store checked before tests run, then the run's report recorded. */
#include "report/recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/file.h"
#include "util/progname.h"
#include "util/status.h"
#include "history/provenance.h"
#include "history/record.h"
#include "history/schema.h"
#include "history/secret.h"
#include "history/connect.h"
#include "history/store.h"

/* Opens and migrates; returns the store or NULL with err set. */
static perf__store *open_store(const char *location, char *err, size_t len)
{
  perf__store *s = NULL;
  char why[600];
  int rc = perf__connect_open(location, 1, &s, why, sizeof why);
  if (!rc) rc = perf__schema_migrate(s, 0, why, sizeof why);
  if (!rc) return s;
  perf__store_close(s);
  snprintf(err, len, "--history: %s", why);
  return NULL;
}

/* The --commit= a report's run (or a merged report's first shard or
 * device) was run with, or NULL. */
static const char *commit_of_run(const perf__jsontree_node *run)
{
  const perf__jsontree_node *argv = perf__jsontree_get(run, "argv");
  for (size_t k = 0; argv && argv->type == PERF__J_ARRAY && k < argv->n; k++) {
    const char *a = argv->kids[k]->text;
    if (a && !strncmp(a, "--commit=", 9) && a[9]) return a + 9;
  }
  return NULL;
}

/* A merged report's commit: the --commit= its first shard (or device)
 * was run with, or NULL. */
static const char *commit_of_parts(const perf__jsontree_node *doc)
{
  const perf__jsontree_node *run = perf__jsontree_get(doc, "run");
  const perf__jsontree_node *parts = perf__jsontree_get(run, "shards");
  if (!parts) parts = perf__jsontree_get(run, "devices");
  if (!parts || parts->type != PERF__J_ARRAY || !parts->n) return NULL;
  return commit_of_run(parts->kids[0]);
}

/* The check of perf__recorder_check with commit (NULL: the CI's or git's;
 * from the report file from, or NULL for the command line) and "(nothing
 * was <done>)" after the reason. */
static int check(const perf__options_cli *cli, const char *commit, const char *from, const char *done,
                 char *err, size_t len)
{
  if (!cli->history) return 0;
  if (!*cli->history) return snprintf(err, len, "--history needs a file or a postgresql:// URI"), PERF__EUSAGE;
  char why[700];
  perf__provenance p;
  if (perf__provenance_detect(commit, cli->branch, &p, why, sizeof why))
    return snprintf(err, len, "--history: %s%s%s (nothing was %s)", from && commit ? from : "",
                    from && commit ? " was run with " : "", why, done), PERF__EUSAGE;
  perf__store *s = open_store(cli->history, why, sizeof why);
  char probe[600];
  int rc = s ? perf__schema_writable(s, probe, sizeof probe) : PERF__EIO;
  if (s && rc) snprintf(why, sizeof why, "--history: %s", probe);
  if (rc) snprintf(err, len, "%s (nothing was %s)", why, done);
  perf__store_close(s);
  return rc ? PERF__EIO : 0;
}

/* See recorder.h. */
int perf__recorder_check(const perf__options_cli *cli, char *err, size_t len)
{
  return check(cli, cli->commit, NULL, "run", err, len);
}

/* See recorder.h. */
int perf__recorder_check_merge(const perf__options_cli *cli, const perf__jsontree_node *first,
                               const char *path, char *err, size_t len)
{
  if (cli->commit) return check(cli, cli->commit, NULL, "written", err, len);
  return check(cli, commit_of_run(perf__jsontree_get(first, "run")), path, "written", err, len);
}

/* Row of two counts (NULL: 0) into ((long *)ctx)[0..2). */
static int counts_row(void *ctx, int n, const char *const *v)
{
  long *c = ctx;
  c[0] = n > 0 && v[0] ? atol(v[0]) : 0;
  c[1] = n > 1 && v[1] ? atol(v[1]) : 0;
  return 0;
}

/* The run id of a merged report whose runs the store already holds under
 * that id (its shards, recorded as they ran, or the merged run, recorded
 * before: *whole 1), or NULL: a merged run is recorded only when nothing
 * of it was, so that no run counts twice. */
static const char *recorded_already(perf__store *s, const perf__jsontree_node *doc, int *whole)
{
  const perf__jsontree_node *run = perf__jsontree_get(doc, "run");
  const perf__jsontree_node *id = perf__jsontree_get(perf__jsontree_get(run, "shard"), "run_id");
  if (!perf__jsontree_get(run, "merged") || !id || id->type != PERF__J_STRING || !*id->text)
    return NULL;
  long n[2] = {0, 0}; /* its runs, and of those the shards of a split run */
  char err[300];
  perf__store_value v = perf__store_text(id->text);
  const perf__store_stmt q = {.sql = "SELECT count(*), sum(CASE WHEN shard_total > 1 THEN 1 ELSE 0 END) FROM perfgate_runs"
                                     " WHERE run_key = $1",
                              .param = &v, .nparam = 1, .on_row = counts_row, .ctx = n};
  if (perf__store_exec(s, &q, err, sizeof err)) return NULL;
  *whole = n[1] == 0;
  return n[0] > 0 ? id->text : NULL;
}

/* s as one shell word (quoted when it holds anything but [A-Za-z0-9_./:@%+=,-])
 * appended to out[len] after a space. Never fails (a long one is cut with
 * the line). */
static void word(char *out, size_t len, const char *s)
{
  size_t u = strlen(out);
  int plain = *s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:@%+=,-") == strlen(s);
  u += (size_t)snprintf(out + u, u < len ? len - u : 0, plain ? " %s" : " '", s);
  for (const char *c = s; !plain && *c && u + 5 < len; c++)
    u += (size_t)snprintf(out + u, len - u, *c == '\'' ? "'\\''" : "%c", *c);
  if (!plain && u + 1 < len) snprintf(out + u, len - u, "'");
}

/* How the run that could not be recorded can be later, or why not, for
 * the message after "the run was not recorded" (origin as recorded: a
 * run's own --json report, or a merge's OUT), into out[len]: the command
 * that records its report file (a whole run: --merge of that one report,
 * under the commit and branch p it would have had; the password of the
 * location masked), or what keeps that from being done. Never fails. */
static void later(const perf__options_cli *cli, const perf__jsontree_node *doc, const perf__provenance *p,
                  const char *origin, char *out, size_t len)
{
  const char *file = !strcmp(origin, "run") ? cli->json : cli->merge;
  int in_place = 1;
  char why[600];
  out[0] = '\0';
  if (!file || perf__file_check(file, &in_place, why, sizeof why) || in_place) {
    if (!strcmp(origin, "run"))
      snprintf(out, len, " (a run given --json=FILE can be recorded later from that file: --history=LOCATION "
                         "--merge=/dev/null FILE)");
    return;
  }
  double total = perf__jsontree_num(perf__jsontree_get(perf__jsontree_get(perf__jsontree_get(doc, "run"), "shard"),
                                                       "total"), 1);
  if (total > 1) {
    snprintf(out, len, "; this shard's --json report %s keeps it, but a shard cannot be recorded later: "
                       "--history with --merge=OUT A.json B.json ... records a run whole, and only when no shard "
                       "of it is in the history", file);
    return;
  }
  char *where = perf__secret_masked(cli->history), opt[400];
  snprintf(out, len, "; its report %s keeps it: record it later with:", file);
  word(out, len, cli->argv && cli->argc > 0 ? cli->argv[0] : perf__progname());
  snprintf(opt, sizeof opt, "--history=%s", where ? where : "LOCATION");
  word(out, len, opt);
  if (strcmp(p->from, "none")) snprintf(opt, sizeof opt, "--commit=%s", p->commit), word(out, len, opt);
  if (p->branch[0]) snprintf(opt, sizeof opt, "--branch=%s", p->branch), word(out, len, opt);
  word(out, len, "--merge=/dev/null");
  word(out, len, file);
  free(where);
}

/* See recorder.h. */
int perf__recorder_record(const perf__options_cli *cli, const perf__jsontree_node *doc, const char *text,
                          const char *origin, perf__recorder_run *out)
{
  char err[800], why[600];
  perf__provenance p;
  long long id = 0;
  if (out) memset(out, 0, sizeof *out);
  if (perf__provenance_detect(cli->commit ? cli->commit : commit_of_parts(doc), cli->branch, &p, why,
                              sizeof why)) {
    fprintf(stderr, "%s: --history: %s: the run was not recorded\n", perf__progname(), why);
    return PERF__EIO;
  }
  if (!strcmp(p.from, "none"))
    fprintf(stderr, "perfgate: no commit known (no --commit, no CI variable, not in a git "
                    "repository): the run is recorded as commit 'unknown'\n");
  char where[512] = "";
  perf__store *s = open_store(cli->history, err, sizeof err);
  int whole = 0;
  const char *twice = s ? recorded_already(s, doc, &whole) : NULL;
  if (twice) {
    printf("perfgate: run '%s' is in %s %s already: the merged run is not recorded "
           "again (a run counts once)\n", twice, s->where, whole ? "as one merged run" : "shard by shard");
    perf__store_close(s);
    return 0;
  }
  const perf__record_in run = {.report = doc, .text = text, .p = &p, .origin = origin};
  int rc = s ? perf__record_run(s, &run, &id, why, sizeof why) : PERF__EIO;
  if (s) snprintf(where, sizeof where, "%s", s->where);
  perf__store_close(s);
  if (rc) {
    char hint[1400];
    if (where[0]) snprintf(err, sizeof err, "--history: %s", why);
    later(cli, doc, &p, origin, hint, sizeof hint);
    fprintf(stderr, "%s: %s: the run was not recorded%s\n", perf__progname(), err, hint);
    return PERF__EIO;
  }
  const perf__jsontree_node *gpu = perf__jsontree_get(perf__jsontree_get(doc, "fingerprint"), "gpu");
  const perf__jsontree_node *name = perf__jsontree_get(gpu, "name");
  const perf__jsontree_node *host = perf__jsontree_get(perf__jsontree_get(doc, "fingerprint"), "host");
  const perf__jsontree_node *cpu = perf__jsontree_get(host, "name");
  char machine[300];
  snprintf(machine, sizeof machine, "no GPU: %s", cpu && cpu->type == PERF__J_STRING ? cpu->text : "unknown CPU");
  const char *g = name && name->type == PERF__J_STRING ? name->text : machine;
  printf("perfgate: recorded run %lld (commit %s, %s) in %s\n", id, p.commit, g, where);
  if (out) {
    out->run = id;
    snprintf(out->gpu, sizeof out->gpu, "%s", g);
  }
  return 0;
}
