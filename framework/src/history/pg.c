/* pg.c — the PostgreSQL backend of the history store: libpq, loaded with dlopen when used. */
#define _GNU_SOURCE
#include "history/pg.h"

#include <dlfcn.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
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
} libpq;

/* Binds libpq from h. Returns 0, or -1 naming the first missing symbol. */
static int bind(void *h)
{
  static const char *const names[] = {
      "PQconnectdbParams", "PQstatus", "PQerrorMessage", "PQfinish", "PQexec",
      "PQexecParams", "PQresultStatus", "PQresultErrorMessage", "PQntuples", "PQnfields",
      "PQgetvalue", "PQgetisnull", "PQclear", "PQsetNoticeProcessor"};
  void **slots[] = {(void **)&libpq.connectdbParams, (void **)&libpq.status, (void **)&libpq.errorMessage,
                    (void **)&libpq.finish, (void **)&libpq.exec, (void **)&libpq.execParams,
                    (void **)&libpq.resultStatus, (void **)&libpq.resultErrorMessage,
                    (void **)&libpq.ntuples, (void **)&libpq.nfields, (void **)&libpq.getvalue,
                    (void **)&libpq.getisnull, (void **)&libpq.clear, (void **)&libpq.setNoticeProcessor};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (!(*slots[k] = dlsym(h, names[k]))) {
      snprintf(libpq.why, sizeof libpq.why, "libpq has no %s", names[k]);
      return -1;
    }
  return 0;
}

/* Loads libpq once. Returns 0, or -1 with libpq.why set. */
static int load(void)
{
  static const char *const libs[] = {"libpq.so.5", "libpq.so"};
  if (libpq.tried) return libpq.why[0] ? -1 : 0;
  libpq.tried = 1;
  for (size_t k = 0; k < sizeof libs / sizeof libs[0]; k++) {
    void *h = dlopen(libs[k], RTLD_NOW | RTLD_LOCAL);
    if (h) return bind(h) ? (dlclose(h), -1) : 0;
  }
  snprintf(libpq.why, sizeof libpq.why,
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
  int nr = libpq.ntuples(res), nc = libpq.nfields(res);
  nc = nc > MAX_COLS ? MAX_COLS : nc;
  for (int r = 0; fn && r < nr; r++) {
    const char *vals[MAX_COLS];
    for (int c = 0; c < nc; c++) vals[c] = libpq.getisnull(res, r, c) ? NULL : libpq.getvalue(res, r, c);
    int stop = fn(ctx, nc, vals);
    if (stop) return stop;
  }
  return 0;
}

/* The store's exec. */
static int pg_exec(perf__store *s, const perf__store_stmt *q, char *err, size_t len)
{
  char bufs[MAX_PARAMS][40];
  const char *vals[MAX_PARAMS];
  int np = q->nparam;
  if (np > MAX_PARAMS) return snprintf(err, len, "%s: too many parameters", s->where), PERF__EINVAL;
  text_params(q->param, np, bufs, vals);
  PGresult *res = np ? libpq.execParams(s->impl, q->sql, np, NULL, vals, NULL, NULL, 0)
                     : libpq.exec(s->impl, q->sql);
  if (!res) return fail(s, libpq.errorMessage(s->impl), err, len);
  ExecStatusType st = libpq.resultStatus(res);
  int rc = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? rows(res, q->on_row, q->ctx)
                                                           : fail(s, libpq.resultErrorMessage(res), err, len);
  libpq.clear(res);
  return rc;
}

static void pg_close(perf__store *s)
{
  libpq.finish(s->impl);
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
  if (load()) return snprintf(err, len, "%s: %s", s->where, libpq.why), PERF__EIO;
  /* Later keywords win: the URI's own connect_timeout overrides ours. */
  const char *const keys[] = {"connect_timeout", "application_name", "dbname", NULL};
  const char *const vals[] = {"10", "perfgate", uri, NULL};
  PGconn *c = libpq.connectdbParams(keys, vals, 1);
  if (!c) return snprintf(err, len, "%s: out of memory", s->where), PERF__ENOMEM;
  if (libpq.status(c) != CONNECTION_OK) {
    snprintf(err, len, "%s: cannot connect: ", s->where);
    size_t u = strlen(err);
    const char *m = libpq.errorMessage(c);
    snprintf(err + u, len - u, "%.*s", (int)strcspn(m, "\n"), m);
    libpq.finish(c);
    return PERF__EIO;
  }
  libpq.setNoticeProcessor(c, quiet, NULL);
  s->impl = c;
  s->exec = pg_exec;
  s->close = pg_close;
  /* A writer waits for another's lock (the schema migration's) as long as
   * SQLite's busy timeout, not forever. */
  int rc = pg_exec(s, &(perf__store_stmt){.sql = "SET lock_timeout = '120s'"}, err, len);
  if (rc) pg_close(s);
  return rc;
}
