/* history.c — the history store, from schema migrations to concurrent writers and reports. */
/* Schema versions and migrations, what a run records, eight writers at once
 * and a killed one (SQLite and a real PostgreSQL server), --trend, the
 * Markdown comparison, --merge (and from the history by run id), and bad
 * input. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/jsontree.h"
#include "stats/rng.h"
#include "util/status.h"
#include "util/version.h"
#include "history/record.h"
#include "history/schema.h"
#include "history/series.h"
#include "history/connect.h"
#include "history/secret.h"
#include "history/store.h"
#include "history/trend.h"
#include "report/lastruns.h"
#include "baseline/trace.h"
#include "selftest.h"

/* ---- helpers --------------------------------------------------------- */

/* Unsets every CI variable perfgate reads, so that the runner's own do
 * not count. */
#define NO_CI "env -u GITHUB_SHA -u CI_COMMIT_SHA -u BUILDKITE_COMMIT -u CIRCLE_SHA1 -u GIT_COMMIT" \
              " -u GITHUB_HEAD_REF -u GITHUB_REF_NAME -u CI_COMMIT_REF_NAME -u BUILDKITE_BRANCH"   \
              " -u CIRCLE_BRANCH -u GIT_BRANCH "
/* The same for a run id (shard.h). */
#define NO_RUN_ID "env -u PERFGATE_RUN_ID -u SLURM_ARRAY_JOB_ID -u SLURM_JOB_ID -u GITHUB_RUN_ID " \
                  "-u CI_PIPELINE_ID -u BUILDKITE_BUILD_ID "

/* A temporary directory (mkdtemp) into dir[len]. */
static int temp_dir(char *dir, size_t len)
{
  snprintf(dir, len, "/tmp/perfgate-history-XXXXXX");
  return ST_CHECK(mkdtemp(dir) != NULL);
}

/* A run as perfgate 0.0 recorded it (schema version 1 or 2). */
#define OLD_RUN                                                                                    \
  "INSERT INTO perfgate_runs (started, recorded, commit_id, commit_from, gpu, host,"               \
  " host_fingerprint, origin, exit_code, tests, passed, failed, skipped, claims, workloads)"       \
  " VALUES ('2026-01-01T00:00:00Z', 'x', 'old', 'test', 'GPU', 'h', '{}', 'run', 0, 1, 1, 0, 0, 0, 0)"

/* Appends to out[len] at *u the member of "tests" of a test name with one
 * FASTER claim of a (a_s per iteration) against b (b_s) and a NO_SYNC_IN
 * claim, a "," before it unless first. */
static void test_member(char *out, size_t len, size_t *u, const char *name, double a_s, double b_s,
                        int first)
{
  int w = snprintf(out + *u, len - *u,
           "%s{\"name\": \"%s\", "
           "\"outcome\": \"PASS\", \"claims\": [{\"message\": \"FASTER(a, b, 2) at t.c:1: PASS\", "
           "\"outcome\": \"PASS\", \"kind\": \"FASTER\", \"clock\": \"events\", \"threshold\": 2, "
           "\"ratio\": %.17g, \"interval\": [%.17g, %.17g], \"confidence\": 0.95, \"rounds\": 10, "
           "\"looks\": 1, \"budget_stretched\": false, \"seconds\": 0.5, "
           "\"a\": {\"name\": \"a\", \"median_s\": %.17g, \"median_interval_s\": [%.17g, %.17g], "
           "\"median_confidence\": 0.95, \"mad_s\": 0, \"cold_start_s\": 0, "
           "\"iterations_per_sample\": 10, \"samples_s\": [%.17g], \"waits_for\": \"stream\", \"gpu_work_checked\": false, \"undeclared_streams\": false, \"gpu_work\": \"\"}, "
           "\"b\": {\"name\": \"b\", \"median_s\": %.17g, \"median_interval_s\": [%.17g, %.17g], "
           "\"median_confidence\": 0.95, \"mad_s\": 0, \"cold_start_s\": 0, "
           "\"iterations_per_sample\": 10, \"samples_s\": [%.17g], \"waits_for\": \"stream\", \"gpu_work_checked\": false, \"undeclared_streams\": false, \"gpu_work\": \"\"}}, "
           "{\"message\": \"NO_SYNC_IN(a) at t.c:2: PASS\", \"outcome\": \"PASS\"}]}",
           first ? "" : ", ", name, b_s / a_s, b_s / a_s * 0.99, b_s / a_s * 1.01,
           a_s, a_s * 0.99, a_s * 1.01, a_s, b_s, b_s * 0.99, b_s * 1.01, b_s);
  *u += w > 0 && (size_t)w < len - *u ? (size_t)w : 0;
}

/* A report document with the tests names[0..n), test k with one FASTER
 * claim of a (a_s[k] per iteration) against b (b_s[k]), started minute m
 * of the day; shard (NULL: none) the run's "shard" member, failed its
 * failed tests. */
static perf__jsontree_node *doc_tests(const char *gpu, int m, size_t n, const char *const *names,
                                      const double *a_s, const double *b_s, const char *shard,
                                      int failed)
{
  char text[32768];
  char err[300];
  size_t u = (size_t)snprintf(text, sizeof text,
           "{\"schema\": \"perfgate-report/1\", \"run\": {\"started\": "
           "\"2026-11-%02dT%02d:%02d:00Z\", \"exit_code\": 0, \"argv\": [\"perftest\"], "
           "\"perfgate\": \"%s\"%s%s}, "
           "\"totals\": {\"tests\": %zu, \"passed\": %d, \"failed\": %d, \"skipped\": 0, \"seconds\": 1},"
           " \"fingerprint\": {\"host\": {\"name\": \"test host\", \"cpus\": \"2\"}, \"gpu\": "
           "{\"name\": \"%s\", \"driver\": \"580.1\"}}, \"tests\": [",
           1 + m / 1440, m / 60 % 24, m % 60, perf_version(), shard ? ", \"shard\": " : "",
           shard ? shard : "", n, (int)n - failed, failed, gpu);
  for (size_t k = 0; k < n; k++) test_member(text, sizeof text, &u, names[k], a_s[k], b_s[k], !k);
  snprintf(text + u, sizeof text - u, "]}");
  perf__jsontree_node *d = perf__jsontree_parse(text, "doc", err, sizeof err);
  ST_CHECKF(d != NULL, "%s", err);
  return d;
}

/* A report document with one test "suite.t" and one FASTER claim of a
 * (a_s per iteration) against b (b_s), started minute m of the day; shard
 * (NULL: none) the run's "shard" member, failed its failed tests. */
static perf__jsontree_node *doc_of(const char *gpu, int m, double a_s, double b_s,
                                   const char *shard, int failed)
{
  const char *name = "suite.t";
  return doc_tests(gpu, m, 1, &name, &a_s, &b_s, shard, failed);
}

static perf__jsontree_node *doc(const char *gpu, int m, double a_s, double b_s)
{
  return doc_of(gpu, m, a_s, b_s, NULL, 0);
}

/* perf__record_run of the document d, its text the one d writes back as.
 * Returns what perf__record_run does. */
static int record_doc(perf__store *s, const perf__jsontree_node *d, const perf__provenance *p,
                      long long *id, char *err, size_t len)
{
  perf__json j = {0};
  perf__jsontree_write(&j, d);
  const perf__record_in run = {.report = d, .text = j.s, .p = p, .origin = "run"};
  int rc = j.oom ? PERF__ENOMEM : perf__record_run(s, &run, id, err, len);
  perf__json_free(&j);
  return rc;
}

/* Records doc_of(gpu, m, a_s, b_s, shard, failed) under commit. Returns
 * the run id or 0. */
static long long record_of(perf__store *s, const char *commit, const char *gpu, int m, double a_s,
                           double b_s, const char *shard, int failed)
{
  perf__provenance p = {"", "--commit", "main"};
  char err[600];
  long long id = 0;
  snprintf(p.commit, sizeof p.commit, "%s", commit);
  perf__jsontree_node *d = doc_of(gpu, m, a_s, b_s, shard, failed);
  if (!d) return 0;
  int rc = record_doc(s, d, &p, &id, err, sizeof err);
  ST_CHECKF(rc == 0, "record: %s", err);
  perf__jsontree_free(d);
  return rc ? 0 : id;
}

/* Records doc(gpu, m, a_s, b_s) under commit. Returns the run id or 0. */
static long long record(perf__store *s, const char *commit, const char *gpu, int m, double a_s,
                        double b_s)
{
  return record_of(s, commit, gpu, m, a_s, b_s, NULL, 0);
}

static int long_row(void *ctx, int n, const char *const *v)
{
  *(long long *)ctx = n > 0 && v[0] ? strtoll(v[0], NULL, 10) : -1;
  return 0;
}

static int text_row(void *ctx, int n, const char *const *v)
{
  snprintf(ctx, 64, "%s", n > 0 && v[0] ? v[0] : "(null)");
  return 0;
}

/* The one number sql returns (-1 when it fails or returns NULL). */
static long long number(perf__store *s, const char *sql)
{
  long long v = -1;
  char err[600];
  int rc = perf__store_exec(s, &(perf__store_stmt){.sql = sql, .on_row = long_row, .ctx = &v}, err,
                            sizeof err);
  ST_CHECKF(rc == 0, "%s: %s", sql, err);
  return v;
}

/* perf__store_exec of sql alone: no parameters, no rows. */
static int exec_sql(perf__store *s, const char *sql, char *err, size_t len)
{
  return perf__store_exec(s, &(perf__store_stmt){.sql = sql}, err, len);
}

static perf__store *open_at(const char *where)
{
  perf__store *s = NULL;
  char err[600];
  int rc = perf__connect_open(where, 1, &s, err, sizeof err);
  if (!rc) rc = perf__schema_migrate(s, 0, err, sizeof err);
  ST_CHECKF(rc == 0, "open %s: %s", where, err);
  if (rc) perf__store_close(s);
  return rc ? NULL : s;
}

/* A store opened without a look at its schema (NULL when it cannot be). */
static perf__store *open_at_unchecked(const char *where)
{
  perf__store *s = NULL;
  char err[600];
  int rc = perf__connect_open(where, 0, &s, err, sizeof err);
  ST_CHECKF(rc == 0, "open %s: %s", where, err);
  return rc ? NULL : s;
}

/* The series of workload "a" of suite.t (NULL when absent). */
static const perf__series *series_a(const perf__series_set *set)
{
  for (size_t i = 0; i < set->n; i++)
    if (!set->s[i].is_claim && !strcmp(set->s[i].name, "a")) return &set->s[i];
  return NULL;
}

/* Runs fn on a SQLite file (h.db) in a new temporary directory dir. */
static void on_sqlite(void (*fn)(const char *where, const char *dir))
{
  char dir[64], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  fn(path, dir);
  st_rmtree(dir);
}

/* Runs fn on a PostgreSQL server started here, with a temporary
 * directory; the test is skipped when no server can be started. */
static void on_postgres(void (*fn)(const char *where, const char *dir))
{
  st_pg pg;
  char why[600], dir[64];
  if (st_pg_start(&pg, why, sizeof why)) {
    st_pg_stop(&pg);
    st_skip("PostgreSQL: %s", why);
    return;
  }
  if (temp_dir(dir, sizeof dir)) {
    fn(pg.uri, dir);
    st_rmtree(dir);
  }
  st_pg_stop(&pg);
}

/* ---- schema ---------------------------------------------------------- */

/* A new store gets the current schema; a version-1 store is migrated to
 * it keeping its runs; a newer one, a foreign SQLite file and a file that
 * is not a database are refused and left as they were. */
ST_TEST(history_schema_is_versioned_and_migrated_never_rewritten)
{
  char dir[64], path[128], err[600];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = NULL;
  ST_EQ(perf__connect_open(path, 1, &s, err, sizeof err), 0);
  if (!s) return;
  ST_EQ(perf__schema_migrate(s, 1, err, sizeof err), 0);
  int v = -1;
  ST_EQ(perf__schema_version(s, &v, err, sizeof err), 0);
  ST_EQ(v, 1);
  ST_EQ(exec_sql(s, OLD_RUN, err, sizeof err), 0);
  ST_EQ(perf__schema_migrate(s, 2, err, sizeof err), 0);
  ST_EQ(perf__schema_version(s, &v, err, sizeof err), 0);
  ST_EQ(v, 2);
  ST_EQ(number(s, "SELECT count(*) FROM sqlite_master WHERE name = 'perfgate_runs_gpu'"), 1);
  ST_EQ(exec_sql(s, OLD_RUN, err, sizeof err), 0);
  ST_EQ(perf__schema_migrate(s, 0, err, sizeof err), 0);
  ST_EQ(perf__schema_version(s, &v, err, sizeof err), 0);
  ST_EQ(v, PERF__SCHEMA_VERSION);
  /* Version 3: which perfgate recorded a run; NULL for the older runs. */
  ST_CHECK(record(s, "c1", "GPU", 0, 1e-3, 3e-3) > 0);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), 3);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE perfgate IS NULL AND commit_id = 'old'"), 2);
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM perfgate_runs WHERE perfgate = '%s' AND commit_id = 'c1'",
           perf_version());
  ST_EQ(number(s, sql), 1);
  ST_EQ(exec_sql(s, "UPDATE perfgate_schema SET version = 99", err, sizeof err), 0);
  ST_EQ(perf__schema_migrate(s, 0, err, sizeof err), PERF__EINVAL);
  ST_CHECKF(strstr(err, "newer perfgate") && strstr(err, "99"), "%s", err);
  ST_EQ(perf__schema_version(s, &v, err, sizeof err), PERF__EINVAL);
  ST_EQ(number(s, "SELECT version FROM perfgate_schema"), 99);
  perf__store_close(s);

  /* Someone else's SQLite file: refused, and not a byte of it changed
   * (not even its journal mode). */
  snprintf(path, sizeof path, "%s/other.db", dir);
  ST_EQ(perf__connect_open(path, 1, &s, err, sizeof err), 0);
  ST_EQ(exec_sql(s, "CREATE TABLE notes (t TEXT)", err, sizeof err), 0);
  perf__store_close(s);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "cp '%s' '%s.orig'", path, path);
  ST_EQ(st_shell(cmd), 0);
  ST_EQ(perf__connect_open(path, 1, &s, err, sizeof err), 0);
  ST_EQ(perf__schema_migrate(s, 0, err, sizeof err), PERF__EINVAL);
  ST_CHECKF(strstr(err, "not a perfgate history"), "%s", err);
  perf__store_close(s);
  snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s.orig'", path, path);
  ST_EQ(st_shell(cmd), 0);

  /* Not a database at all: refused, and its bytes stay. */
  snprintf(path, sizeof path, "%s/notes.txt", dir);
  FILE *f = fopen(path, "w");
  if (f) fputs("my notes, not a database, long enough to be read as a header.......................\n"
               "................................................................................\n", f);
  if (f) fclose(f);
  int rc = perf__connect_open(path, 1, &s, err, sizeof err);
  if (!rc) rc = perf__schema_migrate(s, 0, err, sizeof err), perf__store_close(s);
  ST_EQ(rc, PERF__EINVAL);
  ST_CHECKF(strstr(err, "not a database"), "%s", err);
  char *back = st_slurp(path);
  ST_CHECK(back && !strncmp(back, "my notes", 8));
  free(back);
  st_rmtree(dir);
}

enum { PG_STATE = 8000 }; /* pg_state's room */

/* What the store holds, for "nothing changed": SQLite's file bytes are
 * compared by the caller; for PostgreSQL, its perfgate tables, their
 * columns and rows in a line. */
static int state_row(void *ctx, int n, const char *const *v)
{
  snprintf(ctx, PG_STATE, "%s", n > 0 && v[0] ? v[0] : "(null)");
  return 0;
}

static void pg_state(perf__store *s, char out[PG_STATE])
{
  static const char *const parts[] = {
      "SELECT string_agg(table_name || '.' || column_name || ':' || data_type, ',' ORDER BY"
      " table_name, column_name) FROM information_schema.columns WHERE table_name LIKE 'perfgate%'"
      " AND table_schema = current_schema()",
      "SELECT count(*) FROM perfgate_runs",
      "SELECT string_agg(version::text, ',') FROM perfgate_schema"};
  size_t u = 0;
  for (int k = 0; k < 3; k++) {
    char part[PG_STATE] = "(none)", err[600];
    perf__store_exec(s, &(perf__store_stmt){.sql = parts[k], .on_row = state_row, .ctx = part}, err,
                     sizeof err);
    int w = snprintf(out + u, PG_STATE - u, "%s; ", part);
    u = w > 0 && (size_t)w < PG_STATE - u ? u + (size_t)w : PG_STATE - 1;
  }
}

/* A broken history: one that this perfgate does not write (a version that
 * no perfgate writes, an empty or disagreeing perfgate_schema, a table or
 * column missing) stops the run before any test, exit 2, naming what is
 * wrong and where; --trend says the same; not a byte changes. A missing
 * index is not checked: the run goes on and is recorded. */
