/* series.c — the history read back as per-GPU series of medians and ratios, by commit or run. */
/* A workload's series holds its medians, a ratio claim's its ratios. */
#define _GNU_SOURCE
#include "history/series.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/filter.h"
#include "util/status.h"
#include "util/grow.h"
#include "history/schema.h"

/* A run that was read: where its values go. */
typedef struct run_at {
  long long id;
  size_t axis, at;
  char *gpu, *commit, *started;
  char *key; /* its run id (NULL: a whole run, recorded without one) */
} run_at;

/* State while reading. */
typedef struct loader {
  const perf__series_query *q;
  perf__series_set *set;
  run_at *runs;
  size_t nruns, cap;
  int oom;
} loader;

static char *dup(const char *s)
{
  return s ? strdup(s) : NULL;
}

/* Row of the runs query: id, gpu, commit, started, run id. */
static int run_row(void *ctx, int n, const char *const *v)
{
  loader *l = ctx;
  if (n < 5 || !v[0]) return 0;
  run_at *runs = perf__grow(l->runs, &l->cap, l->nruns + 1, sizeof *runs, 16);
  if (!runs) return l->oom = 1, 1;
  l->runs = runs;
  run_at *r = &l->runs[l->nruns++];
  memset(r, 0, sizeof *r);
  r->id = strtoll(v[0], NULL, 10);
  r->gpu = dup(v[1] ? v[1] : "none");
  r->commit = dup(v[2] ? v[2] : "unknown");
  r->started = dup(v[3] ? v[3] : "");
  r->key = dup(v[4]);
  if (!r->gpu || !r->commit || !r->started || (v[4] && !r->key)) l->oom = 1;
  return l->oom;
}

/* Frees what run r holds. Never fails. */
static void run_free(run_at *r)
{
  free(r->gpu), free(r->commit), free(r->started), free(r->key);
}

static int by_gpu_key(const void *x, const void *y)
{
  const run_at *a = *(run_at *const *)x, *b = *(run_at *const *)y;
  int c = strcmp(a->gpu, b->gpu);
  return c ? c : strcmp(a->key, b->key);
}

/* The runs among runs[0..n) as --commit-report counts them: the shards
 * of one run id on one GPU are one run, a run recorded without a run id
 * one of its own. Returns the count, or SIZE_MAX without memory. */
static size_t count_runs(run_at *runs, size_t n)
{
  run_at **keyed = malloc((n + 1) * sizeof *keyed);
  size_t m = 0, count = 0;
  if (!keyed) return SIZE_MAX;
  for (size_t i = 0; i < n; i++) {
    if (runs[i].key) keyed[m++] = &runs[i];
    else count++;
  }
  qsort(keyed, m, sizeof *keyed, by_gpu_key);
  for (size_t i = 0; i < m; i++) count += !i || by_gpu_key(&keyed[i - 1], &keyed[i]);
  free(keyed);
  return count;
}

/* The axis of gpu, added when new; SIZE_MAX without memory. */
static size_t axis_of(perf__series_set *set, const char *gpu)
{
  for (size_t k = 0; k < set->naxes; k++)
    if (!strcmp(set->axes[k].gpu, gpu)) return k;
  perf__series_axis *a = realloc(set->axes, (set->naxes + 1) * sizeof *a);
  if (!a) return SIZE_MAX;
  set->axes = a;
  memset(&a[set->naxes], 0, sizeof *a);
  if (!(a[set->naxes].gpu = strdup(gpu))) return SIZE_MAX;
  return set->naxes++;
}

