/* trace.c — what the GPU did for one iteration of a workload, and what changed between two. */
/* Kernels, copies, memsets and host syncs, counted, sized and timed; written
 * as JSON and as a Chrome trace; the changes ordered by the time they
 * explain. */
#define _GNU_SOURCE
#include "baseline/trace.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "baseline/peaks.h"
#include "util/status.h"
#include "util/units.h"

/* Items an unfinished trace collects before it drops occurrences. */
enum { MAX_COLLECT = 512 };

/* A kernel, copy or memset whose count is unchanged "got slower" when its
 * time a call moved by more than this share and this many seconds: a
 * trace is two calls, and on the H100 a kernel's time in two calls moved
 * by up to 6 % between processes (a cuBLAS SGEMM: 56.7 -> 60.0 us). */
static const double SLOWER = 0.10, SLOWER_S = 1e-6;

static const char *const kind_words[] = {
#define PERF__X(sym, word) word,
    PERF__TRACE_KIND_MAP(PERF__X)
#undef PERF__X
};

/* See trace.h. */
const char *perf__trace_kind_word(perf__trace_kind k)
{
  return (unsigned)k < PERF__TRACE_KIND_COUNT ? kind_words[k] : "?";
}

/* See trace.h. */
void perf__trace_free(perf__trace *t)
{
  free(t->items);
  free(t->events);
  memset(t, 0, sizeof *t);
}

/* Copies s into a fixed field of len bytes, cut at a character boundary.
 * Never fails. */
static void put_field(char *dst, size_t len, const char *s)
{
  size_t n = strlen(s ? s : "");
  if (n >= len) {
    n = len - 1;
    while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80) n--;
  }
  memcpy(dst, s ? s : "", n);
  dst[n] = '\0';
}

/* The index of the item k in t, or -1. */
static long find(const perf__trace *t, const perf__trace_key *k)
{
  perf__trace_item key = {.kind = k->kind};
  put_field(key.name, sizeof key.name, k->name);
  put_field(key.shape, sizeof key.shape, k->shape);
  put_field(key.where, sizeof key.where, k->where);
  for (size_t i = 0; i < t->n; i++) {
    const perf__trace_item *x = &t->items[i];
    if (x->kind == k->kind && !strcmp(x->name, key.name) && !strcmp(x->shape, key.shape) &&
        !strcmp(x->where, key.where))
      return (long)i;
  }
  return -1;
}

/* See trace.h. */
int perf__trace_add(perf__trace *t, const perf__trace_key *key, double bytes, unsigned stream,
                    unsigned long long start_ns, unsigned long long end_ns)
{
  long i = find(t, key);
  if (i < 0) {
    if (t->n == MAX_COLLECT) return t->dropped++, 0;
    perf__trace_item *p = perf__grow(t->items, &t->cap, t->n + 1, sizeof *t->items, 16);
    if (!p) return PERF__ENOMEM;
    t->items = p;
    i = (long)t->n++;
    perf__trace_item *x = &t->items[i];
    memset(x, 0, sizeof *x);
    x->kind = key->kind;
    put_field(x->name, sizeof x->name, key->name);
    put_field(x->shape, sizeof x->shape, key->shape);
    put_field(x->where, sizeof x->where, key->where);
  }
  perf__trace_item *x = &t->items[i];
  double s = end_ns > start_ns ? (double)(end_ns - start_ns) * 1e-9 : 0;
  x->count += 1;
  x->bytes += bytes;
  x->device_s += key->kind == PERF__TRACE_SYNC ? 0 : s;
  if (end_ns <= start_ns) return 0;
  if (t->nevents == PERF__TRACE_MAX_EVENTS) return t->dropped++, 0;
  perf__trace_event *ev = perf__grow(t->events, &t->cap_events, t->nevents + 1, sizeof *t->events, 64);
  if (!ev) return t->dropped++, 0; /* counted; only its event is not kept */
  t->events = ev;
  t->events[t->nevents++] = (perf__trace_event){(int)i, stream, start_ns, end_ns};
  return 0;
}

static const perf__trace_item *sort_base;

