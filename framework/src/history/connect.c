/* connect.c — opens a history store: the location picks the backend (a postgresql:// URI, else a SQLite file). */
#define _GNU_SOURCE
#include "history/connect.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "history/pg.h"
#include "history/secret.h"
#include "history/sqlite.h"

/* See connect.h. */
int perf__connect_is_postgres(const char *location)
{
  return !strncmp(location, "postgresql://", 13) || !strncmp(location, "postgres://", 11);
}

/* 1 when location reads as a libpq keyword/value string ("host=db
 * password=..."): a word, then '='. Never fails. */
static int keyword_value(const char *location)
{
  const char *c = location;
  while (*c == ' ' || *c == '\t') c++;
  if (!isalpha((unsigned char)*c) && *c != '_') return 0;
  while (isalnum((unsigned char)*c) || *c == '_') c++;
  while (*c == ' ' || *c == '\t') c++;
  return *c == '=';
}

/* See connect.h. */
int perf__connect_open(const char *location, int create, perf__store **out, char *err, size_t len)
{
  *out = NULL;
  if (keyword_value(location)) {
    char shown[300];
    perf__secret_mask(location, shown, sizeof shown);
    snprintf(err, len, "%s: a libpq keyword/value string is not a location perfgate takes: give "
                       "PostgreSQL as a URI (postgresql://user@host/db?sslmode=require), and a "
                       "SQLite file whose name is a word and '=' as ./NAME", shown);
    return PERF__EUSAGE;
  }
  perf__store *s = calloc(1, sizeof *s);
  if (s) s->location = strdup(location);
  if (!s || !s->location) return free(s), snprintf(err, len, "out of memory"), PERF__ENOMEM;
  int rc = perf__connect_is_postgres(location) ? perf__pg_open(location, s, err, len)
                                             : perf__sqlite_open(location, create, s, err, len);
  if (rc) {
    perf__store_scrub(s, err, len);
    perf__store_close(s);
    return rc;
  }
  *out = s;
  return 0;
}