static void broken_schemas(const char *where, const char *dir)
{
  int pg = perf__connect_is_postgres(where);
  static const struct {
    const char *sqlite, *postgres, *want;
  } cases[] = {
      {"UPDATE perfgate_schema SET version = -1", NULL, "perfgate_schema's version is -1, which no perfgate writes"},
      {"UPDATE perfgate_schema SET version = 0", NULL, "perfgate_schema's version is 0, which no perfgate writes"},
      {"UPDATE perfgate_schema SET version = 99", NULL, "written by a newer perfgate (history schema 99"},
      {"UPDATE perfgate_schema SET version = 'two'",
       "ALTER TABLE perfgate_schema ALTER COLUMN version TYPE TEXT; UPDATE perfgate_schema SET version = 'two'",
       "perfgate_schema's version is 'two', not a whole number"},
      {"UPDATE perfgate_schema SET version = 2.5", "ALTER TABLE perfgate_schema ALTER COLUMN version TYPE REAL;"
       " UPDATE perfgate_schema SET version = 2.5", "perfgate_schema's version is '2.5', not a whole number"},
      {"INSERT INTO perfgate_schema (version) VALUES (1)", NULL, "perfgate_schema has 2 rows that disagree"},
      {"DELETE FROM perfgate_schema", NULL, "perfgate_schema is empty"},
      {"DROP TABLE perfgate_claims", NULL, "without its table perfgate_claims"},
      {"ALTER TABLE perfgate_workloads DROP COLUMN median_s", NULL, "its table perfgate_workloads lacks a column"},
      {"DROP TABLE perfgate_schema", NULL, "it has perfgate's table perfgate_runs and no perfgate_schema"},
      {"UPDATE perfgate_schema SET version = 1", NULL,
       "perfgate_schema's version is 1, but the index perfgate_runs_gpu of version 2 exists"},
      {"UPDATE perfgate_schema SET version = 2", NULL,
       "perfgate_schema's version is 2, but the column perfgate_runs.perfgate of version 3 exists"},
      {"UPDATE perfgate_schema SET version = 5", NULL,
       "perfgate_schema's version is 5, but the table perfgate_reports of version 6 exists"},
      {"DROP INDEX perfgate_claims_test", NULL, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char err[600], args[900], before[PG_STATE] = "", after[PG_STATE] = "", cmd[600];
    perf__store *s = NULL;
    if (pg && !perf__connect_open(where, 0, &s, err, sizeof err))
      exec_sql(s, "DROP TABLE IF EXISTS perfgate_reports, perfgate_workloads, perfgate_claims,"
                  " perfgate_runs, perfgate_schema CASCADE", err, sizeof err);
    perf__store_close(s);
    if (!pg) {
      snprintf(cmd, sizeof cmd, "rm -f '%s'", where);
      st_shell(cmd);
    }
    if (!(s = open_at(where))) return;
    ST_CHECK(record(s, "c1", "GPU", 0, 1e-3, 2e-3) > 0);
    const char *sql = pg && cases[k].postgres ? cases[k].postgres : cases[k].sqlite;
    ST_CHECKF(exec_sql(s, sql, err, sizeof err) == 0, "%s: %s", sql, err);
    if (pg) pg_state(s, before);
    perf__store_close(s);
    if (!pg) snprintf(cmd, sizeof cmd, "cp '%s' '%s/before.db'", where, dir), ST_EQ(st_shell(cmd), 0);
    st_run run;
    snprintf(args, sizeof args, "--filter=host.truth --history='%s' --commit=c2", where);
    st_exec(&run, "", args);
    if (!cases[k].want) {
      ST_CHECKF(run.status == 0 && strstr(run.out, "perfgate: recorded run 2"), "%s: exit %d: %s", sql,
                run.status, run.out);
      st_run_free(&run);
      continue;
    }
    ST_CHECKF(run.status == 2 && strstr(run.out, cases[k].want) && strstr(run.out, "(nothing was run)") &&
                  !strstr(run.out, "perfgate: 1 test") && !strstr(run.out, "passed,"),
              "%s: exit %d: %s", sql, run.status, run.out);
    st_run_free(&run);
    snprintf(args, sizeof args, "--history='%s' --trend", where);
    st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, cases[k].want), "--trend after %s: exit %d: %s", sql,
              run.status, run.out);
    st_run_free(&run);
    if (pg && (s = open_at_unchecked(where))) pg_state(s, after), perf__store_close(s);
    if (pg) ST_CHECKF(!strcmp(before, after), "%s: changed: %s -> %s", sql, before, after);
    if (!pg) snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s/before.db' && ! test -e '%s-wal'", where, dir, where);
    if (!pg) ST_CHECKF(st_shell(cmd) == 0, "%s: the file changed", sql);
  }
}

ST_TEST(history_sqlite_broken_schema_is_refused_before_any_test)
{
  on_sqlite(broken_schemas);
}

ST_TEST(history_postgres_broken_schema_is_refused_before_any_test)
{
  on_postgres(broken_schemas);
}

/* ---- what a run records, read back as series -------------------------- */

ST_TEST(history_records_claims_and_workloads_and_reads_them_as_series)
{
  char dir[64], path[128], err[600];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  /* c1 twice (a = 1 and 3 ms), then c2, c3; another GPU in between. */
  ST_CHECK(record(s, "c1", "GPU", 0, 1e-3, 4e-3) > 0);
  ST_CHECK(record(s, "c1", "GPU", 1, 3e-3, 6e-3) > 0);
  ST_CHECK(record(s, "x1", "Other GPU", 2, 9e-3, 9e-3) > 0);
  ST_CHECK(record(s, "c2", "GPU", 3, 5e-3, 10e-3) > 0);
  long long last = record(s, "c3", "GPU", 4, 7e-3, 14e-3);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), 5);
  ST_EQ(number(s, "SELECT sum(claims) FROM perfgate_runs"), 10);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_claims"), 10);
  ST_EQ(number(s, "SELECT sum(workloads) FROM perfgate_runs"), 10);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_workloads"), 10);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE driver = '580.1' AND host = 'test host'"
                  " AND branch = 'main' AND commit_from = '--commit'"), 5);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_claims WHERE kind = 'CHECK' AND ratio IS NULL"), 5);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_workloads WHERE clock = 'events' AND samples = 1"), 10);
  /* Whole runs keep no document (their --json file is the report). */
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_reports"), 0);

  perf__series_query q = {NULL, "GPU", NULL, 0, 0, 0, 0};
  perf__series_set set;
  ST_EQ(perf__series_load(s, &q, &set, err, sizeof err), 0);
  ST_EQ(set.naxes, 1);
  ST_EQ(set.n, 3); /* a, b and FASTER(a, b) */
  const perf__series *a = series_a(&set);
  if (ST_CHECK(a && a->n == 3)) {
    ST_NEAR(a->pts[0].value, 2e-3, 1e-12); /* the median of c1's two runs */
    ST_EQ(a->pts[0].nvalues, 2);
    ST_NEAR(a->pts[2].value, 7e-3, 1e-12);
    ST_STR(set.axes[0].commit[2], "c3");
  }
  perf__series_free(&set);
  perf__series_query per_run = {NULL, "GPU", NULL, 2, last, 1, 0};
  ST_EQ(perf__series_load(s, &per_run, &set, err, sizeof err), 0);
  a = series_a(&set);
  ST_CHECK(a && a->n == 2 && set.axes[0].run[1] == last);
  perf__series_free(&set);
  /* A run recorded last but started first (a runner whose clock is
   * behind, a shard that records late) is the last point: order is by
   * recording. */
  long long late = record(s, "c4", "GPU", 0, 9e-3, 18e-3);
  perf__series_query by_id = {NULL, "GPU", NULL, 0, 0, 1, 0};
  ST_EQ(perf__series_load(s, &by_id, &set, err, sizeof err), 0);
  ST_CHECK(set.naxes == 1 && set.axes[0].n == 5 && set.axes[0].run[4] == late &&
           !strcmp(set.axes[0].commit[4], "c4"));
  perf__series_free(&set);
  perf__series_query none = {"nothing.*", NULL, NULL, 0, 0, 0, 0};
  ST_EQ(perf__series_load(s, &none, &set, err, sizeof err), 0);
  ST_EQ(set.n, 0);
  ST_EQ(set.runs, 6);
  perf__series_free(&set);
  /* A shard of several keeps its document; a run of one shard does not. */
  long long shard = record_of(s, "c5", "GPU", 5, 1e-3, 4e-3, "{\"index\": 1, \"total\": 2, \"run_id\": \"s\"}", 0);
  record_of(s, "c5", "GPU", 5, 1e-3, 4e-3, "{\"index\": 0, \"total\": 1, \"run_id\": \"t\"}", 0);
  char one[120];
  snprintf(one, sizeof one, "SELECT count(*) FROM perfgate_reports WHERE run_id = %lld", shard);
  ST_EQ(number(s, one), 1);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_reports"), 1);
  perf__store_close(s);
  st_rmtree(dir);
}

/* ---- a killed writer, and eight at once ----------------------------- */

/* A child begins a run (its row and a claim) and is killed before it
 * commits: the store has no trace of it, stays sound, and the next
 * writer is not blocked. */
static void killed_writer(const char *where)
{
  perf__store *s = open_at(where);
  if (!s) return;
  long long before = number(s, "SELECT count(*) FROM perfgate_runs");
  perf__store_close(s); /* no connection crosses the fork */
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    perf__store *c = NULL;
    char err[600];
    if (perf__connect_open(where, 1, &c, err, sizeof err) || perf__store_begin(c, err, sizeof err)) _exit(3);
    if (exec_sql(c, "INSERT INTO perfgate_runs (started, recorded, commit_id, commit_from, gpu,"
                    " host, host_fingerprint, origin, exit_code, tests, passed, failed, skipped,"
                    " claims, workloads) VALUES ('x', 'x', 'killed', 'test', 'GPU', 'h', '{}',"
                    " 'run', 0, 1, 1, 0, 0, 1, 0)", err, sizeof err))
      _exit(5);
    raise(SIGKILL);
    _exit(4);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  ST_CHECKF(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "the writer was not killed (status %d)", st);
  if (!(s = open_at(where))) return;
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE commit_id = 'killed'"), 0);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), before);
  ST_CHECK(record(s, "after-kill", "GPU", 9, 1e-3, 2e-3) > 0);
  perf__store_close(s);
}

/* Eight perftest processes record into where at once: eight runs, each
 * with all its claim and workload rows. */
static void eight_writers(const char *where, const char *dir)
{
  char cmd[2400];
  snprintf(cmd, sizeof cmd,
           "for i in 1 2 3 4 5 6 7 8; do ( '%s' --filter='host.four_x_work_is_2x_faster:host.aa_similar'"
           " --budget=0.2 --history='%s' --commit=w$i >'%s'/out$i 2>&1; echo $? >'%s'/rc$i ) & done; wait",
           st_fixture, where, dir, dir);
  ST_EQ(st_shell(cmd), 0);
  for (int i = 1; i <= 8; i++) {
    char p[200];
    snprintf(p, sizeof p, "%s/rc%d", dir, i);
    char *rc = st_slurp(p);
    snprintf(p, sizeof p, "%s/out%d", dir, i);
    char *out = st_slurp(p);
    ST_CHECKF(rc && (atoi(rc) == 0 || atoi(rc) == 1) && out && strstr(out, "perfgate: recorded run"),
              "writer %d: exit %s: %s", i, rc ? rc : "?", out ? out : "?");
    free(rc), free(out);
  }
  perf__store *s = open_at(where);
  if (!s) return;
  ST_EQ(number(s, "SELECT count(DISTINCT commit_id) FROM perfgate_runs WHERE commit_id LIKE 'w_'"), 8);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE commit_id LIKE 'w_'"), 8);
  ST_EQ(number(s, "SELECT sum(claims) FROM perfgate_runs WHERE commit_id LIKE 'w_'"), 16);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_claims c JOIN perfgate_runs r ON r.id = c.run_id"
                  " WHERE r.commit_id LIKE 'w_'"), 16);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_workloads w JOIN perfgate_runs r ON r.id = w.run_id"
                  " WHERE r.commit_id LIKE 'w_'"), 32);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs r WHERE r.claims <> (SELECT count(*) FROM"
                  " perfgate_claims c WHERE c.run_id = r.id)"), 0);
  perf__store_close(s);
}

/* Eight processes each record 25 runs as fast as they can into where:
 * all 200 runs are there, each with its 2 claims and 2 workloads. */
static void eight_loops(const char *where)
{
  pid_t kids[8];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  fflush(NULL);
  for (int c = 0; c < 8; c++)
    if ((kids[c] = fork()) == 0) {
      perf__store *s = NULL;
      char err[600], commit[32];
      int bad = perf__connect_open(where, 1, &s, err, sizeof err) || perf__schema_migrate(s, 0, err, sizeof err);
      for (int k = 0; !bad && k < 25; k++) {
        perf__provenance p = {"", "--commit", ""};
        snprintf(commit, sizeof commit, "loop-%d-%d", c, k);
        snprintf(p.commit, sizeof p.commit, "%s", commit);
        perf__jsontree_node *d = doc("GPU", k, 1e-3, 2e-3);
        bad = !d || record_doc(s, d, &p, NULL, err, sizeof err);
        perf__jsontree_free(d);
      }
      if (bad) fprintf(stderr, "writer %d: %s\n", c, err);
      perf__store_close(s);
      _exit(bad);
    }
  for (int c = 0; c < 8; c++) {
    int st = -1;
    waitpid(kids[c], &st, 0);
    ST_CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "looping writer %d failed (status %d)", c, st);
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("    %s: 8 writers x 25 runs in %.2f s (wall clock)\n",
         perf__connect_is_postgres(where) ? "PostgreSQL" : "SQLite",
         (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
  perf__store *s = open_at(where);
  if (!s) return;
  ST_EQ(number(s, "SELECT count(DISTINCT commit_id) FROM perfgate_runs WHERE commit_id LIKE 'loop-%'"), 200);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_claims c JOIN perfgate_runs r ON r.id = c.run_id"
                  " WHERE r.commit_id LIKE 'loop-%'"), 400);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_workloads w JOIN perfgate_runs r ON r.id = w.run_id"
                  " WHERE r.commit_id LIKE 'loop-%'"), 400);
  perf__store_close(s);
}

/* Eight writers at once into where, then eight loops of them, then a
 * killed one: every run is there, whole, and nothing else. */
static void eight_and_killed(const char *where, const char *dir)
{
  int pg = perf__connect_is_postgres(where);
  char err[600];
  eight_writers(where, dir); /* into a store none of them found: they migrate it once */
  eight_loops(where);
  killed_writer(where);
  perf__store *s = open_at(where);
  if (!s) return;
  char text[64] = "";
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), 209);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_schema"), 1);
  if (!pg) {
    const perf__store_stmt check = {.sql = "PRAGMA integrity_check", .on_row = text_row, .ctx = text};
    ST_EQ(perf__store_exec(s, &check, err, sizeof err), 0);
    ST_STR(text, "ok");
  }
  ST_EQ(exec_sql(s, "UPDATE perfgate_schema SET version = 99", err, sizeof err), 0);
  ST_EQ(perf__schema_migrate(s, 0, err, sizeof err), PERF__EINVAL);
  ST_CHECKF(strstr(err, "newer perfgate"), "%s", err);
  perf__store_close(s);
}

ST_TEST(history_sqlite_eight_writers_at_once_and_a_killed_one)
{
  on_sqlite(eight_and_killed);
}

ST_TEST(history_postgres_eight_writers_at_once_and_a_killed_one)
{
  on_postgres(eight_and_killed);
}

/* ---- --trend ------------------------------------------------------------ */

/* 30 commits of a workload in 1 % noise with a 3 % step from commit c16,
 * and of another that creeps 0.5 % a commit from c11 to c30: --trend
 * names c16 and the step's size, and reports the creep. */
ST_TEST(history_trend_finds_a_planted_step_and_a_creep)
{
  char dir[64], path[128], args[600];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  perf__rng r;
  perf__rng_seed(&r, 7);
  for (int i = 0; i < 30; i++) {
    char c[16];
    snprintf(c, sizeof c, "c%02d", i + 1);
    double step = i >= 15 ? 1.03 : 1, creep = i >= 10 ? 1 + 0.005 * (i - 9) : 1;
    record(s, c, "GPU", i, 1e-3 * step * (1 + 0.01 * perf__rng_normal(&r)),
           5e-3 * creep * (1 + 0.01 * perf__rng_normal(&r)));
  }
  perf__store_close(s);
  st_run run;
  snprintf(args, sizeof args, "--history='%s' --trend='suite.*' --plots='%s/plots' --html='%s/t.html'",
           path, dir, dir);
  st_exec(&run, "", args);
  ST_EQ(run.status, 0);
  ST_CHECKF(strstr(run.out, "suite.t: a [events]\n      from commit c16 (16 of 30"), "%s", run.out);
  const char *a = strstr(run.out, "suite.t: a [events]");
  double size = a && strstr(a, "(+") ? strtod(strstr(a, "(+") + 2, NULL) : 0;
  const char *pv = a ? strstr(a, "p = ") : NULL;
  ST_CHECKF(size > 2 && size < 4 && pv && strtod(pv + 4, NULL) <= 0.001 && strstr(a, "(permutations)"),
            "a 3 %% step: %s", run.out);
  ST_CHECKF(strstr(run.out, "suite.t: b [events]\n      from commit c"), "the creep: %s", run.out);
  st_run_free(&run);
  char page[200];
  snprintf(page, sizeof page, "%s/t.html", dir);
  char *html = st_slurp(page);
  ST_CHECKF(html && st_count(html, "class=\"change\"") >= 3 && st_count(html, "<svg") == 3,
            "the page draws the 3 series (a, b, FASTER(a, b)) with their change points");
  free(html);
  snprintf(args, sizeof args, "ls '%s/plots' | grep -c '^trend--GPU--suite.t-.*--[0-9a-f]\\{8\\}.svg$' | grep -qx 3", dir);
  ST_EQ(st_shell(args), 0);
  st_rmtree(dir);
}