/* By device time, then count, then kind and name: the order of a trace. */
static int by_time(const void *pa, const void *pb)
{
  const perf__trace_item *a = &sort_base[*(const size_t *)pa], *b = &sort_base[*(const size_t *)pb];
  if (a->device_s != b->device_s) return a->device_s > b->device_s ? -1 : 1;
  if (a->count != b->count) return a->count > b->count ? -1 : 1;
  if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
  return strcmp(a->name, b->name);
}

/* See trace.h. */
void perf__trace_finish(perf__trace *t, int calls)
{
  size_t *order = t->n ? malloc(t->n * sizeof *order) : NULL;
  long *to = t->n ? malloc(t->n * sizeof *to) : NULL;
  perf__trace_item *sorted = t->n ? malloc(t->n * sizeof *sorted) : NULL;
  t->calls = calls > 0 ? calls : 1;
  for (size_t i = 0; i < t->n; i++) {
    t->items[i].count /= t->calls;
    t->items[i].bytes /= t->calls;
    t->items[i].device_s /= t->calls;
  }
  if (!order || !to || !sorted) { /* without memory: unsorted, all kept */
    free(order), free(to), free(sorted);
    return;
  }
  for (size_t i = 0; i < t->n; i++) order[i] = i;
  sort_base = t->items;
  qsort(order, t->n, sizeof *order, by_time);
  size_t keep = t->n < PERF__TRACE_MAX_ITEMS ? t->n : PERF__TRACE_MAX_ITEMS;
  for (size_t k = 0; k < t->n; k++) {
    to[order[k]] = k < keep ? (long)k : -1;
    if (k < keep) sorted[k] = t->items[order[k]];
  }
  t->dropped += t->n - keep;
  memcpy(t->items, sorted, keep * sizeof *sorted);
  t->n = keep;
  size_t e = 0;
  for (size_t i = 0; i < t->nevents; i++)
    if (to[t->events[i].item] >= 0) {
      t->events[e] = t->events[i];
      t->events[e++].item = (int)to[t->events[i].item];
    }
  t->nevents = e;
  free(order), free(to), free(sorted);
}

/* See trace.h. */
double perf__trace_device_s(const perf__trace *t)
{
  double s = 0;
  for (size_t i = 0; i < t->n; i++) s += t->items[i].device_s;
  return s;
}

/* The ways of the host link copy x takes (baseline/peaks.h: its shape
 * "host→device, pinned", "device→host, pageable"), 0 for anything else (a
 * kernel, a copy within the device or within the host). Never fails. */
static int host_link_ways(const perf__trace_item *x)
{
  if (x->kind != PERF__TRACE_COPY || !strstr(x->shape, "host") || strstr(x->shape, "host→host"))
    return 0;
  return !strncmp(x->shape, "host", 4) ? PERF__LINK_TO_DEVICE : PERF__LINK_TO_HOST;
}

/* See trace.h. */
double perf__trace_host_copy_share(const perf__trace *t)
{
  double all = perf__trace_device_s(t), host = 0;
  for (size_t i = 0; i < t->n; i++)
    if (host_link_ways(&t->items[i])) host += t->items[i].device_s;
  return all > 0 ? host / all : 0;
}

/* See trace.h. */
int perf__trace_pageable(const perf__trace *t)
{
  for (size_t i = 0; i < t->n; i++)
    if (t->items[i].kind == PERF__TRACE_COPY && strstr(t->items[i].shape, "pageable")) return 1;
  return 0;
}

/* See trace.h. */
void perf__trace_host_copy_bytes(const perf__trace *t, double *to_device, double *to_host)
{
  *to_device = *to_host = 0;
  for (size_t i = 0; i < t->n; i++) {
    int ways = host_link_ways(&t->items[i]);
    if (ways) *(ways == PERF__LINK_TO_DEVICE ? to_device : to_host) += t->items[i].bytes;
  }
}

