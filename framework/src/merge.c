/* merge.c — combines the --json reports of a sharded run into one report and one exit code. */
#define _GNU_SOURCE
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "jsonread.h"

enum { MAX_SHARDS = 4096 };

/* Checks one report; returns 0 or 2 after a message. */
static int check(const char *path, const perf__jnode *r, long *total, char *seen, int shards)
{
  const perf__jnode *schema = perf__jget(r, "schema"), *run = perf__jget(r, "run"),
                    *shard = perf__jget(run, "shard"), *tests = perf__jget(r, "tests");
  if (!schema || schema->type != PERF__J_STRING || strcmp(schema->text, "perfgate-report/1") ||
      !tests || tests->type != PERF__J_ARRAY || !shard) {
    fprintf(stderr, "perftest: --merge: %s is not a perfgate --json report\n", path);
    return 2;
  }
  if (!shards) return 0;
  long idx = (long)perf__jnum(perf__jget(shard, "index"), -1),
       tot = (long)perf__jnum(perf__jget(shard, "total"), -1);
  if (tot < 1 || tot > MAX_SHARDS || idx < 0 || idx >= tot || (*total && tot != *total)) {
    fprintf(stderr, "perftest: --merge: %s: shard %ld of %ld does not belong with the others "
                    "(%ld shards)\n", path, idx, tot, *total);
    return 2;
  }
  *total = tot;
  if (seen[idx]++) {
    fprintf(stderr, "perftest: --merge: %s: shard %ld appears twice\n", path, idx);
    return 2;
  }
  return 0;
}

/* Writes text atomically to path. Returns 0 or 2 after a message. */
static int save(const char *path, const perf__json *j)
{
  int e = perf__json_save(j, path);
  if (e) fprintf(stderr, "perftest: --merge: cannot write %s: %s\n", path, strerror(e));
  return e ? 2 : 0;
}

/* The merged report from the checked reports r[0..n). */
static int write_merged(const char *out, perf__jnode **r, int n, int shards)
{
  perf__json j = {0};
  int code = 0;
  double sum[5] = {0};
  static const char *const keys[] = {"tests", "passed", "failed", "skipped", "seconds"};
  for (int i = 0; i < n; i++) {
    int c = (int)perf__jnum(perf__jget(perf__jget(r[i], "run"), "exit_code"), 2);
    code = c > code ? c : code;
    for (int k = 0; k < 5; k++) sum[k] += perf__jnum(perf__jget(perf__jget(r[i], "totals"), keys[k]), 0);
  }
  perf__json_raw(&j, "{\"schema\": \"perfgate-report/1\",\n\"run\": {\"merged\": true, "
                     "\"exit_code\": %d, \"shard\": {\"index\": 0, \"total\": 1}, \"%s\": [", code,
                 shards ? "shards" : "devices");
  for (int i = 0; i < n; i++) {
    perf__json_raw(&j, i ? ", " : "");
    perf__jwrite(&j, perf__jget(r[i], "run"));
  }
  perf__json_raw(&j, "]},\n\"totals\": {\"tests\": %.0f, \"passed\": %.0f, \"failed\": %.0f, "
                     "\"skipped\": %.0f, \"seconds\": ", sum[0], sum[1], sum[2], sum[3]);
  perf__json_num(&j, sum[4]);
  perf__json_raw(&j, "},\n\"fingerprint\": ");
  const perf__jnode *fp = perf__jget(r[0], "fingerprint");
  if (fp) perf__jwrite(&j, fp);
  else perf__json_raw(&j, "null");
  perf__json_raw(&j, ",\n\"tests\": [");
  int first = 1;
  for (int i = 0; i < n; i++) {
    const perf__jnode *t = perf__jget(r[i], "tests");
    for (size_t k = 0; k < t->n; k++, first = 0) {
      perf__json_raw(&j, first ? "\n  " : ",\n  ");
      perf__jwrite(&j, t->kids[k]);
    }
  }
  perf__json_raw(&j, "\n]}\n");
  int err = save(out, &j);
  perf__json_free(&j);
  if (err) return err;
  printf("perfgate: merged %d report%s into %s: %.0f passed, %.0f failed, %.0f skipped; exit %d\n",
         n, n == 1 ? "" : "s", out, sum[1], sum[2], sum[3], code);
  return code;
}

/* See merge.h. */
int perf__merge(const char *out, char **in, int n) { return perf__merge_reports(out, in, n, 1); }

/* See merge.h. */
int perf__merge_reports(const char *out, char **in, int n, int shards)
{
  if (n < 1) {
    fprintf(stderr, "perftest: --merge=OUT needs the shards' --json reports after it\n");
    return 2;
  }
  perf__jnode **r = calloc((size_t)n, sizeof *r);
  char *seen = calloc(MAX_SHARDS, 1);
  long total = 0;
  int code = !r || !seen ? (fprintf(stderr, "perftest: --merge: out of memory\n"), 2) : 0;
  for (int i = 0; !code && i < n; i++) {
    char err[600];
    if (!(r[i] = perf__jread(in[i], err, sizeof err))) {
      fprintf(stderr, "perftest: --merge: %s\n", err);
      code = 2;
    } else code = check(in[i], r[i], &total, seen, shards);
  }
  for (long k = 0; !code && k < total; k++)
    if (!seen[k]) {
      fprintf(stderr, "perftest: --merge: shard %ld of %ld is missing\n", k, total);
      code = 2;
    }
  if (!code) code = write_merged(out, r, n, shards);
  for (int i = 0; r && i < n; i++) perf__jfree(r[i]);
  free(r);
  free(seen);
  return code;
}
