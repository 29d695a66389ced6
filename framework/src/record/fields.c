/* fields.c — a struct's members as a table of rows: written as JSON, read back, copied, freed. */
#define _GNU_SOURCE
#include "record/fields.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"

/* A flag as JSON. Never fails. */
static const char *truth(int b) { return b ? "true" : "false"; }

/* s (NULL: "") as a JSON string, with U+FFFD escaped: the worker's JSON
 * writer puts "\ufffd" for each invalid byte and reading that gives U+FFFD,
 * so a text read is written again as it was. Never fails (j->oom). */
void perf__fields_put_text(perf__json *j, const char *s)
{
  static const char fffd[] = "\xef\xbf\xbd";
  if (!s || !strstr(s, fffd)) {
    perf__json_str(j, s ? s : "");
    return;
  }
  perf__json t = {0};
  perf__json_str(&t, s);
  if (t.oom) j->oom = 1;
  for (const char *p = t.s, *f; !t.oom; p = f + 3) {
    if (!(f = strstr(p, fffd))) {
      perf__json_raw(j, "%s", p);
      break;
    }
    perf__json_raw(j, "%.*s\\ufffd", (int)(f - p), p);
  }
  perf__json_free(&t);
}

/* ", \"key\": " then s as a JSON string. Never fails (j->oom). */
void perf__fields_put_str(perf__json *j, const char *key, const char *s)
{
  perf__json_raw(j, ", \"%s\": ", key);
  perf__fields_put_text(j, s);
}



/* Records a problem with member key; returns PERF__EPROTO. */
int perf__fields_bad(perf__fields_reader *rd, const char *key, const char *what)
{
  int at = (int)strlen(rd->at);
  if (!*key && at && rd->at[at - 1] == '.') at--; /* "points[2]", not "points[2]." */
  snprintf(rd->err, rd->len, "claim record: '%.*s%s' %s", at, rd->at, key, what);
  return PERF__EPROTO;
}

/* Records running out of memory; returns PERF__ENOMEM. */
int perf__fields_no_memory(perf__fields_reader *rd)
{
  snprintf(rd->err, rd->len, "claim record: out of memory");
  return PERF__ENOMEM;
}

/* Member key of obj, which must be of type t. Returns 0 with *out set,
 * PERF__EPROTO when it is absent or of another type. */
int perf__fields_member(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key,
                  perf__jsontree_type t, const perf__jsontree_node **out)
{
  static const char *const want[] = {"is not an object", "is not an array", "is not a string",
                                     "is not a number or word"};
  *out = perf__jsontree_get(obj, key);
  if (!*out) return perf__fields_bad(rd, key, "is missing");
  return (*out)->type == t ? 0 : perf__fields_bad(rd, key, want[t]);
}

/* A string member, copied. Returns 0, PERF__EPROTO or PERF__ENOMEM. */
int perf__fields_str(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, char **out)
{
  const perf__jsontree_node *n;
  int e = perf__fields_member(rd, obj, key, PERF__J_STRING, &n);
  if (e) return e;
  *out = strdup(n->text);
  return *out ? 0 : perf__fields_no_memory(rd);
}

/* A scalar as a number (null: NaN). Returns 0, or -1 when it is not one. */
static int as_num(const perf__jsontree_node *n, double *out)
{
  char *end;
  if (n->type != PERF__J_PLAIN) return -1;
  if (!strcmp(n->text, "null")) return *out = NAN, 0;
  *out = strtod(n->text, &end);
  return *end || end == n->text ? -1 : 0;
}

/* A number member (null: NaN). Returns 0 or PERF__EPROTO. */
int perf__fields_num(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, double *out)
{
  const perf__jsontree_node *n = perf__jsontree_get(obj, key);
  if (!n) return perf__fields_bad(rd, key, "is missing");
  return as_num(n, out) ? perf__fields_bad(rd, key, "is not a number") : 0;
}

