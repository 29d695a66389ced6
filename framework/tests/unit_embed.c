/* unit_embed.c — an embedder's report (perf_embed_report) and what it refuses. */
/* It is the C runner's document, by the same writer. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/jsontree.h"
#include "perfgate.h"
#include "selftest.h"

/* path parsed (it must parse). */
static perf__jsontree_node *read_doc(const char *path)
{
  char err[600];
  perf__jsontree_node *n = perf__jsontree_read(path, err, sizeof err);
  ST_CHECKF(n != NULL, "%s", err);
  return n;
}

/* n written back as JSON text (malloc'd). */
static char *text_of(const perf__jsontree_node *n)
{
  perf__json j = {0};
  if (n) perf__jsontree_write(&j, n);
  else perf__json_raw(&j, "(none)");
  return j.s;
}

/* 1 when a and b's member key are the same JSON. */
static int same(const perf__jsontree_node *a, const perf__jsontree_node *b, const char *key)
{
  char *x = text_of(perf__jsontree_get(a, key)), *y = text_of(perf__jsontree_get(b, key));
  int r = x && y && !strcmp(x, y);
  ST_CHECKF(r, "%s: %s and %s", key, x ? x : "?", y ? y : "?");
  free(x);
  free(y);
  return r;
}

ST_TEST(embed_report_writes_the_c_runners_document)
{
  char dir[] = "/tmp/perfgate-embedrep-XXXXXX", a[300], b[300], args[400], err[600] = "";
  char keys[600], want[600];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(a, sizeof a, "%s/runner.json", dir);
  snprintf(b, sizeof b, "%s/embedder.json", dir);
  snprintf(args, sizeof args, "--filter=host.truth --json=%s", a);
  st_run r;
  st_exec(&r, "", args);
  ST_EQ(r.status, 0);
  st_run_free(&r);
  const char *argv[] = {"python3", "-m", "pytest"};
  perf_embed_run run = {argv, 3, "{\"pytest_exit_code\": 0}", (double)time(NULL) - 2};
  ST_EQ(perf_embed_report(b, "[{\"name\": \"t.py::test_x\", \"outcome\": \"PASS\", \"claims\": []}]",
                          &run, err, sizeof err), 0);
  ST_STR(err, "");
  perf__jsontree_node *runner = read_doc(a), *embedder = read_doc(b);
  /* the same document: schema, members in order (less the runner's
   * options and headroom), this host's fingerprint, the version */
  ST_CHECK(same(runner, embedder, "schema"));
  ST_STR(st_json_keys(embedder, keys, sizeof keys), "schema run totals preflight fingerprint tests");
  ST_STR(st_json_keys(runner, want, sizeof want), keys);
  ST_CHECK(same(perf__jsontree_get(runner, "fingerprint"), perf__jsontree_get(embedder, "fingerprint"),
                "host"));
  ST_CHECK(same(perf__jsontree_get(runner, "run"), perf__jsontree_get(embedder, "run"), "perfgate"));
  ST_CHECK(same(perf__jsontree_get(runner, "run"), perf__jsontree_get(embedder, "run"), "shard"));
  ST_STR(st_json_keys(perf__jsontree_get(embedder, "run"), keys, sizeof keys),
         "perfgate started exit_code argv shard pytest_exit_code");
  ST_STR(st_json_keys(perf__jsontree_get(runner, "totals"), want, sizeof want),
         st_json_keys(perf__jsontree_get(embedder, "totals"), keys, sizeof keys));
  double s = perf__jsontree_num(perf__jsontree_get(perf__jsontree_get(embedder, "totals"), "seconds"), -1);
  ST_CHECKF(s >= 1 && s < 600, "seconds %g", s); /* from started to now */
  perf__jsontree_free(runner);
  perf__jsontree_free(embedder);
  st_rmtree(dir);
}

ST_TEST(embed_report_refuses_what_is_not_a_report_and_leaves_the_file)
{
  char dir[] = "/tmp/perfgate-embedbad-XXXXXX", path[300], err[600];
  ST_CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/r.json", dir);
  FILE *f = fopen(path, "w");
  ST_CHECK(f && fputs("old\n", f) >= 0 && fclose(f) == 0);
  static const struct {
    const char *tests, *run, *says;
  } bad[] = {
      {"[{\"name\": \"x\", \"outcome\": \"PASS\"}", NULL, "tests_json:"},
      {"{\"name\": \"x\"}", NULL, "tests_json is not a JSON array"},
      {"[{\"name\": \"x\", \"outcome\": \"PASS\", \"seconds\": NaN}]", NULL, "tests_json is not a JSON array"},
      {"[{\"name\": \"x\", \"outcome\": \"GREAT\"}]", NULL, "test x has the unknown outcome 'GREAT'"},
      {"[{\"name\": \"x\"}]", NULL, "test x has no outcome"},
      {"[]", "[1]", "run_json is not a JSON object"},
      {"[]", "{\"exit_code\": 0}", "run_json's member \"exit_code\" is one perfgate writes"},
      {NULL, NULL, "tests_json is NULL"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    err[0] = '\0';
    perf_embed_run run = {NULL, 0, bad[k].run, 1e9};
    ST_EQ(perf_embed_report(path, bad[k].tests, &run, err, sizeof err), 2);
    ST_CHECKF(strstr(err, bad[k].says) != NULL, "%zu: %s", k, err);
  }
  perf_embed_run no_argv = {NULL, 1, NULL, 1e9}, no_time = {NULL, 0, NULL, NAN};
  perf_embed_run run = {NULL, 0, NULL, 1e9};
  ST_EQ(perf_embed_report(path, "[]", &no_argv, err, sizeof err), 2);
  ST_STR(err, "argv is NULL but argc is not 0");
  ST_EQ(perf_embed_report(path, "[]", &no_time, err, sizeof err), 2);
  ST_STR(err, "started is not a time");
  ST_EQ(perf_embed_report(NULL, "[]", &run, err, sizeof err), 2);
  ST_STR(err, "path is NULL");
  ST_EQ(perf_embed_report(path, "[]", NULL, err, sizeof err), 2);
  ST_STR(err, "run is NULL");
  char *text = st_slurp(path);
  ST_STR(text, "old\n"); /* nothing written over it */
  free(text);
  snprintf(path, sizeof path, "%s/no/such/dir/r.json", dir);
  err[0] = '\0';
  ST_EQ(perf_embed_report(path, "[]", &run, err, sizeof err), 2);
  ST_CHECKF(err[0] != '\0', "no reason given");
  ST_EQ(access(path, F_OK), -1);
  ST_EQ(st_temp_files(dir), 0);
  st_rmtree(dir);
}
