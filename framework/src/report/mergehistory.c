/* mergehistory.c — --merge from the history: a run's shards read back by run id and merged. */
/* Each shard's last attempt is merged as its --json file would be; nothing
 * is recorded. */
#define _GNU_SOURCE
#include "report/mergehistory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsontree.h"
#include "util/label.h"
#include "util/progname.h"
#include "util/units.h"
#include "history/connect.h"
#include "history/documents.h"
#include "history/store.h"
#include "report/merge.h"

/* The GPUs of set's shards, "'A' (3 shards), 'B' (1 shard)", into
 * out[len] (cut to fit); returns how many. Never fails. */
static size_t gpus_of(const perf__documents_set *set, char *out, size_t len)
{
  size_t n = 0, u = 0;
  out[0] = '\0';
  for (size_t k = 0, first = 0; k < set->n; k++) {
    if (k + 1 < set->n && !strcmp(set->shards[k + 1].gpu, set->shards[k].gpu)) continue;
    long count = (long)(k + 1 - first);
    int w = snprintf(out + u, len - u, "%s'%s' (%ld %s)", n++ ? ", " : "", set->shards[k].gpu, count,
                     perf__units_noun(count, "shard", "shards"));
    u = w > 0 && (size_t)w < len - u ? u + (size_t)w : len - 1;
    first = k + 1;
  }
  return n;
}

/* Keeps the first run id a row holds in *(char **)ctx (strdup: whole).
 * Never fails (without memory none is kept). */
static int key_row(void *ctx, int n, const char *const *v)
{
  char **key = ctx;
  if (n > 0 && v[0] && !*key) *key = strdup(v[0]);
  return 0;
}

/* "; --devices recorded each GPU's run as ID/gpuK: e.g. 'ID/gpu0'" into
 * out[len] when the history has such runs of id, else "". Returns out.
 * Never fails (a store error leaves out empty). */
static const char *gpu_runs(perf__store *s, const char *id, char *out, size_t len)
{
  /* LIKE's own characters in the id match only themselves. */
  char pattern[2 * PERF__LABEL_MAX + 16], *key = NULL, err[300];
  size_t u = 0;
  for (const char *c = id; *c && u + 8 < sizeof pattern; c++) {
    if (*c == '%' || *c == '_' || *c == '!') pattern[u++] = '!';
    pattern[u++] = *c;
  }
  snprintf(pattern + u, sizeof pattern - u, "/gpu%%");
  perf__store_value v = perf__store_text(pattern);
  out[0] = '\0';
  const perf__store_stmt q = {.sql = "SELECT run_key FROM perfgate_runs WHERE run_key LIKE $1 ESCAPE '!' ORDER BY run_key",
                              .param = &v, .nparam = 1, .on_row = key_row, .ctx = &key};
  if (!perf__store_exec(s, &q, err, sizeof err) && key)
    snprintf(out, len, "; --devices recorded each GPU's run as its own run id: e.g. '%s'", key);
  free(key);
  return out;
}

/* Refuses a run id with no shard here (on cli's --gpu: naming the GPUs
 * the run has shards on, read again from s), or whose shards ran on
 * several GPUs without a --gpu. Returns 0 or 2 after a message. */
static int one_gpu(perf__store *s, const perf__options_cli *cli, const perf__documents_set *set)
{
  char gpus[1000], err[600];
  const char *prog = perf__progname();
  size_t n = gpus_of(set, gpus, sizeof gpus);
  if (n == 1) return 0;
  if (n > 1) {
    fprintf(stderr, "%s: --merge: run '%s' ran on several GPUs in %s: %s; pick one with --gpu=NAME\n",
            prog, cli->run_id, s->where, gpus);
    return 2;
  }
  perf__documents_set all = {0};
  if (cli->trend_gpu && !perf__documents_shards(s, cli->run_id, NULL, &all, err, sizeof err) && all.n) {
    gpus_of(&all, gpus, sizeof gpus);
    fprintf(stderr, "%s: --merge: run '%s' has no shard on GPU '%s' in %s; it ran on %s\n", prog,
            cli->run_id, cli->trend_gpu, s->where, gpus);
  } else
    fprintf(stderr, "%s: --merge: run '%s' is not in the history %s (no shard was recorded with "
                    "that run id)%s\n", prog, cli->run_id, s->where, gpu_runs(s, cli->run_id, gpus, sizeof gpus));
  perf__documents_free(&all);
  return 2;
}

/* Refuses shards of one run recorded at different commits (two runs
 * given one run id), naming two of them. Returns 0 or 2 after a
 * message. */
