/* baseline.c — a per-GPU baseline file: its model, strict YAML loading with positions, atomic saving. */
#define _GNU_SOURCE
#include "base/baseline.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "base/clock.h"
#include "base/file.h"
#include "base/status.h"
#include "base/progname.h"

/* ---- model -------------------------------------------------------------- */

/* Never fails. */
void perf__baseline_init(perf__baseline *b)
{
  memset(b, 0, sizeof *b);
  b->schema = PERF__BL_SCHEMA;
}

/* Never fails. */
void perf__baseline_free(perf__baseline *b)
{
  free(b->entries);
  free(b->ratios);
  free(b->entry_slots);
  free(b->ratio_slots);
  perf__baseline_init(b);
}

/* FNV-1a of x, a separator and y. Never fails. */
static size_t hash2(const char *x, const char *y)
{
  unsigned long long h = 1469598103934665603ull;
  for (const char *s = x;; s++) {
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
    if (!*s) break;
  }
  for (const char *s = y; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (size_t)h;
}

/* The keys of item i: an entry's test and workload, or a ratio's test and
 * claim. */
typedef void key_fn(const perf__baseline *b, size_t i, const char **x, const char **y);

static void entry_key(const perf__baseline *b, size_t i, const char **x, const char **y)
{
  *x = b->entries[i].test;
  *y = b->entries[i].workload;
}

static void ratio_key(const perf__baseline *b, size_t i, const char **x, const char **y)
{
  *x = b->ratios[i].test;
  *y = b->ratios[i].claim;
}

static unsigned long long compares; /* see perf__baseline_key_compares */

/* See baseline.h. */
unsigned long long perf__baseline_key_compares(void) { return compares; }

/* The slot that holds the item with keys (x, y), or the empty one where it
 * would go. nslots is a power of two with an empty slot. Never fails. */
static size_t *probe(const perf__baseline *b, size_t *slots, size_t nslots, key_fn *key,
                     const char *x, const char *y)
{
  size_t i = hash2(x, y) & (nslots - 1);
  for (;; i = (i + 1) & (nslots - 1)) {
    const char *a, *c;
    if (!slots[i]) return &slots[i];
    key(b, slots[i] - 1, &a, &c);
    compares++;
    if (!strcmp(a, x) && !strcmp(c, y)) return &slots[i];
  }
}

/* Makes room in the index for one more of the n items: rebuilt twice as
 * large when it would be over half full. Returns 0 or PERF__ENOMEM (the
 * old index is kept). */
static int reserve(const perf__baseline *b, size_t **slots, size_t *nslots, size_t n,
                   key_fn *key)
{
  if (2 * (n + 1) <= *nslots) return 0;
  size_t m = *nslots ? 2 * *nslots : 64;
  while (2 * (n + 1) > m) m *= 2;
  size_t *t = calloc(m, sizeof *t);
  if (!t) return PERF__ENOMEM;
  for (size_t i = 0; i < n; i++) {
    const char *x, *y;
    key(b, i, &x, &y);
    *probe(b, t, m, key, x, y) = i + 1;
  }
  free(*slots);
  *slots = t;
  *nslots = m;
  return 0;
}

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
  if (n < *cap) return 0;
  size_t c = *cap ? 2 * *cap : 16;
  void *q = realloc(*p, c * size);
  if (!q) return PERF__ENOMEM;
  *p = q;
  *cap = c;
  return 0;
}

/* NULL when there is none. */
const perf__baseline_entry *perf__baseline_find(const perf__baseline *b, const char *test,
                                    const char *workload)
{
  if (!b->nentry_slots) return NULL;
  size_t *s = probe(b, b->entry_slots, b->nentry_slots, entry_key, test, workload);
  return *s ? &b->entries[*s - 1] : NULL;
}

/* 0 or PERF__ENOMEM. */
int perf__baseline_put_entry(perf__baseline *b, const perf__baseline_entry *e)
{
  perf__baseline_entry *old = (perf__baseline_entry *)perf__baseline_find(b, e->test, e->workload);
  if (old) {
    *old = *e;
    return 0;
  }
  if (reserve(b, &b->entry_slots, &b->nentry_slots, b->nentries, entry_key) ||
      grow((void **)&b->entries, &b->cap_entries, b->nentries, sizeof *e))
    return PERF__ENOMEM;
  b->entries[b->nentries] = *e;
  *probe(b, b->entry_slots, b->nentry_slots, entry_key, e->test, e->workload) = ++b->nentries;
  return 0;
}

/* 0 or PERF__ENOMEM. */
int perf__baseline_put_ratio(perf__baseline *b, const perf__baseline_ratio *r)
{
  size_t *s = b->nratio_slots
                  ? probe(b, b->ratio_slots, b->nratio_slots, ratio_key, r->test, r->claim)
                  : NULL;
  if (s && *s) {
    b->ratios[*s - 1] = *r;
    return 0;
  }
  if (reserve(b, &b->ratio_slots, &b->nratio_slots, b->nratios, ratio_key) ||
      grow((void **)&b->ratios, &b->cap_ratios, b->nratios, sizeof *r))
    return PERF__ENOMEM;
  b->ratios[b->nratios] = *r;
  *probe(b, b->ratio_slots, b->nratio_slots, ratio_key, r->test, r->claim) = ++b->nratios;
  return 0;
}

/* 0, or PERF__EINVAL when the table is full. */
int perf__baseline_set_fp(perf__baseline *b, const char *key, const char *value)
{
  size_t i = 0;
  while (i < b->nfp && strcmp(b->fp[i].key, key)) i++;
  if (i == PERF__BL_MAX_FP) return PERF__EINVAL;
  snprintf(b->fp[i].key, sizeof b->fp[i].key, "%s", key);
  snprintf(b->fp[i].value, sizeof b->fp[i].value, "%s", value);
  if (i == b->nfp) b->nfp++;
  return 0;
}

