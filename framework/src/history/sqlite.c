/* sqlite.c — the SQLite backend of the history store: a WAL-mode file with a busy timeout. */
#define _GNU_SOURCE
#include "history/sqlite.h"

#include <ctype.h>
#include <errno.h>
#include <libgen.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/file.h"
#include "util/status.h"

enum { MAX_COLS = 64 };

const char *const perf__sqlite_sidecars[] = {"-wal", "-shm", "-journal", NULL};

/* err[len] = "where: what: SQLite's message"; returns the PERF__ code for
 * rc (EINVAL for a file that is not a database, else EIO). */
static int fail(const perf__store *s, sqlite3 *db, int rc, const char *what, char *err,
                size_t len)
{
  snprintf(err, len, "%s: %s%s%s", s->where, what ? what : "", what ? ": " : "",
           db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  return (rc & 0xff) == SQLITE_NOTADB ? PERF__EINVAL : PERF__EIO;
}

/* Binds p[0..np) to $1..$np of st. Returns SQLITE_OK or an error code
 * (SQLITE_RANGE: a parameter the statement does not have). */
static int bind_all(sqlite3_stmt *st, const perf__store_value *p, int np)
{
  for (int k = 0; k < np; k++) {
    char name[16];
    snprintf(name, sizeof name, "$%d", k + 1);
    int at = sqlite3_bind_parameter_index(st, name), rc = SQLITE_OK;
    if (!at) return SQLITE_RANGE;
    switch (p[k].type) {
    case PERF__STORE_INT: rc = sqlite3_bind_int64(st, at, p[k].i); break;
    case PERF__STORE_REAL: rc = sqlite3_bind_double(st, at, p[k].d); break;
    case PERF__STORE_TEXT: rc = sqlite3_bind_text(st, at, p[k].s, -1, SQLITE_TRANSIENT); break;
    default: rc = sqlite3_bind_null(st, at); break;
    }
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* Steps st (of q) to its end, handing each row to q's on_row. Returns 0,
 * on_row's non-zero value, or a negative PERF__ code with err set. */
static int step_all(perf__store *s, sqlite3 *db, sqlite3_stmt *st, const perf__store_stmt *q,
                    char *err, size_t len)
{
  for (;;) {
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) return 0;
    if (rc != SQLITE_ROW) return fail(s, db, rc, NULL, err, len);
    if (!q->on_row) continue;
    const char *vals[MAX_COLS];
    int n = sqlite3_column_count(st);
    n = n > MAX_COLS ? MAX_COLS : n;
    for (int k = 0; k < n; k++) vals[k] = (const char *)sqlite3_column_text(st, k);
    int stop = q->on_row(q->ctx, n, vals);
    if (stop) return stop;
  }
}

/* The store's exec: each statement of q's SQL in turn. */
static int sq_exec(perf__store *s, const perf__store_stmt *q, char *err, size_t len)
{
  sqlite3 *db = s->impl;
  const char *tail = q->sql;
  while (tail && *tail) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) return fail(s, db, rc, NULL, err, len);
    if (!st) break; /* only white space or a comment was left */
    rc = bind_all(st, q->param, q->nparam);
    int r = rc != SQLITE_OK ? fail(s, NULL, rc, "binding a parameter", err, len)
                            : step_all(s, db, st, q, err, len);
    sqlite3_finalize(st);
    if (r) return r;
    while (tail && isspace((unsigned char)*tail)) tail++;
  }
  return 0;
}

static void sq_close(perf__store *s)
{
  sqlite3_close_v2(s->impl);
  s->impl = NULL;
}

/* Row callback: copies the first column into ctx (a char[32]). */
static int first_col(void *ctx, int n, const char *const *v)
{
  snprintf(ctx, 32, "%s", n > 0 && v[0] ? v[0] : "");
  return 0;
}

/* Puts the file in WAL mode (the store's for_writers: only once the file
 * is known to be a perfgate history, so that a file refused stays as it
 * was). Another process doing the same at this moment holds the lock the
 * change needs, and the busy handler is not always asked for it: retry
 * until the busy timeout. */