/* See trace.h. */
void perf__trace_write(perf__json *j, const perf__trace *t)
{
  perf__json_raw(j, "{\"calls\": %d", t->calls);
  if (!t->calls) {
    perf__json_raw(j, ", \"why_not\": ");
    perf__json_str(j, t->why_not);
    perf__json_raw(j, "}");
    return;
  }
  perf__json_raw(j, ", \"names\": ");
  perf__json_str(j, t->names);
  perf__json_raw(j, ", \"device_s\": ");
  perf__json_num(j, perf__trace_device_s(t));
  perf__json_raw(j, ", \"dropped\": %zu, \"items\": [", t->dropped);
  for (size_t i = 0; i < t->n; i++) {
    const perf__trace_item *x = &t->items[i];
    perf__json_raw(j, "%s{\"kind\": \"%s\", \"name\": ", i ? ", " : "", perf__trace_kind_word(x->kind));
    perf__json_str(j, x->name);
    perf__json_raw(j, ", \"shape\": ");
    perf__json_str(j, x->shape);
    perf__json_raw(j, ", \"where\": ");
    perf__json_str(j, x->where);
    perf__json_raw(j, ", \"count\": ");
    perf__json_num(j, x->count);
    perf__json_raw(j, ", \"bytes\": ");
    perf__json_num(j, x->bytes);
    perf__json_raw(j, ", \"device_s\": ");
    perf__json_num(j, x->device_s);
    perf__json_raw(j, "}");
  }
  perf__json_raw(j, "]}");
}

/* See trace.h. */
char *perf__trace_text(const perf__trace *t)
{
  perf__json j = {0};
  perf__trace_write(&j, t);
  if (j.oom) {
    perf__json_free(&j);
    return NULL;
  }
  return j.s;
}

/* A string member into dst[len]; 0, or -1 when missing or not a string. */
static int get_text(const perf__jsontree_node *o, const char *key, char *dst, size_t len)
{
  const perf__jsontree_node *n = perf__jsontree_get(o, key);
  if (!n || n->type != PERF__J_STRING) return -1;
  put_field(dst, len, n->text);
  return 0;
}

/* A number member into *v; 0, or -1 when missing or not a number >= 0. */
static int get_amount(const perf__jsontree_node *o, const char *key, double *v)
{
  const perf__jsontree_node *n = perf__jsontree_get(o, key);
  if (!n || n->type != PERF__J_PLAIN) return -1;
  *v = perf__jsontree_num(n, NAN);
  return isfinite(*v) && *v >= 0 ? 0 : -1;
}

/* One item object into x. Returns 0 or -1 naming the member in bad. */
static int read_item(const perf__jsontree_node *o, perf__trace_item *x, const char **bad)
{
  char kind[16];
  if (!o || o->type != PERF__J_OBJECT) return *bad = "an item that is not an object", -1;
  if (get_text(o, "kind", kind, sizeof kind)) return *bad = "kind", -1;
  x->kind = PERF__TRACE_KIND_COUNT;
  for (int k = 0; k < PERF__TRACE_KIND_COUNT; k++)
    if (!strcmp(kind, kind_words[k])) x->kind = (perf__trace_kind)k;
  if (x->kind == PERF__TRACE_KIND_COUNT) return *bad = "kind", -1;
  if (get_text(o, "name", x->name, sizeof x->name)) return *bad = "name", -1;
  if (get_text(o, "shape", x->shape, sizeof x->shape)) return *bad = "shape", -1;
  if (get_text(o, "where", x->where, sizeof x->where)) return *bad = "where", -1;
  if (get_amount(o, "count", &x->count)) return *bad = "count", -1;
  if (get_amount(o, "bytes", &x->bytes)) return *bad = "bytes", -1;
  if (get_amount(o, "device_s", &x->device_s)) return *bad = "device_s", -1;
  return 0;
}

/* See trace.h. */
int perf__trace_read(const perf__jsontree_node *n, perf__trace *t, char *err, size_t len)
{
  const char *bad = NULL;
  double calls = -1, dropped = 0;
  memset(t, 0, sizeof *t);
  if (!n || n->type != PERF__J_OBJECT || get_amount(n, "calls", &calls) || calls != floor(calls) ||
      calls > 1e6)
    bad = "calls";
  else if (calls == 0 && get_text(n, "why_not", t->why_not, sizeof t->why_not))
    bad = "why_not";
  const perf__jsontree_node *items = calls > 0 ? perf__jsontree_get(n, "items") : NULL;
  if (!bad && calls > 0 && (get_text(n, "names", t->names, sizeof t->names) ||
                            get_amount(n, "dropped", &dropped) || dropped > 1e12))
    bad = "names or dropped";
  if (!bad && calls > 0 && (!items || items->type != PERF__J_ARRAY)) bad = "items";
  if (!bad && items && items->n) {
    t->items = calloc(items->n, sizeof *t->items);
    if (!t->items) return PERF__ENOMEM;
    t->cap = items->n;
    for (size_t i = 0; !bad && i < items->n; i++, t->n++)
      if (read_item(items->kids[i], &t->items[i], &bad)) break;
  }
  if (bad) {
    snprintf(err, len, "trace: %s is missing or wrong", bad);
    perf__trace_free(t);
    return PERF__EPROTO;
  }
  t->calls = (int)calls;
  t->dropped = (size_t)dropped;
  return 0;
}

