/* connect.c — opens a history store: the location picks the backend (a postgresql:// URI, else a SQLite file). */
#include "history/connect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/status.h"
#include "history/pg.h"
#include "history/sqlite.h"

/* See connect.h. */
int perf__connect_is_postgres(const char *location)
{
  return !strncmp(location, "postgresql://", 13) || !strncmp(location, "postgres://", 11);
}

/* See connect.h. */
int perf__connect_open(const char *location, int create, perf__store **out, char *err, size_t len)
{
  perf__store *s = calloc(1, sizeof *s);
  *out = NULL;
  if (!s) return snprintf(err, len, "out of memory"), PERF__ENOMEM;
  int rc = perf__connect_is_postgres(location) ? perf__pg_open(location, s, err, len)
                                             : perf__sqlite_open(location, create, s, err, len);
  if (rc) {
    free(s);
    return rc;
  }
  *out = s;
  return 0;
}