/* Places run r on its GPU's axis (a new commit, or per run, a new point). */
static int place(loader *l, run_at *r)
{
  perf__series_set *set = l->set;
  if ((r->axis = axis_of(set, r->gpu)) == SIZE_MAX) return -1;
  perf__series_axis *a = &set->axes[r->axis];
  for (size_t k = 0; !l->q->per_run && k < a->n; k++)
    if (!strcmp(a->commit[k], r->commit)) return (r->at = k), 0;
  size_t cap[3] = {a->cap, a->cap, a->cap}; /* three arrays, one capacity */
  char **commit = perf__grow(a->commit, &cap[0], a->n + 1, sizeof *commit, 16);
  if (commit) a->commit = commit;
  char **started = commit ? perf__grow(a->started, &cap[1], a->n + 1, sizeof *started, 16) : NULL;
  if (started) a->started = started;
  long long *run = started ? perf__grow(a->run, &cap[2], a->n + 1, sizeof *run, 16) : NULL;
  if (!run) return -1;
  a->run = run;
  a->cap = cap[0];
  a->commit[a->n] = dup(r->commit);
  a->started[a->n] = dup(r->started);
  a->run[a->n] = r->id;
  r->at = a->n++;
  return a->commit[r->at] && a->started[r->at] ? 0 : -1;
}

static int by_id(const void *x, const void *y)
{
  const run_at *a = x, *b = y;
  return (a->id > b->id) - (a->id < b->id);
}

static uint64_t hash(const char *s, uint64_t h)
{
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return (h ^ 0x1f) * 1099511628211ull;
}

/* Whether the commit of runs[i] is among the newest `last` commits of its
 * GPU, whose runs are runs[from..i] walked back: seen is a table of nseen
 * slots (a power of two, over twice `last`) holding the commits taken so
 * far, *taken of them. Never fails. */
static int in_window(const run_at *runs, size_t i, const char **seen, size_t nseen, size_t *taken,
                     size_t last)
{
  const char *c = runs[i].commit;
  size_t at = hash(c, 1469598103934665603ull) & (nseen - 1);
  for (; seen[at]; at = (at + 1) & (nseen - 1))
    if (!strcmp(seen[at], c)) return 1;
  if (*taken == last) return 0;
  seen[at] = c, ++*taken;
  return 1;
}

/* Marks (keep = 1) the runs of the newest q->last commits of the GPU
 * whose runs are l->runs[g..end) (the newest q->last runs with per_run).
 * Returns 0, or -1 without memory. */
static int window(loader *l, size_t g, size_t end, char *keep)
{
  size_t last = l->q->last, n = end - g;
  if (!last || n <= last) return memset(keep + g, 1, n), 0;
  if (l->q->per_run) return memset(keep + g, 0, n - last), memset(keep + end - last, 1, last), 0;
  size_t nseen = perf__grow_cap(0, 2 * (last < n ? last : n) + 1, 16), taken = 0;
  const char **seen = nseen ? calloc(nseen, sizeof *seen) : NULL;
  if (!seen) return -1;
  for (size_t i = end; i-- > g;) keep[i] = (char)in_window(l->runs, i, seen, nseen, &taken, last);
  free(seen);
  return 0;
}

/* Keeps the runs of each GPU's newest q->last commits (runs with per_run;
 * runs are in GPU, id order), places them on axes, and sorts them by id.
 * Returns 0, or -1 without memory. */
static int place_runs(loader *l)
{
  size_t kept = 0;
  char *keep = malloc(l->nruns + 1);
  if (!keep) return -1;
  for (size_t g = 0, end; g < l->nruns; g = end) {
    for (end = g + 1; end < l->nruns && !strcmp(l->runs[end].gpu, l->runs[g].gpu); end++) {}
    if (window(l, g, end, keep)) return free(keep), -1;
  }
  for (size_t i = 0; i < l->nruns; i++) {
    if (keep[i]) l->runs[kept++] = l->runs[i];
    else run_free(&l->runs[i]);
  }
  free(keep);
  l->nruns = kept;
  for (size_t i = 0; i < l->nruns; i++)
    if (place(l, &l->runs[i])) return -1;
  if (l->nruns) qsort(l->runs, l->nruns, sizeof *l->runs, by_id); /* runs is NULL for none */
  return 0;
}

