/* connect.c — opens a history store: a postgresql:// URI, else a SQLite file. */
#define _GNU_SOURCE
#include "history/connect.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
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

/* Refuses a location that is a URI but not PostgreSQL's: a SQLite URI
 * (file:..., which perfgate does not take: a history is a plain path) or
 * another scheme's. Returns 0 or PERF__EUSAGE with the remedy in err. */
static int other_uri(const char *location, char *err, size_t len)
{
  size_t scheme = strspn(location, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");
  char shown[300];
  perf__secret_mask(location, shown, sizeof shown);
  if (!strncmp(location, "file:", 5)) {
    const char *path = location + 5;
    if (!strncmp(path, "//", 2)) path += 2 + strcspn(path + 2, "/");
    snprintf(err, len, "%s: a SQLite URI (file:...) is not a location perfgate takes: give the "
                       "history's path (%.*s); --trend only reads it, and a file whose name begins "
                       "with 'file:' is ./file:...", shown, (int)strcspn(path, "?#"), path);
    return PERF__EUSAGE;
  }
  if (!isalpha((unsigned char)*location) || strncmp(location + scheme, "://", 3) ||
      perf__connect_is_postgres(location))
    return 0;
  snprintf(err, len, "%s: not a location perfgate takes: a history is a SQLite file's path or a "
                     "postgresql:// URI (a file whose name holds '://' is ./NAME)", shown);
  return PERF__EUSAGE;
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
  int rc = perf__connect_is_postgres(location) ? perf__secret_check(location, err, len)
                                              : other_uri(location, err, len);
  if (rc) return rc;
  perf__store *s = calloc(1, sizeof *s);
  if (s) s->location = strdup(location);
  if (!s || !s->location) return free(s), snprintf(err, len, "out of memory"), PERF__ENOMEM;
  rc = perf__connect_is_postgres(location) ? perf__pg_open(location, s, err, len)
                                          : perf__sqlite_open(location, create, s, err, len);
  if (rc) {
    perf__store_scrub(s, err, len);
    perf__store_close(s);
    return rc;
  }
  *out = s;
  return 0;
}
