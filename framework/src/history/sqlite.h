/* sqlite.h — the SQLite backend of the history store: a WAL-mode file with a busy timeout. */
#ifndef PERF_SQLITE_H
#define PERF_SQLITE_H

#include <stddef.h>

#include "history/store.h"

/* How long a writer waits for another's lock before giving up. */
enum { PERF__SQLITE_BUSY_MS = 120000 };

/* The files SQLite keeps beside a history PATH, as PATH followed by each
 * suffix (NULL-terminated): its write-ahead log, its shared memory and
 * its rollback journal. SQLite deletes or overwrites them: they are the
 * history's as much as PATH is. */
extern const char *const perf__sqlite_sidecars[];

/* Opens path into s (its exec, close and for_writers: the WAL journal).
 * create = 0: for reading, a missing file is an error; create = 1: for
 * writing, a file that cannot be created, or that this process cannot
 * write or write beside (SQLite's -wal and -shm files), is refused. Each
 * refusal says why and what to do (a directory given, a directory that
 * does not exist). Opening changes nothing in the file. Returns 0,
 * PERF__EIO (cannot open: why) or PERF__EINVAL (not a SQLite database). */
int perf__sqlite_open(const char *path, int create, perf__store *s, char *err, size_t len);

#endif