static int same(const char *a, const char *b)
{
  return (!a && !b) || (a && b && !strcmp(a, b));
}

/* The fields that name a series. */
typedef struct key {
  size_t axis;
  int is_claim;
  const char *test, *name, *clock, *sweep;
} key;

static uint64_t key_hash(const key *k)
{
  uint64_t h = 1469598103934665603ull ^ (k->axis * 31 + (size_t)k->is_claim);
  h = hash(k->test, h);
  h = hash(k->name, h);
  h = hash(k->clock, h);
  return hash(k->sweep ? k->sweep : "", h);
}

/* Doubles the slot table and puts every series back. */
static int rehash(perf__series_set *set)
{
  size_t n = perf__grow_cap(set->nslots, set->nslots + 1, 256);
  size_t *slots = n ? calloc(n, sizeof *slots) : NULL;
  if (!slots) return -1;
  for (size_t i = 0; i < set->n; i++) {
    const perf__series *s = &set->s[i];
    key k = {s->axis, s->is_claim, s->test, s->name, s->clock, s->sweep};
    size_t at = key_hash(&k) & (n - 1);
    while (slots[at]) at = (at + 1) & (n - 1);
    slots[at] = i + 1;
  }
  free(set->slots);
  set->slots = slots;
  set->nslots = n;
  return 0;
}

/* The series named k, added when new; NULL without memory. */
static perf__series *series_of(perf__series_set *set, const key *k)
{
  if ((set->n + 1) * 2 > set->nslots && rehash(set)) return NULL;
  size_t at = key_hash(k) & (set->nslots - 1);
  for (; set->slots[at]; at = (at + 1) & (set->nslots - 1)) {
    perf__series *s = &set->s[set->slots[at] - 1];
    if (s->axis == k->axis && s->is_claim == k->is_claim && same(s->test, k->test) &&
        same(s->name, k->name) && same(s->clock, k->clock) && same(s->sweep, k->sweep))
      return s;
  }
  perf__series *all = perf__grow(set->s, &set->cap, set->n + 1, sizeof *all, 16);
  if (!all) return NULL;
  set->s = all;
  perf__series *s = &set->s[set->n];
  memset(s, 0, sizeof *s);
  s->axis = k->axis;
  s->is_claim = k->is_claim;
  s->threshold = NAN;
  s->test = dup(k->test), s->name = dup(k->name), s->clock = dup(k->clock), s->sweep = dup(k->sweep);
  if (!s->test || !s->name || !s->clock || (k->sweep && !s->sweep)) {
    free(s->test), free(s->name), free(s->clock), free(s->sweep);
    return NULL;
  }
  set->slots[at] = ++set->n;
  return s;
}

static double num(const char *v)
{
  return v ? strtod(v, NULL) : NAN;
}

/* The run with id, or NULL when it was not selected. */
static const run_at *run_of(const loader *l, const char *id)
{
  run_at k = {.id = id ? strtoll(id, NULL, 10) : -1};
  return bsearch(&k, l->runs, l->nruns, sizeof *l->runs, by_id);
}

/* Adds one value to the series named by the row's fields. Returns the
 * series, or NULL without memory (l->oom set). */
static perf__series *add(loader *l, const run_at *r, key *k, const double v[3])
{
  perf__series *s = series_of(l->set, k);
  double *raw = s ? perf__grow(s->raw, &s->capraw, (s->nraw + 1) * 4, sizeof *raw, 16) : NULL;
  if (!raw) return l->oom = 1, NULL;
  s->raw = raw;
  double *t = &s->raw[s->nraw++ * 4];
  t[0] = (double)r->at, t[1] = v[0], t[2] = v[1], t[3] = v[2];
  return s;
}

/* "param=value" of a sweep point into buf, or NULL outside a sweep. */
static const char *sweep_of(const char *param, const char *value, char *buf, size_t len)
{
  if (!param) return NULL;
  snprintf(buf, len, "%s=%s", param, value ? value : "?");
  return buf;
}

