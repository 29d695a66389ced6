/* pg.c — the PostgreSQL backend of the history store: libpq, loaded with dlopen when a postgresql:// location is used. */
#define _GNU_SOURCE
#include "history/pg.h"

#include <dlfcn.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "history/secret.h"

enum { MAX_PARAMS = 32, MAX_COLS = 64 };

/* libpq's entry points, typed by its own header. */
static struct {
  int tried;
  char why[300];
  __typeof__(PQconnectdbParams) *connectdbParams;
  __typeof__(PQstatus) *status;
  __typeof__(PQerrorMessage) *errorMessage;
  __typeof__(PQfinish) *finish;
  __typeof__(PQexec) *exec;
  __typeof__(PQexecParams) *execParams;
  __typeof__(PQresultStatus) *resultStatus;
  __typeof__(PQresultErrorMessage) *resultErrorMessage;
  __typeof__(PQntuples) *ntuples;
  __typeof__(PQnfields) *nfields;
  __typeof__(PQgetvalue) *getvalue;
  __typeof__(PQgetisnull) *getisnull;
  __typeof__(PQclear) *clear;
  __typeof__(PQsetNoticeProcessor) *setNoticeProcessor;
} pq;

/* Binds pq from h. Returns 0, or -1 naming the first missing symbol. */
static int bind(void *h)
{
  static const char *const names[] = {
      "PQconnectdbParams", "PQstatus", "PQerrorMessage", "PQfinish", "PQexec",
      "PQexecParams", "PQresultStatus", "PQresultErrorMessage", "PQntuples", "PQnfields",
      "PQgetvalue", "PQgetisnull", "PQclear", "PQsetNoticeProcessor"};
  void **slots[] = {(void **)&pq.connectdbParams, (void **)&pq.status, (void **)&pq.errorMessage,
                    (void **)&pq.finish, (void **)&pq.exec, (void **)&pq.execParams,
                    (void **)&pq.resultStatus, (void **)&pq.resultErrorMessage,
                    (void **)&pq.ntuples, (void **)&pq.nfields, (void **)&pq.getvalue,
                    (void **)&pq.getisnull, (void **)&pq.clear, (void **)&pq.setNoticeProcessor};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (!(*slots[k] = dlsym(h, names[k]))) {
      snprintf(pq.why, sizeof pq.why, "libpq has no %s", names[k]);
      return -1;
    }
  return 0;
}

/* Loads libpq once. Returns 0, or -1 with pq.why set. */
static int load(void)
{
  static const char *const libs[] = {"libpq.so.5", "libpq.so"};
  if (pq.tried) return pq.why[0] ? -1 : 0;
  pq.tried = 1;
  for (size_t k = 0; k < sizeof libs / sizeof libs[0]; k++) {
    void *h = dlopen(libs[k], RTLD_NOW | RTLD_LOCAL);
    if (h) return bind(h) ? (dlclose(h), -1) : 0;
  }
  snprintf(pq.why, sizeof pq.why,
           "the PostgreSQL client library libpq.so.5 cannot be loaded (%s): install libpq5",
           dlerror());
  return -1;
}

/* libpq's message without its trailing newline into err (perf__store_exec
 * then scrubs the location's passwords from it). */
static int fail(const perf__store *s, const char *msg, char *err, size_t len)
{
  snprintf(err, len, "%s: %.*s", s->where, (int)strcspn(msg, "\n"), msg);
  return PERF__EIO;
}

/* Formats p[0..np) as text parameters into bufs; vals[k] NULL for NULL. */
static void text_params(const perf__store_value *p, int np, char bufs[][40], const char **vals)
{
  for (int k = 0; k < np; k++) {
    vals[k] = bufs[k];
    if (p[k].type == PERF__STORE_INT) snprintf(bufs[k], 40, "%lld", p[k].i);
    else if (p[k].type == PERF__STORE_REAL) snprintf(bufs[k], 40, "%.17g", p[k].d);
    else vals[k] = p[k].type == PERF__STORE_TEXT ? p[k].s : NULL;
  }
}

/* Hands each row of res to fn. Returns 0 or fn's non-zero value. */
static int rows(PGresult *res, perf__store_row_fn fn, void *ctx)
{
  int nr = pq.ntuples(res), nc = pq.nfields(res);
  nc = nc > MAX_COLS ? MAX_COLS : nc;
  for (int r = 0; fn && r < nr; r++) {
    const char *vals[MAX_COLS];
    for (int c = 0; c < nc; c++) vals[c] = pq.getisnull(res, r, c) ? NULL : pq.getvalue(res, r, c);
    int stop = fn(ctx, nc, vals);
    if (stop) return stop;
  }
  return 0;
}

/* The store's exec. */
static int pg_exec(perf__store *s, const char *sql, const perf__store_value *p, int np,
                   perf__store_row_fn fn, void *ctx, char *err, size_t len)
{
  char bufs[MAX_PARAMS][40];
  const char *vals[MAX_PARAMS];
  if (np > MAX_PARAMS) return snprintf(err, len, "%s: too many parameters", s->where), PERF__EINVAL;
  text_params(p, np, bufs, vals);
  PGresult *res = np ? pq.execParams(s->impl, sql, np, NULL, vals, NULL, NULL, 0)
                     : pq.exec(s->impl, sql);
  if (!res) return fail(s, pq.errorMessage(s->impl), err, len);
  ExecStatusType st = pq.resultStatus(res);
  int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? rows(res, fn, ctx)
                                                           : fail(s, pq.resultErrorMessage(res), err, len);
  pq.clear(res);
  return rc;
}

static void pg_close(perf__store *s)
{
  pq.finish(s->impl);
  s->impl = NULL;
}

/* Notices ("relation already exists, skipping") are not errors: dropped. */
static void quiet(void *arg, const char *message)
{
  (void)arg;
  (void)message;
}

/* See pg.h. */
int perf__pg_open(const char *uri, perf__store *s, char *err, size_t len)
{
  s->kind = PERF__STORE_POSTGRES;
  perf__secret_mask(uri, s->where, sizeof s->where);
  if (load()) return snprintf(err, len, "%s: %s", s->where, pq.why), PERF__EIO;
  /* Later keywords win: the URI's own connect_timeout overrides ours. */
  const char *const keys[] = {"connect_timeout", "application_name", "dbname", NULL};
  const char *const vals[] = {"10", "perfgate", uri, NULL};
  PGconn *c = pq.connectdbParams(keys, vals, 1);
  if (!c) return snprintf(err, len, "%s: out of memory", s->where), PERF__ENOMEM;
  if (pq.status(c) != CONNECTION_OK) {
    snprintf(err, len, "%s: cannot connect: ", s->where);
    size_t u = strlen(err);
    const char *m = pq.errorMessage(c);
    snprintf(err + u, len - u, "%.*s", (int)strcspn(m, "\n"), m);
    pq.finish(c);
    return PERF__EIO;
  }
  pq.setNoticeProcessor(c, quiet, NULL);
  s->impl = c;
  s->exec = pg_exec;
  s->close = pg_close;
  /* A writer waits for another's lock (the schema migration's) as long as
   * SQLite's busy timeout, not forever. */
  int rc = pg_exec(s, "SET lock_timeout = '120s'", NULL, 0, NULL, NULL, err, len);
  if (rc) pg_close(s);
  return rc;
}
