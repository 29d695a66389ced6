/* schema.c — the history's tables, versioned: one migration step per version, one transaction. */
/* A version is never a silent rewrite. */
#include "history/schema.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

/* Step k brings version k-1 to k. A released step never changes: a new
 * version is a new step. */
static const char *const steps[PERF__SCHEMA_VERSION] = {
    /* 1: runs, with every claim and every measured workload of each. */
    "CREATE TABLE perfgate_schema (version INTEGER NOT NULL);"
    "INSERT INTO perfgate_schema (version) VALUES (0);"
    "CREATE TABLE perfgate_runs ("
    " id @ID@, started TEXT NOT NULL, recorded TEXT NOT NULL,"
    " commit_id TEXT NOT NULL, commit_from TEXT NOT NULL, branch TEXT,"
    " gpu TEXT NOT NULL, gpu_fingerprint TEXT, driver TEXT,"
    " host TEXT NOT NULL, host_fingerprint TEXT NOT NULL,"
    " origin TEXT NOT NULL, exit_code INTEGER NOT NULL,"
    " tests INTEGER NOT NULL, passed INTEGER NOT NULL, failed INTEGER NOT NULL,"
    " skipped INTEGER NOT NULL, claims INTEGER NOT NULL, workloads INTEGER NOT NULL,"
    " argv TEXT);"
    "CREATE TABLE perfgate_claims ("
    " run_id BIGINT NOT NULL REFERENCES perfgate_runs (id), seq INTEGER NOT NULL,"
    " test TEXT NOT NULL, kind TEXT NOT NULL, outcome TEXT NOT NULL, message TEXT NOT NULL,"
    " clock TEXT, threshold DOUBLE PRECISION, ratio DOUBLE PRECISION,"
    " ratio_lo DOUBLE PRECISION, ratio_hi DOUBLE PRECISION, confidence DOUBLE PRECISION,"
    " a TEXT, b TEXT, sweep_param TEXT, sweep_value BIGINT,"
    " crossover DOUBLE PRECISION, crossover_lo DOUBLE PRECISION, crossover_hi DOUBLE PRECISION,"
    " PRIMARY KEY (run_id, seq));"
    "CREATE TABLE perfgate_workloads ("
    " run_id BIGINT NOT NULL REFERENCES perfgate_runs (id), claim_seq INTEGER NOT NULL,"
    " point INTEGER NOT NULL, role TEXT NOT NULL, test TEXT NOT NULL, workload TEXT NOT NULL,"
    " clock TEXT NOT NULL, sweep_param TEXT, sweep_value BIGINT,"
    " median_s DOUBLE PRECISION, median_lo_s DOUBLE PRECISION, median_hi_s DOUBLE PRECISION,"
    " samples INTEGER NOT NULL, iterations_per_sample BIGINT,"
    " PRIMARY KEY (run_id, claim_seq, point, role));",
    /* 2: the indexes --trend reads by. */
    "CREATE INDEX perfgate_runs_gpu ON perfgate_runs (gpu, started);"
    "CREATE INDEX perfgate_claims_test ON perfgate_claims (test);"
    "CREATE INDEX perfgate_workloads_test ON perfgate_workloads (test);",
    /* 3: which perfgate recorded each run (its report's run.perfgate). */
    "ALTER TABLE perfgate_runs ADD COLUMN perfgate TEXT;",
    /* 4: the runner before the run (the report's "preflight" array, as
     * JSON) and what made it unfit ("" fit; NULL: not taken). */
    "ALTER TABLE perfgate_runs ADD COLUMN preflight TEXT;"
    "ALTER TABLE perfgate_runs ADD COLUMN unfit TEXT;",
    /* 5: the run a shard belongs to (the engine's run id, NULL: none) and
     * the shard it is, so that a run spans shards and machines, and a
     * retried shard's last attempt is the one that counts. */
    "ALTER TABLE perfgate_runs ADD COLUMN run_key TEXT;"
    "ALTER TABLE perfgate_runs ADD COLUMN shard_index INTEGER;"
    "ALTER TABLE perfgate_runs ADD COLUMN shard_total INTEGER;"
    "CREATE INDEX perfgate_runs_commit ON perfgate_runs (commit_id, gpu);"
    "CREATE INDEX perfgate_runs_shard ON perfgate_runs (run_key, gpu, shard_index);",
    /* 6: each run's report document (perfgate-report/1, as --json writes
     * it), so that a run's shards merge from the history exactly as from
     * their --json files. */
    "CREATE TABLE perfgate_reports ("
    " run_id BIGINT PRIMARY KEY REFERENCES perfgate_runs (id) ON DELETE CASCADE,"
    " document TEXT NOT NULL);",
    /* 7: what each workload declared one iteration moves and computes
     * (NULL: nothing), so that a series gives throughput beside time, and
     * what the GPU did for one iteration (baseline/trace.h's JSON; NULL: not
     * traced), so that a change point can say what changed. */
    "ALTER TABLE perfgate_workloads ADD COLUMN bytes_read DOUBLE PRECISION;"
    "ALTER TABLE perfgate_workloads ADD COLUMN bytes_written DOUBLE PRECISION;"
    "ALTER TABLE perfgate_workloads ADD COLUMN flops DOUBLE PRECISION;"
    "ALTER TABLE perfgate_workloads ADD COLUMN flop_type TEXT;"
    "ALTER TABLE perfgate_workloads ADD COLUMN trace TEXT;",
};