/* Row of the workloads query: run, test, workload, clock, sweep param and
 * value, median, lo, hi. */
static int workload_row(void *ctx, int n, const char *const *v)
{
  loader *l = ctx;
  const run_at *r = n >= 9 ? run_of(l, v[0]) : NULL;
  if (!r || !v[1] || !v[2] || !v[3] || !perf__filter_match(l->q->filter, v[1])) return 0;
  char sw[160];
  key k = {r->axis, 0, v[1], v[2], v[3], sweep_of(v[4], v[5], sw, sizeof sw)};
  double x[3] = {num(v[6]), num(v[7]), num(v[8])};
  return isfinite(x[0]) && !add(l, r, &k, x) ? 1 : 0;
}

/* Row of the claims query: run, test, kind, a, b, clock, sweep param and
 * value, ratio, lo, hi, threshold. */
static int claim_row(void *ctx, int n, const char *const *v)
{
  loader *l = ctx;
  const run_at *r = n >= 12 ? run_of(l, v[0]) : NULL;
  if (!r || !v[1] || !v[2] || !perf__filter_match(l->q->filter, v[1])) return 0;
  char name[400], sw[160];
  snprintf(name, sizeof name, "%s(%s, %s)", v[2], v[3] ? v[3] : "?", v[4] ? v[4] : "?");
  key k = {r->axis, 1, v[1], name, v[5] ? v[5] : "unknown", sweep_of(v[6], v[7], sw, sizeof sw)};
  double x[3] = {num(v[8]), num(v[9]), num(v[10])};
  perf__series *s = isfinite(x[0]) ? add(l, r, &k, x) : NULL;
  if (!s) return l->oom;
  if (!s->kind && !(s->kind = strdup(v[2]))) return l->oom = 1, 1;
  s->threshold = num(v[11]);
  return 0;
}

static int by_at(const void *x, const void *y)
{
  const double *a = x, *b = y;
  return (a[0] > b[0]) - (a[0] < b[0]);
}

static int by_value(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The median of the finite values among v[0], v[stride], ... (n of
 * them); NaN when there are none. */
static double median(const double *v, size_t n, size_t stride, double *tmp)
{
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(v[i * stride])) tmp[m++] = v[i * stride];
  if (!m) return NAN;
  qsort(tmp, m, sizeof *tmp, by_value);
  return m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
}

/* Groups a series' raw values into one point per axis position. */
static int group(perf__series *s)
{
  double *tmp = malloc((s->nraw + 1) * sizeof *tmp);
  if (!tmp || !(s->pts = calloc(s->nraw + 1, sizeof *s->pts))) return free(tmp), -1;
  qsort(s->raw, s->nraw, 4 * sizeof *s->raw, by_at);
  for (size_t i = 0; i < s->nraw;) {
    size_t j = i;
    while (j < s->nraw && s->raw[j * 4] == s->raw[i * 4]) j++;
    perf__series_point *p = &s->pts[s->n++];
    p->at = (size_t)s->raw[i * 4];
    p->nvalues = j - i;
    p->value = median(&s->raw[i * 4 + 1], j - i, 4, tmp);
    p->lo = median(&s->raw[i * 4 + 2], j - i, 4, tmp);
    p->hi = median(&s->raw[i * 4 + 3], j - i, 4, tmp);
    i = j;
  }
  free(tmp);
  free(s->raw);
  s->raw = NULL;
  s->nraw = s->capraw = 0;
  return 0;
}