static int one_commit(const perf__store *s, const perf__options_cli *cli, const perf__documents_set *set)
{
  for (size_t k = 1; k < set->n; k++)
    if (strcmp(set->shards[k].commit, set->shards[0].commit)) {
      fprintf(stderr, "%s: --merge: run '%s' in %s has shards of two commits (shard %ld at %s, shard %ld "
                      "at %s): two runs were given one run id; nothing merged\n", perf__progname(), cli->run_id,
              s->where, set->shards[0].index, set->shards[0].commit, set->shards[k].index,
              set->shards[k].commit);
      return 2;
    }
  return 0;
}

/* Refuses a run of one shard (its --json report is the run's report;
 * the history keeps the documents of shards of several only) and shards
 * recorded without their document (before schema 6), naming them.
 * Returns 0 or 2 after a message. */
static int all_documents(const perf__store *s, const perf__options_cli *cli, const perf__documents_set *set)
{
  char list[400] = "";
  long n = 0;
  if (set->n && set->shards[0].total < 2) {
    fprintf(stderr, "%s: --merge: run '%s' in %s is one run, not shards: there is nothing to merge "
                    "(its --json report is the run's report)\n", perf__progname(), cli->run_id, s->where);
    return 2;
  }
  for (size_t k = 0; k < set->n; k++) {
    size_t u = strlen(list);
    if (set->shards[k].text || u + 32 > sizeof list) continue;
    snprintf(list + u, sizeof list - u, "%s%ld", n++ ? ", " : "", set->shards[k].index);
  }
  if (!n) return 0;
  fprintf(stderr, "%s: --merge: %s %s of run '%s' in %s %s recorded before history schema 6, "
                  "without %s report: merge the shards' --json files instead (--merge=OUT A.json "
                  "B.json ...)\n", perf__progname(), n > 1 ? "shards" : "shard", list, cli->run_id,
          s->where, n > 1 ? "were" : "was", n > 1 ? "their" : "its");
  return 2;
}

/* Parses set's documents into r[0..n) and names each, "shard K of run
 * 'ID' (run N in LOC)", in name[0..n). Returns 0 or 2 after a message. */
static int parse_all(const char *where, const perf__options_cli *cli, const perf__documents_set *set,
                     perf__jsontree_node **r, char **name)
{
  for (size_t k = 0; k < set->n; k++) {
    const perf__documents_shard *sh = &set->shards[k];
    char err[600];
    if (asprintf(&name[k], "shard %ld of run '%s' (run %lld in %s)", sh->index, cli->run_id, sh->run,
                 where) < 0) {
      name[k] = NULL;
      fprintf(stderr, "%s: --merge: out of memory\n", perf__progname());
      return 2;
    }
    if (!(r[k] = perf__jsontree_parse(sh->text, name[k], err, sizeof err))) {
      fprintf(stderr, "%s: --merge: %s\n", perf__progname(), err);
      return 2;
    }
  }
  return 0;
}

/* The merge of set's shards, read from where. Returns as perf__merge. */
static int merge_set(const perf__options_cli *cli, const char *where, const perf__documents_set *set)
{
  perf__jsontree_node **r = calloc(set->n, sizeof *r);
  char **name = calloc(set->n, sizeof *name);
  perf__merge_history h = {where, cli->run_id};
  int code = !r || !name ? (fprintf(stderr, "%s: --merge: out of memory\n", perf__progname()), 2)
                         : parse_all(where, cli, set, r, name);
  if (!code) code = perf__merge_documents(cli, r, name, (int)set->n, &h);
  for (size_t k = 0; k < set->n; k++) {
    if (r) perf__jsontree_free(r[k]);
    if (name) free(name[k]);
  }
  free(r);
  free(name);
  return code;
}

/* Always 2, after the history's error err: it cannot be read. */
static int unreadable(const char *err)
{
  fprintf(stderr, "%s: --merge: --history: %s\n", perf__progname(), err);
  return 2;
}

/* See mergehistory.h. */
int perf__mergehistory_run(const perf__options_cli *cli)
{
  perf__store *s = NULL;
  perf__documents_set set = {0};
  char err[1000], where[512] = "";
  int code = perf__connect_open(cli->history, 0, &s, err, sizeof err);
  if (!code) snprintf(where, sizeof where, "%s", s->where);
  if (!code) code = perf__documents_shards(s, cli->run_id, cli->trend_gpu, &set, err, sizeof err);
  code = code ? unreadable(err) : one_gpu(s, cli, &set);
  if (!code && perf__documents_load(s, &set, err, sizeof err)) code = unreadable(err);
  if (!code) code = one_commit(s, cli, &set);
  if (!code) code = all_documents(s, cli, &set);
  perf__store_close(s);
  if (!code) code = merge_set(cli, where, &set);
  perf__documents_free(&set);
  return code;
}