/* Never fails. */
char *perf__baseline_slug(const char *model, char *buf, size_t len)
{
  size_t n = 0;
  int dash = 0;
  for (const char *s = model ? model : ""; *s && n + 1 < len && n < 64; s++) {
    unsigned char c = (unsigned char)*s;
    if (isalnum(c) && c < 128) {
      if (dash && n > 0 && n + 2 < len) buf[n++] = '-';
      dash = 0;
      buf[n++] = (char)tolower(c);
    } else
      dash = 1;
  }
  buf[n] = '\0';
  if (n == 0) snprintf(buf, len, "unknown");
  return buf;
}

/* ---- the SM clock of an entry's samples --------------------------------- */

static int by_value(const void *x, const void *y)
{
  unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;
  return (a > b) - (a < b);
}

/* See baseline.h. */
perf__baseline_mhz perf__baseline_mhz_of(const unsigned *mhz, size_t n)
{
  perf__baseline_mhz c = {0, 0, 0};
  unsigned *k = n ? malloc(n * sizeof *k) : NULL;
  size_t m = 0;
  for (size_t i = 0; k && i < n; i++)
    if (mhz[i]) k[m++] = mhz[i];
  if (m) {
    qsort(k, m, sizeof *k, by_value);
    c.median = m % 2 ? k[m / 2] : (unsigned)(((unsigned long)k[m / 2 - 1] + k[m / 2] + 1) / 2);
    c.min = k[0];
    c.max = k[m - 1];
  }
  free(k);
  return c;
}

/* See baseline.h. */
perf__baseline_mhz perf__baseline_mhz_merge(const perf__baseline_mhz *runs, size_t n)
{
  enum { MAX_RUNS = 64 };
  unsigned med[MAX_RUNS];
  size_t m = 0;
  perf__baseline_mhz c = {0, 0, 0};
  for (size_t i = 0; i < n && m < MAX_RUNS; i++) {
    if (!runs[i].median) continue;
    med[m++] = runs[i].median;
    if (!c.min || runs[i].min < c.min) c.min = runs[i].min;
    if (runs[i].max > c.max) c.max = runs[i].max;
  }
  perf__baseline_mhz mid = perf__baseline_mhz_of(med, m);
  if (!mid.median) return (perf__baseline_mhz){0, 0, 0};
  c.median = mid.median;
  return c;
}

/* See baseline.h. */
int perf__baseline_clock_note(const perf__baseline_entry *base, double median,
                              perf__baseline_mhz now, char *buf, size_t len)
{
  unsigned was = base->sm_clock.median;
  if (len) buf[0] = '\0';
  if (!was || !now.median || !(base->median_s > 0) || !(median > 0)) return 0;
  double clock = (double)now.median / was - 1, time = median / base->median_s - 1;
  double cycles = (1 + time) * (1 + clock) - 1, tol = base->tolerance;
  int time_moved = fabs(time) > tol, cycles_moved = fabs(cycles) > tol;
  if (fabs(clock) <= PERF__BL_CLOCK_MOVED || (!time_moved && !cycles_moved)) return 0;
  int n = snprintf(buf, len, "; the SM clock moved from %u to %u MHz (%+.1f%%)", was,
                   now.median, 100 * clock);
  size_t u = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len;
  if (!cycles_moved)
    snprintf(buf + u, len - u, ": in cycles (time x SM clock) the workload is unchanged "
             "(%+.1f%%)", 100 * cycles);
  else
    snprintf(buf + u, len - u, "; in cycles (time x SM clock) the workload changed %s%+.1f%%%s",
             time_moved ? "too (" : "by ", 100 * cycles, time_moved ? ")" : "");
  return 1;
}

/* ---- loading: libyaml events, checked one by one ------------------------ */

typedef struct parser {
  yaml_parser_t y;
  yaml_event_t ev;
  int have; /* ev holds an event */
  const char *name;
  char *err;
  size_t errlen;
  /* for the schema check at the end (the version may follow the entries):
   * the first version-2 key, and the first entry without one */
  const char *v2_key;
  yaml_mark_t v2_mark;
  int no_clock;
  yaml_mark_t no_clock_mark;
  int schema; /* the version, once read (0 before) */
} parser;

