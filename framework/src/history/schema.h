/* schema.h — the history's tables, versioned: one migration step per version, one transaction. */
/* A version is never a silent rewrite. */
#ifndef PERF_SCHEMA_H
#define PERF_SCHEMA_H

#include <stddef.h>

#include "history/store.h"

/* The schema this perfgate writes and reads. */
enum { PERF__SCHEMA_VERSION = 7 };

/* The rule that a retried shard's last attempt counts, as an SQL
 * condition on a run r of perfgate_runs (schema 5 on): true for a run
 * recorded without a run id (a whole run), or one that no later run of the
 * same run id, GPU and shard replaced; later is a further condition on
 * that later run n, a string literal ("", or " AND n.id <= $1" for the
 * history up to a run). */
#define PERF__SCHEMA_LAST_ATTEMPT(later)                                                         \
  "(r.run_key IS NULL OR NOT EXISTS (SELECT 1 FROM perfgate_runs n WHERE n.run_key = r.run_key" \
  " AND n.gpu = r.gpu AND n.shard_index = r.shard_index AND n.id > r.id" later "))"

/* The store's schema version into *v: 0 for a store with none of
 * perfgate's tables (an empty history: a run would create them; a reader
 * finds no runs). Returns 0, or PERF__EINVAL naming what is wrong and
 * where when this perfgate cannot use it, to read or to write: not a
 * perfgate history (a SQLite file with other tables and no
 * perfgate_schema, or one of perfgate's tables without it); a
 * perfgate_schema that is empty, has several rows, or a version that is
 * not a whole number from 1 to PERF__SCHEMA_VERSION (a later one:
 * "written by a newer perfgate"); a table or a column that version has
 * missing (indexes are not checked: without one, --trend is slower,
 * nothing else); a table, column or index of a later version present (the
 * version set back: migrating would fail on it). Reads only. Or the
 * store's error. */
int perf__schema_version(perf__store *s, int *v, char *err, size_t len);

/* Brings the store up to version target (0: PERF__SCHEMA_VERSION), one
 * step at a time in one transaction, while holding the store's write lock
 * (so that writers starting at once migrate it once). A store
 * perf__schema_version refuses (a later version than this perfgate knows,
 * a broken one) is refused (PERF__EINVAL) before anything is written,
 * the SQLite file's journal mode included. Returns 0 or a negative
 * PERF__ code with the reason in err[len]. */
int perf__schema_migrate(perf__store *s, int target, char *err, size_t len);

/* Whether this process may record runs in the store: a write transaction
 * that touches perfgate_runs and is rolled back (a read-only SQLite file,
 * a PostgreSQL role without UPDATE on it). Returns 0 or the store's error
 * (err[len] says why). The store must be at the current schema. */
int perf__schema_writable(perf__store *s, char *err, size_t len);

#endif