/* See trace.h. */
int perf__trace_parse(const char *text, perf__trace *t, char *err, size_t len)
{
  perf__jsontree_node *n = perf__jsontree_parse(text, "trace", err, len);
  memset(t, 0, sizeof *t);
  if (!n) return PERF__EPROTO;
  int e = perf__trace_read(n, t, err, len);
  perf__jsontree_free(n);
  return e;
}

/* See trace.h. */
int perf__trace_copy(perf__trace *dst, const perf__trace *src)
{
  *dst = *src;
  dst->items = src->n ? malloc(src->n * sizeof *dst->items) : NULL;
  dst->events = src->nevents ? malloc(src->nevents * sizeof *dst->events) : NULL;
  if ((src->n && !dst->items) || (src->nevents && !dst->events)) {
    perf__trace_free(dst);
    return PERF__ENOMEM;
  }
  if (src->n) memcpy(dst->items, src->items, src->n * sizeof *dst->items);
  if (src->nevents) memcpy(dst->events, src->events, src->nevents * sizeof *dst->events);
  dst->cap = src->n;
  dst->cap_events = src->nevents;
  return 0;
}

/* ---- what changed ------------------------------------------------------ */

/* One side's work, grouped: a kernel by name (its shapes summed), the
 * rest by kind, call, shape and site. */
typedef struct group {
  const perf__trace_item *first; /* its largest item */
  perf__trace_kind kind;
  double count, bytes, device_s;
  int matched;
} group;

typedef struct groups {
  group g[PERF__TRACE_MAX_ITEMS];
  size_t n;
} groups;

/* 1 when call sites a and b are one place: "file:line (fn)" alike but for
 * the line (an edit above a call moves its line, not the call). Never
 * fails. */
static int same_site(const char *a, const char *b)
{
  for (;;) {
    if (*a == ':' && *b == ':') {
      do a++; while (isdigit((unsigned char)*a));
      do b++; while (isdigit((unsigned char)*b));
      continue;
    }
    if (*a != *b) return 0;
    if (!*a) return 1;
    a++, b++;
  }
}

/* 1 when items a and b belong to one group. Never fails. */
static int same_group(const perf__trace_item *a, const perf__trace_item *b)
{
  if (a->kind != b->kind || strcmp(a->name, b->name)) return 0;
  return a->kind == PERF__TRACE_KERNEL || (!strcmp(a->shape, b->shape) && same_site(a->where, b->where));
}

/* t's items grouped into out (the first PERF__TRACE_MAX_ITEMS groups).
 * Never fails. */
static void group_of(const perf__trace *t, groups *out)
{
  out->n = 0;
  for (size_t i = 0; t && i < t->n; i++) {
    const perf__trace_item *x = &t->items[i];
    size_t k = 0;
    while (k < out->n && !same_group(out->g[k].first, x)) k++;
    if (k == out->n) {
      if (out->n == PERF__TRACE_MAX_ITEMS) continue;
      out->g[out->n++] = (group){.first = x, .kind = x->kind};
    }
    out->g[k].count += x->count;
    out->g[k].bytes += x->bytes;
    out->g[k].device_s += x->device_s;
  }
}

/* One line of the explanation and the time it explains (NaN: host time,
 * not in the trace). */
typedef struct change {
  double s;
  char text[700];
} change;

typedef struct changes {
  change c[2 * PERF__TRACE_MAX_ITEMS];
  size_t n;
} changes;

/* A new change explaining s seconds, or NULL when cs is full. */
static change *add_change(changes *cs, double s)
{
  if (cs->n == sizeof cs->c / sizeof cs->c[0]) return NULL;
  change *c = &cs->c[cs->n++];
  c->s = s;
  c->text[0] = '\0';
  return c;
}

