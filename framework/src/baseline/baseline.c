/* baseline.c — the in-memory model of a per-GPU baseline file. */
/* It holds the entries, ratios and work counts, their hash index, an entry's
 * SM clock and the file's name. */
#define _GNU_SOURCE
#include "baseline/baseline.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/status.h"

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
  for (size_t i = 0; i < b->nentries; i++) free(b->entries[i].trace);
  free(b->entries);
  free(b->ratios);
  free(b->works);
  free(b->entry_slots);
  free(b->ratio_slots);
  free(b->work_slots);
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

/* One kind of keyed item: its size and where its two keys lie in it (an
 * entry's test and workload, a ratio's test and claim, a work count's
 * test and workload). */
typedef struct keys {
  size_t size, x, y;
} keys;

static const keys entry_keys = {sizeof(perf__baseline_entry), offsetof(perf__baseline_entry, test),
                                offsetof(perf__baseline_entry, workload)};
static const keys ratio_keys = {sizeof(perf__baseline_ratio), offsetof(perf__baseline_ratio, test),
                                offsetof(perf__baseline_ratio, claim)};
static const keys work_keys = {sizeof(perf__baseline_work), offsetof(perf__baseline_work, test),
                               offsetof(perf__baseline_work, workload)};

/* Item i of items (of kind k). Never fails. */
static char *item(const void *items, const keys *k, size_t i)
{
  return (char *)items + i * k->size;
}

static unsigned long long compares; /* see perf__baseline_key_compares */

/* See baseline.h. */
unsigned long long perf__baseline_key_compares(void) { return compares; }

/* The slot of items' index (nslots, a power of two with an empty slot)
 * that holds the item with keys (x, y), or the empty one where it would
 * go. Never fails. */
static size_t *probe(const void *items, const keys *k, size_t *slots, size_t nslots,
                     const char *x, const char *y)
{
  size_t i = hash2(x, y) & (nslots - 1);
  for (;; i = (i + 1) & (nslots - 1)) {
    if (!slots[i]) return &slots[i];
    const char *at = item(items, k, slots[i] - 1);
    compares++;
    if (!strcmp(at + k->x, x) && !strcmp(at + k->y, y)) return &slots[i];
  }
}

/* The item with keys (x, y) among items, or NULL. Never fails. */
static void *find(const void *items, const keys *k, size_t *slots, size_t nslots, const char *x,
                  const char *y)
{
  size_t *s = nslots ? probe(items, k, slots, nslots, x, y) : NULL;
  return s && *s ? item(items, k, *s - 1) : NULL;
}

/* Makes room in the index for one more of the n items: rebuilt twice as
 * large when it would be over half full. Returns 0 or PERF__ENOMEM (the
 * old index is kept). */
static int reserve(const void *items, const keys *k, size_t **slots, size_t *nslots, size_t n)
{
  if (2 * (n + 1) <= *nslots) return 0;
  size_t m = perf__grow_cap(*nslots, 2 * (n + 1), 64);
  size_t *t = m ? calloc(m, sizeof *t) : NULL;
  if (!t) return PERF__ENOMEM;
  for (size_t i = 0; i < n; i++) {
    const char *at = item(items, k, i);
    *probe(items, k, t, m, at + k->x, at + k->y) = i + 1;
  }
  free(*slots);
  *slots = t;
  *nslots = m;
  return 0;
}

/* Appends a copy of one (of kind k) to items, which holds *n and has room
 * for one more, and indexes it. Returns 0 or PERF__ENOMEM (nothing
 * added). */
static int append(void *items, const keys *k, size_t *n, size_t **slots, size_t *nslots,
                  const void *one)
{
  if (reserve(items, k, slots, nslots, *n)) return PERF__ENOMEM;
  char *at = item(items, k, *n);
  memcpy(at, one, k->size);
  *probe(items, k, *slots, *nslots, at + k->x, at + k->y) = ++*n;
  return 0;
}

/* NULL when there is none. */
const perf__baseline_entry *perf__baseline_find(const perf__baseline *b, const char *test,
                                    const char *workload)
{
  return find(b->entries, &entry_keys, b->entry_slots, b->nentry_slots, test, workload);
}

/* NULL when there is none. */
const perf__baseline_ratio *perf__baseline_find_ratio(const perf__baseline *b, const char *test,
                                                      const char *claim)
{
  return find(b->ratios, &ratio_keys, b->ratio_slots, b->nratio_slots, test, claim);
}

/* NULL when there is none. */
const perf__baseline_work *perf__baseline_find_work(const perf__baseline *b, const char *test,
                                                    const char *workload)
{
  return find(b->works, &work_keys, b->work_slots, b->nwork_slots, test, workload);
}