static int fail_at(parser *p, yaml_mark_t m, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records the first error as "name:line:column: what". */
static int fail_at(parser *p, yaml_mark_t m, const char *fmt, ...)
{
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(p->err, p->errlen, "%s:%zu:%zu: %s", p->name, m.line + 1,
           m.column + 1, msg);
  return PERF__EBADFILE;
}

/* Advances to the next event; rejects aliases (no alias bombs, no shared
 * nodes to reason about). */
static int next(parser *p)
{
  if (p->have) yaml_event_delete(&p->ev);
  p->have = 0;
  if (!yaml_parser_parse(&p->y, &p->ev)) {
    if (p->y.error == YAML_MEMORY_ERROR) return PERF__ENOMEM;
    return fail_at(p, p->y.problem_mark, "%s%s%s",
                   p->y.problem ? p->y.problem : "invalid YAML",
                   p->y.context ? " " : "", p->y.context ? p->y.context : "");
  }
  p->have = 1;
  if (p->ev.type == YAML_ALIAS_EVENT)
    return fail_at(p, p->ev.start_mark, "aliases are not allowed in a baseline file");
  const yaml_char_t *tag = p->ev.type == YAML_SCALAR_EVENT           ? p->ev.data.scalar.tag
                           : p->ev.type == YAML_SEQUENCE_START_EVENT ? p->ev.data.sequence_start.tag
                           : p->ev.type == YAML_MAPPING_START_EVENT  ? p->ev.data.mapping_start.tag
                                                                     : NULL;
  if (tag)
    return fail_at(p, p->ev.start_mark, "tags are not allowed in a baseline file (got '%s')",
                   (const char *)tag);
  if (p->ev.type == YAML_SCALAR_EVENT &&
      strlen((const char *)p->ev.data.scalar.value) != p->ev.data.scalar.length)
    return fail_at(p, p->ev.start_mark, "a value holds a NUL character");
  return 0;
}

static int expect(parser *p, yaml_event_type_t t, const char *what)
{
  int r = next(p);
  if (r) return r;
  return p->ev.type == t ? 0 : fail_at(p, p->ev.start_mark, "expected %s", what);
}

static const char *scalar(const parser *p) { return (const char *)p->ev.data.scalar.value; }

typedef struct field {
  char key[48];
  char value[256];
  int plain;  /* the value was written unquoted (a number must be) */
  int list;   /* the value was a list of plain scalars, kept space-separated */
  yaml_mark_t key_mark, value_mark;
  yaml_mark_t item[PERF__BL_MAX_RUNS]; /* a list: where its first items start */
} field;

typedef struct fields {
  field f[32];
  size_t n;
  yaml_mark_t start;
} fields;

/* Separates a list's items in field.value: a plain scalar may hold spaces
 * ("[1 2, 3]" is two items, the first "1 2"), never this. */
#define ITEM_SEP "\x1f"

/* Reads the list value of f (its start consumed): plain scalars, kept in
 * f->value separated by ITEM_SEP, the first items' positions in f->item. */
static int scalar_list(parser *p, field *f, const char *what)
{
  size_t used = 0, k = 0;
  int r;
  f->value[0] = '\0';
  f->list = f->plain = 1;
  while (!(r = next(p)) && p->ev.type != YAML_SEQUENCE_END_EVENT) {
    if (k < PERF__BL_MAX_RUNS) f->item[k++] = p->ev.start_mark;
    if (p->ev.type != YAML_SCALAR_EVENT)
      return fail_at(p, p->ev.start_mark, "'%s' in %s must be a list of numbers", f->key, what);
    if (p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
      return fail_at(p, p->ev.start_mark, "'%s' in %s must be a list of numbers, not quoted "
                     "text ('%s')", f->key, what, scalar(p));
    int n = snprintf(f->value + used, sizeof f->value - used, "%s%s", used ? ITEM_SEP : "",
                     scalar(p));
    if (n < 0 || (size_t)n >= sizeof f->value - used)
      return fail_at(p, p->ev.start_mark, "value of '%s' too long", f->key);
    used += (size_t)n;
  }
  return r;
}

/* 1 when key is one of lists (NULL-terminated; NULL: none). */
static int listed(const char *const *lists, const char *key)
{
  for (; lists && *lists; lists++)
    if (!strcmp(*lists, key)) return 1;
  return 0;
}

/* Reads a mapping of scalar keys to scalar values (its start consumed);
 * the keys in lists (NULL-terminated, or NULL) may hold a list
 * (scalar_list). */
static int flat_mapping(parser *p, fields *out, const char *what, const char *const *lists)
{
  int r;
  out->n = 0;
  out->start = p->ev.start_mark;
  for (;;) {
    if ((r = next(p))) return r;
    if (p->ev.type == YAML_MAPPING_END_EVENT) return 0;
    if (p->ev.type != YAML_SCALAR_EVENT)
      return fail_at(p, p->ev.start_mark, "expected a key in %s", what);
    if (out->n == sizeof out->f / sizeof out->f[0])
      return fail_at(p, p->ev.start_mark, "too many keys in %s", what);
    field *f = &out->f[out->n];
    if (p->ev.data.scalar.length >= sizeof f->key)
      return fail_at(p, p->ev.start_mark, "key too long in %s", what);
    snprintf(f->key, sizeof f->key, "%s", scalar(p));
    f->key_mark = p->ev.start_mark;
    for (size_t i = 0; i < out->n; i++)
      if (!strcmp(out->f[i].key, f->key))
        return fail_at(p, f->key_mark, "duplicate key '%s' in %s", f->key, what);
    if ((r = next(p))) return r;
    if (p->ev.type == YAML_SEQUENCE_START_EVENT && listed(lists, f->key)) {
      f->value_mark = p->ev.start_mark;
      if ((r = scalar_list(p, f, what))) return r;
      out->n++;
      continue;
    }
    f->list = 0;
    if (p->ev.type != YAML_SCALAR_EVENT)
      return fail_at(p, p->ev.start_mark, "'%s' in %s must be a single value",
                     f->key, what);
    if (p->ev.data.scalar.length >= sizeof f->value)
      return fail_at(p, p->ev.start_mark, "value of '%s' too long", f->key);
    snprintf(f->value, sizeof f->value, "%s", scalar(p));
    f->plain = p->ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    f->value_mark = p->ev.start_mark;
    out->n++;
  }
}

static const field *get(const fields *fs, const char *key)
{
  for (size_t i = 0; i < fs->n; i++)
    if (!strcmp(fs->f[i].key, key)) return &fs->f[i];
  return NULL;
}

/* Every key of fs must be one of allowed (NULL-terminated). */
static int only(parser *p, const fields *fs, const char *const *allowed,
                const char *what)
{
  for (size_t i = 0; i < fs->n; i++) {
    const char *const *a = allowed;
    while (*a && strcmp(*a, fs->f[i].key)) a++;
    if (!*a)
      return fail_at(p, fs->f[i].key_mark, "unknown key '%s' in %s",
                     fs->f[i].key, what);
  }
  return 0;
}

static int need(parser *p, const fields *fs, const char *key, const char *what,
                const field **out)
{
  *out = get(fs, key);
  return *out ? 0 : fail_at(p, fs->start, "%s lacks '%s'", what, key);
}

static int text(parser *p, const fields *fs, const char *key, const char *what,
                char *dst, size_t n)
{
  const field *f;
  int r = need(p, fs, key, what, &f);
  if (r) return r;
  if (!f->value[0] || strlen(f->value) >= n)
    return fail_at(p, f->value_mark, "'%s' must be a non-empty text of at "
                   "most %zu characters", key, n - 1);
  snprintf(dst, n, "%s", f->value);
  return 0;
}

/* 1 for a clock name the runner writes. */
static int known_clock(const char *c) { return perf__clock_of_name(c) >= 0; }

/* A finite number in [lo, hi]. */
/* 1 for a plain decimal number: [+|-]digits[.digits][(e|E)[+|-]digits],
 * or one starting with a '.'; no hex, infinity or NaN. */
static int decimal(const char *s)
{
  int digits = 0;
  if (*s == '-' || *s == '+') s++;
  for (; isdigit((unsigned char)*s); s++) digits++;
  if (*s == '.')
    for (s++; isdigit((unsigned char)*s); s++) digits++;
  if (!digits) return 0;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!isdigit((unsigned char)*s)) return 0;
    while (isdigit((unsigned char)*s)) s++;
  }
  return *s == '\0';
}

