/* pg.h — the PostgreSQL backend of the history store: libpq, loaded with dlopen when used. */
#ifndef PERF_PG_H
#define PERF_PG_H

#include <stddef.h>

#include "history/store.h"

/* Connects to uri into s (its exec and close), with a 10 s connect timeout
 * unless the URI names one. Returns 0, or PERF__EIO when libpq.so.5
 * cannot be loaded or the server cannot be reached (libpq's reason). */
int perf__pg_open(const char *uri, perf__store *s, char *err, size_t len);

#endif