/* 20 commits of one GPU, 0.5 % noise: suite.bump's a is the issue's bump
 * (150 us, 170 us for c08..c14, then back); suite.m1..m3's six workloads
 * all shift -3 % from c16 (the machine: a driver, a slower host); suite.new's
 * a is 10 % slower in the last 2 commits. --trend reports the bump at both
 * ends (the second back to the level before the first), the machine's
 * shift once and none of its workloads, and suite.new's a as suspected
 * since c19. */
ST_TEST(history_trend_reports_a_bump_a_machine_shift_and_suspected_commits)
{
  char dir[64], path[128], args[600];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  perf__rng r;
  perf__rng_seed(&r, 34);
  const char *names[5] = {"suite.bump", "suite.m1", "suite.m2", "suite.m3", "suite.new"};
  for (int i = 0; i < 20; i++) {
    double a[5], b[5];
    for (int k = 0; k < 5; k++) {
      double f = k >= 1 && k <= 3 && i >= 15 ? 0.97 : 1;
      a[k] = (k == 0 && i >= 7 && i < 14 ? 170e-6 : k == 4 && i >= 18 ? 165e-6 : 150e-6) * f;
      b[k] = 300e-6 * f;
      a[k] *= 1 + 0.005 * perf__rng_normal(&r), b[k] *= 1 + 0.005 * perf__rng_normal(&r);
    }
    char c[16], err[600];
    snprintf(c, sizeof c, "c%02d", i + 1);
    perf__provenance p = {"", "--commit", "main"};
    snprintf(p.commit, sizeof p.commit, "%s", c);
    perf__jsontree_node *d = doc_tests("GPU", i, 5, names, a, b, NULL, 0);
    ST_CHECKF(d && record_doc(s, d, &p, NULL, err, sizeof err) == 0, "record: %s", err);
    perf__jsontree_free(d);
  }
  perf__store_close(s);
  st_run run;
  snprintf(args, sizeof args, "--history='%s' --trend --html='%s/t.html'", path, dir);
  st_exec(&run, "", args);
  ST_EQ(run.status, 0);
  const char *bump = strstr(run.out, "suite.bump: a [events]\n      from commit c08 (8 of 20");
  ST_CHECKF(bump && strstr(bump, "(+13.") && strstr(bump, "\n      from commit c15 (15 of 20") &&
                strstr(bump, "back to the level before commit c08\n"),
            "the bump at both ends: %s", run.out);
  ST_CHECKF(strstr(run.out, "1 shift of the machine (6 workloads' change points, counted once)") &&
                strstr(run.out, "the machine: 6 of 10 workloads at once") &&
                strstr(run.out, "from commit c16 (16 of 20") && !strstr(run.out, "suite.m1: a [events]\n") &&
                !strstr(run.out, "suite.m2: b [events]\n"),
            "the machine's shift, once: %s", run.out);
  ST_CHECKF(strstr(run.out, "suite.new: a [events]\n      suspected since commit c19 (19 of 20") &&
                strstr(run.out, "(+10.") && strstr(run.out, "t-test of the newest 2 against the commits before"),
            "the newest commits: %s", run.out);
  ST_CHECKF(strstr(run.out, "changes of at least 1 %"), "the minimum size: %s", run.out);
  st_run_free(&run);
  char page[200];
  snprintf(page, sizeof page, "%s/t.html", dir);
  char *html = st_slurp(page);
  ST_CHECKF(html && strstr(html, "the machine: -3.") && strstr(html, "suspected +10.") &&
                strstr(html, "(suspected change)"),
            "the page labels the machine's shift and the suspected change");
  free(html);
  st_rmtree(dir);
}

/* A trace of one kernel launched n times an iteration, us each, as JSON
 * text (malloc'd). */
static char *trace_json(int n, double us)
{
  perf__trace t = {0};
  perf__trace_key reduce = {PERF__TRACE_KERNEL, "reduce(float*)", "grid 1x1x1, block 256x1x1", ""};
  for (int i = 0; i < n; i++)
    perf__trace_add(&t, &reduce, 0, 7, 1000, 1000 + (unsigned long long)(us * 1e3));
  perf__trace_finish(&t, 1);
  char *j = perf__trace_text(&t);
  perf__trace_free(&t);
  return j;
}

/* A change point of a workload whose runs recorded traces: --trend says
 * under it what changed in the GPU's work between the commit before and
 * the one after (here a kernel launched twice from c16 on); a series with
 * no traces says that it is not known. */
ST_TEST(history_trend_explains_a_change_point_from_traces)
{
  char dir[64], path[128], args[600], sql[1200], err[600];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  perf__rng r;
  perf__rng_seed(&r, 7);
  for (int i = 0; i < 30; i++) {
    char c[16];
    snprintf(c, sizeof c, "c%02d", i + 1);
    record(s, c, "GPU", i, 1e-3 * (i >= 15 ? 1.2 : 1) * (1 + 0.01 * perf__rng_normal(&r)),
           5e-3 * (i >= 15 ? 1.2 : 1) * (1 + 0.01 * perf__rng_normal(&r)));
  }
  char *one = trace_json(1, 200), *two = trace_json(2, 200);
  for (int late = 0; late < 2; late++) {
    snprintf(sql, sizeof sql, "UPDATE perfgate_workloads SET trace = '%s' WHERE workload = 'a' AND "
             "run_id IN (SELECT id FROM perfgate_runs WHERE commit_id %s 'c16')",
             late ? two : one, late ? ">=" : "<");
    ST_EQ(exec_sql(s, sql, err, sizeof err), 0);
  }
  free(one), free(two);
  perf__store_close(s);
  st_run run;
  snprintf(args, sizeof args, "--history='%s' --trend='suite.*'", path);
  st_exec(&run, "", args);
  ST_EQ(run.status, 0);
  const char *a = strstr(run.out, "suite.t: a [events]\n      from commit c16 (16 of 30");
  ST_CHECKF(a && strstr(a, "\n        what changed in the GPU's work between commit c15 and c16 "
                           "(the traces the history recorded):\n        changed: kernel "
                           "`reduce(float*)`: 2 launches an iteration, was 1 (+200.0 us)\n"),
            "%s", run.out);
  const char *b = strstr(run.out, "suite.t: b [events]\n      from commit c16");
  ST_CHECKF(b && strstr(b, "what changed in the GPU's work: not known: no trace recorded at both "
                           "commits"), "%s", run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* --trend --branch=NAME with no runs on NAME, in a history that has runs,
 * is a filter that matched nothing: exit 2 (as --list and --trend=FILTER),
 * naming the branches that have runs; a history with no runs at all is not
 * an error whatever the filter (exit 0), nor is one whose runs have
 * nothing to chart. */
/* --trend on path with extra: checks its exit code and that its output
 * holds want (and not unwanted, unless NULL). */
static void trend_says(const char *path, const char *extra, int status, const char *want,
                       const char *unwanted)
{
  char args[600];
  st_run run;
  snprintf(args, sizeof args, "--history='%s' --trend%s", path, extra);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == status && strstr(run.out, want) && (!unwanted || !strstr(run.out, unwanted)),
            "%s: exit %d: %s", args, run.status, run.out);
  st_run_free(&run);
}

ST_TEST(history_trend_names_the_branches_a_filter_missed)
{
  char dir[64], path[128], err[600];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  perf__store_close(s);
  trend_says(path, " --branch=nosuch", 0, "no runs recorded yet", "nosuch");
  trend_says(path, "", 0, "no runs recorded yet", NULL);
  if (!(s = open_at(path))) return;
  static const char *const on[] = {"main", "main", "dev", NULL};
  for (int k = 0; k < 4; k++) {
    perf__provenance p = {"c1", "--commit", ""};
    snprintf(p.branch, sizeof p.branch, "%s", on[k] ? on[k] : "");
    perf__jsontree_node *d = doc("GPU", k, 1e-3, 2e-3);
    ST_CHECK(d && record_doc(s, d, &p, NULL, err, sizeof err) == 0);
    perf__jsontree_free(d);
  }
  perf__store_close(s);
  trend_says(path, " --branch=nosuch", 2,
             "no runs recorded on branch 'nosuch'; the branches with runs: 'main' (2 runs), "
             "no branch (1 run), 'dev' (1 run)", "no runs recorded yet");
  trend_says(path, " --branch=dev", 0, "1 run;", NULL);
  trend_says(path, "='nothing.*' --branch=dev", 2, "no series matches the filter nothing.* in the 1 run of branch dev",
             NULL);
  st_rmtree(dir);
}

/* Two GPUs, 16 commits each, c16 run twice on GPU-A: --gpu reads one
 * GPU's series, --last=N each GPU's newest N commits (commits, not runs:
 * the re-run counts once), and a --gpu with no runs exits 2 naming the
 * GPUs that have some. GPU-A's workload a steps 20 % at c09: found at 7 of
 * --last=14's commits. */
ST_TEST(history_trend_reads_one_gpu_and_its_newest_commits)
{
  char dir[64], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  perf__rng r;
  perf__rng_seed(&r, 12);
  for (int i = 0; i < 17; i++) {
    char c[16];
    snprintf(c, sizeof c, "c%02d", i < 16 ? i + 1 : 16);
    for (int g = 0; g < 2; g++) {
      double step = !g && i >= 8 ? 1.2 : 1;
      if (i < 16 || !g)
        record(s, c, g ? "GPU-B" : "GPU-A", i, 1e-3 * step * (1 + 0.002 * perf__rng_normal(&r)),
               5e-3 * (1 + 0.002 * perf__rng_normal(&r)));
    }
  }
  perf__store_close(s);
  trend_says(path, " --gpu=GPU-B", 0, "\nGPU-B: 16 commits (c01, ", "GPU-A");
  trend_says(path, " --gpu=GPU-A --last=14", 0, "suite.t: a [events]\n      from commit c09 (7 of 14",
             "GPU-B");
  trend_says(path, " --gpu=GPU-A --last=14", 0, "\nGPU-A: 14 commits (c03, ", NULL);
  trend_says(path, " --last=10", 0, "\nGPU-A: 10 commits (c07, ", "GPU-B: 16");
  trend_says(path, " --last=10", 0, "\nGPU-B: 10 commits (c07, ", NULL);
  trend_says(path, " --gpu=GPU-C", 2,
             "no runs recorded on GPU 'GPU-C'; the branches with runs: 'main' (33 runs); the GPUs with runs: "
             "'GPU-A' (17 runs), 'GPU-B' (16 runs)", NULL);
  st_rmtree(dir);
}

/* An existing store with nothing in it yet (an empty SQLite file, a
 * PostgreSQL database without perfgate's tables, other applications'
 * tables there included) and a perfgate history with no runs both say "no
 * runs recorded yet", exit 0, whatever --branch and a test filter say, and
 * --trend changes nothing in them; a --branch that matches nothing in a
 * history that has runs stays exit 2; a SQLite file that does not exist
 * stays an error (--trend never creates one). */
static void trend_empty(const char *where, const char *dir)
{
  int pg = perf__connect_is_postgres(where);
  char cmd[600], err[600];
  perf__store *s = NULL;
  if (!pg) {
    trend_says(where, "", 2, "no history there (no such file)", NULL);
    snprintf(cmd, sizeof cmd, "test ! -e '%s'", where);
    ST_CHECKF(st_shell(cmd) == 0, "--trend created %s", where);
    snprintf(cmd, sizeof cmd, ": > '%s'", where);
    ST_EQ(st_shell(cmd), 0);
  } else if ((s = open_at_unchecked(where))) {
    ST_EQ(exec_sql(s, "CREATE TABLE other_app (x INTEGER)", err, sizeof err), 0);
    perf__store_close(s);
  }
  static const char *const filters[] = {"", " --branch=x", "=nothing --branch=x"};
  for (int k = 0; k < 3; k++) trend_says(where, filters[k], 0, "no runs recorded yet", "perftest:");
  if (!pg) {
    snprintf(cmd, sizeof cmd, "test -f '%s' && test ! -s '%s' && test ! -e '%s-wal'", where, where, where);
    ST_CHECKF(st_shell(cmd) == 0, "--trend changed the empty file %s", where);
  } else if ((s = open_at_unchecked(where))) {
    ST_EQ(number(s, "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 'perfgate%'"), 0);
    perf__store_close(s);
  }
  if (!(s = open_at(where))) return;
  perf__store_close(s);
  for (int k = 0; k < 3; k++) trend_says(where, filters[k], 0, "no runs recorded yet", "perftest:");
  if (!(s = open_at(where))) return;
  ST_CHECK(record(s, "c1", "GPU", 0, 1e-3, 2e-3) > 0);
  perf__store_close(s);
  trend_says(where, " --branch=x", 2, "no runs recorded on branch 'x'; the branches with runs: 'main' (1 run)",
             NULL);
  (void)dir;
}

ST_TEST(history_sqlite_trend_on_an_empty_history_says_no_runs_yet)
{
  on_sqlite(trend_empty);
}

ST_TEST(history_postgres_trend_on_an_empty_history_says_no_runs_yet)
{
  on_postgres(trend_empty);
}

/* ---- the Markdown comparison and --merge ------------------------------ */

ST_TEST(history_markdown_compares_the_run_with_the_last_runs)
{
  char dir[64], args[800];
  if (!temp_dir(dir, sizeof dir)) return;
  for (int i = 0; i < 3; i++) {
    st_run run;
    snprintf(args, sizeof args, "--filter=host.four_x_work_is_2x_faster --budget=0.2 --history='%s/h.db'"
                                " --commit=m%d%s%s/summary.md", dir, i, i == 2 ? " --markdown=" : "",
             i == 2 ? dir : "");
    st_exec(&run, "", args);
    /* Exit 1 (a claim that failed on a busy machine) still records the run. */
    ST_CHECKF((run.status == 0 || run.status == 1) && strstr(run.out, "perfgate: recorded run"), "%s", run.out);
    st_run_free(&run);
  }
  snprintf(args, sizeof args, "%s/summary.md", dir);
  char *md = st_slurp(args);
  /* this machine's GPU, or its CPU model on a machine without one */
  ST_CHECKF(md && (strstr(md, "## Compared with the last 10 runs of this machine (no GPU: ") ||
                   (st_have_gpu() && strstr(md, "## Compared with the last 10 runs of this GPU ("))) &&
                strstr(md, "2 earlier runs") && strstr(md, "`host.four_x_work_is_2x_faster` | FASTER(a, b)"),
            "%s", md ? md : "(none)");
  free(md);
  st_rmtree(dir);
}

/* Unescaped '|' in line: a table row's cell borders. */
static int borders(const char *line, size_t n)
{
  int b = 0;
  for (size_t k = 0; k < n; k++) b += line[k] == '|' && (!k || line[k - 1] != '\\');
  return b;
}

/* A name with a newline and a '|' (a FASTER whose workload expression
 * spans lines) stays in its cell of the comparison's table: each row one
 * line with the header's 8 borders, as in the summary table (the same
 * function). */
static void markdown_newline(const char *path, const char *dir)
{
  char err[600];
  (void)dir;
  perf__store *s = open_at(path);
  if (!s) return;
  long long last = 0;
  for (int k = 0; k < 3; k++) last = record(s, "c1", "GPU", k, 1e-3 * (1 + k), 2e-3);
  ST_EQ(exec_sql(s, "UPDATE perfgate_runs SET gpu = 'G|PU' || char(10) || 'x'", err, sizeof err), 0);
  ST_EQ(exec_sql(s, "UPDATE perfgate_workloads SET workload = 'one(n,' || char(10) || 'k) | two'"
                    " WHERE workload = 'a'", err, sizeof err), 0);
  ST_EQ(exec_sql(s, "UPDATE perfgate_claims SET a = 'one(n,' || char(13) || char(10) || 'k) | two'"
                    " WHERE a = 'a'", err, sizeof err), 0);
  perf__store_close(s);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!ST_CHECK(f != NULL)) return;
  perf__lastruns h = {path, last, "G|PU\nx", 10};
  perf__lastruns_markdown(f, &h, 100000);
  fclose(f);
  int rows = 0;
  for (const char *line = text; line && *line;) {
    size_t n = strcspn(line, "\n");
    if (*line == '|') {
      rows++;
      ST_CHECKF(borders(line, n) == 8 && line[n - 1] == '|', "a broken row: %.*s", (int)n, line);
    }
    ST_CHECKF(strncmp(line, "k) ", 3) && strncmp(line, "x)", 2), "a name's second line as a line: %.*s", (int)n, line);
    line += n + (line[n] == '\n');
  }
  ST_CHECKF(rows >= 5 && strstr(text, "one(n, k) \\| two") && strstr(text, "(G\\|PU x)\n"), "%d rows: %s", rows, text);
  free(text);
}

ST_TEST(history_markdown_keeps_a_name_with_a_newline_in_its_row)
{
  on_sqlite(markdown_newline);
}

