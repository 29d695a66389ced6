/* documents.c — a run's shards read back by run id: each shard's last attempt and its report. */
#define _GNU_SOURCE
#include "history/documents.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/status.h"
#include "history/schema.h"

/* Adds the shard of row (id, gpu, shard_index, shard_total) to the set
 * ctx. Returns 0, or PERF__ENOMEM (which stops the statement). */
static int shard_row(void *ctx, int n, const char *const *v)
{
  perf__documents_set *set = ctx;
  if (n < 5 || !v[0]) return 0;
  perf__documents_shard *sh = perf__grow(set->shards, &set->cap, set->n + 1, sizeof *sh, 8);
  if (!sh) return PERF__ENOMEM;
  set->shards = sh;
  sh = &set->shards[set->n];
  *sh = (perf__documents_shard){strtoll(v[0], NULL, 10), strdup(v[1] ? v[1] : "none"),
                                v[2] ? strtol(v[2], NULL, 10) : 0, v[3] ? strtol(v[3], NULL, 10) : 1,
                                strdup(v[4] ? v[4] : "unknown"), NULL};
  if (!sh->gpu || !sh->commit) return free(sh->gpu), free(sh->commit), PERF__ENOMEM;
  set->n++;
  return 0;
}

/* See documents.h. */
int perf__documents_shards(perf__store *s, const char *key, const char *gpu,
                           perf__documents_set *set, char *err, size_t len)
{
  static const char *const sql[2] = {
      "SELECT id, gpu, shard_index, shard_total, commit_id FROM perfgate_runs r WHERE run_key = $1 AND "
      PERF__SCHEMA_LAST_ATTEMPT("") " ORDER BY gpu, shard_index",
      "SELECT id, gpu, shard_index, shard_total, commit_id FROM perfgate_runs r WHERE run_key = $1 AND gpu = $2"
      " AND " PERF__SCHEMA_LAST_ATTEMPT("") " ORDER BY gpu, shard_index"};
  perf__store_value p[] = {perf__store_text(key), perf__store_text(gpu)};
  memset(set, 0, sizeof *set);
  int rc = perf__schema_version(s, &set->schema, err, len);
  if (rc || set->schema < 5) return rc;
  const perf__store_stmt q = {.sql = sql[gpu != NULL], .param = p, .nparam = gpu ? 2 : 1,
                              .on_row = shard_row, .ctx = set};
  rc = perf__store_exec(s, &q, err, len);
  if (rc == PERF__ENOMEM) snprintf(err, len, "%s: out of memory", s->where);
  if (rc) perf__documents_free(set);
  return rc;
}

/* Keeps the one document a row holds in *(char **)ctx. Returns 0, or
 * PERF__ENOMEM (which stops the statement). */
static int text_row(void *ctx, int n, const char *const *v)
{
  char **text = ctx;
  if (n < 1 || !v[0] || *text) return 0;
  return (*text = strdup(v[0])) ? 0 : PERF__ENOMEM;
}

/* See documents.h. */
int perf__documents_load(perf__store *s, perf__documents_set *set, char *err, size_t len)
{
  for (size_t k = 0; set->schema >= 6 && k < set->n; k++) {
    perf__store_value id = perf__store_int(set->shards[k].run);
    const perf__store_stmt q = {.sql = "SELECT document FROM perfgate_reports WHERE run_id = $1",
                                .param = &id, .nparam = 1, .on_row = text_row, .ctx = &set->shards[k].text};
    int rc = perf__store_exec(s, &q, err, len);
    if (rc == PERF__ENOMEM) snprintf(err, len, "%s: out of memory", s->where);
    if (rc) return rc;
  }
  return 0;
}

/* See documents.h. */
void perf__documents_free(perf__documents_set *set)
{
  for (size_t k = 0; k < set->n; k++) {
    free(set->shards[k].gpu), free(set->shards[k].commit);
    free(set->shards[k].text);
  }
  free(set->shards);
  memset(set, 0, sizeof *set);
}