/* printf-style text into buf[len], cut at its end. Never fails. */
static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, len, fmt, ap);
  va_end(ap);
}

/* "+41.00 us" for a signed time. Never fails. */
static const char *signed_time(char *buf, size_t len, double s)
{
  if (len < 2) return buf;
  buf[0] = s < 0 ? '-' : '+';
  perf__units_time(buf + 1, len - 1, fabs(s));
  return buf;
}

/* " at file:line (fn)" or "". Never fails. */
static const char *at(char *buf, size_t len, const perf__trace_item *x)
{
  snprintf(buf, len, "%s%s", x->where[0] ? " at " : "", x->where);
  return buf;
}

/* "4.0 MiB" / "512 B". Never fails. */
static const char *size_text(char *buf, size_t len, double bytes)
{
  if (bytes >= 1 << 20) snprintf(buf, len, "%.1f MiB", bytes / (1 << 20));
  else if (bytes >= 1 << 10) snprintf(buf, len, "%.1f KiB", bytes / (1 << 10));
  else snprintf(buf, len, "%.0f B", bytes);
  return buf;
}

/* A count of an iteration as text: "2", "0.5". Never fails. */
static const char *count_text(char *buf, size_t len, double n)
{
  snprintf(buf, len, "%.*f", n == floor(n) ? 0 : 1, n);
  return buf;
}

/* What a group that only one side has is: "kernel `k` (grid ..)",
 * "cudaMemcpy host→device, pageable 4.0 MiB at t.c:8", "host sync
 * cudaStreamSynchronize (explicit) at t.c:9". Never fails (truncates). */
static void what(char *buf, size_t len, const group *g)
{
  const perf__trace_item *x = g->first;
  char w[240], sz[32];
  if (g->kind == PERF__TRACE_KERNEL)
    say(buf, len, "kernel `%s`", x->name);
  else if (g->kind == PERF__TRACE_SYNC)
    say(buf, len, "host sync %s%s%s%s%s", x->name, x->shape[0] ? " (" : "", x->shape,
             x->shape[0] ? ")" : "", at(w, sizeof w, x));
  else
    say(buf, len, "%s %s%s%s%s", x->name, x->shape, x->shape[0] ? " " : "",
             size_text(sz, sizeof sz, g->count > 0 ? g->bytes / g->count : 0), at(w, sizeof w, x));
}

/* A group only was has (gone) or only now has (new). Never fails (a full
 * list drops it). */
static void one_sided(changes *cs, const group *g, int added)
{
  char w[700], n[32], d[32];
  double s = g->kind == PERF__TRACE_SYNC ? NAN : added ? g->device_s : -g->device_s;
  change *c = add_change(cs, s);
  if (!c) return;
  what(w, sizeof w, g);
  if (g->kind == PERF__TRACE_SYNC)
    say(c->text, sizeof c->text, "%s %s %s an iteration (host time, not in the GPU's trace)",
             count_text(n, sizeof n, g->count), added ? "new" : "fewer:", w);
  else if (added)
    say(c->text, sizeof c->text, "%s new %s (%s)", count_text(n, sizeof n, g->count), w,
        signed_time(d, sizeof d, s));
  else
    say(c->text, sizeof c->text, "%s gone (%s)", w, signed_time(d, sizeof d, s));
}

/* A group both sides have: a count that changed, or a time per call that
 * moved by more than SLOWER and SLOWER_S. Never fails (a full list drops
 * it). */
static void both_sides(changes *cs, const group *a, const group *b)
{
  char w[700], n[32], m[32], d[32], x[32], y[32];
  double s = b->device_s - a->device_s;
  int counts = fabs(b->count - a->count) >= 0.5;
  double per_a = a->count > 0 ? a->device_s / a->count : 0, per_b = b->count > 0 ? b->device_s / b->count : 0;
  int slower = a->kind != PERF__TRACE_SYNC && fabs(per_b - per_a) > SLOWER * per_a &&
               fabs(per_b - per_a) > SLOWER_S;
  if (!counts && !slower) return;
  change *c = add_change(cs, a->kind == PERF__TRACE_SYNC ? NAN : s);
  if (!c) return;
  what(w, sizeof w, b);
  if (counts && a->kind == PERF__TRACE_SYNC)
    say(c->text, sizeof c->text, "%s: %s an iteration, was %s (host time, not in the GPU's trace)",
             w, count_text(n, sizeof n, b->count), count_text(m, sizeof m, a->count));
  else if (counts)
    say(c->text, sizeof c->text, "%s: %s %s an iteration, was %s (%s)", w,
             count_text(n, sizeof n, b->count), a->kind == PERF__TRACE_KERNEL ? "launches" : "calls",
             count_text(m, sizeof m, a->count), signed_time(d, sizeof d, s));
  else
    say(c->text, sizeof c->text, "%s: %s -> %s a %s (%s)", w, perf__units_time(x, sizeof x, per_a),
             perf__units_time(y, sizeof y, per_b), a->kind == PERF__TRACE_KERNEL ? "launch" : "call",
             signed_time(d, sizeof d, s));
}