ST_TEST(history_merge_records_the_merged_run)
{
  char dir[64], args[800];
  if (!temp_dir(dir, sizeof dir)) return;
  for (int i = 0; i < 2; i++) {
    st_run run;
    char env[80];
    snprintf(env, sizeof env, "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d ", i);
    snprintf(args, sizeof args, "--filter='host.four_x_work_is_2x_faster:host.aa_similar' --budget=0.2"
                                " --commit=m1 --json='%s/s%d.json'", dir, i);
    st_exec(&run, env, args);
    ST_CHECKF(run.status == 0 || run.status == 1, "shard %d: %s", i, run.out);
    st_run_free(&run);
  }
  st_run run;
  /* No --commit: the shards' is recorded. */
  snprintf(args, sizeof args, "--history='%s/h.db' --merge='%s/all.json' '%s/s0.json' '%s/s1.json'",
           dir, dir, dir, dir);
  st_exec(&run, "", args);
  ST_CHECKF((run.status == 0 || run.status == 1) && strstr(run.out, "perfgate: recorded run 1"), "%s", run.out);
  st_run_free(&run);
  snprintf(args, sizeof args, "%s/h.db", dir);
  perf__store *s = open_at(args);
  if (s) {
    char sql[300];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM perfgate_runs WHERE origin = 'merge' AND tests = 2"
                              " AND claims = 2 AND commit_id = 'm1' AND commit_from = '--commit'"
                              " AND perfgate = '%s'", perf_version());
    ST_EQ(number(s, sql), 1);
    perf__store_close(s);
  }
  st_rmtree(dir);
}

/* --merge with --history checks all the run will be recorded with before
 * it writes anything: the commit and branch (from --commit, the shards'
 * --commit, the CI's variables), then the store (as a run's check before
 * its first test); a refusal is exit 2 with no merged report and no
 * history file created. */
ST_TEST(history_merge_checks_the_commit_and_the_store_before_writing)
{
  char dir[64], args[1200], cmd[800];
  if (!temp_dir(dir, sizeof dir)) return;
  for (int i = 0; i < 2; i++) {
    st_run run;
    char env[80];
    snprintf(env, sizeof env, "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d ", i);
    snprintf(args, sizeof args, "--filter='host.truth:host.falsehood' --json='%s/s%d.json'", dir, i);
    st_exec(&run, env, args);
    ST_CHECKF(run.status == 0 || run.status == 1, "shard %d: %s", i, run.out);
    st_run_free(&run);
  }
  /* s0 as if it had been run with a commit that breaks the rule */
  snprintf(cmd, sizeof cmd, "sed 's/\"argv\": \\[/&\"--commit=bad\\\\u0001sha\", /' '%s/s0.json' > '%s/b0.json'"
                            " && grep -q 'commit=bad' '%s/b0.json'", dir, dir, dir);
  ST_EQ(st_shell(cmd), 0);
  snprintf(cmd, sizeof cmd, ": > '%s/notes.txt' && printf 'notes, not a database, and long enough to be a "
                            "header..........................................' > '%s/notes.txt'", dir, dir);
  ST_EQ(st_shell(cmd), 0);
  static const struct {
    const char *env, *history, *first, *want;
  } bad[] = {
      {"GITHUB_SHA=\"$(printf 'bad\\nsha')\" ", "h.db", "s0", "GITHUB_SHA: a control character"},
      {"", "h.db", "b0", "b0.json was run with --commit: a control character"},
      {"GITHUB_SHA=c1 ", "notes.txt", "s0", "not a database"},
      {"GITHUB_SHA=c1 ", "nodir/h.db", "s0", "does not exist"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    st_run run;
    char env[300];
    snprintf(env, sizeof env, NO_CI "%s", bad[k].env);
    snprintf(args, sizeof args, "--history='%s/%s' --merge='%s/out.json' '%s/%s.json' '%s/s1.json'", dir,
             bad[k].history, dir, dir, bad[k].first, dir);
    st_exec(&run, env, args);
    ST_CHECKF(run.status == 2 && strstr(run.out, bad[k].want) && !strstr(run.out, "perfgate: merged"),
              "%s%s: exit %d: %s", env, args, run.status, run.out);
    st_run_free(&run);
    snprintf(cmd, sizeof cmd, "test ! -e '%s/out.json' && test ! -e '%s/h.db'", dir, dir);
    ST_CHECKF(st_shell(cmd) == 0, "%s%s: a file was written", env, args);
  }
  st_run run;
  snprintf(args, sizeof args, "--history='%s/h.db' --merge='%s/out.json' '%s/s0.json' '%s/s1.json'", dir, dir,
           dir, dir);
  st_exec(&run, NO_CI "GITHUB_SHA=c1 ", args);
  ST_CHECKF((run.status == 0 || run.status == 1) && strstr(run.out, "perfgate: merged") &&
                strstr(run.out, "recorded run 1 (commit c1"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* The password of a PostgreSQL location is hidden wherever perfgate puts
 * it: messages (above) and the command line it records. */
ST_TEST(history_masks_passwords)
{
  char out[64], big[700];
  perf__secret_mask("postgresql://u:secret@h/db?password=x2&sslmode=require", out, sizeof out);
  ST_STR(out, "postgresql://u:***@h/db?password=***&sslmode=require");
  perf__secret_mask("--history=postgres://me:p@host:5/d", out, sizeof out);
  ST_STR(out, "--history=postgres://me:***@host:5/d");
  perf__secret_mask("history.db", out, sizeof out);
  ST_STR(out, "history.db");
  /* Every form: each in, its mask, and the secrets it must not hold. */
  static const struct {
    const char *in, *want, *secret[2];
  } forms[] = {
      {"postgresql://h/db?sslmode=require&password=one1&PASSWORD=two2&x=y&Password=thr3",
       "postgresql://h/db?sslmode=require&password=***&PASSWORD=***&x=y&Password=***", {"one1", "thr3"}},
      {"postgresql://u:Top%53ecret99@h/db", "postgresql://u:***@h/db", {"Top%53ecret99", "TopSecret99"}},
      {"postgresql://h/db?pass%77ord=s3cr%65t&port=5", "postgresql://h/db?pass%77ord=***&port=5",
       {"s3cr%65t", "s3cret"}},
      {"postgresql://h/db?sslpassword=k3yk3y", "postgresql://h/db?sslpassword=***", {"k3yk3y", NULL}},
      {"postgresql://u:p@ss/w@host/db", "postgresql://u:***@host/db", {"p@ss/w", "ss/w"}},
      {"--history=postgresql://u:a@b", "--history=postgresql://u:***@b", {":a@", NULL}},
      {"postgresql://host:5432/db?application_name=a%40b", "postgresql://host:5432/db?application_name=a%40b",
       {NULL, NULL}},
      {"postgresql://host/db?application_name=a@b", "postgresql://host/db?application_name=a@b", {NULL, NULL}},
      {"host=db user=u password=hunter2 dbname=x", "host=db user=u password=*** dbname=x", {"hunter2", NULL}},
      {"host=db password = 'a b\\'cd' port=5", "host=db password = *** port=5", {"b\\'cd", NULL}},
      /* What libpq would misread (refused before it sees them): the whole
       * span from the user name's ':' to the last '@', and every
       * password= whose '=' is %-encoded or that runs on past a raw '&'. */
      {"postgresql://u:Top@Secret99@127.0.0.1:55432/h1", "postgresql://u:***@127.0.0.1:55432/h1",
       {"Top", "Secret99"}},
      {"postgresql://u:Top?Sec@ret99@h/db", "postgresql://u:***@h/db", {"Top", "ret99"}},
      {"postgresql://u:Top/Sec?x=ret99@h/db", "postgresql://u:***@h/db", {"Top", "ret99"}},
      {"postgresql://u@h/db?password%3DTopSecret99", "postgresql://u@h/db?password%3D***",
       {"TopSecret99", NULL}},
      {"postgresql://u@h/db?x=1&PASS%57ORD%3dTop=Secret99&y=2", "postgresql://u@h/db?x=1&PASS%57ORD%3d***&y=2",
       {"Top", "Secret99"}},
      {"postgresql://u@h/db?password=Top&Secret99&port=5", "postgresql://u@h/db?password=***&port=5",
       {"Top", "Secret99"}},
      {"postgresql://h?password=Secret99@x", "postgresql://h?password=***", {"Secret99", NULL}},
  };
  for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
    char m[200];
    perf__secret_mask(forms[k].in, m, sizeof m);
    ST_CHECKF(!strcmp(m, forms[k].want), "%s: masked as %s", forms[k].in, m);
    for (int i = 0; i < 2; i++)
      ST_CHECKF(!forms[k].secret[i] || !strstr(m, forms[k].secret[i]), "%s: %s", m, forms[k].secret[i]);
  }
  /* A library's message that echoes the location, and the password alone,
   * as written and decoded, also cut inside it. */
  const char *loc = "postgresql://u:Top%53ecret99@[bad/db?password=Oth%65r&x=1";
  char msg[300];
  snprintf(msg, sizeof msg, "where: invalid URI: \"%s\"; token \"Top%%53ecret99\" TopSecret99, Other.", loc);
  perf__secret_scrub(loc, msg, sizeof msg);
  ST_CHECKF(!strstr(msg, "ecret") && !strstr(msg, "Oth") && strstr(msg, "u:***@[bad/db?password=***&x=1"),
            "%s", msg);
  /* libpq's messages for what it misreads hold a fragment of the
   * password: each fragment is scrubbed too. */
  static const struct {
    const char *loc, *msg, *secret[2];
  } misread[] = {
      {"postgresql://u:Top@Secret99@127.0.0.1:55432/h1",
       "could not translate host name \"Secret99@127.0.0.1\" to address", {"Secret99", NULL}},
      {"postgresql://u:Top/Secret99@127.0.0.1:1/db", "invalid integer value \"Top\" for connection option "
       "\"port\"", {"Top", NULL}},
      {"postgresql://u:Pa@ss@127.0.0.1:1/db", "could not translate host name \"ss@127.0.0.1\"", {"ss@", NULL}},
      {"postgresql://u@127.0.0.1:1/db?password%3DTopSecret99", "missing key/value separator \"=\" in URI "
       "query parameter: \"password%3DTopSecret99\"", {"TopSecret99", NULL}},
      {"postgresql://u@h/db?password%3DTop=Secret99", "invalid URI query parameter: \"password=Top\"",
       {"Top", NULL}},
  };
  for (size_t k = 0; k < sizeof misread / sizeof misread[0]; k++) {
    snprintf(msg, sizeof msg, "%s", misread[k].msg);
    perf__secret_scrub(misread[k].loc, msg, sizeof msg);
    ST_CHECKF(!strstr(msg, misread[k].secret[0]) && strstr(msg, "***"), "%s: %s", misread[k].loc, msg);
  }
  char cut[] = "h: URI: \"u:TopSecre";
  perf__secret_scrub("postgresql://u:TopSecret99@h", cut, sizeof cut);
  ST_CHECKF(!strstr(cut, "TopS") && strstr(cut, "u:***"), "%s", cut);
  memset(big, 'h', sizeof big);
  memcpy(big, "postgresql://u:s@", 17);
  big[sizeof big - 1] = '\0';
  perf__secret_mask(big, out, sizeof out); /* longer than out: cut, never overrun */
  ST_EQ(strlen(out), sizeof out - 1);
  ST_CHECK(!strstr(out, ":s@"));
  char dir[64], path[128], err[600];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  perf__jsontree_node *d = perf__jsontree_parse(
      "{\"run\": {\"argv\": [\"perftest\", \"--history=postgresql://u:hunter2@db/perf\"]},"
      " \"tests\": []}", "doc", err, sizeof err);
  perf__provenance p = {"c1", "--commit", ""};
  if (s && d) {
    ST_EQ(record_doc(s, d, &p, NULL, err, sizeof err), 0);
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE argv LIKE '%u:***@db%'"), 1);
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE argv LIKE '%hunter2%'"), 0);
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE perfgate IS NULL"), 1); /* no run.perfgate */
  }
  perf__jsontree_free(d);
  perf__store_close(s);
  st_rmtree(dir);
}

/* A password never leaves perfgate: not in libpq's messages (a URI it
 * cannot parse, which it echoes; a host it cannot reach), in any form
 * (userinfo, password= in any case, %-encoded), not for a keyword/value
 * string, and not in the command line a JSON, HTML or history records. */
ST_TEST(history_passwords_never_leave_perfgate)
{
  static const char *const bad[] = {
      "postgresql://u:TopSecret99@[bad/db",
      "postgresql://u:Top%53ecret99@[bad/db",
      "postgresql://[bad/db?sslmode=disable&password=TopSecret99&PASSWORD=TopSecret99",
      "postgresql://u@[bad/db?pass%77ord=Top%53ecret99",
      "postgresql://u:TopSecret99@127.0.0.1:1/none?connect_timeout=2&password=TopSecret99",
      "host=127.0.0.1 port=1 password=TopSecret99",
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char args[600];
    st_run run;
    snprintf(args, sizeof args, "--filter=host.truth --history='%s'", bad[k]);
    st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, "--history: ") && strstr(run.out, "***") &&
                  !strstr(run.out, "TopSecret99") && !strstr(run.out, "Top%53ecret99") &&
                  !strstr(run.out, "passed,"),
              "%s: exit %d: %s", bad[k], run.status, run.out);
    st_run_free(&run);
  }
  char dir[64], args[800], path[200];
  if (!temp_dir(dir, sizeof dir)) return;
  st_run run;
  /* The last --history is the one used: the first stays in the command line. */
  snprintf(args, sizeof args, "--filter=host.truth --history='postgresql://u:TopSecret99@h/db?password=Top%%53ecret99'"
                              " --history='%s/h.db' --commit=c1 --json='%s/r.json' --html='%s/r.html'", dir, dir, dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 0 && strstr(run.out, "recorded run") && !strstr(run.out, "ecret99"), "%s", run.out);
  st_run_free(&run);
  static const char *const files[] = {"r.json", "r.html"};
  for (int k = 0; k < 2; k++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[k]);
    char *text = st_slurp(path);
    ST_CHECKF(text && strstr(text, "u:***@h/db?password=***") && !strstr(text, "ecret99"), "%s: %s", path,
              text ? text : "(none)");
    free(text);
  }
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (s) {
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE argv LIKE '%u:***@h/db?password=***%'"), 1);
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE argv LIKE '%ecret99%'"), 0);
    perf__store_close(s);
  }
  st_rmtree(dir);
}

/* A location whose user name or password libpq would read other than as
 * written (a raw '@', '/', '?' or '#' in the password; a password= whose
 * '=' is %-encoded or that runs on past a raw '&') is refused before libpq
 * sees it: exit 2, the location masked, the remedy; no fragment of the
 * password in any output, and no host looked up. */
