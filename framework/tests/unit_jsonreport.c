/* unit_jsonreport.c — the one perfgate-report/1 writer, fed JSON trees. */
/* The runner's shape, the schema once, this host's fingerprint, an
 * embedder's run members, the tests' outcomes checked and counted. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "baseline/machine.h"
#include "report/jsonreport.h"
#include "selftest.h"

/* text parsed (it must parse). */
static perf__jsontree_node *tree(const char *text)
{
  char err[300];
  perf__jsontree_node *n = perf__jsontree_parse(text, "t", err, sizeof err);
  ST_CHECKF(n != NULL, "%s", err);
  return n;
}

/* The document of an embedder's two tests (own host, its own run member,
 * a command line with a password), parsed back. */
static perf__jsontree_node *embedder_document(void)
{
  perf__jsontree_node *tests = tree("[{\"name\": \"a\", \"outcome\": \"PASS\", \"claims\": []}, "
                                    "{\"name\": \"b\", \"outcome\": \"FAIL\"}]"),
                      *extra = tree("{\"pytest_exit_code\": 1}");
  const perf__jsontree_node *const lists[] = {tests};
  const char *const argv[] = {"python3", "--history=postgresql://u:pw@h/db"};
  time_t started = 86400;
  perf__jsonreport_trees d = {
      .run = {.perfgate = "9.8.7", .started = &started, .exit_code = 1, .argc = 2, .argv = argv,
              .shard_total = 1, .extra = extra},
      .totals = perf__jsonreport_count(lists, 1), .tests = lists, .ntests = 1, .own_host = 1};
  perf__json j = {0};
  perf__jsonreport_write_trees(&j, &d);
  ST_CHECK(!j.oom && j.s);
  perf__jsontree_node *doc = j.s ? tree(j.s) : NULL;
  ST_CHECK(doc && perf__jsontree_is_json(doc));
  perf__json_free(&j);
  perf__jsontree_free(tests);
  perf__jsontree_free(extra);
  return doc;
}

ST_TEST(jsonreport_trees_write_the_runners_shape_with_this_hosts_fingerprint)
{
  char keys[600], err[200];
  perf__jsontree_node *doc = embedder_document();
  const perf__jsontree_node *run = perf__jsontree_get(doc, "run"),
                            *fp = perf__jsontree_get(doc, "fingerprint");
  ST_STR(st_json_keys(doc, keys, sizeof keys), "schema run totals preflight fingerprint tests");
  ST_STR(perf__jsontree_get(doc, "schema")->text, PERF__JSONREPORT_SCHEMA);
  ST_STR(PERF__JSONREPORT_SCHEMA, "perfgate-report/1"); /* what every reader expects */
  ST_STR(st_json_keys(run, keys, sizeof keys), "perfgate started exit_code argv shard pytest_exit_code");
  ST_STR(perf__jsontree_get(run, "started")->text, "1970-01-02T00:00:00Z");
  ST_STR(perf__jsontree_get(run, "argv")->kids[1]->text, "--history=postgresql://u:***@h/db");
  ST_EQ(perf__jsontree_num(perf__jsontree_get(run, "pytest_exit_code"), -1), 1);
  ST_EQ(perf__jsontree_get(doc, "preflight")->n, 0);
  /* the host's fingerprint as machine.c builds it, the one place */
  perf__baseline host = {0};
  perf__machine_host(&host);
  const perf__jsontree_node *h = perf__jsontree_get(fp, "host");
  ST_EQ(h ? h->n : 0, host.nfp);
  for (size_t k = 0; h && k < host.nfp && k < h->n; k++) {
    ST_STR(h->keys[k], host.fp[k].key);
    ST_STR(h->kids[k]->text, host.fp[k].value);
  }
  ST_STR(perf__jsontree_get(fp, "gpu")->text, "null");
  const perf__jsontree_node *totals = perf__jsontree_get(doc, "totals");
  ST_STR(st_json_keys(totals, keys, sizeof keys), "tests passed failed skipped seconds");
  ST_EQ(perf__jsontree_num(perf__jsontree_get(totals, "failed"), -1), 1);
  const perf__jsontree_node *tests = perf__jsontree_get(doc, "tests");
  ST_CHECK(tests && tests->n == 2 && !perf__jsonreport_check_test(tests->kids[1], err, sizeof err));
  perf__jsontree_free(doc);
}

ST_TEST(jsonreport_check_test_names_an_outcome_perfgate_does_not_write)
{
  char err[300];
  perf__jsontree_node *t = tree("[{\"name\": \"x\", \"outcome\": \"GREAT\"}, {\"outcome\": 3}, "
                                "{\"name\": \"y\", \"outcome\": \"INCONCLUSIVE\"}, 7]");
  ST_EQ(perf__jsonreport_check_test(t->kids[0], err, sizeof err), -1);
  ST_STR(err, "test x has the unknown outcome 'GREAT' (PASS, FAIL, SKIP, ERROR or INCONCLUSIVE)");
  ST_EQ(perf__jsonreport_check_test(t->kids[1], err, sizeof err), -1);
  ST_STR(err, "test (unnamed) has no outcome (PASS, FAIL, SKIP, ERROR or INCONCLUSIVE)");
  ST_EQ(perf__jsonreport_check_test(t->kids[2], err, sizeof err), 0);
  ST_EQ(perf__jsonreport_check_test(t->kids[3], err, sizeof err), -1);
  perf__jsontree_free(t);
}

ST_TEST(jsonreport_count_counts_as_the_runner_does)
{
  perf__jsontree_node *a = tree("[{\"outcome\": \"PASS\"}, {\"outcome\": \"FAIL\"}, "
                                "{\"outcome\": \"INCONCLUSIVE\"}, {\"outcome\": \"ERROR\"}]"),
                      *b = tree("[{\"outcome\": \"SKIP\"}, {\"outcome\": \"PASS\"}, {}]"),
                      *c = tree("{\"not\": \"an array\"}");
  const perf__jsontree_node *const lists[] = {a, b, c, NULL};
  perf__jsonreport_totals t = perf__jsonreport_count(lists, 4);
  ST_EQ(t.tests, 7);
  ST_EQ(t.passed, 2);
  ST_EQ(t.failed, 3); /* FAIL, INCONCLUSIVE, ERROR */
  ST_EQ(t.skipped, 1);
  ST_EQ(t.seconds, 0);
  perf__jsontree_free(a);
  perf__jsontree_free(b);
  perf__jsontree_free(c);
}

ST_TEST(jsonreport_run_key_names_the_run_members_perfgate_writes)
{
  static const char *const own[] = {"perfgate", "started", "exit_code", "argv", "shard", "merged",
                                    "shards", "devices", "seed", "repeat"};
  for (size_t k = 0; k < sizeof own / sizeof own[0]; k++) ST_EQ(perf__jsonreport_run_key(own[k]), 1);
  ST_EQ(perf__jsonreport_run_key("pytest_exit_code"), 0);
}