/* Words of a C++ signature or a library's naming that say nothing of what
 * a kernel does. */
static const char *const stop_words[] = {"void", "const", "float", "double", "int", "char",
                                         "unsigned", "long", "short", "bool", "std", "operator",
                                         "kernel", "execute", "true", "false", "struct", "class",
                                         "cublas", "cutlass", "cub", "detail", "impl", NULL};

/* Word k (letters only, 3 or more, lower case, not a stop word) of name
 * into w[len], from *p on; 0 when there is none left. Never fails. */
static int next_word(const char **p, char *w, size_t len)
{
  while (**p) {
    while (**p && !isalpha((unsigned char)**p)) (*p)++;
    size_t n = 0;
    while (isalpha((unsigned char)**p)) {
      if (n + 1 < len) w[n++] = (char)tolower((unsigned char)**p);
      (*p)++;
    }
    w[n] = '\0';
    int stop = n < 3;
    for (const char *const *s = stop_words; !stop && *s; s++) stop = !strcmp(w, *s);
    if (!stop) return 1;
  }
  return 0;
}

/* How many whole words (next_word's) kernel names a and b have in common:
 * how an algorithm swap is told from unrelated kernels. Never fails. */
static int shared_words(const char *a, const char *b)
{
  char wa[64], wb[64];
  int n = 0;
  for (const char *p = a; next_word(&p, wa, sizeof wa);)
    for (const char *q = b; next_word(&q, wb, sizeof wb);)
      if (!strcmp(wa, wb)) {
        n++;
        break;
      }
  return n;
}

/* Pairs kernels only was ran with kernels only now runs: replacements.
 * Never fails. */
static void replacements(changes *cs, groups *was, groups *now, double total)
{
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < was->n; i++) {
      group *a = &was->g[i];
      if (a->matched || a->kind != PERF__TRACE_KERNEL) continue;
      group *best = NULL;
      int score = 0;
      for (size_t k = 0; k < now->n; k++) {
        group *b = &now->g[k];
        if (b->matched || b->kind != PERF__TRACE_KERNEL) continue;
        int sc = pass == 0 ? shared_words(a->first->name, b->first->name) : 1;
        if (sc > score) score = sc, best = b;
      }
      if (!best) continue;
      a->matched = best->matched = 1;
      double s = best->device_s - a->device_s;
      char d[32], tot[40] = "";
      change *c = add_change(cs, s);
      if (!c) return;
      if (isfinite(total) && total != 0) {
        char t[32];
        snprintf(tot, sizeof tot, " of %s", signed_time(t, sizeof t, total));
      }
      say(c->text, sizeof c->text, "kernel `%s` replaced by `%s` (%s%s)", a->first->name,
               best->first->name, signed_time(d, sizeof d, s), tot);
    }
}

/* Larger explained time first; host-time changes (NaN) after. Never
 * fails. */
static int by_explained(const void *pa, const void *pb)
{
  const change *a = pa, *b = pb;
  int ha = isnan(a->s), hb = isnan(b->s);
  if (ha != hb) return ha - hb;
  if (ha) return 0;
  return fabs(a->s) > fabs(b->s) ? -1 : fabs(a->s) < fabs(b->s) ? 1 : 0;
}