ST_TEST(history_a_password_libpq_would_misread_is_refused_before_it_sees_it)
{
  static const struct {
    const char *loc, *want, *frag[2];
  } bad[] = {
      {"postgresql://u:Top@Secret99@127.0.0.1:55432/h1", "%-encode", {"Top", "Secret99"}},
      {"postgresql://u:Top/Secret99@127.0.0.1:1/db", "%-encode", {"Top", "Secret99"}},
      {"postgresql://u:Pa@ss@127.0.0.1:1/db", "'@' as %40", {":Pa", "ss@"}},
      {"postgresql://u:Top?Secret99@127.0.0.1:1/db", "'?' as %3F", {"Top", "Secret99"}},
      {"postgresql://u:Top#Secret99@127.0.0.1:1/db", "'#' as %23", {"Top", "Secret99"}},
      {"postgresql://u:Top/Sec?x=ret99@127.0.0.1:1/db", "%-encode", {"Top", "ret99"}},
      {"postgresql://u@127.0.0.1:1/db?password%3DTopSecret99", "key=value", {"TopSecret99", NULL}},
      {"postgresql://u@127.0.0.1:1/db?Pass%57ord%3dTop=Secret99", "key=value", {"Top", "Secret99"}},
      {"postgresql://u@127.0.0.1:1/db?password=Top&Secret99", "key=value", {"Secret99", NULL}},
      {"postgresql://u@127.0.0.1?password=Secret99@x", "'?' as %3F", {"Secret99", NULL}},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char args[600];
    st_run run;
    snprintf(args, sizeof args, "--filter=host.truth --history='%s'", bad[k].loc);
    st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, "--history: postgresql://u") && strstr(run.out, "***") &&
                  strstr(run.out, bad[k].want) && strstr(run.out, "(nothing was run)") &&
                  !strstr(run.out, "cannot connect") && !strstr(run.out, "passed,"),
              "%s: exit %d: %s", bad[k].loc, run.status, run.out);
    for (int i = 0; i < 2; i++)
      ST_CHECKF(!bad[k].frag[i] || !strstr(run.out, bad[k].frag[i]), "%s: '%s' shows: %s", bad[k].loc,
                bad[k].frag[i], run.out);
    st_run_free(&run);
    snprintf(args, sizeof args, "--history='%s' --trend", bad[k].loc);
    st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, bad[k].want) && !strstr(run.out, "cannot connect") &&
                  (!bad[k].frag[0] || !strstr(run.out, bad[k].frag[0])) &&
                  (!bad[k].frag[1] || !strstr(run.out, bad[k].frag[1])),
              "--trend %s: exit %d: %s", bad[k].loc, run.status, run.out);
    st_run_free(&run);
  }
  /* %-encoded, the same passwords are taken (and libpq says it cannot
   * connect, or where libpq is not installed that it cannot be loaded:
   * either way the password scrubbed). */
  st_run run;
  st_exec(&run, "", "--filter=host.truth --history='postgresql://u:Top%40Sec%2F%3F%23ret99@127.0.0.1:1/db"
                    "?connect_timeout=2'");
  ST_CHECKF(run.status == 2 && (strstr(run.out, "cannot connect") || strstr(run.out, "libpq.so.5 cannot be loaded")) &&
                strstr(run.out, "u:***@127.0.0.1:1/db") &&
                !strstr(run.out, "Top") && !strstr(run.out, "ret99"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
}

/* A history this user may not write stops the run before it measures
 * (exit 2, the reason, no test run); --trend still reads it, also from a
 * directory it may not write (as an immutable file). Root writes
 * anything: as root, this runs as uid 65534. */
ST_TEST(history_read_only_store_is_refused_before_the_run_and_still_read)
{
  char dir[64], args[600], cmd[800];
  if (!temp_dir(dir, sizeof dir)) return;
  st_run run;
  snprintf(args, sizeof args, "--filter=host.aa_similar --budget=0.2 --history='%s/h.db' --commit=r1", dir);
  st_exec(&run, "", args);
  ST_CHECKF(strstr(run.out, "recorded run"), "%s", run.out);
  st_run_free(&run);
  snprintf(cmd, sizeof cmd, "chmod 755 '%s' && chmod 444 '%s/h.db' && chmod 555 '%s'", dir, dir, dir);
  ST_EQ(st_shell(cmd), 0);
  /* as root, uid 65534 runs a copy of the fixture it can reach */
  st_nobody nb = {.dir = ""};
  char why[600];
  if (geteuid() == 0 && st_nobody_begin(&nb, why, sizeof why)) {
    st_skip("as root, and no unprivileged user can run the fixture: %s", why);
  } else {
    snprintf(args, sizeof args, "--filter=host.aa_similar --history='%s/h.db' --commit=r2", dir);
    geteuid() == 0 ? st_nobody_exec(&run, &nb, args) : st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, "nothing was run") && !strstr(run.out, "passed,") &&
                  strstr(run.out, "h.db: cannot record there: the file is not writable"),
              "exit %d: %s", run.status, run.out);
    st_run_free(&run);
    snprintf(args, sizeof args, "--history='%s/h.db' --trend", dir);
    geteuid() == 0 ? st_nobody_exec(&run, &nb, args) : st_exec(&run, "", args);
    ST_CHECKF(run.status == 0 && strstr(run.out, "1 run;"), "exit %d: %s", run.status, run.out);
    st_run_free(&run);
    /* A file it may write, in a directory it may not: SQLite could not
     * create its -wal and -shm files ("readonly database"): said so. */
    snprintf(cmd, sizeof cmd, "chmod 666 '%s/h.db' && cp '%s/h.db' /tmp/perfgate-ro-$PPID.db", dir, dir);
    ST_EQ(st_shell(cmd), 0);
    snprintf(args, sizeof args, "--filter=host.aa_similar --history='%s/h.db' --commit=r3", dir);
    geteuid() == 0 ? st_nobody_exec(&run, &nb, args) : st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, "its directory") && strstr(run.out, "is not writable") &&
                  strstr(run.out, "-wal and -shm") && !strstr(run.out, "readonly database") &&
                  !strstr(run.out, "passed,"), "exit %d: %s", run.status, run.out);
    st_run_free(&run);
    snprintf(cmd, sizeof cmd, "cmp '%s/h.db' /tmp/perfgate-ro-$PPID.db; r=$?; rm -f /tmp/perfgate-ro-$PPID.db; exit $r", dir);
    ST_EQ(st_shell(cmd), 0);
    snprintf(args, sizeof args, "--filter=host.aa_similar --history='%s/new.db' --commit=r3", dir);
    geteuid() == 0 ? st_nobody_exec(&run, &nb, args) : st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, "new.db: cannot create it: cannot write in") &&
                  !strstr(run.out, "unable to open"), "exit %d: %s", run.status, run.out);
    st_run_free(&run);
  }
  st_nobody_end(&nb);
  snprintf(cmd, sizeof cmd, "chmod 755 '%s'", dir);
  st_shell(cmd);
  st_rmtree(dir);
}

/* ---- commits and branches ----------------------------------------------- */

/* One rule for every commit and branch: --commit, --branch and each CI
 * variable are refused before any test runs (exit 2, naming the option or
 * the variable) when empty, over 120 bytes, not UTF-8, with a control
 * character or a space at an end; never cut or changed; the same for
 * SQLite and PostgreSQL (the store is not even opened). */
