/* connect.h — opens a history store: a postgresql:// URI, else a SQLite file. */
#ifndef PERF_CONNECT_H
#define PERF_CONNECT_H

#include <stddef.h>

#include "history/store.h"

/* Opens location; create = 0 refuses a SQLite file that does not exist
 * (reading needs a history). Returns 0 with *out set, or PERF__EIO (cannot
 * open or connect: why), PERF__EINVAL (not a database), PERF__EUSAGE (a
 * libpq keyword/value string: only a URI names PostgreSQL; a URI libpq
 * would misread, perf__secret_check; a SQLite URI, file:..., or another
 * scheme's: a SQLite history is a plain path), PERF__ENOMEM; err never
 * holds a password of location (history/secret.h). */
int perf__connect_open(const char *location, int create, perf__store **out, char *err, size_t len);

/* 1 when location names PostgreSQL (postgresql:// or postgres://). */
int perf__connect_is_postgres(const char *location);

#endif