/* A scalar as a whole number in [lo, hi]. Returns 0, or -1 when it is not one. */
int perf__fields_as_long(const perf__jsontree_node *n, long lo, long hi, long *out)
{
  char *end;
  if (n->type != PERF__J_PLAIN) return -1;
  errno = 0;
  *out = strtol(n->text, &end, 10);
  return *end || end == n->text || errno || *out < lo || *out > hi ? -1 : 0;
}

/* A whole-number member in [lo, hi]. Returns 0 or PERF__EPROTO. */
int perf__fields_long(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, long lo,
                    long hi, long *out)
{
  const perf__jsontree_node *n = perf__jsontree_get(obj, key);
  if (!n) return perf__fields_bad(rd, key, "is missing");
  return perf__fields_as_long(n, lo, hi, out) ? perf__fields_bad(rd, key, "is not a whole number in range") : 0;
}

/* An int member. Returns 0 or PERF__EPROTO. */
static int get_int(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, int *out)
{
  long v;
  int e = perf__fields_long(rd, obj, key, INT_MIN, INT_MAX, &v);
  if (!e) *out = (int)v;
  return e;
}

/* A count member (size_t, not negative). Returns 0 or PERF__EPROTO. */
static int get_size(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, size_t *out)
{
  long v;
  int e = perf__fields_long(rd, obj, key, 0, LONG_MAX, &v);
  if (!e) *out = (size_t)v;
  return e;
}

/* A true/false member. Returns 0 or PERF__EPROTO. */
int perf__fields_bool(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, int *out)
{
  const perf__jsontree_node *n = perf__jsontree_get(obj, key);
  if (!n) return perf__fields_bad(rd, key, "is missing");
  int t = n->type == PERF__J_PLAIN && !strcmp(n->text, "true");
  int f = n->type == PERF__J_PLAIN && !strcmp(n->text, "false");
  if (!t && !f) return perf__fields_bad(rd, key, "is not true or false");
  *out = t;
  return 0;
}

/* A member [lo, hi] of two numbers. Returns 0 or PERF__EPROTO. */
static int get_pair(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, double *out)
{
  const perf__jsontree_node *n;
  int e = perf__fields_member(rd, obj, key, PERF__J_ARRAY, &n);
  if (e) return e;
  if (n->n != 2 || as_num(n->kids[0], &out[0]) || as_num(n->kids[1], &out[1]))
    return perf__fields_bad(rd, key, "is not a pair of numbers");
  return 0;
}

/* An array member of numbers, malloc'd (NULL when empty). Returns 0,
 * PERF__EPROTO or PERF__ENOMEM. */
int perf__fields_nums(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, double **out,
                    size_t *n)
{
  const perf__jsontree_node *a;
  int e = perf__fields_member(rd, obj, key, PERF__J_ARRAY, &a);
  if (e) return e;
  *out = a->n ? malloc(a->n * sizeof **out) : NULL;
  if (a->n && !*out) return perf__fields_no_memory(rd);
  *n = a->n;
  for (size_t i = 0; i < a->n; i++)
    if (as_num(a->kids[i], &(*out)[i])) return perf__fields_bad(rd, key, "is not an array of numbers");
  return 0;
}

/* A number member that may be absent (then 0). Returns 0 or
 * PERF__EPROTO. */
static int get_known(perf__fields_reader *rd, const perf__jsontree_node *obj, const char *key, double *out)
{
  *out = 0;
  return perf__jsontree_get(obj, key) ? perf__fields_num(rd, obj, key, out) : 0;
}

/* Appends prefix to the reader's path (truncated when too long), returning
 * the old path in old[64]. Never fails. */
void perf__fields_enter(perf__fields_reader *rd, const char *prefix, char *old)
{
  size_t used = strlen(rd->at), n = strlen(prefix);
  memcpy(old, rd->at, sizeof rd->at);
  if (n > sizeof rd->at - 1 - used) n = sizeof rd->at - 1 - used;
  memcpy(rd->at + used, prefix, n);
  rd->at[used + n] = '\0';
}