static void labels(const char *where, const char *dir)
{
  char a120[121], a121[122];
  memset(a120, 'a', 120), a120[120] = '\0';
  memset(a121, 'b', 121), a121[121] = '\0';
  char env120[200], env121[200], long_branch[200];
  snprintf(env120, sizeof env120, "CI_COMMIT_SHA=%s ", a120);
  snprintf(env121, sizeof env121, "CI_COMMIT_SHA=%s ", a121);
  snprintf(long_branch, sizeof long_branch, "--commit=x --branch=%s", a121);
  const struct {
    const char *env, *args, *want;
  } bad[] = {
      {"", "--commit=\"$(printf 'ab\\377cd')\"", "--commit: not valid UTF-8: 'ab\\xffcd'"},
      {"", "--commit=\"$(printf 'ab\\300\\257')\"", "not valid UTF-8"}, /* an overlong '/' */
      {"", "--commit=x --branch=\"$(printf 'br\\355\\240\\200')\"", "--branch: not valid UTF-8"}, /* a surrogate */
      {"", "--commit=\"$(printf 'a\\302\\233b')\"", "--commit: a control character"},          /* C1 CSI */
      {"", "--commit=' ab'", "--commit: a space at its start or end"},
      {"", long_branch, "--branch: 121 bytes, more than the 120"},
      {"GITHUB_SHA=\"$(printf 'zz\\nINJECTED')\" ", "", "GITHUB_SHA: a control character: 'zz\\nINJECTED'"},
      {"GITHUB_SHA=\"$(printf 'zz\\377')\" ", "", "GITHUB_SHA: not valid UTF-8"},
      {env121, "", "CI_COMMIT_SHA: 121 bytes, more than the 120"},
      {"GITHUB_SHA='c1 ' ", "", "GITHUB_SHA: a space at its start or end"},
      {"GITHUB_HEAD_REF= GITHUB_REF_NAME=\"$(printf 'm\\tx')\" ", "--commit=x", "GITHUB_REF_NAME: a control character"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char env[700], args[900];
    st_run run;
    snprintf(env, sizeof env, NO_CI "%s", bad[k].env);
    snprintf(args, sizeof args, "--filter=host.truth --history='%s' %s", where, bad[k].args);
    st_exec(&run, env, args);
    ST_CHECKF(run.status == 2 && strstr(run.out, bad[k].want) && !strstr(run.out, "perfgate: 1 test") &&
                  !strstr(run.out, "passed,") && !strchr(run.out, '\033'),
              "%s%s: exit %d: %s", env, args, run.status, run.out);
    st_run_free(&run);
  }
  if (!perf__connect_is_postgres(where)) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test -e '%s'", where);
    ST_CHECKF(st_shell(cmd) != 0, "%s was created for a run that was refused", where);
  }
  /* 120 bytes from a CI variable: recorded as it is; an empty variable
   * (GITHUB_HEAD_REF outside a pull request) is not set. */
  char env[700], args[900];
  st_run run;
  snprintf(env, sizeof env, NO_CI "%sGITHUB_HEAD_REF= GITHUB_REF_NAME=\"$(printf 'f\\303\\274r')\" ", env120);
  snprintf(args, sizeof args, "--filter=host.truth --history='%s'", where);
  st_exec(&run, env, args);
  ST_CHECKF(run.status == 0 && strstr(run.out, "perfgate: recorded run 1"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  perf__store *s = open_at(where);
  if (s) {
    char sql[400];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM perfgate_runs WHERE commit_id = '%s' AND"
                              " commit_from = 'CI_COMMIT_SHA' AND branch = 'f\xc3\xbcr'", a120);
    ST_EQ(number(s, sql), 1);
    perf__store_close(s);
  }
  (void)dir;
}

ST_TEST(history_sqlite_commits_and_branches_follow_one_rule_before_any_test)
{
  on_sqlite(labels);
}

ST_TEST(history_postgres_commits_and_branches_follow_one_rule_before_any_test)
{
  on_postgres(labels);
}

/* ---- bad input --------------------------------------------------------- */

ST_TEST(history_bad_input_exits_2_naming_the_problem)
{
  char dir[64], args[800];
  if (!temp_dir(dir, sizeof dir)) return;
  static const struct {
    const char *args, *want;
  } cases[] = {
      {"--history=", "--history needs a SQLite file or a postgresql:// URI"},
      {"--trend", "--trend reads a history: give it --history"},
      {"--history=%D/h.db --trend --json=%D/t.json", "--trend runs no test"},
      /* two modes: two commands, neither an option of a run */
      {"--history=%D/h.db --trend --commit-report=c1", "--trend and --commit-report are two modes, not options of "
       "one another: --trend prints each GPU's series and their change points, --commit-report judges one commit "
       "across GPUs; give one of them"},
      {"--history=%D/h.db --commit-report=c1 --list", "--commit-report and --list are two modes"},
      /* the formats --commit-report does not write (the table's commit column) */
      {"--history=%D/h.db --commit-report=c1 --tap", "--commit-report runs no test"},
      {"--history=%D/h.db --commit-report=c1 --junit=%D/j.xml", "--commit-report runs no test"},
      {"--history=%D/h.db --trend --merge=%D/o.json %D/a.json", "--trend and --merge are two modes"},
      {"--history=%D/h.db --run-id=R1 --filter=host.truth --merge=%D/o.json",
       "--merge runs no test: --filter is an option of a run"},
      {"--history=%D/h.db --gpu=H100 --filter=host.truth", "--gpu picks what --trend reads, or the GPU whose "
       "shards a merge from the history reads: give it with --trend, or with --history, --run-id and --merge=OUT"},
      {"--history=%D/h.db --last=3 --filter=host.truth", "--last picks what --trend reads: give it with --trend"},
      /* --merge: files or a run of the history, not neither, not both */
      {"--merge=%D/o.json", "--merge=OUT needs the shards' --json reports after it, or --history=PATH|URI and "
       "--run-id=ID before it"},
      {"--history=%D/h.db --merge=%D/o.json", "merges a run from the history: give it --run-id=ID (before --merge)"},
      {"--history=%D/h.db --run-id=7 --merge=%D/o.json %D/a.json", "give --run-id or the reports, not both"},
      {"--merge=%D/o.json --history=%D/h.db --run-id=7", "--merge=OUT takes the rest of the line as its reports, "
       "and '--history=%D/h.db' is an option: give the options before --merge"},
      {"--gpu=H100 --merge=%D/o.json %D/a.json", "--gpu picks what --trend reads, or the GPU"},
      {"--history=%D/missing.db --run-id=7 --merge=%D/o.json", "--merge: --history: %D/missing.db: no history there"},
      {"--history=%D/h.db --trend --last=0", "--last: expected a number of commits in 1..1000000, got '0'"},
      {"--history=%D/h.db --trend --gpu=", "--gpu needs a GPU's name as the history records it"},
      {"--history=%D/h.db --commit= --filter=host.truth", "--commit needs"},
      {"--history=%D/h.db --commit=\"$(printf 'a\\033b')\" --filter=host.truth", "control character"},
      {"--history=/nonexistent-dir/h.db --filter=host.truth",
       "/nonexistent-dir/h.db: cannot create it: the directory /nonexistent-dir does not exist (create it first)"},
      {"--history=/nonexistent-dir/h.db --trend", "no history there (no directory /nonexistent-dir)"},
      {"--history=%D --filter=host.truth", "a directory, not a file: name the history's file (%D/perf-history.db)"},
      {"--history=%D/ --trend", "a directory, not a file"},
      {"--history=/dev/null --filter=host.truth", "/dev/null: not a regular file"},
      {"--history=%D/missing.db --trend", "no history there"},
      {"--history=%D/notes.txt --filter=host.truth", "not a database"},
      {"--history=%D/notes.txt --trend", "not a database"},
      {"--history=postgresql://perfgate:secret@127.0.0.1:1/none?connect_timeout=2 --filter=host.truth",
       "perfgate:***@127.0.0.1:1/none"},
      /* SQLite's files beside the history are the history's */
      {"--history=%D/w.db --json=%D/w.db-wal --filter=host.truth", "--history=%D/w.db (SQLite's %D/w.db-wal "
       "beside it) and --json=%D/w.db-wal are one file"},
      {"--history=%D/w.db --junit=%D/w.db-journal --filter=host.truth", "--junit=%D/w.db-journal are one file"},
      {"--history=%D/w.db --markdown=%D/./w.db-shm --filter=host.truth", "are one file"},
      {"--history=%D/w.db --trend --html=%D/w.db-shm", "are one file"},
      /* a file where a directory should be; a SQLite URI */
      {"--history=%D/notes.txt/h.db --filter=host.truth",
       "%D/notes.txt/h.db: cannot create it: %D/notes.txt is a file, not a directory"},
      {"--history=%D/notes.txt/sub/h.db --trend", "%D/notes.txt/sub/h.db: no history there: %D/notes.txt is a "
       "file, not a directory"},
      {"--history='file:%D/x.db?mode=ro' --filter=host.truth", "a SQLite URI (file:...) is not a location "
       "perfgate takes: give the history's path (%D/x.db)"},
      {"--history='file:%D/x.db?mode=ro' --trend", "a SQLite URI"},
  };
  snprintf(args, sizeof args, "%s/notes.txt", dir);
  FILE *f = fopen(args, "w");
  if (f) fputs("these are notes; they must stay exactly as they are..........................."
               "................................................................................\n", f);
  if (f) fclose(f);
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char a[600], *at;
    snprintf(a, sizeof a, "%s", cases[k].args);
    while ((at = strstr(a, "%D"))) {
      char rest[600];
      snprintf(rest, sizeof rest, "%s", at + 2);
      snprintf(at, sizeof a - (size_t)(at - a), "%s%s", dir, rest);
    }
    char want[600];
    snprintf(want, sizeof want, "%s", cases[k].want);
    while ((at = strstr(want, "%D"))) {
      char rest[600];
      snprintf(rest, sizeof rest, "%s", at + 2);
      snprintf(at, sizeof want - (size_t)(at - want), "%s%s", dir, rest);
    }
    st_run run;
    st_exec(&run, "", a);
    ST_CHECKF(run.status == 2 && strstr(run.out, want) && !strstr(run.out, "passed,") &&
                  !strstr(run.out, "secret") && !strstr(run.out, "unable to open") &&
                  !strstr(run.out, ": Not a directory"),
              "%s: exit %d: %s", a, run.status, run.out);
    st_run_free(&run);
  }
  /* nothing was created for a refused run; ./file:x.db is a plain path */
  snprintf(args, sizeof args, "cd '%s' && ls -A | tr '\\n' ' '", dir);
  FILE *ls = popen(args, "r");
  char names[400] = "";
  if (ls && !fgets(names, sizeof names, ls)) names[0] = '\0';
  if (ls) pclose(ls);
  ST_CHECKF(!strcmp(names, "notes.txt "), "left behind: %s", names);
  st_run run;
  snprintf(args, sizeof args, "--history='%s/file:x.db' --filter=host.truth --commit=c1", dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 0 && strstr(run.out, "recorded run 1"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  snprintf(args, sizeof args, "%s/notes.txt", dir);
  char *notes = st_slurp(args);
  ST_CHECK(notes && !strncmp(notes, "these are notes", 15));
  free(notes);
  st_rmtree(dir);
}

/* --history=a symbolic link to nothing is refused as a report path's is
 * (exit 2 naming the link's target; the target never created), for a
 * run, --trend and a merge from the history; once its target exists (an
 * empty file: an empty history) the link is the history. */
ST_TEST(history_a_link_to_nothing_is_refused_as_a_report_path_is)
{
  char dir[64], args[900], path[200], link[200];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(link, sizeof link, "%s/h.db", dir);
  ST_EQ(symlink("real.db", link), 0);
  static const struct {
    const char *args, *want;
  } cases[] = {
      {"--filter=host.truth --commit=c1", ": cannot record there: a symbolic link to 'real.db', which does not "
                                         "exist (create the file it names first: an empty file is an empty "
                                         "history; or name another path) (nothing was run)"},
      {"--trend", ": no history there: a symbolic link to 'real.db', which does not exist"},
      {"--run-id=r1 --merge=%s/o.json", ": no history there: a symbolic link to 'real.db', which does not exist"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char extra[300];
    snprintf(extra, sizeof extra, cases[k].args, dir);
    snprintf(args, sizeof args, "--history='%s' %s", link, extra);
    st_run run;
    st_exec(&run, "", args);
    ST_CHECKF(run.status == 2 && strstr(run.out, cases[k].want) && !strstr(run.out, "passed,"), "%s: exit %d: %s",
              args, run.status, run.out);
    st_run_free(&run);
    snprintf(path, sizeof path, "%s/real.db", dir);
    ST_CHECKF(access(path, F_OK) != 0, "%s: the link's target was created", args);
  }
  snprintf(args, sizeof args, ": > '%s/real.db'", dir);
  ST_EQ(st_shell(args), 0);
  snprintf(args, sizeof args, "--history='%s' --filter=host.truth --commit=c1", link);
  st_run run;
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 0 && strstr(run.out, "recorded run 1"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* ---- the runner before the run (schema version 4) ------------------- */

static int long_text_row(void *ctx, int n, const char *const *v)
{
  snprintf(ctx, 600, "%s", n > 0 && v[0] ? v[0] : "(null)");
  return 0;
}

/* A version-3 store migrates to version 4 keeping its runs (their
 * preflight and unfit NULL); a run whose report has a preflight keeps the
 * array as JSON and its unfit causes, each once; a report without one
 * records NULL; a fit runner records "". */
static void preflight_columns(const char *where, const char *dir)
{
  char err[600], got[600];
  perf__store *s = NULL;
  (void)dir;
  ST_EQ(perf__connect_open(where, 1, &s, err, sizeof err), 0);
  if (!s) return;
  ST_EQ(perf__schema_migrate(s, 3, err, sizeof err), 0);
  ST_EQ(exec_sql(s, OLD_RUN, err, sizeof err), 0);
  ST_EQ(perf__schema_migrate(s, 0, err, sizeof err), 0);
  int v = 0;
  ST_EQ(perf__schema_version(s, &v, err, sizeof err), 0);
  ST_EQ(v, PERF__SCHEMA_VERSION);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE commit_id = 'old' AND preflight IS NULL"
                  " AND unfit IS NULL"), 1);
  static const char *const docs[] = {
      "{\"schema\": \"perfgate-report/1\", \"run\": {\"started\": \"2026-11-26T00:00:00Z\", "
      "\"exit_code\": 0}, \"totals\": {\"tests\": 0}, \"fingerprint\": {\"host\": {\"name\": \"h\"}, "
      "\"gpu\": null}, \"preflight\": [{\"device\": 0, \"gpu\": {\"name\": \"G\"}, \"host\": "
      "{\"steal_pct\": 9}, \"unfit\": [{\"check\": \"cpu_steal\", \"value\": 9, \"limit\": 5, "
      "\"text\": \"the hypervisor stole 9.0 %\"}]}, {\"device\": 1, \"gpu\": {}, \"host\": {}, "
      "\"unfit\": [{\"check\": \"cpu_steal\", \"text\": \"the hypervisor stole 9.0 %\"}, {\"check\": "
      "\"gpu_processes\", \"text\": \"1 other process is using GPU 1\"}]}], \"tests\": []}",
      "{\"schema\": \"perfgate-report/1\", \"run\": {\"exit_code\": 0}, \"totals\": {}, "
      "\"preflight\": [{\"device\": 0, \"unfit\": []}], \"tests\": []}",
      "{\"schema\": \"perfgate-report/1\", \"run\": {\"exit_code\": 0}, \"totals\": {}, "
      "\"tests\": []}"};
  static const char *const want[] = {"the hypervisor stole 9.0 %; 1 other process is using GPU 1",
                                     "", "(null)"};
  for (int k = 0; k < 3; k++) {
    perf__provenance p = {"c-pf", "--commit", "main"};
    perf__jsontree_node *d = perf__jsontree_parse(docs[k], "doc", err, sizeof err);
    long long id = 0;
    char sql[200];
    ST_CHECKF(d != NULL, "%s", err);
    if (!d) continue;
    ST_EQ(record_doc(s, d, &p, &id, err, sizeof err), 0);
    perf__jsontree_free(d);
    const perf__store_stmt text = {.sql = sql, .on_row = long_text_row, .ctx = got};
    snprintf(sql, sizeof sql, "SELECT unfit FROM perfgate_runs WHERE id = %lld", id);
    ST_EQ(perf__store_exec(s, &text, err, sizeof err), 0);
    ST_STR(got, want[k]);
    snprintf(sql, sizeof sql, "SELECT preflight FROM perfgate_runs WHERE id = %lld", id);
    ST_EQ(perf__store_exec(s, &text, err, sizeof err), 0);
    ST_CHECKF(k == 2 ? !strcmp(got, "(null)") : got[0] == '[' && strstr(got, "\"device\": 0"),
              "%s", got);
    if (k == 0) ST_CHECKF(strstr(got, "\"device\": 1") && strstr(got, "\"steal_pct\": 9"), "%s", got);
  }
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), 4);
  perf__store_close(s);
}

ST_TEST(history_sqlite_records_the_preflight_and_migrates_version_3)
{
  on_sqlite(preflight_columns);
}

ST_TEST(history_postgres_records_the_preflight_and_migrates_version_3)
{
  on_postgres(preflight_columns);
}

/* --commit-report=commit on the history at path, outside any repository
 * (the order of recording): its exit status must be status and its output
 * hold want. */
static void commit_report_says(const char *path, const char *commit, int status, const char *want)
{
  char args[600];
  st_run run;
  snprintf(args, sizeof args, "--history='%s' --commit-report=%s", path, commit);
  st_exec(&run, "GIT_DIR=/nonexistent ", args);
  ST_CHECKF(run.status == status && strstr(run.out, want), "%s: exit %d: %s", args, run.status, run.out);
  st_run_free(&run);
}

/* The between-run noise of the commit report's histories: commit i's
 * factor, within 1 % of 1, the same every run of the tests. */
static double wobble(int i)
{
  static const double f[] = {1.000, 1.008, 0.994, 1.003, 0.990, 1.011, 0.997, 1.005,
                             0.993, 1.002, 1.009, 0.996, 1.004, 0.992, 1.007, 0.998};
  return f[i % (int)(sizeof f / sizeof f[0])];
}

/* Records n commits "<prefix>01".. of unchanged code on gpu (a 1 ms, b 5
 * ms, each wobble()'s noise), runs started from minute m on. */
static void steady(perf__store *s, const char *prefix, const char *gpu, int n, int m)
{
  for (int i = 1; i <= n; i++) {
    char c[32];
    snprintf(c, sizeof c, "%s%02d", prefix, i);
    record(s, c, gpu, m + i, 1e-3 * wobble(i), 5e-3 * wobble(i + 5));
  }
}

/* --commit-report on a simulated fleet of three GPUs, 12 commits with 1 %
 * noise between runs: H100 6 % slower at c12 (beyond its band: p far
 * under 0.01 / 3), A100 steady, L4 stopped at c08. c12: H100 regressed
 * (exit 1), the others held or did not run; c09: every GPU held (0); a
 * commit never recorded, the first commit (nothing earlier) and c04 (3
 * earlier commits: fewer than a band needs) exit 125, git bisect's skip,
 * never 2. */
ST_TEST(history_commit_report_across_three_gpus)
{
  char dir[64], path[128], args[700], md[200];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  snprintf(md, sizeof md, "%s/c.md", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  for (int i = 1; i <= 12; i++) {
    char c[16];
    snprintf(c, sizeof c, "c%02d", i);
    record(s, c, "NVIDIA H100", 3 * i, (i == 12 ? 1.06e-3 : 1e-3) * wobble(i), 5e-3 * wobble(i + 3));
    record(s, c, "NVIDIA A100", 3 * i + 1, 2e-3 * wobble(i + 7), 9e-3 * wobble(i + 1));
    if (i <= 8) record(s, c, "NVIDIA L4", 3 * i + 2, 4e-3 * wobble(i + 2), 12e-3 * wobble(i + 9));
  }
  perf__store_close(s);
  st_run run;
  snprintf(args, sizeof args, "--history='%s' --commit-report=c12 --markdown='%s'", path, md);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 1, "exit %d: %s", run.status, run.out);
  ST_CHECKF(strstr(run.out, "  NVIDIA H100: REGRESSED: 1 run, 0 failed tests; 3 of 3 series "
                            "compared, 3 decided, 2 changed (2 worse)") &&
                strstr(run.out, "suite.t: a [events]: +6.") &&
                strstr(run.out, "the centre of 11 earlier commits from c01 (+-0.") &&
                strstr(run.out, "  NVIDIA A100: held: 1 run") &&
                strstr(run.out, "  NVIDIA L4: did not run this commit") &&
                strstr(run.out, "earlier commits: those recorded before it"),
            "%s", run.out);
  st_run_free(&run);
  char *m = st_slurp(md);
  ST_CHECKF(m && strstr(m, "| NVIDIA H100 | **REGRESSED** |") && strstr(m, "| NVIDIA L4 | did not run |") &&
                strstr(m, "beyond the noise between runs its earlier commits show"),
            "%s", m ? m : "(no file)");
  free(m);
  static const struct {
    const char *commit;
    int status;
    const char *says;
  } other[] = {{"c09", 0, "every GPU that ran it held"},
               {"c99", 125, "commit c99 was never recorded"},
               {"c01", 125, "no series has 5 earlier commits to tell the noise between runs yet"},
               {"c04", 125, "not decided: no GPU that ran it could be judged"}};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
    snprintf(args, sizeof args, "--history='%s' --commit-report=%s", path, other[i].commit);
    st_exec(&run, "", args);
    ST_CHECKF(run.status == other[i].status && strstr(run.out, other[i].says), "%s: exit %d: %s",
              other[i].commit, run.status, run.out);
    st_run_free(&run);
  }
  snprintf(args, sizeof args, "--commit-report=c06 --json=%s/x.json", dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "--commit-report reads a history"), "%s", run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* A move within the within-run intervals' reach but not within the noise
 * between runs: a history where each run's intervals are 1 % wide but
 * runs differ by 8 % (the H200's small kernels) calls a 6 % move of
 * unchanged code held, where comparing intervals called it REGRESSED;
 * with only 3 earlier commits the same move is UNDECIDED (125), never
 * REGRESSED. */
ST_TEST(history_commit_report_knows_the_noise_between_runs)
{
  char dir[64], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  static const double between[] = {1.00, 1.08, 0.93, 1.05, 0.96, 1.09, 0.94, 1.02, 0.98, 1.06};
  for (int i = 0; i < 10; i++) {
    char c[16];
    snprintf(c, sizeof c, "n%02d", i + 1);
    record(s, c, "GPU", i + 1, 1e-3 * between[i], 5e-3 * between[(i + 3) % 10]);
  }
  perf__store_close(s);
  commit_report_says(path, "n10", 0, "GPU: held: 1 run, 0 failed tests; 3 of 3 series compared, 3 decided, 0 changed");
  commit_report_says(path, "n04", 125, "moved with fewer than 5 earlier commits to tell the noise between runs");
  commit_report_says(path, "n04", 125, "undecided: 3 earlier commits (5 tell the noise between runs)");
  st_rmtree(dir);
}

/* Records the tests names[0..3) at commit on "GPU", test k's a at a[k],
 * b at 5 ms times machine, each with commit i's wobble. */
static void record_three(perf__store *s, const char *commit, int i, const double *a, double machine)
{
  static const char *const names[] = {"suite.x", "suite.y", "suite.z"};
  double as[3], bs[3];
  for (int k = 0; k < 3; k++) as[k] = a[k] * wobble(i + k), bs[k] = 5e-3 * machine * wobble(i + k + 4);
  perf__provenance p = {"", "--commit", "main"};
  char err[600];
  long long id;
  snprintf(p.commit, sizeof p.commit, "%s", commit);
  perf__jsontree_node *d = doc_tests("GPU", i, 3, names, as, bs, NULL, 0);
  if (!d) return;
  ST_EQ(record_doc(s, d, &p, &id, err, sizeof err), 0);
  perf__jsontree_free(d);
}

/* The machine's move: every workload 10 % slower at once (ratios as they
 * were) is the machine's, named once and no regression; a workload 27 %
 * more on top of it changed as well (and its ratio with it). */
ST_TEST(history_commit_report_takes_the_machines_move_out)
{
  char dir[64], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  const double one[3] = {1e-3, 2e-3, 3e-3}, slow[3] = {1.1e-3, 2.2e-3, 3.3e-3}, worse[3] = {1.4e-3, 2.2e-3, 3.3e-3};
  for (int i = 1; i <= 8; i++) {
    char c[16];
    snprintf(c, sizeof c, "m%02d", i);
    record_three(s, c, i, one, 1);
  }
  perf__store_close(s);
  char copy[300];
  snprintf(copy, sizeof copy, "cp '%s' '%s/w.db'", path, dir);
  ST_EQ(st_shell(copy), 0);
  if (!(s = open_at(path))) return;
  record_three(s, "m09", 9, slow, 1.1);
  perf__store_close(s);
  commit_report_says(path, "m09", 0, "the machine: ");
  commit_report_says(path, "m09", 0, "workloads +");
  snprintf(path, sizeof path, "%s/w.db", dir);
  if (!(s = open_at(path))) return;
  record_three(s, "m09", 9, worse, 1.1);
  perf__store_close(s);
  commit_report_says(path, "m09", 1, "suite.x: a [events]: +");
  st_rmtree(dir);
}

/* Runs recorded on an unfit runner decide nothing: a slower run at c07
 * recorded unfit leaves the GPU UNDECIDED, naming the cause; a fit run
 * beside it decides, the unfit one named; and unfit runs at earlier
 * commits are not in the band (where f07's would hide f09's 6 %). */
ST_TEST(history_commit_report_leaves_unfit_runs_out)
{
  char dir[64], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  steady(s, "f", "GPU", 6, 0);
  record(s, "f07", "GPU", 20, 1.3e-3, 5e-3);
  record(s, "f08", "GPU", 21, 1.3e-3, 5e-3);
  record(s, "f08", "GPU", 22, 1e-3, 5e-3);
  record(s, "f09", "GPU", 23, 1.06e-3 * wobble(3), 5e-3 * wobble(8));
  char err[300];
  ST_EQ(exec_sql(s, "UPDATE perfgate_runs SET unfit = 'the hypervisor stole 9.0 %' WHERE "
                    "commit_id = 'f07' OR (commit_id = 'f08' AND id = (SELECT min(id) FROM "
                    "perfgate_runs WHERE commit_id = 'f08'))", err, sizeof err), 0);
  perf__store_close(s);
  commit_report_says(path, "f07", 125, "GPU: UNDECIDED (every run of it was recorded on an unfit runner: "
                                       "the hypervisor stole 9.0 %)");
  commit_report_says(path, "f08", 0, "1 of 2 runs recorded on an unfit runner (the hypervisor stole 9.0 %), "
                                     "0 failed tests in them: not counted");
  commit_report_says(path, "f08", 0, "0 changed (0 worse)");
  /* f07's slow unfit run is no part of f09's band: a 6 % regression there is seen */
  commit_report_says(path, "f09", 1, "a [events]: +6.");
  commit_report_says(path, "f09", 1, "the centre of 7 earlier commits");
  st_rmtree(dir);
}

/* The 40-hex id of HEAD in the repository at dir/.git into out[41]. */
static int head_of(const char *dir, char *out)
{
  char cmd[400];
  snprintf(cmd, sizeof cmd, "GIT_DIR='%s/.git' git rev-parse HEAD", dir);
  FILE *p = popen(cmd, "r");
  int ok = p && fscanf(p, "%40s", out) == 1;
  if (p) pclose(p);
  return ok && strlen(out) == 40;
}

/* With the repository at hand, earlier commits are the commit's ancestors:
 * a much slower run on a side branch recorded before it is not in its
 * band (in the order of recording it would be, and would hide the
 * commit's 6 % regression in the noise it adds). */
ST_TEST(history_commit_report_compares_with_git_ancestors)
{
  char dir[64], path[128], args[800], c[8][41], cmd[900];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(cmd, sizeof cmd, "cd '%s' && git init -q -b main r", dir);
  if (st_shell(cmd) != 0) {
    st_rmtree(dir);
    st_skip("git cannot make a repository here");
    return;
  }
  snprintf(path, sizeof path, "%s/r", dir);
  /* c[0..5] on main, c[6] on a side branch from c[5], c[7] on main after c[5] */
  for (int i = 0; i < 8; i++) {
    snprintf(cmd, sizeof cmd, "cd '%s' && %sgit -c user.name=t -c user.email=t@t commit -q --allow-empty "
             "-m c%d", path, i == 6 ? "git checkout -q -b side && " : i == 7 ? "git checkout -q main && " : "", i);
    ST_EQ(st_shell(cmd), 0);
    ST_CHECK(head_of(path, c[i]));
  }
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  for (int i = 0; i < 8; i++)
    record(s, c[i], "GPU", i + 1, 1e-3 * (i == 6 ? 1.3 : i == 7 ? 1.06 : wobble(i)), 5e-3 * wobble(i + 4));
  perf__store_close(s);
  st_run run;
  snprintf(args, sizeof args, "--history='%s' --commit-report=%.12s", path, c[7]);
  snprintf(cmd, sizeof cmd, "GIT_DIR='%s/r/.git' ", dir);
  st_exec(&run, cmd, args);
  ST_CHECKF(run.status == 1 && strstr(run.out, "earlier commits: its ancestors in git") &&
                strstr(run.out, "the centre of 6 earlier commits"),
            "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  st_exec(&run, "GIT_DIR=/nonexistent ", args); /* no repository: the order of recording */
  ST_CHECKF(run.status == 125 && strstr(run.out, "never recorded"), "exit %d: %s", run.status,
            run.out); /* the short id is not what was recorded, and nothing resolves it */
  st_run_free(&run);
  snprintf(args, sizeof args, "--history='%s' --commit-report=%s", path, c[7]);
  st_exec(&run, "GIT_DIR=/nonexistent ", args);
  ST_CHECKF(run.status != 1 && strstr(run.out, "those recorded before it") && !strstr(run.out, "REGRESSED"),
            "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* Shards of one run id: a run is whole when every shard is recorded; a
 * retried shard's last attempt counts (a failed first attempt then
 * passed is not a failure); a run with a shard missing is INCOMPLETE and
 * never green (exit 125), on the commit report and the same for its
 * series. */
ST_TEST(history_commit_report_counts_shards_of_a_run_and_their_last_attempt)
{
  char dir[64], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  steady(s, "p", "GPU", 5, 100); /* earlier commits enough for a band */
  record(s, "c1", "GPU", 1, 1e-3, 5e-3);
  record_of(s, "c2", "GPU", 2, 1e-3, 5e-3, "{\"index\": 0, \"total\": 2, \"run_id\": \"77\"}", 0);
  record_of(s, "c2", "GPU", 3, 1e-3, 5e-3, "{\"index\": 1, \"total\": 2, \"run_id\": \"77\"}", 1);
  record_of(s, "c2", "GPU", 4, 1e-3, 5e-3, "{\"index\": 1, \"total\": 2, \"run_id\": \"77\"}", 0);
  record_of(s, "c3", "GPU", 5, 1e-3, 5e-3, "{\"index\": 0, \"total\": 4, \"run_id\": \"78\"}", 0);
  record_of(s, "c3", "GPU", 6, 1e-3, 5e-3, "{\"index\": 2, \"total\": 4, \"run_id\": \"78\"}", 0);
  /* INCOMPLETE wins over a failed test in the shards that were recorded */
  record_of(s, "c5", "GPU", 9, 1e-3, 5e-3, "{\"index\": 0, \"total\": 3, \"run_id\": \"80\"}", 1);
  record_of(s, "c5", "GPU", 10, 1e-3, 5e-3, "{\"index\": 1, \"total\": 3, \"run_id\": \"80\"}", 0);
  perf__store_close(s);
  commit_report_says(path, "c2", 0, "GPU: held: 1 run (2 shards), 0 failed tests (1 retried shard replaced by "
                                    "a later attempt)");
  commit_report_says(path, "c3", 125, "GPU: INCOMPLETE: 1 run (2 shards), 0 failed tests; run 78: 2 of 4 shards "
                                      "recorded, never green");
  commit_report_says(path, "c5", 125, "GPU: INCOMPLETE: 1 run (2 shards), 1 failed test; run 80: 2 of 3 shards "
                                      "recorded, never green");
  s = open_at(path);
  if (s) {
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE run_key = '77' AND shard_index = 1"), 2);
    perf__store_close(s);
  }
  perf__series_set set;
  perf__series_query q = {NULL, NULL, NULL, 0, 0, 0, 0};
  char err[600];
  s = open_at(path);
  if (s && ST_CHECK(perf__series_load(s, &q, &set, err, sizeof err) == 0)) {
    const perf__series *a = series_a(&set);
    ST_CHECKF(a && a->n == 9 && a->pts[6].nvalues == 2, "c2 holds its two shards' values, not the "
              "replaced attempt's: %zu", a && a->n > 6 ? a->pts[6].nvalues : 0);
    perf__series_free(&set);
  }
  /* A whole run and one not whole at one commit: decided by the whole one,
   * the other named. */
  if (s) record(s, "c4", "GPU", 7, 1e-3, 5e-3);
  if (s) record_of(s, "c4", "GPU", 8, 1e-3, 5e-3, "{\"index\": 1, \"total\": 2, \"run_id\": \"79\"}", 0);
  if (s) perf__store_close(s);
  commit_report_says(path, "c4", 0, "GPU: held: 2 runs, 0 failed tests; also run 79: 1 of 2 shards recorded (not "
                                    "whole)");
  st_rmtree(dir);
}

/* A recording that fails after the run's check (the history spoiled
 * while the run goes on, as a database that goes down): the message
 * gives the command that records the run's --json report later, under
 * the commit and branch it would have had, and that command records it;
 * without --json it says how a run could be; a shard's says why it
 * cannot be. */
ST_TEST(history_a_failed_recording_says_how_to_record_the_run_later)
{
  char dir[64], env[600], args[900], path[900];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(env, sizeof env, NO_CI NO_RUN_ID "PERF_SELFTEST_SPOIL='%s/h.db' ", dir);
  snprintf(args, sizeof args, "--filter=files.spoils_the_history --history='%s/h.db' --commit=c9 --branch='b 1' "
           "--json='%s/r.json'", dir, dir);
  st_run run;
  st_exec(&run, env, args);
  char want[700];
  snprintf(want, sizeof want, "the run was not recorded; its report %s/r.json keeps it: record it later with: %s "
           "--history=%s/h.db --commit=c9 '--branch=b 1' --merge=/dev/null %s/r.json", dir, st_fixture, dir, dir);
  const char *cmd = strstr(run.out, "record it later with: ");
  ST_CHECKF(run.status == 2 && strstr(run.out, want), "exit %d, wanted %s: %s", run.status, want, run.out);
  if (cmd) { /* the history back, empty; the command as given */
    char later[700];
    snprintf(later, sizeof later, "%.*s", (int)strcspn(cmd + 22, "\n"), cmd + 22);
    snprintf(path, sizeof path, "rm '%s/h.db' && %s > '%s/later.log' 2>&1", dir, later, dir);
    ST_CHECKF(st_shell(path) == 0, "%s", later);
    snprintf(path, sizeof path, "%s/later.log", dir);
    char *log = st_slurp(path);
    ST_CHECKF(log && strstr(log, "perfgate: recorded run 1 (commit c9, "), "%s", log ? log : "(no log)");
    free(log);
    snprintf(path, sizeof path, "%s/h.db", dir);
    perf__store *s = open_at(path);
    if (s) {
      ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE commit_id = 'c9' AND branch = 'b 1' AND passed = 1"),
            1);
      perf__store_close(s);
    }
  }
  st_run_free(&run);
  snprintf(env, sizeof env, NO_CI NO_RUN_ID "PERF_SELFTEST_SPOIL='%s/n.db' ", dir);
  snprintf(args, sizeof args, "--filter=files.spoils_the_history --history='%s/n.db' --commit=c9", dir);
  st_exec(&run, env, args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "the run was not recorded (a run given --json=FILE can be recorded "
                                               "later from that file: --history=LOCATION --merge=/dev/null FILE)"),
            "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  snprintf(env, sizeof env, NO_CI NO_RUN_ID "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=0 PERF_SELFTEST_SPOIL='%s/s.db' ",
           dir);
  snprintf(args, sizeof args, "--filter=files.spoils_the_history --history='%s/s.db' --commit=c9 --json='%s/s.json'",
           dir, dir);
  st_exec(&run, env, args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "s.json keeps it, but a shard cannot be recorded later"),
            "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* --trend counts runs as --commit-report does: a run id's shards on a GPU
 * are one run, the shards said beside it (a retried shard's replaced
 * attempt not among them); a run without a run id is one. */
ST_TEST(history_trend_counts_a_run_ids_shards_as_one_run)
{
  char dir[64], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (!s) return;
  for (int k = 0; k < 3; k++) {
    char shard[100];
    snprintf(shard, sizeof shard, "{\"index\": %d, \"total\": 3, \"run_id\": \"r3\"}", k);
    record_of(s, "c1", "GPU", 1 + k, 1e-3, 5e-3, shard, 0);
  }
  perf__store_close(s);
  commit_report_says(path, "c1", 125, "yet): 1 run (3 shards), 0 failed tests");
  char want[300];
  snprintf(want, sizeof want, "perfgate trend: %s: 1 run (3 shards); change points", path);
  trend_says(path, "", 0, want, NULL);
  snprintf(want, sizeof want, "no series matches the filter nothing.* in the 1 run (3 shards)");
  trend_says(path, "='nothing.*'", 2, want, NULL);
  /* a retried shard, a whole run, another GPU's shards of the same run id */
  if ((s = open_at(path))) {
    record_of(s, "c2", "GPU", 4, 1e-3, 5e-3, "{\"index\": 1, \"total\": 3, \"run_id\": \"r3\"}", 0);
    record(s, "c2", "GPU", 5, 1e-3, 5e-3);
    record_of(s, "c2", "GPU-B", 6, 1e-3, 5e-3, "{\"index\": 0, \"total\": 2, \"run_id\": \"r3\"}", 0);
    record_of(s, "c2", "GPU-B", 7, 1e-3, 5e-3, "{\"index\": 1, \"total\": 2, \"run_id\": \"r3\"}", 0);
    perf__store_close(s);
  }
  snprintf(want, sizeof want, "perfgate trend: %s: 3 runs (6 shards); change points", path);
  trend_says(path, "", 0, want, NULL);
  /* GPU's newest commit: r3's shard 1 again and the whole run: 2 runs, no shards to say */
  snprintf(want, sizeof want, "perfgate trend: %s: 2 runs; change points", path);
  trend_says(path, " --gpu=GPU --last=1", 0, want, NULL);
  st_rmtree(dir);
}

/* --devices with --history and a run id: each GPU's run is recorded under
 * the run id with "/gpuK" after it, so two GPUs of one model are two runs,
 * not a shard and its retry; the joined --json is the run's, its run id
 * the run's (this machine may have no GPU: a device list
 * still runs once per device, its GPU-tests skipped). Under
 * CUDA_VISIBLE_DEVICES, so that a machine with one GPU does not refuse
 * device 1 (the runner checks ids only without it): the test is host-only. */
ST_TEST(history_devices_record_a_run_per_gpu)
{
  char dir[64], args[600], path[128];
  if (!temp_dir(dir, sizeof dir)) return;
  snprintf(path, sizeof path, "%s/h.db", dir);
  st_run run;
  snprintf(args, sizeof args, "--devices=0,1 --history='%s' --run-id=R7 --commit=c1 --filter=host.truth "
                              "--json=%s/d.json", path, dir);
  st_exec(&run, "CUDA_VISIBLE_DEVICES=0,1 ", args);
  ST_CHECKF(run.status == 0, "%s", run.out);
  st_run_free(&run);
  /* The GPUs' reports joined are the run itself: its run id, not a GPU's. */
  snprintf(args, sizeof args, "%s/d.json", dir);
  char *joined = st_slurp(args);
  ST_CHECKF(joined && strstr(joined, "\"shard\": {\"index\": 0, \"total\": 1, \"run_id\": \"R7\"}") &&
                strstr(joined, "\"run_id\": \"R7/gpu1\"}"),
            "%s", joined ? joined : "(no d.json)");
  free(joined);
  perf__store *s = open_at(path);
  if (!s) return;
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), 2);
  ST_EQ(number(s, "SELECT count(DISTINCT gpu) FROM perfgate_runs"), 1);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE run_key IN ('R7/gpu0', 'R7/gpu1')"), 2);
  perf__store_close(s);
  commit_report_says(path, "c1", 125, ": 2 runs, 0 failed tests"); /* both GPUs' runs count; nothing earlier */
  snprintf(args, sizeof args, "--history='%s' --run-id=R7 --merge=%s/o.json", path, dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "run 'R7' is not in the history") &&
                strstr(run.out, "each GPU's run as its own run id: e.g. 'R7/gpu0'"), "%s", run.out);
  st_run_free(&run);
  /* A shard with no run id is recorded, with a word that the history
   * cannot group it with its other shards. */
  snprintf(args, sizeof args, "--history='%s' --commit=c2 --filter=host.truth", path);
  st_exec(&run, "env -u PERFGATE_RUN_ID -u SLURM_ARRAY_JOB_ID -u SLURM_JOB_ID -u GITHUB_RUN_ID -u CI_PIPELINE_ID "
                "-u BUILDKITE_BUILD_ID GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=0 ", args);
  ST_CHECKF(run.status == 0 && strstr(run.out, "shard 0 of 2 (from 0) has no run id") &&
                strstr(run.out, "perfgate: recorded run"), "%s", run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* Shard k of 2 of the fixture's host.truth under the environment's run
 * id (var=value, as the shell reads it), recorded into dir/h.db, its
 * --json report dir/NAME.json. Returns the exit status; *out (may be
 * NULL) its output (st_run_free it). */
static int env_shard(const char *dir, int k, const char *var, const char *value, const char *name,
                     const char *extra, st_run *out)
{
  char env[900], args[600];
  st_run run;
  snprintf(env, sizeof env, NO_CI NO_RUN_ID "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d %s=%s ", k, var, value);
  snprintf(args, sizeof args, "--filter=host.truth --commit=c1 --history='%s/h.db' --json='%s/%s.json' %s", dir,
           dir, name, extra);
  st_exec(&run, env, args);
  int status = run.status;
  if (out) *out = run;
  else st_run_free(&run);
  return status;
}

/* Issue 48: a run id from the environment follows --run-id's rule. Ids
 * that share their first 95 bytes are two runs, kept whole (the files do
 * not merge as one, the history merges neither as whole); a 100-byte id
 * is recorded as it is and merged from the history by it; a trailing
 * space, a newline, invalid UTF-8 and 121 bytes are refused before
 * anything runs, naming the variable (exit 2, no report, nothing
 * recorded); with --devices, the id with "/gpuK" after it must keep the
 * rule too. */
ST_TEST(history_run_ids_from_the_environment_follow_the_label_rule)
{
  char dir[64], p95[96], id[160], args[1400], path[200];
  if (!temp_dir(dir, sizeof dir)) return;
  memset(p95, 'p', 95), p95[95] = '\0';
  for (int k = 0; k < 2; k++) {
    snprintf(id, sizeof id, "%sRUN%d", p95, k + 1);
    ST_EQ(env_shard(dir, k, "PERFGATE_RUN_ID", id, k ? "s1" : "s0", "", NULL), 0);
  }
  snprintf(args, sizeof args, "--merge='%s/o.json' '%s/s0.json' '%s/s1.json'", dir, dir, dir);
  st_run run;
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "RUN1' and ") && strstr(run.out, "RUN2': the shards of one run only"),
            "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  snprintf(args, sizeof args, "--history='%s/h.db' --run-id=%sRUN1 --merge='%s/o.json'", dir, p95, dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "shard 1 of 2 (from 0) of run 'pppp") &&
                strstr(run.out, "RUN1' is not in the history"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  /* 100 bytes: whole, in the reports and the history */
  memset(id, 'r', 100), id[100] = '\0';
  for (int k = 0; k < 2; k++) ST_EQ(env_shard(dir, k, "GITHUB_RUN_ID", id, k ? "l1" : "l0", "", NULL), 0);
  snprintf(args, sizeof args, "--history='%s/h.db' --run-id=%s --merge='%s/l.json'", dir, id, dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 0 && strstr(run.out, "perfgate: merged 2 reports"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  snprintf(path, sizeof path, "%s/h.db", dir);
  perf__store *s = open_at(path);
  if (s) {
    char sql[400];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM perfgate_runs WHERE run_key = '%s'", id);
    ST_EQ(number(s, sql), 2);
    ST_EQ(number(s, "SELECT count(DISTINCT run_key) FROM perfgate_runs"), 3);
    perf__store_close(s);
  }
  /* a report an older perfgate wrote with such an id: refused by --merge too */
  snprintf(args, sizeof args, "for k in 0 1; do sed 's/\"run_id\": \"r*\"/\"run_id\": \"run-7 \"/' '%s/l'$k.json > "
           "'%s/m'$k.json; done", dir, dir);
  ST_EQ(st_shell(args), 0);
  snprintf(args, sizeof args, "--merge='%s/m.json' '%s/m0.json' '%s/m1.json'", dir, dir, dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "m0.json: its run id (run.shard.run_id): a space at its start or end: "
                                               "'run-7 '"), "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  /* refused, each naming its variable: nothing run, no report, nothing recorded */
  static const struct {
    const char *var, *value, *says;
  } bad[] = {
      {"PERFGATE_RUN_ID", "'run-7 '", "PERFGATE_RUN_ID (the run id; --run-id=ID overrides it): a space at its start "
                                      "or end: 'run-7 '"},
      {"CI_PIPELINE_ID", "\"$(printf 'run\\n7')\"", "CI_PIPELINE_ID (the run id; --run-id=ID overrides it): a "
                                                    "control character: 'run\\n7'"},
      {"BUILDKITE_BUILD_ID", "\"$(printf 'run\\3777')\"", "BUILDKITE_BUILD_ID (the run id; --run-id=ID overrides "
                                                        "it): not valid UTF-8: 'run\\xff7'"},
      {"GITHUB_RUN_ID", "$(printf 'g%.0s' $(seq 121))", "GITHUB_RUN_ID (the run id; --run-id=ID overrides it): 121 "
                                                       "bytes, more than the 120 a label may have"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char fresh[64];
    if (!temp_dir(fresh, sizeof fresh)) break;
    int status = env_shard(fresh, 0, bad[i].var, bad[i].value, "b", "", &run);
    char line[400];
    ST_CHECKF(status == 2 && strstr(run.out, bad[i].says) && !strstr(run.out, "perfgate: 1 test") &&
                  !strstr(run.out, "recorded run") && !strstr(st_last_line(&run, line, sizeof line), "passed"),
              "case %zu: exit %d: %s", i, status, run.out);
    st_run_free(&run);
    snprintf(path, sizeof path, "%s/h.db", fresh);
    ST_CHECKF(access(path, F_OK) != 0, "case %zu: the history was created", i);
    snprintf(path, sizeof path, "%s/b.json", fresh);
    ST_CHECKF(access(path, F_OK) != 0, "case %zu: a report was written", i);
    st_rmtree(fresh);
  }
  /* --devices: 118 bytes and "/gpu1" are 123, past the rule */
  char fresh[64];
  if (temp_dir(fresh, sizeof fresh)) {
    memset(id, 'd', 118), id[118] = '\0';
    snprintf(args, sizeof args, "--devices=0,1 --filter=host.truth --commit=c1 --history='%s/h.db'", fresh);
    char env[800];
    snprintf(env, sizeof env, NO_CI NO_RUN_ID "PERFGATE_RUN_ID=%s ", id);
    st_exec(&run, env, args);
    ST_CHECKF(run.status == 2 && strstr(run.out, "PERFGATE_RUN_ID with --devices (each GPU's run is recorded under "
                                                 "the run id and /gpuK: '.../gpu0'): 123 bytes, more than the 120") &&
                  !strstr(run.out, "perfgate: 1 test"), "exit %d: %s", run.status, run.out);
    st_run_free(&run);
    snprintf(path, sizeof path, "%s/h.db", fresh);
    ST_CHECKF(access(path, F_OK) != 0, "--devices: the history was created");
    st_rmtree(fresh);
  }
  st_rmtree(dir);
}

/* Shards of one run id recorded as they ran, then merged with --history:
 * the merged run is not recorded again (a run counts once); shards of two
 * run ids are not merged (exit 2, naming both). */
ST_TEST(history_merge_of_recorded_shards_counts_the_run_once)
{
  char dir[64], args[900];
  if (!temp_dir(dir, sizeof dir)) return;
  for (int i = 0; i < 3; i++) {
    st_run run;
    char env[400];
    snprintf(env, sizeof env, NO_CI "GTEST_TOTAL_SHARDS=2 GTEST_SHARD_INDEX=%d PERFGATE_RUN_ID=%s ",
             i % 2, i < 2 ? "r1" : "r2");
    snprintf(args, sizeof args, "--filter='host.four_x_work_is_2x_faster:host.aa_similar' "
             "--budget=0.2 --commit=m1 --json='%s/s%d.json' %s%s%s", dir, i,
             i < 2 ? "--history='" : "", i < 2 ? dir : "", i < 2 ? "/h.db'" : "");
    st_exec(&run, env, args);
    ST_CHECKF((run.status == 0 || run.status == 1) && strstr(run.out, "from GoogleTest's"),
              "shard %d: %s", i, run.out);
    st_run_free(&run);
  }
  st_run run;
  snprintf(args, sizeof args, "--history='%s/h.db' --merge='%s/all.json' '%s/s0.json' '%s/s1.json'",
           dir, dir, dir, dir);
  st_exec(&run, "", args);
  ST_CHECKF((run.status == 0 || run.status == 1) &&
                strstr(run.out, "run 'r1' is in ") && strstr(run.out, " shard by shard already: the merged run is "
                                                                       "not recorded again"),
            "%s", run.out);
  st_run_free(&run);
  /* Merged into a history that holds no shard of it: recorded once; the
   * same merge again is not recorded twice. */
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof args, "--history='%s/m.db' --merge='%s/all.json' '%s/s0.json' '%s/s1.json'",
             dir, dir, dir, dir);
    st_exec(&run, "", args);
    ST_CHECKF(!k ? strstr(run.out, "perfgate: recorded run 1 ") != NULL
                 : strstr(run.out, "run 'r1' is in ") && strstr(run.out, " as one merged run already"),
              "merge %d: %s", k, run.out);
    st_run_free(&run);
  }
  snprintf(args, sizeof args, "%s/h.db", dir);
  perf__store *s = open_at(args);
  if (s) {
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), 2);
    ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE run_key = 'r1' AND shard_total = 2"), 2);
    perf__store_close(s);
  }
  char *merged_doc = NULL;
  snprintf(args, sizeof args, "%s/all.json", dir);
  merged_doc = st_slurp(args);
  ST_CHECKF(merged_doc && strstr(merged_doc, "\"run_id\": \"r1\""), "the merged run keeps its id");
  free(merged_doc);
  snprintf(args, sizeof args, "--merge='%s/x.json' '%s/s2.json' '%s/s1.json'", dir, dir, dir);
  st_exec(&run, "", args);
  ST_CHECKF(run.status == 2 && strstr(run.out, "of run 'r1'") && strstr(run.out, "of run 'r2'"),
            "exit %d: %s", run.status, run.out);
  st_run_free(&run);
  st_rmtree(dir);
}

/* ---- --merge from the history (schema 6) --------------------------------- */

/* The fixture's shard k of total of run id, recorded into where, its
 * --json report at dir/NAME.json; extra: more options. */
static void shard_run(const char *where, const char *dir, int k, int total, const char *id,
                      const char *name, const char *extra)
{
  st_run run;
  char env[400], args[1400];
  snprintf(env, sizeof env, NO_CI "GTEST_TOTAL_SHARDS=%d GTEST_SHARD_INDEX=%d ", total, k);
  snprintf(args, sizeof args, "--filter='host.four_x_work_is_2x_faster:host.aa_similar:host.truth' "
           "--budget=0.2 --commit=m1 --run-id=%s --history='%s' --json='%s/%s.json' %s", id, where, dir,
           name, extra);
  st_exec(&run, env, args);
  ST_CHECKF((run.status == 0 || run.status == 1) && strstr(run.out, "perfgate: recorded run"),
            "shard %d: exit %d: %s", k, run.status, run.out);
  st_run_free(&run);
}

/* The fixture with args; its exit status must be status and its output
 * hold want (NULL: anything). Returns the exit status. */
static int merge_says(const char *args, int status, const char *want)
{
  st_run run;
  st_exec(&run, "", args);
  int got = run.status;
  ST_CHECKF(got == status && (!want || strstr(run.out, want)), "%s: exit %d: %s", args, got, run.out);
  st_run_free(&run);
  return got;
}

/* Three shards of run r3 recorded as they ran, shard 1 twice (--seed=7,
 * then --seed=8: the later attempt counts). Merged from the history by
 * run id, the report is byte for byte the merge of the shards' --json
 * files (nothing in it differs: each shard's document is its --json
 * report as written), its page drawn with --html; nothing is recorded. */
static void merge_from_history(const char *where, const char *dir)
{
  char args[1400], path[200];
  shard_run(where, dir, 1, 3, "r3", "first1", "--seed=7");
  for (int k = 0; k < 3; k++) {
    char name[16];
    snprintf(name, sizeof name, "s%d", k);
    shard_run(where, dir, k, 3, "r3", name, "--seed=8");
  }
  snprintf(args, sizeof args, "--html='%s/h.html' --history='%s' --run-id=r3 --merge='%s/h.json'", dir,
           where, dir);
  st_run run;
  st_exec(&run, "", args);
  int code = run.status;
  ST_CHECKF((code == 0 || code == 1) && strstr(run.out, "perfgate: merged 3 reports") &&
                !strstr(run.out, "recorded"), "exit %d: %s", code, run.out);
  st_run_free(&run);
  snprintf(args, sizeof args, "--merge='%s/f.json' '%s/s0.json' '%s/s1.json' '%s/s2.json'", dir, dir, dir,
           dir);
  merge_says(args, code, "perfgate: merged 3 reports");
  snprintf(path, sizeof path, "%s/h.json", dir);
  char *h = st_slurp(path);
  snprintf(path, sizeof path, "%s/f.json", dir);
  char *f = st_slurp(path);
  ST_CHECKF(h && f && !strcmp(h, f), "the merge from the history is not the files' merge:\n%s\n---\n%s",
            h ? h : "(none)", f ? f : "(none)");
  ST_CHECKF(h && strstr(h, "\"--seed=8\"") && !strstr(h, "\"--seed=7\""), "not shard 1's last attempt");
  free(h);
  free(f);
  snprintf(path, sizeof path, "%s/h.html", dir);
  char *page = st_slurp(path);
  ST_CHECKF(page && strstr(page, "host.four_x_work_is_2x_faster"), "no page drawn");
  free(page);
  perf__store *s = open_at(where);
  if (!s) return;
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs"), 4);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_reports"), 4);
  perf__store_close(s);
}

