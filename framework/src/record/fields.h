/* fields.h — a struct's members as a table of rows: written as JSON, read back, copied, freed. */
#ifndef PERF_FIELDS_H
#define PERF_FIELDS_H

/* An object a record writes (record/claimrec.c's) is a table of rows
 * X(type, member, key), in the order its JSON has them; perf__fields_put,
 * _get, _copy and _free walk the rows, so that a member is one row, as
 * libuv's UV_ERRNO_MAP makes each error one row. A row's type says how
 * its member is written and read:
 *   TEXT   char *: written always (NULL as ""), read always
 *   OTEXT  char *: written when set, read when present
 *   NUM    double (null when not finite)      KNOWN  double, only when > 0
 *   PAIR   double[2]                          INT    int
 *   LONG   long                               COUNT  long, >= 0
 *   SIZE   size_t                             BOOL   int, as true or false
 *   OBJ    an object of its own (the row's sub table; HERE: one whose
 *          members are in the same struct, as a workload's declared work)
 *   HOOK   a member of a form of its own (an array, an enum's word, rates
 *          derived when written): its hook writes, reads, copies and frees it.
 * The reader names the first problem it finds by its path ("'a.median_s'
 * is not a number"). */

#include <stddef.h>

#include "io/json.h"
#include "io/jsontree.h"

typedef enum perf__fields_type {
  PERF__FIELDS_TEXT, PERF__FIELDS_OTEXT, PERF__FIELDS_NUM, PERF__FIELDS_KNOWN,
  PERF__FIELDS_PAIR, PERF__FIELDS_INT, PERF__FIELDS_LONG, PERF__FIELDS_COUNT,
  PERF__FIELDS_SIZE, PERF__FIELDS_BOOL, PERF__FIELDS_OBJ, PERF__FIELDS_HOOK
} perf__fields_type;

/* Where a reader is: the path of the object it reads ("a.", "points[2].")
 * and where its first problem goes. */
typedef struct perf__fields_reader {
  char at[64];
  char *err;
  size_t len;
} perf__fields_reader;

typedef struct perf__fields_table perf__fields_table;

/* A member of a form of its own; p is the struct the member is in. copy
 * and free may be NULL (it owns nothing). */
typedef struct perf__fields_hook {
  void (*write)(perf__json *j, const void *p); /* ", \"key\": ..." (or nothing) */
  int (*read)(perf__fields_reader *rd, const perf__jsontree_node *o, void *p);
  int (*copy)(void *dst, const void *src);     /* 0, or -1 without memory */
  void (*free)(void *p);
} perf__fields_hook;

typedef struct perf__fields_row {
  perf__fields_type type;
  const char *key;
  size_t off;                    /* of the member (HOOK: 0, the struct) */
  const perf__fields_table *sub; /* OBJ */
  const perf__fields_hook *h;    /* HOOK */
} perf__fields_row;

/* An object's rows. An optional object (present NULL: always there) is
 * written when present(p) and read, with mark(p), when its key is in the
 * JSON; a group's members are written in its parent's object, and it is
 * there when its first member is. */
struct perf__fields_table {
  const perf__fields_row *rows;
  size_t n;
  int (*present)(const void *p);
  void (*mark)(void *p);
  int group;
};

/* The rows' makers: X(TYPE)(struct, member, "key") in a NAME_MAP(s, X). */
#define PERF__FIELDS_ROW(s, m, k, t) {PERF__FIELDS_##t, k, offsetof(s, m), NULL, NULL},
#define PERF__FIELDS_TEXT(s, m, k) PERF__FIELDS_ROW(s, m, k, TEXT)
#define PERF__FIELDS_OTEXT(s, m, k) PERF__FIELDS_ROW(s, m, k, OTEXT)
#define PERF__FIELDS_NUM(s, m, k) PERF__FIELDS_ROW(s, m, k, NUM)
#define PERF__FIELDS_KNOWN(s, m, k) PERF__FIELDS_ROW(s, m, k, KNOWN)
#define PERF__FIELDS_PAIR(s, m, k) PERF__FIELDS_ROW(s, m, k, PAIR)
#define PERF__FIELDS_INT(s, m, k) PERF__FIELDS_ROW(s, m, k, INT)
#define PERF__FIELDS_LONG(s, m, k) PERF__FIELDS_ROW(s, m, k, LONG)
#define PERF__FIELDS_COUNT(s, m, k) PERF__FIELDS_ROW(s, m, k, COUNT)
#define PERF__FIELDS_SIZE(s, m, k) PERF__FIELDS_ROW(s, m, k, SIZE)
#define PERF__FIELDS_BOOL(s, m, k) PERF__FIELDS_ROW(s, m, k, BOOL)
#define PERF__FIELDS_OBJ(s, m, k) {PERF__FIELDS_OBJ, k, offsetof(s, m), &m##_table, NULL},
#define PERF__FIELDS_HERE(s, m, k) {PERF__FIELDS_OBJ, k, 0, &m##_table, NULL},
#define PERF__FIELDS_HOOK(s, m, k) {PERF__FIELDS_HOOK, k, 0, NULL, &m##_hook},
#define PERF__FIELDS_X(t) PERF__FIELDS_##t
/* NAME_table from NAME_MAP's rows over struct type. */
#define PERF__FIELDS_TABLE(name, type, present, mark, group)                               \
  static const perf__fields_row name##_rows[] = {name##_MAP(type, PERF__FIELDS_X)};        \
  static const perf__fields_table name##_table = {                                         \
      name##_rows, sizeof name##_rows / sizeof name##_rows[0], present, mark, group};

