/* store.c — the history store's common calls, dispatched to the SQLite or PostgreSQL backend. */
#include "history/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"

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
void perf__store_mask(const char *location, char *out, size_t len)
{
  const char *auth = strstr(location, "://"), *at = auth ? strchr(auth + 3, '@') : NULL;
  const char *colon = at ? memchr(auth + 3, ':', (size_t)(at - auth - 3)) : NULL;
  if (colon) snprintf(out, len, "%.*s:***%s", (int)(colon - location), location, at);
  else snprintf(out, len, "%s", location);
  char *pw = strstr(out, "password=");
  if (pw) {
    size_t end = strcspn(pw + 9, "&"), used = (size_t)(pw + 9 - out);
    char rest[512];
    snprintf(rest, sizeof rest, "%s", pw + 9 + end);
    snprintf(pw + 9, len - used, "***%s", rest);
  }
}

/* See store.h. */
int perf__store_exec(perf__store *s, const char *sql, const perf__store_value *p, int np,
                     perf__store_row_fn fn, void *ctx, char *err, size_t len)
{
  return s->exec(s, sql, p, np, fn, ctx, err, len);
}

/* See store.h. */
int perf__store_begin(perf__store *s, char *err, size_t len)
{
  /* READ COMMITTED whatever the server's default: a migration must see
   * what the writer before it committed once it has the lock. */
  const char *sql = s->kind == PERF__STORE_SQLITE ? "BEGIN IMMEDIATE"
                                                  : "BEGIN ISOLATION LEVEL READ COMMITTED";
  return s->exec(s, sql, NULL, 0, NULL, NULL, err, len);
}

/* See store.h. */
int perf__store_commit(perf__store *s, char *err, size_t len)
{
  return s->exec(s, "COMMIT", NULL, 0, NULL, NULL, err, len);
}

/* See store.h. */
void perf__store_rollback(perf__store *s)
{
  char err[300];
  s->exec(s, "ROLLBACK", NULL, 0, NULL, NULL, err, sizeof err);
}

/* See store.h. */
void perf__store_close(perf__store *s)
{
  if (!s) return;
  s->close(s);
  free(s);
}