static int number(parser *p, const field *f, double lo, double hi, double *out)
{
  char *end;
  errno = 0;
  double v = strtod(f->value, &end);
  if (!f->plain)
    return fail_at(p, f->value_mark, "'%s' must be a number, not quoted text ('%s')", f->key,
                   f->value);
  if (!decimal(f->value) || *end || errno || !isfinite(v) || v < lo || v > hi)
    return fail_at(p, f->value_mark, "'%s' must be a number in [%g, %g], got '%s'",
                   f->key, lo, hi, f->value);
  *out = v;
  return 0;
}

static int num_key(parser *p, const fields *fs, const char *key,
                   const char *what, double lo, double hi, double *out)
{
  const field *f;
  int r = need(p, fs, key, what, &f);
  return r ? r : number(p, f, lo, hi, out);
}

static int date(parser *p, const fields *fs, const char *what, char *dst,
                size_t n)
{
  int r = text(p, fs, "recorded", what, dst, n);
  if (r) return r;
  int ok = strlen(dst) == 10;
  for (int i = 0; ok && i < 10; i++)
    ok = (i == 4 || i == 7) ? dst[i] == '-' : isdigit((unsigned char)dst[i]);
  if (ok) { /* a day that exists */
    static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y = atoi(dst), m = atoi(dst + 5), d = atoi(dst + 8);
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    ok = m >= 1 && m <= 12 && d >= 1 && d <= days[m - 1] - (m == 2 && !leap);
  }
  return ok ? 0 : fail_at(p, get(fs, "recorded")->value_mark,
                          "'recorded' must be a date YYYY-MM-DD that exists, got '%s'", dst);
}

/* A whole number of MHz in [1, 100000] into *out. */
static int mhz_value(parser *p, const field *f, unsigned *out)
{
  double v;
  int r = number(p, f, 1, 1e5, &v);
  if (!r && v != floor(v))
    r = fail_at(p, f->value_mark, "'%s' must be a whole number of MHz, got '%s'", f->key,
                f->value);
  *out = r ? 0 : (unsigned)v;
  return r;
}

/* An entry's SM clock (schema version 2): sm_clock_mhz a whole number of
 * MHz with sm_clock_min_mhz <= it <= sm_clock_max_mhz, or `unknown` alone.
 * Notes where the file first has a version-2 key, or an entry lacks it,
 * for root's check against the version. */
static int sm_clock(parser *p, const fields *fs, perf__baseline_mhz *c)
{
  static const char *const keys[] = {"sm_clock_mhz", "sm_clock_min_mhz", "sm_clock_max_mhz"};
  const field *f[3];
  unsigned v[3] = {0, 0, 0};
  int any = 0, r = 0;
  for (int i = 0; i < 3; i++) {
    f[i] = get(fs, keys[i]);
    if (f[i] && !any++ && !p->v2_key) p->v2_key = keys[i], p->v2_mark = f[i]->key_mark;
  }
  *c = (perf__baseline_mhz){0, 0, 0};
  if (any && p->schema == 1) /* said at once, before what a clock lacks */
    return fail_at(p, p->v2_mark, "'%s' is a field of schema version 2, but the file says "
                   "schema: 1", p->v2_key);
  if (!any) {
    if (!p->no_clock++) p->no_clock_mark = fs->start;
    return 0;
  }
  if ((r = need(p, fs, keys[0], "an entry", &f[0]))) return r;
  if (!strcmp(f[0]->value, "unknown")) {
    for (int i = 1; i < 3; i++)
      if (f[i])
        return fail_at(p, f[i]->key_mark, "'%s' with sm_clock_mhz unknown: give both bounds "
                       "with a clock, or neither", keys[i]);
    return 0;
  }
  for (int i = 0; !r && i < 3; i++) r = need(p, fs, keys[i], "an entry", &f[i]);
  for (int i = 0; !r && i < 3; i++) r = mhz_value(p, f[i], &v[i]);
  if (!r && (v[1] > v[0] || v[0] > v[2]))
    r = fail_at(p, f[0]->value_mark, "'sm_clock_mhz' %u must lie between sm_clock_min_mhz "
                "(%u) and sm_clock_max_mhz (%u)", v[0], v[1], v[2]);
  if (!r) *c = (perf__baseline_mhz){v[0], v[1], v[2]};
  return r;
}

_Static_assert(PERF__BL_MAX_RUNS == 16, "run_values' message names 16");

/* An entry's list of run medians named key (schema version 2: runs_s,
 * slow_runs_s) into v[*n]: seconds, in run order, 1 to PERF__BL_MAX_RUNS
 * numbers in [1e-12, 3600]; absent: none recorded (*n 0). */