/* Reads the runs, then the rows of the runs kept. */
static int read_rows(perf__store *st, loader *l, char *err, size_t len)
{
  const perf__series_query *q = l->q;
  perf__store_value p[3] = {perf__store_int(q->through > 0 ? q->through : INT64_MAX)};
  char sql[700];
  int np = 1, v = 0;
  /* A retried shard: its last attempt counts (schema 5 has run ids). */
  int keys = !perf__schema_version(st, &v, err, len) && v >= 5;
  size_t u = (size_t)snprintf(sql, sizeof sql, "SELECT id, gpu, commit_id, started, %s FROM perfgate_runs r"
                                               " WHERE id <= $1", keys ? "run_key" : "NULL");
  if (keys)
    u += (size_t)snprintf(sql + u, sizeof sql - u, " AND " PERF__SCHEMA_LAST_ATTEMPT(" AND n.id <= $1"));
  if (q->fit_only && v >= 4) u += (size_t)snprintf(sql + u, sizeof sql - u, " AND (unfit IS NULL OR unfit = '')");
  if (q->gpu) p[np] = perf__store_text(q->gpu), np++, u += (size_t)snprintf(sql + u, sizeof sql - u, " AND gpu = $%d", np);
  if (q->branch) p[np] = perf__store_text(q->branch), np++, u += (size_t)snprintf(sql + u, sizeof sql - u, " AND branch = $%d", np);
  snprintf(sql + u, sizeof sql - u, " ORDER BY gpu, id");
  perf__store_stmt rows = {.sql = sql, .param = p, .nparam = np, .on_row = run_row, .ctx = l};
  int rc = perf__store_exec(st, &rows, err, len);
  if (!rc && place_runs(l)) l->oom = 1;
  if (rc || l->oom || !l->nruns) return rc;
  /* The rows of the kept runs' id range; of one GPU's runs in it when
   * the query names one (one GPU's runs of a matrix are interleaved with
   * every other GPU's). */
  perf__store_value ids[3] = {perf__store_int(l->runs[0].id), perf__store_int(l->runs[l->nruns - 1].id),
                              perf__store_text(q->gpu)};
  const char *runs = q->gpu ? "run_id IN (SELECT id FROM perfgate_runs WHERE id >= $1 AND id <= $2 AND gpu = $3)"
                            : "run_id >= $1 AND run_id <= $2";
  snprintf(sql, sizeof sql, "SELECT run_id, test, workload, clock, sweep_param, sweep_value,"
                            " median_s, median_lo_s, median_hi_s FROM perfgate_workloads WHERE %s", runs);
  rows = (perf__store_stmt){.sql = sql, .param = ids, .nparam = q->gpu ? 3 : 2, .on_row = workload_row, .ctx = l};
  rc = perf__store_exec(st, &rows, err, len);
  snprintf(sql, sizeof sql, "SELECT run_id, test, kind, a, b, clock, sweep_param, sweep_value,"
                            " ratio, ratio_lo, ratio_hi, threshold FROM perfgate_claims"
                            " WHERE ratio IS NOT NULL AND %s", runs);
  rows.on_row = claim_row; /* the same ids, sql now the claims' */
  if (!rc && !l->oom) rc = perf__store_exec(st, &rows, err, len);
  return rc;
}

/* See series.h. */
int perf__series_load(perf__store *st, const perf__series_query *q, perf__series_set *set,
                      char *err, size_t len)
{
  loader l = {q, set, NULL, 0, 0, 0};
  memset(set, 0, sizeof *set);
  int rc = read_rows(st, &l, err, len);
  set->shards = l.nruns;
  set->runs = rc || l.oom ? 0 : count_runs(l.runs, l.nruns);
  if (set->runs == SIZE_MAX) l.oom = 1;
  for (size_t i = 0; !rc && !l.oom && i < set->n; i++)
    if (group(&set->s[i])) l.oom = 1;
  for (size_t i = 0; i < l.nruns; i++) run_free(&l.runs[i]);
  free(l.runs);
  if (l.oom) rc = (snprintf(err, len, "%s: out of memory", st->where), PERF__ENOMEM);
  if (rc) perf__series_free(set);
  return rc;
}

/* Where a list of values is written. */
typedef struct listing {
  char *out;
  size_t len, u, n;
  const char *none; /* the word for NULL */
} listing;