static int wal_mode(perf__store *s, char *err, size_t len)
{
  char mode[32] = "";
  const perf__store_stmt wal = {.sql = "PRAGMA journal_mode=WAL", .on_row = first_col, .ctx = mode};
  struct timespec pause = {0, 5 * 1000 * 1000};
  int rc = 0;
  for (int waited = 0; waited < PERF__SQLITE_BUSY_MS; waited += 5) {
    rc = sq_exec(s, &wal, err, len);
    int busy = (sqlite3_extended_errcode(s->impl) & 0xff) == SQLITE_BUSY ||
               (sqlite3_extended_errcode(s->impl) & 0xff) == SQLITE_LOCKED;
    if (!rc || !busy) break;
    nanosleep(&pause, NULL);
  }
  if (rc) return rc;
  if (strcmp(mode, "wal"))
    return snprintf(err, len, "%s: cannot use a write-ahead log (journal mode stays '%s')",
                    s->where, mode), PERF__EIO;
  return 0;
}

/* SQLite's busy handler: waits 10 ms a time for another writer's lock,
 * says once on stderr after 2 s that it waits, gives up at the busy
 * timeout. */
static int wait_for_lock(void *ctx, int count)
{
  const perf__store *s = ctx;
  struct timespec pause = {0, 10 * 1000 * 1000};
  if ((long)count * 10 >= PERF__SQLITE_BUSY_MS) return 0;
  if (count == 200)
    fprintf(stderr, "perfgate: waiting for the history's write lock (another writer holds %s)\n",
            s->where);
  nanosleep(&pause, NULL);
  return 1;
}

/* Reopens path read-only as an immutable file (no locks, no -shm), for a
 * reader that cannot write where the history lies (a cached or downloaded
 * copy in a read-only directory). Returns the handle or NULL. */
static sqlite3 *open_immutable(const char *path)
{
  char uri[8400];
  size_t u = (size_t)snprintf(uri, sizeof uri, "file:");
  for (const char *c = path; *c && u + 4 < sizeof uri; c++) {
    int plain = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
                strchr("/._-", *c);
    u += (size_t)snprintf(uri + u, sizeof uri - u, plain ? "%c" : "%%%02X", plain ? *c : (unsigned char)*c);
  }
  snprintf(uri + u, sizeof uri - u, "?immutable=1");
  sqlite3 *db = NULL;
  if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK) return db;
  sqlite3_close_v2(db);
  return NULL;
}

/* A reader's first look: when the file cannot be read in place for want
 * of write access next to it (WAL needs its -shm file), read it as an
 * immutable file instead. Returns 0 or the first error. */
static int reader_probe(perf__store *s, char *err, size_t len)
{
  const perf__store_stmt probe = {.sql = "SELECT count(*) FROM sqlite_master"};
  int rc = sq_exec(s, &probe, err, len);
  int code = sqlite3_extended_errcode(s->impl) & 0xff;
  if (!rc || (code != SQLITE_READONLY && code != SQLITE_CANTOPEN)) return rc;
  sqlite3 *db = open_immutable(s->where);
  if (!db) return rc;
  sqlite3_close_v2(s->impl);
  s->impl = db;
  s->for_writers = NULL;
  return sq_exec(s, &probe, err, len);
}

/* Refuses path that stat() cannot reach for a reason other than a missing
 * file (e, its errno), naming the cause: the part of the path that is a
 * file where a directory should be (ENOTDIR), else the system's words,
 * with the remedy. Always returns PERF__EIO. */
