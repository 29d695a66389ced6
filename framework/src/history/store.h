/* store.h — the history store: a SQLite file or a PostgreSQL database behind the same calls. */
#ifndef PERF_STORE_H
#define PERF_STORE_H

/* A store is where runs are recorded (history/record.h) and read back
 * (history/series.h). Its location names the backend: "postgresql://..."
 * or "postgres://..." is a PostgreSQL database reached through libpq (a
 * team's shared store; libpq.so.5 is loaded when first needed), anything
 * else a SQLite file (the embedded default, created when missing). Both
 * speak the same SQL here: parameters are written $1, $2 ... in the order
 * they are given, values come back as text (NULL for SQL NULL), and the
 * only DDL that differs, an identity column, is written @ID@.
 *
 * Every call returns 0 or a negative PERF__* code with one line in
 * err[len] that names the store ("history.db: database is locked"), with
 * every password of the location scrubbed from it (history/secret.h:
 * libpq's messages may echo the URI or the password). A
 * store is used by one thread; several processes may use one location at
 * once (SQLite: WAL and a busy timeout; PostgreSQL: its own locking). */

#include <stddef.h>

typedef enum perf__store_type { PERF__STORE_NULL, PERF__STORE_INT, PERF__STORE_REAL,
                                PERF__STORE_TEXT } perf__store_type;

/* One parameter. A REAL that is not finite is stored as NULL, as is a NULL
 * TEXT. */
typedef struct perf__store_value {
  perf__store_type type;
  long long i;
  double d;
  const char *s;
} perf__store_value;

perf__store_value perf__store_int(long long i);
perf__store_value perf__store_real(double d);
perf__store_value perf__store_text(const char *s);

/* Called for each row a statement returns; vals[k] is NULL for SQL NULL.
 * A non-zero return stops the statement, and exec returns that value. */
typedef int (*perf__store_row_fn)(void *ctx, int ncols, const char *const *vals);

/* One exec's SQL: one statement with parameters param[0..nparam), or
 * several separated by ';' when nparam is 0 (DDL); on_row (may be NULL)
 * sees each row, with ctx. */
typedef struct perf__store_stmt {
  const char *sql;
  const perf__store_value *param;
  int nparam;
  perf__store_row_fn on_row;
  void *ctx;
} perf__store_stmt;

typedef enum perf__store_kind { PERF__STORE_SQLITE, PERF__STORE_POSTGRES } perf__store_kind;

typedef struct perf__store perf__store;
struct perf__store {
  perf__store_kind kind;
  char where[512]; /* the location for messages, without a password */
  char *location;  /* the location as given (malloc'd): whose secrets to scrub */
  void *impl;
  int (*exec)(perf__store *s, const perf__store_stmt *q, char *err, size_t len);
  void (*close)(perf__store *s);
  /* Readies the store for writers, once it is known to be perfgate's
   * (SQLite: the WAL journal); NULL: nothing to do. */
  int (*for_writers)(perf__store *s, char *err, size_t len);
};

/* Runs q's SQL, handing each row it returns to q's on_row. */
int perf__store_exec(perf__store *s, const perf__store_stmt *q, char *err, size_t len);

/* A write transaction: SQLite takes its write lock at once (BEGIN
 * IMMEDIATE: waits up to the busy timeout, never fails half-way through),
 * PostgreSQL begins READ COMMITTED (each statement sees what others have
 * committed; a lock is waited for at most 120 s). */
int perf__store_begin(perf__store *s, char *err, size_t len);
int perf__store_commit(perf__store *s, char *err, size_t len);
/* Never fails (a store that cannot roll back has lost its connection, and
 * the server or file then discards the transaction itself). */
void perf__store_rollback(perf__store *s);

/* Readies the store for writers (its for_writers; nothing when it has
 * none). Returns 0 or the store's error. */
int perf__store_for_writers(perf__store *s, char *err, size_t len);

/* Rewrites err[len] with every password of s's location replaced by
 * "***". Never fails. */
void perf__store_scrub(const perf__store *s, char *err, size_t len);

/* Closes s (when it was opened) and frees it (NULL: nothing). Never
 * fails. */
void perf__store_close(perf__store *s);

#endif