/* Never fails. */
void perf__fields_leave(perf__fields_reader *rd, const char *old)
{
  memcpy(rd->at, old, sizeof rd->at);
}

/* A copy of s (NULL stays NULL). Returns 0, or -1 without memory. */
int perf__fields_dup_str(char **dst, const char *s)
{
  *dst = s ? strdup(s) : NULL;
  return s && !*dst ? -1 : 0;
}

/* A copy of n items of size each (NULL when none); *e set without memory. */
void *perf__fields_dup_array(const void *src, size_t n, size_t size, int *e)
{
  void *p = n && src ? malloc(n * size) : NULL;
  if (p) memcpy(p, src, n * size);
  if (n && src && !p) *e = -1;
  return p;
}

/* ---- the engine: each function over a table's rows --------------------------- */


/* One row's member of the object at p, after a ", " unless first (then
 * *first is cleared). Never fails (j->oom). */
static void put_field(perf__json *j, const perf__fields_row *f, const void *p, int *first)
{
  const char *at = (const char *)p + f->off;
  if ((f->type == PERF__FIELDS_OTEXT && !*(char *const *)at) ||
      (f->type == PERF__FIELDS_KNOWN && !(*(const double *)at > 0)) ||
      (f->type == PERF__FIELDS_OBJ && f->sub->present && !f->sub->present(at)))
    return;
  if (f->type == PERF__FIELDS_HOOK || (f->type == PERF__FIELDS_OBJ && f->sub->group)) {
    if (f->type == PERF__FIELDS_HOOK) f->h->write(j, at);
    else perf__fields_put(j, f->sub, at, *first);
    *first = 0;
    return;
  }
  perf__json_raw(j, "%s\"%s\": ", *first ? "" : ", ", f->key);
  *first = 0;
  switch (f->type) {
  case PERF__FIELDS_TEXT: case PERF__FIELDS_OTEXT: perf__fields_put_text(j, *(char *const *)at); break;
  case PERF__FIELDS_NUM: case PERF__FIELDS_KNOWN: perf__json_num(j, *(const double *)at); break;
  case PERF__FIELDS_PAIR:
    perf__json_raw(j, "[");
    perf__json_num(j, ((const double *)at)[0]);
    perf__json_raw(j, ", ");
    perf__json_num(j, ((const double *)at)[1]);
    perf__json_raw(j, "]");
    break;
  case PERF__FIELDS_INT: perf__json_raw(j, "%d", *(const int *)at); break;
  case PERF__FIELDS_LONG: case PERF__FIELDS_COUNT: perf__json_raw(j, "%ld", *(const long *)at); break;
  case PERF__FIELDS_SIZE: perf__json_raw(j, "%zu", *(const size_t *)at); break;
  case PERF__FIELDS_BOOL: perf__json_raw(j, "%s", truth(*(const int *)at)); break;
  default: /* PERF__FIELDS_OBJ */
    perf__json_raw(j, "{");
    perf__fields_put(j, f->sub, at, 1);
    perf__json_raw(j, "}");
  }
}

/* The members of the object at p, by t's rows. Never fails (j->oom). */
void perf__fields_put(perf__json *j, const perf__fields_table *t, const void *p, int first)
{
  for (size_t i = 0; i < t->n; i++) put_field(j, &t->rows[i], p, &first);
}


/* Object member f of o into the object at p (a group from o itself).
 * Returns 0, PERF__EPROTO or PERF__ENOMEM. */