ST_TEST(history_sqlite_merge_from_the_history_is_the_merge_of_the_shards_files)
{
  on_sqlite(merge_from_history);
}

ST_TEST(history_postgres_merge_from_the_history_is_the_merge_of_the_shards_files)
{
  on_postgres(merge_from_history);
}

/* A merge from the history refused, exit 2 and no report written: a
 * shard missing (named), two missing, a run id the history lacks, shards of
 * one run id at two commits, a run of one shard (nothing to merge), a run
 * whose shards ran on two GPUs (named, with their shards) and a --gpu
 * that has none of them; --gpu picks one GPU's shards. */
static void merge_from_history_refused(const char *where, const char *dir)
{
  perf__store *s = open_at(where);
  if (!s) return;
  static const char *const shards[] = {"{\"index\": 0, \"total\": 4, \"run_id\": \"r4\"}",
                                       "{\"index\": 1, \"total\": 4, \"run_id\": \"r4\"}",
                                       "{\"index\": 3, \"total\": 4, \"run_id\": \"r4\"}",
                                       "{\"index\": 0, \"total\": 3, \"run_id\": \"r6\"}",
                                       "{\"index\": 0, \"total\": 1, \"run_id\": \"r1\"}"};
  for (int k = 0; k < 5; k++) record_of(s, "c1", "GPU-A", k, 1e-3, 5e-3, shards[k], 0);
  record_of(s, "c1", "GPU-A", 5, 1e-3, 5e-3, "{\"index\": 0, \"total\": 2, \"run_id\": \"r2\"}", 0);
  record_of(s, "c9", "GPU-A", 6, 1e-3, 5e-3, "{\"index\": 1, \"total\": 2, \"run_id\": \"r2\"}", 0);
  for (int k = 0; k < 4; k++) {
    char shard[80];
    snprintf(shard, sizeof shard, "{\"index\": %d, \"total\": 2, \"run_id\": \"r5\"}", k % 2);
    record_of(s, "c2", k < 2 ? "GPU-A" : "GPU-B", 10 + k, 1e-3, 5e-3, shard, 0);
  }
  perf__store_close(s);
  static const struct {
    const char *opts, *want;
  } bad[] = {
      {"--run-id=r4", "--merge: shard 2 of 4 (from 0) of run 'r4' is not in the history "},
      {"--run-id=r6", "--merge: shards 1 and 2 of 3 (from 0) of run 'r6' are not in the history "},
      {"--run-id=nope", "--merge: run 'nope' is not in the history "},
      {"--run-id=r2", " has shards of two commits (shard 0 at c1, shard 1 at c9): two runs were given one run id"},
      {"--run-id=r1", "--merge: run 'r1' in "},
      {"--run-id=r1", " is one run, not shards: there is nothing to merge (its --json report is the run's report)"},
      {"--run-id=r5", ": 'GPU-A' (2 shards), 'GPU-B' (2 shards); pick one with --gpu=NAME"},
      {"--run-id=r5 --gpu=GPU-C", "run 'r5' has no shard on GPU 'GPU-C' in "},
  };
  char args[1400], path[200];
  snprintf(path, sizeof path, "%s/o.json", dir);
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    snprintf(args, sizeof args, "--history='%s' %s --merge='%s'", where, bad[k].opts, path);
    merge_says(args, 2, bad[k].want);
    ST_CHECKF(access(path, F_OK) != 0, "%s: a report was written", bad[k].opts);
  }
  snprintf(args, sizeof args, "--history='%s' --run-id=r5 --gpu=GPU-C --merge='%s'", where, path);
  merge_says(args, 2, "; it ran on 'GPU-A' (2 shards), 'GPU-B' (2 shards)");
  snprintf(args, sizeof args, "--history='%s' --run-id=r5 --gpu=GPU-B --merge='%s'", where, path);
  merge_says(args, 0, "perfgate: merged 2 reports");
  char *m = st_slurp(path);
  ST_CHECKF(m && strstr(m, "\"name\": \"GPU-B\"") && !strstr(m, "GPU-A"), "%s", m ? m : "(none)");
  free(m);
}