static int run_values(parser *p, const fields *fs, const char *key, double *v, int *n)
{
  const field *f = get(fs, key);
  *n = 0;
  if (!f) return 0;
  if (!p->v2_key) p->v2_key = key, p->v2_mark = f->key_mark;
  if (p->schema == 1)
    return fail_at(p, f->key_mark, "'%s' is a field of schema version 2, but the file says "
                   "schema: 1", key);
  if (!f->list || !f->value[0])
    return fail_at(p, f->value_mark, "'%s' must be a list of 1 to 16 numbers, e.g. "
                   "[2.1e-05, 2.3e-05]", key);
  char copy[sizeof f->value], *save = NULL;
  snprintf(copy, sizeof copy, "%s", f->value);
  for (char *t = strtok_r(copy, ITEM_SEP, &save); t; t = strtok_r(NULL, ITEM_SEP, &save)) {
    if (*n == PERF__BL_MAX_RUNS)
      return fail_at(p, f->value_mark, "'%s' holds too many values (at most %d)", key,
                     PERF__BL_MAX_RUNS);
    field one = *f;
    snprintf(one.value, sizeof one.value, "%s", t);
    one.value_mark = f->item[*n]; /* an error points at the item */
    int r = number(p, &one, 1e-12, 3600, &v[(*n)++]);
    if (r) return r;
  }
  return 0;
}

static int entry(parser *p, perf__baseline *b)
{
  static const char *const keys[] = {"test", "workload", "clock", "median_s",
                                     "spread_s", "samples", "tolerance",
                                     "sm_clock_mhz", "sm_clock_min_mhz",
                                     "sm_clock_max_mhz", "runs_s", "slow_runs_s", "recorded", NULL};
  static const char *const lists[] = {"runs_s", "slow_runs_s", NULL};
  fields fs;
  perf__baseline_entry e = {.tolerance = PERF__BL_TOLERANCE};
  double samples;
  int r = flat_mapping(p, &fs, "an entry", lists);
  if (!r) r = only(p, &fs, keys, "an entry");
  if (!r) r = text(p, &fs, "test", "an entry", e.test, sizeof e.test);
  if (!r) r = text(p, &fs, "workload", "an entry", e.workload, sizeof e.workload);
  if (!r) r = text(p, &fs, "clock", "an entry", e.clock, sizeof e.clock);
  if (!r && !known_clock(e.clock))
    r = fail_at(p, get(&fs, "clock")->value_mark,
                "'clock' must be events, wall, submit, device or cold, got '%s'", e.clock);
  if (!r) r = num_key(p, &fs, "median_s", "an entry", 1e-12, 3600, &e.median_s);
  if (!r) r = num_key(p, &fs, "spread_s", "an entry", 0, 3600, &e.spread_s);
  if (!r) r = num_key(p, &fs, "samples", "an entry", 1, 1e9, &samples);
  if (!r && samples != floor(samples))
    r = fail_at(p, get(&fs, "samples")->value_mark, "'samples' must be a whole number");
  if (!r && get(&fs, "tolerance"))
    r = number(p, get(&fs, "tolerance"), 0.001, 10, &e.tolerance);
  if (!r) r = sm_clock(p, &fs, &e.sm_clock);
  if (!r) r = run_values(p, &fs, "runs_s", e.runs_s, &e.nruns);
  if (!r) r = run_values(p, &fs, "slow_runs_s", e.slow_s, &e.nslow);
  if (!r) r = date(p, &fs, "an entry", e.recorded, sizeof e.recorded);
  if (!r && perf__baseline_find(b, e.test, e.workload))
    r = fail_at(p, fs.start, "a second entry for %s / %s", e.test, e.workload);
  e.samples = (long)samples;
  return r ? r : perf__baseline_put_entry(b, &e);
}

static int ratio(parser *p, perf__baseline *b)
{
  static const char *const keys[] = {"test", "claim", "ratio", "recorded", NULL};
  fields fs;
  perf__baseline_ratio q = {0};
  int r = flat_mapping(p, &fs, "a ratio", NULL);
  if (!r) r = only(p, &fs, keys, "a ratio");
  if (!r) r = text(p, &fs, "test", "a ratio", q.test, sizeof q.test);
  if (!r) r = text(p, &fs, "claim", "a ratio", q.claim, sizeof q.claim);
  if (!r) r = num_key(p, &fs, "ratio", "a ratio", 1e-9, 1e9, &q.ratio);
  if (!r) r = date(p, &fs, "a ratio", q.recorded, sizeof q.recorded);
  return r ? r : perf__baseline_put_ratio(b, &q);
}

/* A sequence of mappings, each read by item. */
static int sequence(parser *p, perf__baseline *b, const char *what,
                    int (*item)(parser *, perf__baseline *))
{
  char want[64];
  snprintf(want, sizeof want, "a list under %s", what);
  int r = expect(p, YAML_SEQUENCE_START_EVENT, want);
  while (!r) {
    if ((r = next(p))) break;
    if (p->ev.type == YAML_SEQUENCE_END_EVENT) return 0;
    if (p->ev.type != YAML_MAPPING_START_EVENT)
      return fail_at(p, p->ev.start_mark, "expected a mapping in %s", what);
    r = item(p, b);
  }
  return r;
}

static int fingerprint(parser *p, perf__baseline *b)
{
  fields fs;
  int r = expect(p, YAML_MAPPING_START_EVENT, "a mapping under 'fingerprint'");
  if (!r) r = flat_mapping(p, &fs, "the fingerprint", NULL);
  for (size_t i = 0; !r && i < fs.n; i++)
    if (perf__baseline_set_fp(b, fs.f[i].key, fs.f[i].value))
      r = fail_at(p, fs.f[i].key_mark, "too many fingerprint fields");
  return r;
}