static int get_object(perf__fields_reader *rd, const perf__fields_row *f, const perf__jsontree_node *o, void *p)
{
  const perf__fields_table *t = f->sub;
  const perf__jsontree_node *n = o;
  char old[64], prefix[72];
  if (t->present && !perf__jsontree_get(o, t->group ? t->rows[0].key : f->key)) return 0;
  if (t->mark) t->mark(p);
  if (t->group) return perf__fields_get(rd, t, o, p);
  int e = perf__fields_member(rd, o, f->key, PERF__J_OBJECT, &n);
  if (e) return e;
  snprintf(prefix, sizeof prefix, "%s.", f->key);
  perf__fields_enter(rd, prefix, old);
  e = perf__fields_get(rd, t, n, p);
  perf__fields_leave(rd, old);
  return e;
}

/* One row's member of o into the object at p. Returns 0, PERF__EPROTO or
 * PERF__ENOMEM. */
static int get_field(perf__fields_reader *rd, const perf__fields_row *f, const perf__jsontree_node *o, void *p)
{
  char *at = (char *)p + f->off;
  switch (f->type) {
  case PERF__FIELDS_OTEXT: if (!perf__jsontree_get(o, f->key)) return 0; /* fall through */
  case PERF__FIELDS_TEXT: return perf__fields_str(rd, o, f->key, (char **)at);
  case PERF__FIELDS_NUM: return perf__fields_num(rd, o, f->key, (double *)at);
  case PERF__FIELDS_KNOWN: return get_known(rd, o, f->key, (double *)at);
  case PERF__FIELDS_PAIR: return get_pair(rd, o, f->key, (double *)at);
  case PERF__FIELDS_INT: return get_int(rd, o, f->key, (int *)at);
  case PERF__FIELDS_LONG: return perf__fields_long(rd, o, f->key, LONG_MIN, LONG_MAX, (long *)at);
  case PERF__FIELDS_COUNT: return perf__fields_long(rd, o, f->key, 0, LONG_MAX, (long *)at);
  case PERF__FIELDS_SIZE: return get_size(rd, o, f->key, (size_t *)at);
  case PERF__FIELDS_BOOL: return perf__fields_bool(rd, o, f->key, (int *)at);
  case PERF__FIELDS_OBJ: return get_object(rd, f, o, at);
  default: return f->h->read(rd, o, at);
  }
}

/* The members of o into the object at p, by t's rows, in order; the first
 * problem stops it. Returns 0, PERF__EPROTO or PERF__ENOMEM. */
int perf__fields_get(perf__fields_reader *rd, const perf__fields_table *t, const perf__jsontree_node *o, void *p)
{
  int e = 0;
  for (size_t i = 0; i < t->n && !e; i++) e = get_field(rd, &t->rows[i], o, p);
  return e;
}

/* Deep copies of what the object at src owns into dst, whose scalars are
 * src's already. Returns 0, or -1 without memory (what was copied is
 * freed by the caller). */
int perf__fields_copy(const perf__fields_table *t, void *dst, const void *src)
{
  int e = 0;
  for (size_t i = 0; i < t->n; i++) {
    const perf__fields_row *f = &t->rows[i];
    char *d = (char *)dst + f->off;
    const char *s = (const char *)src + f->off;
    if (f->type == PERF__FIELDS_TEXT || f->type == PERF__FIELDS_OTEXT) e |= perf__fields_dup_str((char **)d, *(char *const *)s);
    else if (f->type == PERF__FIELDS_OBJ) e |= perf__fields_copy(f->sub, d, s);
    else if (f->type == PERF__FIELDS_HOOK && f->h->copy) e |= f->h->copy(d, s);
  }
  return e;
}

/* Frees what the object at p owns. Never fails. */
void perf__fields_free(const perf__fields_table *t, void *p)
{
  for (size_t i = 0; i < t->n; i++) {
    const perf__fields_row *f = &t->rows[i];
    char *at = (char *)p + f->off;
    if (f->type == PERF__FIELDS_TEXT || f->type == PERF__FIELDS_OTEXT) free(*(char **)at), *(char **)at = NULL;
    else if (f->type == PERF__FIELDS_OBJ) perf__fields_free(f->sub, at);
    else if (f->type == PERF__FIELDS_HOOK && f->h->free) f->h->free(at);
  }
}