static int unreachable(const char *path, int create, int e, char *err, size_t len)
{
  char up[4096];
  struct stat st;
  const char *doing = create ? "cannot create it" : "no history there";
  snprintf(up, sizeof up, "%s", path);
  for (size_t n = strlen(up); n > 1 && up[n - 1] == '/';) up[--n] = '\0';
  while (e == ENOTDIR && stat(up, &st) && strcmp(up, ".") && strcmp(up, "/")) {
    const char *parent = dirname(up); /* up itself cut, or a static "." or "/" */
    memmove(up, parent, strlen(parent) + 1);
  }
  if (e == ENOTDIR && !stat(up, &st) && !S_ISDIR(st.st_mode))
    return snprintf(err, len, "%s: %s: %s is a file, not a directory (name the history's file in a "
                              "directory)", path, doing, up), PERF__EIO;
  return snprintf(err, len, "%s: %s: %s (%s)", path, doing, strerror(e),
                  e == EACCES ? "a directory on its path cannot be searched: allow it, or keep the "
                                "history elsewhere"
                              : "name a file this user can reach"), PERF__EIO;
}

/* Refuses path when the file system says it cannot be a history this
 * process reads (create = 0) or writes (create = 1), with the cause and
 * the remedy in err. Returns 0 or PERF__EIO. */
static int path_check(const char *path, int create, char *err, size_t len)
{
  struct stat st, ds;
  char dir[4096];
  const char *d = perf__file_dir_of(path, dir, sizeof dir);
  if (stat(path, &st)) {
    if (errno != ENOENT) return unreachable(path, create, errno, err, len);
    char to[4096]; /* a link to nothing: refused as a report path's is, its target never created */
    if (perf__file_dangling(path, to, sizeof to))
      return snprintf(err, len, "%s: %s: a symbolic link to '%s', which does not exist (create the file it "
                                "names first: an empty file is an empty history; or name another path)",
                      path, create ? "cannot record there" : "no history there", to), PERF__EIO;
    if ((stat(d, &ds) || !S_ISDIR(ds.st_mode)) && create)
      return snprintf(err, len, "%s: cannot create it: the directory %s does not exist (create it "
                                "first)", path, d), PERF__EIO;
    if (stat(d, &ds) || !S_ISDIR(ds.st_mode))
      return snprintf(err, len, "%s: no history there (no directory %s)", path, d), PERF__EIO;
    if (!create) return snprintf(err, len, "%s: no history there (no such file)", path), PERF__EIO;
    if (access(d, W_OK))
      return snprintf(err, len, "%s: cannot create it: cannot write in %s (%s)", path, d,
                      strerror(errno)), PERF__EIO;
    return 0;
  }
  if (S_ISDIR(st.st_mode))
    return snprintf(err, len, "%s: a directory, not a file: name the history's file (%s%s"
                              "perf-history.db)", path, path, path[strlen(path) - 1] == '/' ? "" : "/"),
           PERF__EIO;
  if (!S_ISREG(st.st_mode))
    return snprintf(err, len, "%s: not a regular file (a history is a SQLite file)", path), PERF__EIO;
  if (create && access(path, W_OK))
    return snprintf(err, len, "%s: cannot record there: the file is not writable (%s)", path,
                    strerror(errno)), PERF__EIO;
  if (create && access(d, W_OK))
    return snprintf(err, len, "%s: cannot record there: its directory %s is not writable (%s), and "
                              "SQLite creates its -wal and -shm files beside the history: make the "
                              "directory writable, or keep the history in one that is",
                    path, d, strerror(errno)), PERF__EIO;
  return 0;
}

/* See sqlite.h. */
int perf__sqlite_open(const char *path, int create, perf__store *s, char *err, size_t len)
{
  sqlite3 *db = NULL;
  s->kind = PERF__STORE_SQLITE;
  snprintf(s->where, sizeof s->where, "%s", path);
  int rc = path_check(path, create, err, len);
  if (rc) return rc;
  int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
  rc = sqlite3_open_v2(path, &db, flags, NULL);
  if (rc != SQLITE_OK) {
    int r = fail(s, db, rc, "cannot open", err, len);
    sqlite3_close_v2(db);
    return r;
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_handler(db, wait_for_lock, s);
  s->impl = db;
  s->exec = sq_exec;
  s->close = sq_close;
  s->for_writers = wal_mode;
  rc = sq_exec(s, &(perf__store_stmt){.sql = "PRAGMA foreign_keys=ON"}, err, len);
  if (!rc && !create) rc = reader_probe(s, err, len);
  if (rc) sq_close(s);
  return rc;
}