/* See trace.h. */
int perf__trace_explain(const perf__trace_side *was, const perf__trace_side *now,
                        const char *indent, char *buf, size_t len)
{
  static groups a, b;
  static changes cs;
  size_t used = 0;
  unsigned was_mhz = was->mhz, now_mhz = now->mhz;
  double dw = perf__trace_device_s(was->trace), dn = perf__trace_device_s(now->trace);
  buf[0] = '\0';
  group_of(was->trace, &a);
  group_of(now->trace, &b);
  cs.n = 0;
  double total = was->median_s > 0 && now->median_s > 0 ? now->median_s - was->median_s : dn - dw;
  for (size_t i = 0; i < a.n; i++)
    for (size_t k = 0; k < b.n; k++)
      if (!b.g[k].matched && same_group(a.g[i].first, b.g[k].first)) {
        a.g[i].matched = b.g[k].matched = 1;
        both_sides(&cs, &a.g[i], &b.g[k]);
        break;
      }
  replacements(&cs, &a, &b, total);
  for (size_t i = 0; i < a.n; i++)
    if (!a.g[i].matched) one_sided(&cs, &a.g[i], 0);
  for (size_t k = 0; k < b.n; k++)
    if (!b.g[k].matched) one_sided(&cs, &b.g[k], 1);
  qsort(cs.c, cs.n, sizeof cs.c[0], by_explained);
  for (size_t i = 0; i < cs.n; i++)
    perf__units_append(buf, len, &used, "%s%s%s", i ? "\n" : "", indent, cs.c[i].text);
  if (cs.n) return (int)cs.n;
  char x[32], y[32], clock[120];
  if (was_mhz && now_mhz)
    snprintf(clock, sizeof clock, "SM clock %u MHz then, %u MHz now", was_mhz, now_mhz);
  else
    snprintf(clock, sizeof clock, "SM clock %s", was_mhz || now_mhz ? "known on one side only" : "unknown");
  perf__units_append(buf, len, &used, "%sthe trace cannot explain it: the same kernels, copies and "
                     "syncs ran as often, none by itself slower by over 10 %%; device time %s -> %s "
                     "an iteration (%+.1f%%); %s", indent, perf__units_time(x, sizeof x, dw),
                     perf__units_time(y, sizeof y, dn), dw > 0 ? 100 * (dn / dw - 1) : 0, clock);
  return 0;
}

/* See trace.h. */
int perf__trace_export(const perf__trace *t, const char *title, FILE *f)
{
  perf__json j = {0};
  unsigned long long t0 = ~0ull;
  unsigned streams[64];
  size_t ns = 0;
  for (size_t i = 0; i < t->nevents; i++)
    if (t->events[i].start_ns < t0) t0 = t->events[i].start_ns;
  perf__json_raw(&j, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"title\": ");
  perf__json_str(&j, title);
  perf__json_raw(&j, ", \"source\": \"perfgate (CUPTI Activity API, untimed routing pass)\"}, "
                     "\"traceEvents\": [");
  for (size_t i = 0; i < t->nevents; i++) {
    const perf__trace_event *e = &t->events[i];
    const perf__trace_item *x = &t->items[e->item];
    size_t k = 0;
    while (k < ns && streams[k] != e->stream) k++;
    if (k == ns && ns < 64) streams[ns++] = e->stream;
    perf__json_raw(&j, "%s\n {\"name\": ", i ? "," : "");
    perf__json_str(&j, x->name);
    perf__json_raw(&j, ", \"cat\": \"%s\", \"ph\": \"X\", \"pid\": 1, \"tid\": %u, \"ts\": %.3f, "
                       "\"dur\": %.3f, \"args\": {\"shape\": ", perf__trace_kind_word(x->kind),
                   e->stream, (double)(e->start_ns - t0) / 1e3,
                   (double)(e->end_ns - e->start_ns) / 1e3);
    perf__json_str(&j, x->shape);
    perf__json_raw(&j, ", \"where\": ");
    perf__json_str(&j, x->where);
    perf__json_raw(&j, "}}");
  }
  for (size_t k = 0; k < ns; k++)
    perf__json_raw(&j, "%s\n {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": %u, "
                       "\"args\": {\"name\": \"stream %u\"}}", t->nevents || k ? "," : "",
                   streams[k], streams[k]);
  perf__json_raw(&j, "\n]}\n");
  int bad = j.oom || fwrite(j.s, 1, j.len, f) != j.len;
  perf__json_free(&j);
  return bad ? PERF__EIO : 0;
}