static int count_row(void *ctx, int n, const char *const *v)
{
  *(long *)ctx = n > 0 && v[0] ? strtol(v[0], NULL, 10) : 0;
  return 0;
}

/* How many tables named name (NULL: any but SQLite's own) the store has. */
static int tables(perf__store *s, const char *name, long *count, char *err, size_t len)
{
  const char *sql = s->kind == PERF__STORE_SQLITE
      ? (name ? "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1"
              : "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      : "SELECT count(*) FROM information_schema.tables WHERE table_name = $1"
        " AND table_schema = current_schema()";
  perf__store_value p = perf__store_text(name ? name : "");
  *count = 0;
  const perf__store_stmt q = {.sql = sql, .param = &p,
                              .nparam = name || s->kind != PERF__STORE_SQLITE ? 1 : 0,
                              .on_row = count_row, .ctx = count};
  return perf__store_exec(s, &q, err, len);
}

/* Whether the store has the index name, or the column name of table
 * (table NULL: an index), into *count (0 or 1), from the catalog: a query
 * that cannot fail, as a failed one would end a PostgreSQL transaction. */
static int has_object(perf__store *s, const char *table, const char *name, long *count, char *err,
                      size_t len)
{
  static const char *const sql[2][2] = {
      {"SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = $1",
       "SELECT count(*) FROM pragma_table_info($2) WHERE name = $1"},
      {"SELECT count(*) FROM pg_indexes WHERE indexname = $1 AND schemaname = current_schema()",
       "SELECT count(*) FROM information_schema.columns WHERE column_name = $1 AND table_name = $2"
       " AND table_schema = current_schema()"}};
  perf__store_value p[] = {perf__store_text(name), perf__store_text(table)};
  *count = 0;
  const perf__store_stmt q = {.sql = sql[s->kind == PERF__STORE_POSTGRES][table != NULL], .param = p,
                              .nparam = table ? 2 : 1, .on_row = count_row, .ctx = count};
  return perf__store_exec(s, &q, err, len);
}

/* What perfgate_schema holds: its rows, and the first one's version. */
typedef struct versions {
  long rows;
  char first[32];
  int null, disagree;
} versions;

static int version_row(void *ctx, int n, const char *const *v)
{
  versions *x = ctx;
  const char *t = n > 0 ? v[0] : NULL;
  if (!x->rows++) x->null = !t, snprintf(x->first, sizeof x->first, "%s", t ? t : "");
  else if (!t || x->null || strcmp(t, x->first)) x->disagree = 1;
  return 0;
}

/* Always fails: a store this perfgate does not write, named with what is
 * wrong (why, then its arguments) and the remedy. */
static int refuse(const perf__store *s, char *err, size_t len, const char *why, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(const perf__store *s, char *err, size_t len, const char *why, ...)
{
  va_list ap;
  int u = snprintf(err, len, "%s: ", s->where);
  va_start(ap, why);
  if (u > 0 && (size_t)u < len) u += vsnprintf(err + u, len - (size_t)u, why, ap);
  va_end(ap);
  if (u > 0 && (size_t)u < len)
    snprintf(err + u, len - (size_t)u, ": refused and left unchanged (restore it from a backup, "
                                       "or record into a new history)");
  return PERF__EINVAL;
}

/* The version perfgate_schema holds into *v: one row, an integer from 1
 * on. Returns 0, PERF__EINVAL naming what is wrong, or the store's error. */
static int read_version(perf__store *s, int *v, char *err, size_t len)
{
  versions x = {0};
  const perf__store_stmt q = {.sql = "SELECT version FROM perfgate_schema", .on_row = version_row, .ctx = &x};
  int rc = perf__store_exec(s, &q, err, len);
  if (rc) return rc;
  if (!x.rows) return refuse(s, err, len, "perfgate_schema is empty (it holds the schema version)");
  if (x.rows > 1)
    return refuse(s, err, len, "perfgate_schema has %ld rows%s (it holds one: the schema version)",
                  x.rows, x.disagree ? " that disagree" : "");
  char *end;
  errno = 0;
  long n = x.null ? 0 : strtol(x.first, &end, 10);
  if (x.null || !x.first[0] || *end || errno)
    return refuse(s, err, len, "perfgate_schema's version is %s%s%s, not a whole number",
                  x.null ? "NULL" : "'", x.null ? "" : x.first, x.null ? "" : "'");
  if (n < 1)
    return refuse(s, err, len, "perfgate_schema's version is %ld, which no perfgate writes (they "
                               "start at 1)", n);
  if (n > PERF__SCHEMA_VERSION)
    return snprintf(err, len, "%s: written by a newer perfgate (history schema %ld; this one knows "
                              "up to %d): left unchanged (read and record it with that perfgate or "
                              "a later one)", s->where, n, PERF__SCHEMA_VERSION), PERF__EINVAL;
  *v = (int)n;
  return 0;
}

/* The columns the definitions of a CREATE TABLE name (q at its '('),
 * as "a, b", into out[len]: the first word of each definition that is
 * not a constraint. Never fails. */
static void columns_of(const char *q, char *out, size_t len)
{
  size_t u = 0;
  int depth = 0, start = 0;
  out[0] = '\0';
  for (; *q && u < len && !(*q == ')' && depth == 1); q++) {
    if (*q == '(' || *q == ')') {
      start = depth == 0 && *q == '(';
      depth += *q == '(' ? 1 : -1;
    } else if (depth == 1 && *q == ',') start = 1;
    else if (depth == 1 && start && *q != ' ') {
      int w = (int)strcspn(q, " ,)");
      if (strncmp(q, "PRIMARY ", 8) && strncmp(q, "FOREIGN ", 8) && strncmp(q, "UNIQUE", 6))
        u += (size_t)snprintf(out + u, len - u, "%s%.*s", u ? ", " : "", w, q);
      start = 0;
    }
  }
}

/* One object a step creates: a table (with its columns, "a, b"), a
 * column added to a table, or an index. */
typedef struct object {
  enum { TABLE, COLUMN, INDEX } kind;
  int version; /* the step that creates it */
  char table[64], name[64], columns[1200];
} object;

/* The object the statement st of step k creates into *o. Returns 1, or 0
 * for a statement that creates none. Never fails. */
static int object_of(const char *st, int k, object *o)
{
  static const struct {
    const char *head;
    int kind;
  } forms[] = {{"CREATE TABLE ", TABLE}, {"ALTER TABLE ", COLUMN}, {"CREATE INDEX ", INDEX}};
  for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
    size_t h = strlen(forms[f].head);
    if (strncmp(st, forms[f].head, h)) continue;
    const char *name = st + h, *add = strstr(st, " ADD COLUMN ");
    o->kind = forms[f].kind;
    o->version = k + 1;
    o->columns[0] = '\0';
    snprintf(o->table, sizeof o->table, "%.*s", (int)strcspn(name, " ("), name);
    snprintf(o->name, sizeof o->name, "%s", o->table);
    if (o->kind == TABLE) columns_of(name + strcspn(name, "("), o->columns, sizeof o->columns);
    if (o->kind == COLUMN && add) snprintf(o->name, sizeof o->name, "%.*s", (int)strcspn(add + 12, " ;"), add + 12);
    if (o->kind == INDEX) o->table[0] = '\0';
    return o->kind != COLUMN || add;
  }
  return 0;
}

/* Calls fn(ctx, object) for each table, column and index that steps[from
 * .. to) create, in order. Returns 0 or fn's first non-zero value. */
static int each_object(int from, int to, int (*fn)(void *ctx, const object *o), void *ctx)
{
  for (int k = from; k < to; k++)
    for (const char *st = steps[k]; *st; st += strcspn(st, ";"), st += *st == ';') {
      object o;
      int rc = object_of(st, k, &o) ? fn(ctx, &o) : 0;
      if (rc) return rc;
    }
  return 0;
}

/* A store being checked against the tables of its version. */
typedef struct layout {
  perf__store *s;
  int v, later; /* its version; the latest whose object it has */
  char *err;
  size_t len;
} layout;

/* Refuses a store at l's version without a table of it or one of its
 * columns (indexes are not checked: without one, --trend is slower).
 * Returns 0, PERF__EINVAL naming what is missing, or the store's error. */
static int has_table(void *ctx, const object *o)
{
  layout *l = ctx;
  long n = 0;
  char sql[1400];
  if (o->kind == INDEX) return 0;
  int rc = tables(l->s, o->table, &n, l->err, l->len);
  if (rc) return rc;
  if (!n) return refuse(l->s, l->err, l->len, "schema version %d without its table %s", l->v, o->table);
  snprintf(sql, sizeof sql, "SELECT %s FROM %s WHERE 1 = 0", o->kind == TABLE ? o->columns : o->name, o->table);
  if (!perf__store_exec(l->s, &(perf__store_stmt){.sql = sql}, l->err, l->len)) return 0;
  char why[400];
  size_t at = strlen(l->s->where) + 2;
  snprintf(why, sizeof why, "%s", strlen(l->err) > at ? l->err + at : l->err);
  return refuse(l->s, l->err, l->len, "schema version %d, and its table %s lacks a column (%s)", l->v,
                o->table, why);
}

/* Whether the store has o, into *n (0 or 1). Returns 0 or the store's
 * error. */
static int present(layout *l, const object *o, long *n)
{
  return o->kind == TABLE ? tables(l->s, o->table, n, l->err, l->len)
                          : has_object(l->s, o->kind == COLUMN ? o->table : NULL, o->name, n, l->err, l->len);
}

/* Raises l->later to o's version when the store has o. */
static int latest(void *ctx, const object *o)
{
  layout *l = ctx;
  long n = 0;
  int rc = present(l, o, &n);
  if (!rc && n && o->version > l->later) l->later = o->version;
  return rc;
}

/* Refuses a store at l's version that has an object a later step creates:
 * its version was set back by hand, or left behind by an interrupted
 * migration, and migrating would fail on what exists. Returns 0,
 * PERF__EINVAL naming the object and the latest version the store has an
 * object of, or the store's error. */
static int no_later(void *ctx, const object *o)
{
  layout *l = ctx;
  long n = 0;
  int rc = present(l, o, &n);
  if (rc || !n) return rc;
  l->later = o->version;
  if ((rc = each_object(o->version, PERF__SCHEMA_VERSION, latest, l))) return rc;
  char what[200];
  snprintf(what, sizeof what, "the %s %s%s%s", o->kind == TABLE ? "table" : o->kind == COLUMN ? "column" : "index",
           o->kind == COLUMN ? o->table : "", o->kind == COLUMN ? "." : "", o->name);
  return refuse(l->s, l->err, l->len, "perfgate_schema's version is %d, but %s of version %d exists: the "
                                      "version was set back by hand or a migration was interrupted; if "
                                      "the history holds all of version %d, UPDATE perfgate_schema SET "
                                      "version = %d puts it right",
                l->v, what, o->version, l->later, l->later);
}

/* Refuses a store with one of perfgate's tables and no perfgate_schema. */
static int stray_table(void *ctx, const object *o)
{
  layout *l = ctx;
  long n = 0;
  if (o->kind != TABLE) return 0;
  int rc = tables(l->s, o->table, &n, l->err, l->len);
  if (rc || !n) return rc;
  return refuse(l->s, l->err, l->len, "it has perfgate's table %s and no perfgate_schema (the "
                                      "schema version)", o->table);
}

/* See schema.h. */
int perf__schema_version(perf__store *s, int *v, char *err, size_t len)
{
  long n = 0, other = 0;
  layout l = {s, 0, 0, err, len};
  *v = 0;
  int rc = tables(s, "perfgate_schema", &n, err, len);
  if (!rc && n && !(rc = read_version(s, &l.v, err, len)) && !(rc = each_object(0, l.v, has_table, &l)))
    rc = each_object(l.v, PERF__SCHEMA_VERSION, no_later, &l);
  if (rc || n) return rc ? rc : (*v = l.v, 0);
  if ((rc = each_object(0, PERF__SCHEMA_VERSION, stray_table, &l))) return rc;
  if (s->kind == PERF__STORE_SQLITE && (rc = tables(s, NULL, &other, err, len))) return rc;
  if (other)
    return snprintf(err, len, "%s: not a perfgate history (it has tables, and no perfgate_schema)",
                    s->where), PERF__EINVAL;
  return 0;
}

/* steps[k] with @ID@ written for the store into a malloc'd string. */
static char *ddl(const perf__store *s, const char *step)
{
  const char *id = s->kind == PERF__STORE_SQLITE ? "INTEGER PRIMARY KEY"
                                                 : "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY";
  const char *at = strstr(step, "@ID@");
  size_t n = strlen(step) + strlen(id) + 1;
  char *out = malloc(n);
  if (!out) return NULL;
  if (!at) return memcpy(out, step, strlen(step) + 1);
  snprintf(out, n, "%.*s%s%s", (int)(at - step), step, id, at + 4);
  return out;
}

/* Applies steps from+1 .. to inside the open transaction (0 <= from <=
 * to <= PERF__SCHEMA_VERSION: perf__schema_version refuses any other). */
static int apply(perf__store *s, int from, int to, char *err, size_t len)
{
  if (from < 0 || to > PERF__SCHEMA_VERSION)
    return snprintf(err, len, "%s: no migration from schema %d to %d", s->where, from, to), PERF__EINVAL;
  for (int k = from; k < to; k++) {
    char *sql = ddl(s, steps[k]);
    if (!sql) return snprintf(err, len, "%s: out of memory", s->where), PERF__ENOMEM;
    int rc = perf__store_exec(s, &(perf__store_stmt){.sql = sql}, err, len);
    free(sql);
    perf__store_value v = perf__store_int(k + 1);
    const perf__store_stmt q = {.sql = "UPDATE perfgate_schema SET version = $1", .param = &v, .nparam = 1};
    if (!rc) rc = perf__store_exec(s, &q, err, len);
    if (rc) return rc;
  }
  return 0;
}

/* See schema.h. */
int perf__schema_migrate(perf__store *s, int target, char *err, size_t len)
{
  const perf__store_stmt lock = {.sql = "SELECT pg_advisory_xact_lock(7405519)"};
  int v = 0, rc;
  if (!target) target = PERF__SCHEMA_VERSION;
  /* Without the lock, the tables may be read while another writer's
   * migration commits between two reads: a refusal is looked at again
   * under the lock. Nothing is written to a store before it is known to
   * be perfgate's (or empty). */
  rc = perf__schema_version(s, &v, err, len);
  if (!rc && (rc = perf__store_for_writers(s, err, len))) return rc;
  if (!rc && v == target) return 0;
  if ((rc = perf__store_begin(s, err, len))) return rc;
  if (s->kind == PERF__STORE_POSTGRES) rc = perf__store_exec(s, &lock, err, len);
  if (!rc) rc = perf__schema_version(s, &v, err, len);
  if (!rc && v < target) rc = apply(s, v, target, err, len);
  if (!rc) rc = perf__store_commit(s, err, len);
  if (rc) perf__store_rollback(s);
  return rc;
}

/* See schema.h. */
int perf__schema_writable(perf__store *s, char *err, size_t len)
{
  const perf__store_stmt touch = {.sql = "UPDATE perfgate_runs SET claims = claims WHERE id < 0"};
  int rc = perf__store_begin(s, err, len);
  if (!rc) rc = perf__store_exec(s, &touch, err, len);
  perf__store_rollback(s);
  return rc;
}