/* 0 or PERF__ENOMEM. */
int perf__baseline_put_entry(perf__baseline *b, const perf__baseline_entry *e)
{
  perf__baseline_entry *old = (perf__baseline_entry *)perf__baseline_find(b, e->test, e->workload);
  char *trace = e->trace ? strdup(e->trace) : NULL;
  if (e->trace && !trace) return PERF__ENOMEM;
  if (old) {
    free(old->trace);
    *old = *e;
    old->trace = trace;
    return 0;
  }
  perf__baseline_entry *all =
      perf__grow(b->entries, &b->cap_entries, b->nentries + 1, sizeof *all, 16);
  if (all) b->entries = all;
  if (!all || append(all, &entry_keys, &b->nentries, &b->entry_slots, &b->nentry_slots, e)) {
    free(trace);
    return PERF__ENOMEM;
  }
  b->entries[b->nentries - 1].trace = trace;
  return 0;
}

/* 0 or PERF__ENOMEM. */
int perf__baseline_put_ratio(perf__baseline *b, const perf__baseline_ratio *r)
{
  perf__baseline_ratio *old = (perf__baseline_ratio *)perf__baseline_find_ratio(b, r->test, r->claim);
  if (old) {
    *old = *r;
    return 0;
  }
  perf__baseline_ratio *all = perf__grow(b->ratios, &b->cap_ratios, b->nratios + 1, sizeof *all, 16);
  if (all) b->ratios = all;
  return all ? append(all, &ratio_keys, &b->nratios, &b->ratio_slots, &b->nratio_slots, r)
             : PERF__ENOMEM;
}

/* 0 or PERF__ENOMEM. */
int perf__baseline_put_work(perf__baseline *b, const perf__baseline_work *w)
{
  perf__baseline_work *old = (perf__baseline_work *)perf__baseline_find_work(b, w->test, w->workload);
  if (old) {
    *old = *w;
    return 0;
  }
  perf__baseline_work *all = perf__grow(b->works, &b->cap_works, b->nworks + 1, sizeof *all, 16);
  if (all) b->works = all;
  return all ? append(all, &work_keys, &b->nworks, &b->work_slots, &b->nwork_slots, w)
             : PERF__ENOMEM;
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

/* Never fails. */
const char *perf__baseline_fp(const perf__baseline *b, const char *key)
{
  for (size_t i = 0; i < b->nfp; i++)
    if (!strcmp(b->fp[i].key, key)) return b->fp[i].value;
  return NULL;
}

/* Never fails. */
const char *perf__baseline_model(const perf__baseline *b)
{
  const char *name = perf__baseline_fp(b, "name");
  return name ? name : "unknown";
}

/* The host's CPU count in b (PERF__BL_FP_CPUS: a whole number from 1),
 * or 0 for a fingerprint that has none (a GPU's). Never fails. */
static long host_cpus(const perf__baseline *b)
{
  const char *v = perf__baseline_fp(b, PERF__BL_FP_CPUS);
  char *end;
  long n = v && isdigit((unsigned char)*v) ? strtol(v, &end, 10) : 0;
  return n > 0 && !*end ? n : 0;
}

/* Never fails. */
char *perf__baseline_path(const char *dir, const perf__baseline *b, char *out,
                    size_t len)
{
  char slug[80];
  long cpus = host_cpus(b);
  perf__baseline_slug(perf__baseline_model(b), slug, sizeof slug);
  if (cpus) snprintf(out, len, "%s/%s-%ld-cpus.yaml", dir && *dir ? dir : ".", slug, cpus);
  else snprintf(out, len, "%s/%s.yaml", dir && *dir ? dir : ".", slug);
  return out;
}

/* Never fails. */
int perf__baseline_path_before(const char *dir, const perf__baseline *b, char *out, size_t len)
{
  char slug[80];
  if (len) out[0] = '\0';
  if (!host_cpus(b)) return 0;
  perf__baseline_slug(perf__baseline_model(b), slug, sizeof slug);
  snprintf(out, len, "%s/%s.yaml", dir && *dir ? dir : ".", slug);
  return 1;
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

/* See baseline.h. */
char *perf__baseline_peak_name(const char *what, const char *clock, char *buf, size_t len)
{
  snprintf(buf, len, "%s%s_%s", PERF__BL_PEAK_PREFIX, what, clock);
  return buf;
}

/* See baseline.h. */
int perf__baseline_is_file_name(const char *name)
{
  size_t n = strlen(name);
  return n > 5 && !strcmp(name + n - 5, ".yaml");
}