/* Row of a values query: value (NULL: none), runs. */
static int value_row(void *ctx, int n, const char *const *v)
{
  listing *b = ctx;
  if (n < 2 || !v[1]) return 0;
  const char *sep = b->n ? ", " : "";
  long runs = strtol(v[1], NULL, 10);
  if (b->n++ == 10) b->u += (size_t)snprintf(b->out + b->u, b->len - b->u, ", and more");
  else if (b->n <= 10)
    b->u += (size_t)snprintf(b->out + b->u, b->len - b->u, "%s%s%s%s (%ld run%s)", sep, v[0] ? "'" : "",
                             v[0] ? v[0] : b->none, v[0] ? "'" : "", runs, runs == 1 ? "" : "s");
  if (b->u >= b->len) b->u = b->len - 1;
  return 0;
}

/* See series.h. */
int perf__series_values(perf__store *s, perf__series_column col, char *out, size_t len, char *err,
                        size_t elen)
{
  listing b = {out, len, 0, 0, col == PERF__SERIES_GPU ? "no GPU" : "no branch"};
  out[0] = '\0';
  const perf__store_stmt q = {
      .sql = col == PERF__SERIES_GPU
                 ? "SELECT gpu, count(*) FROM perfgate_runs GROUP BY gpu ORDER BY count(*) DESC, gpu"
                 : "SELECT branch, count(*) FROM perfgate_runs GROUP BY branch ORDER BY count(*) DESC, branch",
      .on_row = value_row, .ctx = &b};
  return perf__store_exec(s, &q, err, elen);
}

/* See series.h. */
char *perf__series_label(const perf__series *s, char *out, size_t len)
{
  snprintf(out, len, "%s: %s [%s]%s%s", s->test, s->name, s->clock, s->sweep ? " " : "",
           s->sweep ? s->sweep : "");
  return out;
}

/* See series.h. */
void perf__series_free(perf__series_set *set)
{
  for (size_t i = 0; i < set->naxes; i++) {
    perf__series_axis *a = &set->axes[i];
    for (size_t k = 0; k < a->n; k++) free(a->commit[k]), free(a->started[k]);
    free(a->gpu), free(a->commit), free(a->started), free(a->run);
  }
  for (size_t i = 0; i < set->n; i++) {
    perf__series *s = &set->s[i];
    free(s->test), free(s->name), free(s->clock), free(s->sweep), free(s->kind), free(s->pts),
        free(s->raw);
  }
  free(set->axes), free(set->s), free(set->slots);
  memset(set, 0, sizeof *set);
}

/* A row's first column, kept (strdup) when none is yet: the newest trace.
 * Never fails (without memory none is kept). */
static int first_text(void *ctx, int n, const char *const *v)
{
  char **out = ctx;
  if (!*out && n > 0 && v[0]) *out = strdup(v[0]);
  return 0;
}

/* See series.h. */
int perf__series_trace(perf__store *s, const perf__series_set *set, const perf__series *x,
                       size_t k, char **json, char *err, size_t len)
{
  const perf__series_axis *a = &set->axes[x->axis];
  perf__store_value v[] = {perf__store_text(a->gpu), perf__store_text(a->commit[k]),
                           perf__store_text(x->test), perf__store_text(x->name),
                           perf__store_text(x->clock), perf__store_text(x->sweep ? x->sweep : "")};
  *json = NULL;
  const perf__store_stmt q = {
      .sql = "SELECT w.trace FROM perfgate_workloads w JOIN perfgate_runs r ON r.id = w.run_id"
             " WHERE r.gpu = $1 AND r.commit_id = $2 AND w.test = $3 AND w.workload = $4 AND w.clock = $5"
             " AND coalesce(w.sweep_param || '=' || w.sweep_value, '') = $6 AND w.trace IS NOT NULL"
             " ORDER BY r.id DESC LIMIT 1",
      .param = v, .nparam = 6, .on_row = first_text, .ctx = json};
  return perf__store_exec(s, &q, err, len);
}