static int schema(parser *p, perf__baseline *b)
{
  int r = expect(p, YAML_SCALAR_EVENT, "a schema version");
  if (r) return r;
  if (p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
    return fail_at(p, p->ev.start_mark, "the schema version must be a number, not quoted "
                   "text ('%s')", scalar(p));
  if (strcmp(scalar(p), "1") && strcmp(scalar(p), "2"))
    return fail_at(p, p->ev.start_mark, "unknown schema version '%s' (this "
                   "perfgate reads versions 1 and 2)", scalar(p));
  b->schema = p->schema = scalar(p)[0] - '0';
  return 0;
}

/* The entries against the version (known once the whole mapping is read):
 * no version-2 key in a version-1 file, and every version-2 entry with its
 * SM clock. */
static int fields_of_version(parser *p, const perf__baseline *b)
{
  if (b->schema == 1 && p->v2_key)
    return fail_at(p, p->v2_mark, "'%s' is a field of schema version 2, but the file says "
                   "schema: 1", p->v2_key);
  if (b->schema == 2 && p->no_clock)
    return fail_at(p, p->no_clock_mark, "an entry lacks 'sm_clock_mhz' (schema version 2: "
                   "the SM clock of its samples in MHz, or unknown)");
  return 0;
}

/* The top-level mapping (its start consumed). */
static int root(parser *p, perf__baseline *b)
{
  static const char *const keys[] = {"schema", "fingerprint", "entries", "ratios"};
  int seen[4] = {0}, r;
  yaml_mark_t start = p->ev.start_mark;
  for (;;) {
    if ((r = next(p))) return r;
    if (p->ev.type == YAML_MAPPING_END_EVENT) break;
    if (p->ev.type != YAML_SCALAR_EVENT)
      return fail_at(p, p->ev.start_mark, "expected a key at the top level");
    size_t k = 0;
    while (k < 4 && strcmp(keys[k], scalar(p))) k++;
    if (k == 4)
      return fail_at(p, p->ev.start_mark, "unknown key '%s' at the top level", scalar(p));
    if (seen[k]++)
      return fail_at(p, p->ev.start_mark, "duplicate key '%s'", keys[k]);
    r = k == 0 ? schema(p, b)
        : k == 1 ? fingerprint(p, b)
        : k == 2 ? sequence(p, b, "'entries'", entry)
                 : sequence(p, b, "'ratios'", ratio);
    if (r) return r;
  }
  return seen[0] ? fields_of_version(p, b) : fail_at(p, start, "the file lacks 'schema'");
}

static int document(parser *p, perf__baseline *b)
{
  int r = expect(p, YAML_STREAM_START_EVENT, "a YAML stream");
  if (!r) r = next(p);
  if (!r && p->ev.type != YAML_DOCUMENT_START_EVENT)
    r = fail_at(p, p->ev.start_mark, "the file is empty");
  if (!r) r = expect(p, YAML_MAPPING_START_EVENT, "a mapping at the top level");
  if (!r) r = root(p, b);
  if (!r) r = expect(p, YAML_DOCUMENT_END_EVENT, "the end of the document");
  if (!r) r = next(p);
  if (!r && p->ev.type != YAML_STREAM_END_EVENT)
    r = fail_at(p, p->ev.start_mark, "a baseline file holds one document");
  return r;
}

/* See baseline.h. */
int perf__baseline_parse(const char *name, const unsigned char *buf, size_t len,
                   perf__baseline *b, char *err, size_t errlen)
{
  parser p = {.name = name, .err = err, .errlen = errlen};
  perf__baseline_init(b);
  if (!yaml_parser_initialize(&p.y)) return PERF__ENOMEM;
  yaml_parser_set_input_string(&p.y, buf, len);
  int r = document(&p, b);
  if (p.have) yaml_event_delete(&p.ev);
  yaml_parser_delete(&p.y);
  if (r) perf__baseline_free(b);
  if (r == PERF__ENOMEM) snprintf(err, errlen, "%s: out of memory", name);
  return r;
}

/* See baseline.h. */
int perf__baseline_load(const char *path, perf__baseline *b, char *err,
                  size_t errlen)
{
  enum { MAX_FILE = 16 << 20 };
  struct stat st;
  perf__baseline_init(b);
  /* O_NONBLOCK: a FIFO is refused below instead of waiting for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st)) {
    int e = errno;
    if (fd >= 0) close(fd);
    snprintf(err, errlen, "%s: %s", path, strerror(e));
    errno = e;
    return PERF__EIO;
  }
  const char *why = S_ISDIR(st.st_mode)    ? "is a directory, not a baseline file"
                    : !S_ISREG(st.st_mode) ? "is not a regular file (a FIFO, device or socket)"
                    : st.st_size > MAX_FILE ? "is larger than 16 MiB"
                                            : NULL;
  if (why) {
    close(fd);
    snprintf(err, errlen, "%s: %s", path, why);
    return PERF__EBADFILE;
  }
  size_t want = (size_t)st.st_size, n = 0;
  unsigned char *data = malloc(want + 1);
  ssize_t got = 1;
  while (data && n <= want && (got = read(fd, data + n, want + 1 - n)) > 0) n += (size_t)got;
  int e = got < 0 ? errno : 0;
  close(fd);
  if (!data || e || n > MAX_FILE) {
    snprintf(err, errlen, "%s: %s", path,
             !data ? "out of memory" : e ? strerror(e) : "is larger than 16 MiB");
    free(data);
    errno = e;
    return !data ? PERF__ENOMEM : e ? PERF__EIO : PERF__EBADFILE;
  }
  int r = perf__baseline_parse(path, data, n, b, err, errlen);
  free(data);
  return r;
}

/* ---- saving ------------------------------------------------------------- */

static int put(yaml_emitter_t *e, yaml_event_t *ev)
{
  return yaml_emitter_emit(e, ev) ? 0 : PERF__EIO;
}

static int str(yaml_emitter_t *e, const char *s)
{
  yaml_event_t ev;
  if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
                                    (int)strlen(s), 1, 1, YAML_ANY_SCALAR_STYLE))
    return PERF__ENOMEM;
  return put(e, &ev);
}

static int kv(yaml_emitter_t *e, const char *k, const char *v)
{
  int r = str(e, k);
  return r ? r : str(e, v);
}

static int kv_num(yaml_emitter_t *e, const char *k, double v)
{
  char buf[40];
  if (!isfinite(v)) return PERF__EINVAL;
  snprintf(buf, sizeof buf, "%.9g", v);
  return kv(e, k, buf);
}

static int open_map(yaml_emitter_t *e)
{
  yaml_event_t ev;
  yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
  return put(e, &ev);
}

static int close_map(yaml_emitter_t *e)
{
  yaml_event_t ev;
  yaml_mapping_end_event_initialize(&ev);
  return put(e, &ev);
}