/* The members of the object at p by t's rows, after ", " unless first.
 * Never fails (j->oom). */
void perf__fields_put(perf__json *j, const perf__fields_table *t, const void *p, int first);
/* The members of object o into the object at p by t's rows, in order.
 * Returns 0, PERF__EPROTO (the first problem in rd->err) or
 * PERF__ENOMEM. */
int perf__fields_get(perf__fields_reader *rd, const perf__fields_table *t,
                     const perf__jsontree_node *o, void *p);
/* Deep copies of what the object at src owns into dst, whose scalars are
 * src's already. Returns 0, or -1 without memory (the caller frees what
 * was copied). */
int perf__fields_copy(const perf__fields_table *t, void *dst, const void *src);
/* Frees what the object at p owns (its strings NULL after). Never fails. */
void perf__fields_free(const perf__fields_table *t, void *p);

/* For hooks. s (NULL: "") as a JSON string, U+FFFD escaped so that a text
 * read is written again as it was. Never fails (j->oom). */
void perf__fields_put_text(perf__json *j, const char *s);
/* ", \"key\": " then s as perf__fields_put_text. Never fails. */
void perf__fields_put_str(perf__json *j, const char *key, const char *s);
/* Records a problem with member key at rd's path; returns PERF__EPROTO. */
int perf__fields_bad(perf__fields_reader *rd, const char *key, const char *what);
/* Records running out of memory; returns PERF__ENOMEM. */
int perf__fields_no_memory(perf__fields_reader *rd);
/* Member key of obj, of type t, into *out. Returns 0 or PERF__EPROTO
 * (missing, or another type). */
int perf__fields_member(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key,
                        perf__jsontree_type t, const perf__jsontree_node **out);
/* A string member, copied. Returns 0, PERF__EPROTO or PERF__ENOMEM. */
int perf__fields_str(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key,
                     char **out);
/* A number member (null: NaN). Returns 0 or PERF__EPROTO. */
int perf__fields_num(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key,
                     double *out);
/* A scalar as a whole number in [lo, hi]. Returns 0, or -1 when it is not
 * one. */
int perf__fields_as_long(const perf__jsontree_node *n, long lo, long hi, long *out);
/* A whole-number member in [lo, hi]. Returns 0 or PERF__EPROTO. */
int perf__fields_long(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key,
                      long lo, long hi, long *out);
/* A true/false member. Returns 0 or PERF__EPROTO. */
int perf__fields_bool(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key,
                      int *out);
/* A number member of an array, malloc'd (NULL when empty), with its count.
 * Returns 0, PERF__EPROTO or PERF__ENOMEM. */
int perf__fields_nums(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key,
                      double **out, size_t *n);
/* Appends prefix to rd's path (truncated when too long), the old path into
 * old[64] (perf__fields_leave puts it back). Never fails. */
void perf__fields_enter(perf__fields_reader *rd, const char *prefix, char *old);
/* Puts rd's path back to old. Never fails. */
void perf__fields_leave(perf__fields_reader *rd, const char *old);
/* A copy of s (NULL stays NULL) into *dst. Returns 0, or -1 without
 * memory. */
int perf__fields_dup_str(char **dst, const char *s);
/* A copy of n items of size each (NULL when none); *e set to -1 without
 * memory. */
void *perf__fields_dup_array(const void *src, size_t n, size_t size, int *e);

#endif