ST_TEST(history_sqlite_merge_from_the_history_names_what_is_missing)
{
  on_sqlite(merge_from_history_refused);
}

ST_TEST(history_postgres_merge_from_the_history_names_what_is_missing)
{
  on_postgres(merge_from_history_refused);
}

/* A shard as perfgate recorded it at schema 5 (no document). */
#define SCHEMA_5_SHARD(index)                                                                      \
  "INSERT INTO perfgate_runs (started, recorded, commit_id, commit_from, gpu, host,"               \
  " host_fingerprint, origin, exit_code, tests, passed, failed, skipped, claims, workloads,"       \
  " run_key, shard_index, shard_total) VALUES ('2026-11-01T00:00:00Z', 'x', 'old', 'test', 'GPU',"  \
  " 'h', '{}', 'run', 0, 1, 1, 0, 0, 0, 0, 'r-old', " #index ", 2)"

static int text_dup_row(void *ctx, int n, const char *const *v)
{
  free(*(char **)ctx);
  *(char **)ctx = n > 0 && v[0] ? strdup(v[0]) : NULL;
  return 0;
}

/* A schema-5 store's shards (no documents): a merge from the history
 * refuses them, naming them and the --json files to merge instead, and
 * reads only (the store stays at version 5, unchanged); migrated to
 * version 6 they stay, with no document, and the merge says the same; a
 * run recorded then keeps its document as written. */
static void schema_5_shards(const char *where, const char *dir)
{
  char err[600], args[1400], cmd[600], before[PG_STATE] = "", after[PG_STATE] = "";
  int pg = perf__connect_is_postgres(where);
  perf__store *s = NULL;
  ST_EQ(perf__connect_open(where, 1, &s, err, sizeof err), 0);
  if (!s) return;
  ST_EQ(perf__schema_migrate(s, 5, err, sizeof err), 0);
  ST_EQ(exec_sql(s, SCHEMA_5_SHARD(0), err, sizeof err), 0);
  ST_EQ(exec_sql(s, SCHEMA_5_SHARD(1), err, sizeof err), 0);
  if (pg) pg_state(s, before);
  perf__store_close(s);
  if (!pg) snprintf(cmd, sizeof cmd, "cp '%s' '%s/before.db'", where, dir), ST_EQ(st_shell(cmd), 0);
  const char *want = "--merge: shards 0, 1 of run 'r-old' in ";
  const char *instead = "were recorded before history schema 6, without their report: merge the "
                        "shards' --json files instead";
  snprintf(args, sizeof args, "--history='%s' --run-id=r-old --merge='%s/o.json'", where, dir);
  merge_says(args, 2, want);
  merge_says(args, 2, instead);
  if (pg && (s = open_at_unchecked(where))) pg_state(s, after), perf__store_close(s);
  if (pg) ST_CHECKF(!strcmp(before, after), "changed: %s -> %s", before, after);
  if (!pg) snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s/before.db'", where, dir);
  if (!pg) ST_CHECKF(st_shell(cmd) == 0, "the file changed");
  if (!(s = open_at(where))) return; /* migrated to the current version */
  int v = 0;
  ST_EQ(perf__schema_version(s, &v, err, sizeof err), 0);
  ST_EQ(v, PERF__SCHEMA_VERSION);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_runs WHERE run_key = 'r-old'"), 2);
  ST_EQ(number(s, "SELECT count(*) FROM perfgate_reports"), 0);
  perf__store_close(s);
  merge_says(args, 2, instead);
  if (!(s = open_at(where))) return;
  perf__provenance p = {"c6", "--commit", "main"};
  perf__jsontree_node *d = doc_of("GPU", 1, 1e-3, 2e-3, "{\"index\": 0, \"total\": 2, \"run_id\": \"r-new\"}", 0);
  perf__json j = {0};
  long long id = 0;
  char sql[120], *kept = NULL;
  if (d) perf__jsontree_write(&j, d);
  const perf__record_in run = {.report = d, .text = j.s, .p = &p, .origin = "run"};
  ST_CHECKF(d && !j.oom && perf__record_run(s, &run, &id, err, sizeof err) == 0, "%s", err);
  snprintf(sql, sizeof sql, "SELECT document FROM perfgate_reports WHERE run_id = %lld", id);
  ST_EQ(perf__store_exec(s, &(perf__store_stmt){.sql = sql, .on_row = text_dup_row, .ctx = &kept}, err,
                         sizeof err), 0);
  ST_CHECKF(kept && j.s && !strcmp(kept, j.s), "kept: %s", kept ? kept : "(none)");
  free(kept);
  perf__json_free(&j);
  perf__jsontree_free(d);
  perf__store_close(s);
}

ST_TEST(history_sqlite_shards_of_schema_5_migrate_and_merge_from_their_files)
{
  on_sqlite(schema_5_shards);
}

ST_TEST(history_postgres_shards_of_schema_5_migrate_and_merge_from_their_files)
{
  on_postgres(schema_5_shards);
}
