/* store.c — the history store's common calls, dispatched to the SQLite or PostgreSQL backend. */
#include "history/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "history/secret.h"

perf__store_value perf__store_int(long long i)
{
  return (perf__store_value){PERF__STORE_INT, i, 0, NULL};
}

perf__store_value perf__store_real(double d)
{
  return (perf__store_value){isfinite(d) ? PERF__STORE_REAL : PERF__STORE_NULL, 0, d, NULL};
}

perf__store_value perf__store_text(const char *s)
{
  return (perf__store_value){s ? PERF__STORE_TEXT : PERF__STORE_NULL, 0, 0, s};
}

/* See store.h. */
int perf__store_exec(perf__store *s, const perf__store_stmt *q, char *err, size_t len)
{
  int rc = s->exec(s, q, err, len);
  if (rc < 0) perf__store_scrub(s, err, len);
  return rc;
}

/* See store.h. */
int perf__store_for_writers(perf__store *s, char *err, size_t len)
{
  int rc = s->for_writers ? s->for_writers(s, err, len) : 0;
  if (rc < 0) perf__store_scrub(s, err, len);
  return rc;
}

/* See store.h. */
void perf__store_scrub(const perf__store *s, char *err, size_t len)
{
  if (s->location) perf__secret_scrub(s->location, err, len);
}

/* See store.h. */
int perf__store_begin(perf__store *s, char *err, size_t len)
{
  /* READ COMMITTED whatever the server's default: a migration must see
   * what the writer before it committed once it has the lock. */
  const char *sql = s->kind == PERF__STORE_SQLITE ? "BEGIN IMMEDIATE"
                                                  : "BEGIN ISOLATION LEVEL READ COMMITTED";
  return perf__store_exec(s, &(perf__store_stmt){.sql = sql}, err, len);
}

/* See store.h. */
int perf__store_commit(perf__store *s, char *err, size_t len)
{
  return perf__store_exec(s, &(perf__store_stmt){.sql = "COMMIT"}, err, len);
}

/* See store.h. */
void perf__store_rollback(perf__store *s)
{
  char err[300];
  perf__store_exec(s, &(perf__store_stmt){.sql = "ROLLBACK"}, err, sizeof err);
}

/* See store.h. */
void perf__store_close(perf__store *s)
{
  if (!s) return;
  if (s->impl && s->close) s->close(s);
  free(s->location);
  free(s);
}
