/* blyaml.c — a baseline file read from YAML: strict loading with positions. */
/* Loading checks libyaml's events one by one; this is the only libyaml user. */
#define _GNU_SOURCE
#include "baseline/blyaml.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include "host/clock.h"
#include "io/file.h"
#include "util/status.h"
#include "baseline/trace.h"

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
  char *text;             /* the value of the key LONG_KEY (malloc'd; NULL: absent) */
  yaml_mark_t text_mark;
} fields;

#define LONG_KEY PERF__BLYAML_LONG_KEY
enum { MAX_TEXT = PERF__BLYAML_MAX_TEXT };

/* Separates a list's items in field.value: a plain scalar may hold spaces
 * ("[1 2, 3]" is two items, the first "1 2"), never this. */
#define ITEM_SEP "\x1f"

/* Reads the list value of f (its start consumed): at most
 * PERF__BL_MAX_RUNS plain scalars (a longer list is refused at the first
 * item past the limit, naming it), kept in f->value separated by
 * ITEM_SEP, their positions in f->item. */
static int scalar_list(parser *p, field *f, const char *what)
{
  size_t used = 0, k = 0;
  int r;
  f->value[0] = '\0';
  f->list = f->plain = 1;
  while (!(r = next(p)) && p->ev.type != YAML_SEQUENCE_END_EVENT) {
    if (k == PERF__BL_MAX_RUNS)
      return fail_at(p, p->ev.start_mark, "'%s' holds too many values (at most %d)", f->key,
                     PERF__BL_MAX_RUNS);
    f->item[k++] = p->ev.start_mark;
    if (p->ev.type != YAML_SCALAR_EVENT)
      return fail_at(p, p->ev.start_mark, "'%s' in %s must be a list of numbers", f->key, what);
    if (p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
      return fail_at(p, p->ev.start_mark, "'%s' in %s must be a list of numbers, not quoted "
                     "text ('%s')", f->key, what, scalar(p));
    int n = snprintf(f->value + used, sizeof f->value - used, "%s%s", used ? ITEM_SEP : "",
                     scalar(p));
    if (n < 0 || (size_t)n >= sizeof f->value - used)
      return fail_at(p, p->ev.start_mark, "'%s' is too long: a list may hold at most %zu "
                     "characters; write its numbers with fewer digits (perfgate writes 9 "
                     "significant digits)", f->key, sizeof f->value - 1);
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
 * (scalar_list); with long_text, LONG_KEY's value goes to out->text (the
 * caller frees it, whatever this returns). */
static int flat_mapping(parser *p, fields *out, const char *what, const char *const *lists,
                        int long_text)
{
  int r;
  out->n = 0;
  out->text = NULL;
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
    if (long_text && !strcmp(f->key, LONG_KEY)) {
      if (p->ev.data.scalar.length >= MAX_TEXT)
        return fail_at(p, p->ev.start_mark, "value of '%s' too long (over 64 KiB)", f->key);
      free(out->text);
      if (!(out->text = strdup(scalar(p)))) return fail_at(p, p->ev.start_mark, "out of memory");
      out->text_mark = p->ev.start_mark;
      snprintf(f->value, sizeof f->value, "(text)");
      f->plain = 0;
      f->value_mark = p->ev.start_mark;
      out->n++;
      continue;
    }
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

/* num_key, and the number a whole one (a count): 0, or the error naming
 * the key where it has a fraction. */
static int whole_key(parser *p, fields *fs, const char *key, const char *what, double lo,
                     double hi, double *out)
{
  int r = num_key(p, fs, key, what, lo, hi, out);
  if (!r && *out != floor(*out))
    r = fail_at(p, get(fs, key)->value_mark, "'%s' must be a whole number, got '%s'", key,
                get(fs, key)->value);
  return r;
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

/* A key of schema version 2 only, at m: remembered for the version check,
 * or refused in a file that says schema: 1. Returns 0 or PERF__EBADFILE. */
static int v2_key(parser *p, yaml_mark_t m, const char *key)
{
  if (!p->v2_key) p->v2_key = key, p->v2_mark = m;
  if (p->schema == 1)
    return fail_at(p, m, "'%s' is a field of schema version 2, but the file says schema: 1", key);
  return 0;
}

/* The same for a field of an entry. */
static int v2_field(parser *p, const field *f, const char *key)
{
  return v2_key(p, f->key_mark, key);
}

/* An entry's declared work (schema version 2, each field optional):
 * bytes_read, bytes_written and flops numbers from 0 to 1e21, flop_type a
 * perf_flop_type's word, which flops needs. Returns 0 or PERF__EBADFILE. */
static int declared_work(parser *p, const fields *fs, perf__peaks_work *w)
{
  static const char *const keys[] = {"bytes_read", "bytes_written", "flops"};
  double *v[] = {&w->bytes_read, &w->bytes_written, &w->flops};
  int r = 0;
  for (int i = 0; !r && i < 3; i++) {
    const field *f = get(fs, keys[i]);
    if (f) r = v2_field(p, f, keys[i]);
    if (f && !r) r = number(p, f, 0, 1e21, v[i]);
  }
  const field *t = get(fs, "flop_type");
  if (!r && t) r = v2_field(p, t, "flop_type");
  if (!r && t) {
    w->type = perf__peaks_type_of(t->value);
    if (w->type == PERF_FLOP_TYPE_COUNT || w->type == PERF_FLOP_NONE)
      r = fail_at(p, t->value_mark, "'flop_type' must be fp64, fp32, tf32, fp16, bf16, fp8 or "
                  "int8, got '%s'", t->value);
  }
  if (!r && w->flops > 0 && !t)
    r = fail_at(p, get(fs, "flops")->key_mark, "'flops' needs its 'flop_type' (fp32, fp16, ...)");
  return r;
}

/* An entry's trace (schema version 2, optional): baseline/trace.h's JSON text,
 * checked as perf__trace_parse reads it; e->trace borrows fs's text.
 * Returns 0 or PERF__EBADFILE. */
static int trace_text(parser *p, const fields *fs, perf__baseline_entry *e)
{
  const field *f = get(fs, LONG_KEY);
  perf__trace t;
  char why[200];
  if (!f) return 0;
  int r = v2_field(p, f, LONG_KEY);
  if (r) return r;
  if (perf__trace_parse(fs->text, &t, why, sizeof why))
    return fail_at(p, fs->text_mark, "'%s' is not a trace perfgate wrote: %s", LONG_KEY, why);
  perf__trace_free(&t);
  e->trace = fs->text;
  return 0;
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
  int bad = v2_field(p, f, key);
  if (bad) return bad;
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
                                     "sm_clock_max_mhz", "runs_s", "slow_runs_s", "launch_s", "bytes_read",
                                     "bytes_written", "flops", "flop_type", LONG_KEY, "recorded",
                                     NULL};
  static const char *const lists[] = {"runs_s", "slow_runs_s", NULL};
  fields fs;
  perf__baseline_entry e = {.tolerance = PERF__BL_TOLERANCE};
  double samples;
  int r = flat_mapping(p, &fs, "an entry", lists, 1);
  if (!r) r = only(p, &fs, keys, "an entry");
  if (!r) r = text(p, &fs, "test", "an entry", e.test, sizeof e.test);
  if (!r) r = text(p, &fs, "workload", "an entry", e.workload, sizeof e.workload);
  if (!r) r = text(p, &fs, "clock", "an entry", e.clock, sizeof e.clock);
  if (!r && !known_clock(e.clock))
    r = fail_at(p, get(&fs, "clock")->value_mark,
                "'clock' must be events, wall, submit, device or cold, got '%s'", e.clock);
  if (!r) r = num_key(p, &fs, "median_s", "an entry", 1e-12, 3600, &e.median_s);
  if (!r) r = num_key(p, &fs, "spread_s", "an entry", 0, 3600, &e.spread_s);
  if (!r) r = whole_key(p, &fs, "samples", "an entry", 1, 1e9, &samples);
  if (!r && get(&fs, "tolerance"))
    r = number(p, get(&fs, "tolerance"), PERF__BL_TOLERANCE_MIN, PERF__BL_TOLERANCE_MAX, &e.tolerance);
  if (!r) r = sm_clock(p, &fs, &e.sm_clock);
  if (!r) r = run_values(p, &fs, "runs_s", e.runs_s, &e.nruns);
  if (!r) r = run_values(p, &fs, "slow_runs_s", e.slow_s, &e.nslow);
  if (!r && get(&fs, "launch_s")) r = v2_field(p, get(&fs, "launch_s"), "launch_s");
  if (!r && get(&fs, "launch_s")) r = number(p, get(&fs, "launch_s"), 1e-9, 1, &e.launch_s);
  if (!r) r = declared_work(p, &fs, &e.work);
  if (!r) r = trace_text(p, &fs, &e);
  if (!r) r = date(p, &fs, "an entry", e.recorded, sizeof e.recorded);
  if (!r && perf__baseline_find(b, e.test, e.workload))
    r = fail_at(p, fs.start, "a second entry for %s / %s", e.test, e.workload);
  e.samples = (long)samples;
  if (!r) r = perf__baseline_put_entry(b, &e);
  free(fs.text);
  return r;
}

static int ratio(parser *p, perf__baseline *b)
{
  static const char *const keys[] = {"test", "claim", "ratio", "recorded", NULL};
  fields fs;
  perf__baseline_ratio q = {0};
  int r = flat_mapping(p, &fs, "a ratio", NULL, 0);
  if (!r) r = only(p, &fs, keys, "a ratio");
  if (!r) r = text(p, &fs, "test", "a ratio", q.test, sizeof q.test);
  if (!r) r = text(p, &fs, "claim", "a ratio", q.claim, sizeof q.claim);
  if (!r) r = num_key(p, &fs, "ratio", "a ratio", 1e-9, 1e9, &q.ratio);
  if (!r) r = date(p, &fs, "a ratio", q.recorded, sizeof q.recorded);
  if (!r && perf__baseline_find_ratio(b, q.test, q.claim))
    r = fail_at(p, fs.start, "a second ratio for %s / %s", q.test, q.claim);
  return r ? r : perf__baseline_put_ratio(b, &q);
}

/* A work count (schema version 2, in the top-level `work:` list): what one
 * call of a workload executed on the GPU. */
static int work(parser *p, perf__baseline *b)
{
  static const char *const keys[] = {"test", "workload", "instructions", "dram_bytes_read",
                                     "recorded", NULL};
  fields fs;
  perf__baseline_work w = {0};
  int r = flat_mapping(p, &fs, "a work count", NULL, 0);
  if (!r) r = only(p, &fs, keys, "a work count");
  if (!r) r = text(p, &fs, "test", "a work count", w.test, sizeof w.test);
  if (!r) r = text(p, &fs, "workload", "a work count", w.workload, sizeof w.workload);
  if (!r) r = whole_key(p, &fs, "instructions", "a work count", 1, PERF__BL_WORK_MAX, &w.insts);
  if (!r)
    r = whole_key(p, &fs, "dram_bytes_read", "a work count", 0, PERF__BL_WORK_MAX, &w.dram_read);
  if (!r) r = date(p, &fs, "a work count", w.recorded, sizeof w.recorded);
  if (!r && perf__baseline_find_work(b, w.test, w.workload))
    r = fail_at(p, fs.start, "a second work count for %s / %s", w.test, w.workload);
  return r ? r : perf__baseline_put_work(b, &w);
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
  if (!r) r = flat_mapping(p, &fs, "the fingerprint", NULL, 0);
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

static int entries(parser *p, perf__baseline *b) { return sequence(p, b, "'entries'", entry); }
static int ratios(parser *p, perf__baseline *b) { return sequence(p, b, "'ratios'", ratio); }

/* The `work:` list, a key of schema version 2. */
static int works(parser *p, perf__baseline *b)
{
  int r = v2_key(p, p->ev.start_mark, "work");
  return r ? r : sequence(p, b, "'work'", work);
}

/* The top-level keys, each with its reader (its key's event is current). */
static const struct {
  const char *key;
  int (*read)(parser *, perf__baseline *);
} top[] = {{"schema", schema}, {"fingerprint", fingerprint}, {"entries", entries},
           {"ratios", ratios}, {"work", works}};
enum { NTOP = sizeof top / sizeof top[0] };

/* The top-level mapping (its start consumed). */
static int root(parser *p, perf__baseline *b)
{
  int seen[NTOP] = {0}, r;
  yaml_mark_t start = p->ev.start_mark;
  for (;;) {
    if ((r = next(p))) return r;
    if (p->ev.type == YAML_MAPPING_END_EVENT) break;
    if (p->ev.type != YAML_SCALAR_EVENT)
      return fail_at(p, p->ev.start_mark, "expected a key at the top level");
    size_t k = 0;
    while (k < NTOP && strcmp(top[k].key, scalar(p))) k++;
    if (k == NTOP)
      return fail_at(p, p->ev.start_mark, "unknown key '%s' at the top level", scalar(p));
    if (seen[k]++)
      return fail_at(p, p->ev.start_mark, "duplicate key '%s'", top[k].key);
    if ((r = top[k].read(p, b))) return r;
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
int perf__blyaml_parse(const char *name, const unsigned char *buf, size_t len,
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
int perf__blyaml_load(const char *path, perf__baseline *b, char *err,
                  size_t errlen)
{
  unsigned char *data;
  size_t n;
  perf__baseline_init(b);
  int r = perf__file_read(path, "a baseline file", &data, &n, err, errlen);
  if (r) return r;
  r = perf__blyaml_parse(path, data, n, b, err, errlen);
  free(data);
  return r;
}