static int open_seq(yaml_emitter_t *e, const char *key)
{
  yaml_event_t ev;
  int r = str(e, key);
  yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
  return r ? r : put(e, &ev);
}

static int close_seq(yaml_emitter_t *e)
{
  yaml_event_t ev;
  yaml_sequence_end_event_initialize(&ev);
  return put(e, &ev);
}

/* An entry's SM clock: the three numbers, or `sm_clock_mhz: unknown`.
 * Returns PERF__EINVAL for a clock the loader would refuse (the median
 * outside its bounds). */
static int emit_mhz(yaml_emitter_t *e, const perf__baseline_mhz *c)
{
  if (!c->median) return kv(e, "sm_clock_mhz", "unknown");
  if (!c->min || c->min > c->median || c->median > c->max || c->max > 100000)
    return PERF__EINVAL;
  int r = kv_num(e, "sm_clock_mhz", c->median);
  if (!r) r = kv_num(e, "sm_clock_min_mhz", c->min);
  return r ? r : kv_num(e, "sm_clock_max_mhz", c->max);
}

/* key: [a, b, c] on one line (a flow list, so that a git diff shows a
 * re-baseline as one changed line). PERF__EINVAL for a value the loader
 * would refuse. */
static int emit_runs(yaml_emitter_t *e, const char *key, const double *v, int n)
{
  yaml_event_t ev;
  int r = str(e, key);
  if (n > PERF__BL_MAX_RUNS) return PERF__EINVAL;
  yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_FLOW_SEQUENCE_STYLE);
  if (!r) r = put(e, &ev);
  for (int i = 0; !r && i < n; i++) {
    char buf[40];
    if (!isfinite(v[i]) || v[i] < 1e-12 || v[i] > 3600) return PERF__EINVAL;
    snprintf(buf, sizeof buf, "%.9g", v[i]);
    r = str(e, buf);
  }
  return r ? r : close_seq(e);
}

static int emit_entry(yaml_emitter_t *e, const perf__baseline_entry *x)
{
  int r = open_map(e);
  if (!r) r = kv(e, "test", x->test);
  if (!r) r = kv(e, "workload", x->workload);
  if (!r) r = kv(e, "clock", x->clock);
  if (!r) r = kv_num(e, "median_s", x->median_s);
  if (!r) r = kv_num(e, "spread_s", x->spread_s);
  if (!r) r = kv_num(e, "samples", (double)x->samples);
  if (!r) r = kv_num(e, "tolerance", x->tolerance);
  if (!r) r = emit_mhz(e, &x->sm_clock);
  if (!r && x->nruns > 0) r = emit_runs(e, "runs_s", x->runs_s, x->nruns);
  if (!r && x->nslow > 0) r = emit_runs(e, "slow_runs_s", x->slow_s, x->nslow);
  if (!r) r = kv(e, "recorded", x->recorded);
  return r ? r : close_map(e);
}

static int emit_ratio(yaml_emitter_t *e, const perf__baseline_ratio *x)
{
  int r = open_map(e);
  if (!r) r = kv(e, "test", x->test);
  if (!r) r = kv(e, "claim", x->claim);
  if (!r) r = kv_num(e, "ratio", x->ratio);
  if (!r) r = kv(e, "recorded", x->recorded);
  return r ? r : close_map(e);
}

static int emit_body(yaml_emitter_t *e, const perf__baseline *b)
{
  char version[16];
  snprintf(version, sizeof version, "%d", PERF__BL_SCHEMA);
  int r = open_map(e);
  if (!r) r = kv(e, "schema", version);
  if (!r) r = str(e, "fingerprint");
  if (!r) r = open_map(e);
  for (size_t i = 0; !r && i < b->nfp; i++) r = kv(e, b->fp[i].key, b->fp[i].value);
  if (!r) r = close_map(e);
  if (!r) r = open_seq(e, "entries");
  for (size_t i = 0; !r && i < b->nentries; i++) r = emit_entry(e, &b->entries[i]);
  if (!r) r = close_seq(e);
  if (!r) r = open_seq(e, "ratios");
  for (size_t i = 0; !r && i < b->nratios; i++) r = emit_ratio(e, &b->ratios[i]);
  if (!r) r = close_seq(e);
  return r ? r : close_map(e);
}

/* The whole stream to f. Returns 0, PERF__EIO or PERF__EINVAL. */
static int emit_all(FILE *f, const perf__baseline *b)
{
  yaml_emitter_t e;
  yaml_event_t ev;
  if (!yaml_emitter_initialize(&e)) return PERF__ENOMEM;
  yaml_emitter_set_output_file(&e, f);
  yaml_emitter_set_unicode(&e, 1);
  yaml_emitter_set_width(&e, -1); /* a run list stays on one line: one changed line in a diff */
  yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
  int r = put(&e, &ev);
  if (!r) {
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    r = put(&e, &ev);
  }
  if (!r) r = emit_body(&e, b);
  if (!r) {
    yaml_document_end_event_initialize(&ev, 1);
    r = put(&e, &ev);
  }
  if (!r) {
    yaml_stream_end_event_initialize(&ev);
    r = put(&e, &ev);
  }
  if (!r && !yaml_emitter_flush(&e)) r = PERF__EIO;
  yaml_emitter_delete(&e);
  return r;
}

/* The directory holding path, into dir. Never fails (truncates). */
static void dir_of(const char *path, char *dir, size_t len)
{
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(dir, len, "%s", dirname(copy));
}

/* See baseline.h. */
int perf__baseline_lock(const char *path, char *err, size_t errlen)
{
  char dir[4096], lock[4200];
  dir_of(path, dir, sizeof dir);
  snprintf(lock, sizeof lock, "%s/%s", dir, PERF__BL_LOCK_FILE);
  int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errlen, "%s: cannot open the lock file: %s", lock, strerror(errno));
    return -1;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  if (errno == EWOULDBLOCK) {
    fprintf(stderr, "%s: baselines: another update holds %s; waiting for it\n", perf__progname(),
            lock);
    int r;
    while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (r == 0) return fd;
  }
  snprintf(err, errlen, "%s: cannot lock: %s", lock, strerror(errno));
  close(fd);
  return -1;
}

/* Creates dir and any parent it lacks (mode 0777 less the umask), as
 * mkdir -p. Returns 0 or -1 with errno set. */
static int make_dirs(const char *dir)
{
  char p[4096];
  struct stat st;
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p) return errno = ENAMETOOLONG, -1;
  for (char *c = p + 1; *c; c++) {
    if (*c != '/') continue;
    *c = '\0';
    int bad = mkdir(p, 0777) && errno != EEXIST;
    *c = '/';
    if (bad) return -1;
  }
  if (mkdir(p, 0777) && errno != EEXIST) return -1;
  if (stat(p, &st)) return -1;
  return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
}

/* See baseline.h. */
int perf__baseline_probe_dir(const char *dir, char *err, size_t errlen)
{
  char probe[4200];
  if (make_dirs(dir)) {
    snprintf(err, errlen, "cannot create the baseline directory %s: %s", dir, strerror(errno));
    return PERF__EIO;
  }
  snprintf(probe, sizeof probe, "%s/.perfgate-probe.%ld", dir, (long)getpid());
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    snprintf(err, errlen, "cannot write in %s: %s", dir, strerror(errno));
    return PERF__EIO;
  }
  close(fd);
  if (unlink(probe)) {
    snprintf(err, errlen, "cannot remove %s again: %s", probe, strerror(errno));
    return PERF__EIO;
  }
  return 0;
}

/* See baseline.h. */
void perf__baseline_unlock(int fd)
{
  if (fd >= 0) close(fd); /* closing the only descriptor releases the flock */
}

/* 1 when s is one or more digits and nothing else. */
static int all_digits(const char *s)
{
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* Removes "path.tmp.PID" files: under the lock, any such file was left by
 * an updater that died (kill -9, power loss) before its rename. Returns how
 * many were removed; never fails (what cannot go stays). */
static int remove_stale(const char *path)
{
  char dir[4096], prefix[4200];
  dir_of(path, dir, sizeof dir);
  const char *base = strrchr(path, '/');
  snprintf(prefix, sizeof prefix, "%s.tmp.", base ? base + 1 : path);
  DIR *d = opendir(dir);
  if (!d) return 0;
  int removed = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL)
    if (!strncmp(e->d_name, prefix, strlen(prefix)) && all_digits(e->d_name + strlen(prefix)) &&
        unlinkat(dirfd(d), e->d_name, 0) == 0)
      removed++;
  closedir(d);
  return removed;
}

/* The whole file as text, malloc'd into *text (*len bytes). Returns 0,
 * PERF__EINVAL (a value cannot be written), PERF__ENOMEM or PERF__EIO (the
 * emitter failed). */
static int emit_text(const perf__baseline *b, char **text, size_t *len)
{
  *text = NULL;
  *len = 0;
  FILE *f = open_memstream(text, len);
  if (!f) return PERF__ENOMEM;
  int r = emit_all(f, b);
  if (fclose(f) && !r) r = PERF__ENOMEM;
  return r;
}

/* The reason a replacement failed at step, into err[errlen]. Never fails. */
static void save_error(const char *path, perf__file_step step, const char *why, char *err,
                       size_t errlen)
{
  char dir[4096], tmp[4200];
  if (step == PERF__FILE_CREATE) {
    dir_of(path, dir, sizeof dir);
    snprintf(err, errlen, "cannot create a file in %s: %s", dir, why);
  } else if (step == PERF__FILE_RENAME)
    snprintf(err, errlen, "%s: cannot replace: %s", path, why);
  else
    snprintf(err, errlen, "cannot write %s: %s", perf__file_tmp_name(path, tmp, sizeof tmp), why);
}

/* See baseline.h. */
int perf__baseline_save(const char *path, const perf__baseline *b, char *err,
                  size_t errlen)
{
  char *text = NULL, why[200];
  size_t len = 0;
  perf__file w;
  perf__file_step step = PERF__FILE_DONE;
  perf__file_why how = {&step, why, sizeof why};
  int stale = remove_stale(path);
  if (stale)
    printf("baselines: removed %d temporary file%s left by an interrupted update of %s\n",
           stale, stale == 1 ? "" : "s", path);
  int r = perf__file_open(&w, path, PERF__FILE_DURABLE, &how);
  if (!r) { /* the text in memory, then the file's one write */
    r = emit_text(b, &text, &len);
    if (r) perf__file_abort(&w);
    else r = perf__file_commit(&w, text, len, &how);
  }
  if (r == PERF__EINVAL)
    snprintf(err, errlen, "%s: a value cannot be written (NaN or infinite, or an SM clock "
             "outside its bounds)", path);
  else if (r)
    save_error(path, step ? step : PERF__FILE_WRITE, step ? why : strerror(ENOMEM), err, errlen);
  free(text);
  return r;
}

/* Never fails. */
const char *perf__baseline_model(const perf__baseline *b)
{
  for (size_t i = 0; i < b->nfp; i++)
    if (!strcmp(b->fp[i].key, "name")) return b->fp[i].value;
  return "unknown";
}

/* Never fails. */
char *perf__baseline_path(const char *dir, const perf__baseline *b, char *out,
                    size_t len)
{
  char slug[80];
  perf__baseline_slug(perf__baseline_model(b), slug, sizeof slug);
  snprintf(out, len, "%s/%s.yaml", dir && *dir ? dir : ".", slug);
  return out;
}

/* See baseline.h: what perf__baseline_set_fp returns. */
int perf__baseline_set_fp_printf(perf__baseline *b, const char *key, const char *fmt, ...)
{
  char v[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v, sizeof v, fmt, ap);
  va_end(ap);
  return perf__baseline_set_fp(b, key, v);
}
