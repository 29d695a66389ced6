/* claimrec.c — one claim's record: its members' tables, JSON writer and reader, copy and free. */
#define _GNU_SOURCE
#include "record/claimrec.h"
#include "record/fields.h"
#include "util/units.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words of a crossover point's side, in perf__verdict_side order (-1 first). */
static const char *const sides[] = {"slower", "undecided", "faster", "tied"};

/* See claimrec.h. */
const char *perf__claimrec_side_word(int side)
{
  return side >= -1 && side <= 2 ? sides[side + 1] : NULL;
}

/* Never fails. */
static const struct kind_row {
  const char *word;
  int ratio, at_least;
} kinds[] = {
#define PERF__X(kind, word, ratio, at_least) {word, ratio, at_least},
    PERF__CLAIMREC_KIND_MAP(PERF__X)
#undef PERF__X
};

const char *perf__claimrec_kind_word(perf__claimrec_kind k)
{
  return (unsigned)k < PERF__CLAIMREC_KIND_COUNT ? kinds[k].word : NULL;
}

/* Never fails. */
int perf__claimrec_is_ratio(perf__claimrec_kind k)
{
  return (unsigned)k < PERF__CLAIMREC_KIND_COUNT && kinds[k].ratio;
}

/* See claimrec.h. */
int perf__claimrec_at_least(const char *word)
{
  for (int k = 0; word && k < PERF__CLAIMREC_KIND_COUNT; k++)
    if (kinds[k].word && !strcmp(kinds[k].word, word)) return kinds[k].at_least;
  return 0;
}

/* ", \"key\": [rate, lo, hi]" of work over the workload's median, when
 * work > 0. Never fails (j->oom). */
static void put_rate(perf__json *j, const char *key, double work, const perf__claimrec_workload *w)
{
  double r[3];
  if (!(work > 0)) return;
  perf__peaks_rate(work, w->median_s, w->median_interval_s, r);
  perf__json_raw(j, ", \"%s\": [", key);
  for (int i = 0; i < 3; i++) {
    if (i) perf__json_raw(j, ", ");
    perf__json_num(j, r[i]);
  }
  perf__json_raw(j, "]");
}

/* The SM clocks (null: 0), n of them, malloc'd. Returns 0, PERF__EPROTO or
 * PERF__ENOMEM. */
static int get_mhz(perf__fields_reader *rd, const perf__jsontree_node *obj, size_t n, unsigned **out)
{
  const perf__jsontree_node *a;
  int e = perf__fields_member(rd, obj, "sm_clock_mhz", PERF__J_ARRAY, &a);
  if (e) return e;
  if (a->n != n) return perf__fields_bad(rd, "sm_clock_mhz", "does not have one clock per sample");
  *out = n ? calloc(n, sizeof **out) : NULL;
  if (n && !*out) return perf__fields_no_memory(rd);
  for (size_t i = 0; i < n; i++) {
    long v = 0;
    const perf__jsontree_node *k = a->kids[i];
    int null = k->type == PERF__J_PLAIN && !strcmp(k->text, "null");
    if (!null && (perf__fields_as_long(k, 1, UINT_MAX, &v)))
      return perf__fields_bad(rd, "sm_clock_mhz", "is not an array of clocks in MHz (or null)");
    (*out)[i] = (unsigned)v;
  }
  return 0;
}

/* 1 when s is one of the n words. */
static int one_of(const char *s, const char *const *words, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(s, words[i])) return 1;
  return 0;
}

/* The outcome named by member "outcome". Returns 0 or PERF__EPROTO. */
static int read_outcome(perf__fields_reader *rd, const perf__jsontree_node *o, perf_outcome *out)
{
  const perf__jsontree_node *n;
  int e = perf__fields_member(rd, o, "outcome", PERF__J_STRING, &n);
  if (e) return e;
  for (int k = 0; k < PERF_OUTCOME_COUNT; k++)
    if (!strcmp(n->text, perf__status_word((perf_outcome)k))) return *out = (perf_outcome)k, 0;
  return perf__fields_bad(rd, "outcome", "is not an outcome (PASS, SKIP, INCONCLUSIVE, FAIL or ERROR)");
}

/* The kind named by member "kind" (PLAIN when there is none). Returns 0 or
 * PERF__EPROTO. */
static int read_kind(perf__fields_reader *rd, const perf__jsontree_node *o, perf__claimrec_kind *out)
{
  const perf__jsontree_node *n;
  *out = PERF__CLAIMREC_PLAIN;
  if (!perf__jsontree_get(o, "kind")) return 0;
  int e = perf__fields_member(rd, o, "kind", PERF__J_STRING, &n);
  if (e) return e;
  for (int k = 0; k < PERF__CLAIMREC_KIND_COUNT; k++) {
    const char *w = perf__claimrec_kind_word((perf__claimrec_kind)k);
    if (w && !strcmp(n->text, w)) return *out = (perf__claimrec_kind)k, 0;
  }
  char what[300];
  size_t used = 0;
  int first = 1;
  perf__units_append(what, sizeof what, &used, "is not a claim kind (");
  for (int k = 0; k < PERF__CLAIMREC_KIND_COUNT; k++) { /* the table's words, in its order */
    const char *w = perf__claimrec_kind_word((perf__claimrec_kind)k);
    if (w) perf__units_append(what, sizeof what, &used, "%s%s", first ? "" : ", ", w), first = 0;
  }
  perf__units_append(what, sizeof what, &used, ")");
  return perf__fields_bad(rd, "kind", what);
}

/* ---- the members: one table per object (record/fields.h) --------------------- */

/* The hooks, defined with their functions below. */
static const perf__fields_hook samples_hook, clocks_hook, flop_type_hook, rates_hook, trace_hook, points_hook, outcome_hook, attempt_hook, measured_hook;

typedef perf__claimrec_workload workload_t;
typedef perf__claimrec_sweep sweep_t;
typedef perf__claimrec_noise noise_t;
typedef perf__claimrec_ratio ratio_t;
typedef perf__claimrec record_t;

/* The GPU watch's members of a workload, when it was watched. */
#define watch_MAP(s, X)                                          \
  X(HOOK)(s, clocks, "sm_clock_mhz")                             \
  X(LONG)(s, throttled_discarded, "throttled_discarded")         \
  X(LONG)(s, throttled_kept, "throttled_kept")                   \
  X(TEXT)(s, throttle_reasons, "throttle_reasons")
static int watched(const void *p) { return ((const workload_t *)p)->watched; }
static void mark_watched(void *p) { ((workload_t *)p)->watched = 1; }
PERF__FIELDS_TABLE(watch, workload_t, watched, mark_watched, 1)

/* What one iteration of a workload declared (its rates derived, not read)
 * and the peaks it is a share of, when it declared any. */
#define work_MAP(s, X)                                                  \
  X(NUM)(s, work.bytes_read, "bytes_read")                              \
  X(NUM)(s, work.bytes_written, "bytes_written")                        \
  X(NUM)(s, work.flops, "flops")                                        \
  X(HOOK)(s, flop_type, "flop_type")                                    \
  X(HOOK)(s, rates, "bytes_per_s")                                      \
  X(KNOWN)(s, spec_dram, "spec_dram_bytes_per_s")                       \
  X(KNOWN)(s, spec_math, "spec_math_per_s")                             \
  X(KNOWN)(s, spec_link, "spec_link_bytes_per_s")                       \
  X(OTEXT)(s, spec_math_basis, "spec_math_basis")                       \
  X(OTEXT)(s, spec_link_basis, "spec_link_basis")                       \
  X(KNOWN)(s, measured_dram, "measured_dram_bytes_per_s")               \
  X(KNOWN)(s, measured_math, "measured_math_per_s")                     \
  X(KNOWN)(s, measured_link, "measured_link_bytes_per_s")               \
  X(OTEXT)(s, measured_from, "measured_from")
static int declared(const void *p) { return perf__peaks_declared(&((const workload_t *)p)->work); }
PERF__FIELDS_TABLE(work, workload_t, declared, NULL, 0)

/* One workload of a ratio measurement. */
#define workload_MAP(s, X)                                        \
  X(TEXT)(s, name, "name")                                        \
  X(NUM)(s, median_s, "median_s")                                 \
  X(PAIR)(s, median_interval_s, "median_interval_s")              \
  X(NUM)(s, median_confidence, "median_confidence")               \
  X(NUM)(s, mad_s, "mad_s")                                       \
  X(NUM)(s, cold_start_s, "cold_start_s")                         \
  X(LONG)(s, iterations_per_sample, "iterations_per_sample")      \
  X(HOOK)(s, samples, "samples_s")                                \
  X(TEXT)(s, waits_for, "waits_for")                              \
  X(BOOL)(s, gpu_work_checked, "gpu_work_checked")                \
  X(BOOL)(s, undeclared_streams, "undeclared_streams")            \
  X(TEXT)(s, gpu_work, "gpu_work")                                \
  X(HERE)(s, watch, "sm_clock_mhz")                                \
  X(HERE)(s, work, "work")                                         \
  X(HOOK)(s, trace, "trace")
PERF__FIELDS_TABLE(workload, workload_t, NULL, NULL, 0)

/* The sweep point, when the claim was made in a sweep. */
#define sweep_MAP(s, X)           \
  X(TEXT)(s, param, "param")      \
  X(LONG)(s, value, "value")      \
  X(SIZE)(s, point, "point")      \
  X(SIZE)(s, points, "points")
static int sweep_set(const void *p) { return ((const sweep_t *)p)->set; }
static void mark_sweep(void *p) { ((sweep_t *)p)->set = 1; }
PERF__FIELDS_TABLE(sweep, sweep_t, sweep_set, mark_sweep, 0)

/* The disturbances, when there were any. */
#define noise_MAP(s, X)                        \
  X(COUNT)(s, host_retaken, "host_retaken")    \
  X(COUNT)(s, host_kept, "host_kept")          \
  X(COUNT)(s, gpu_retaken, "gpu_retaken")      \
  X(COUNT)(s, gpu_kept, "gpu_kept")            \
  X(COUNT)(s, shared_rounds, "shared_rounds")  \
  X(BOOL)(s, early_look, "early_look")         \
  X(TEXT)(s, cause, "cause")
static int noise_set(const void *p) { return ((const noise_t *)p)->set; }
static void mark_noise(void *p) { ((noise_t *)p)->set = 1; }
PERF__FIELDS_TABLE(noise, noise_t, noise_set, mark_noise, 0)

/* A ratio measurement: the members of a FASTER, SIMILAR or speed-of-light
 * record and of each measured CROSSOVER point (kind: its own word, or the
 * record's). */
#define ratio_MAP(s, X)                                    \
  X(TEXT)(s, kind, "kind")                                 \
  X(TEXT)(s, clock, "clock")                               \
  X(NUM)(s, threshold, "threshold")                        \
  X(NUM)(s, ratio, "ratio")                                \
  X(PAIR)(s, interval, "interval")                         \
  X(NUM)(s, confidence, "confidence")                      \
  X(INT)(s, rounds, "rounds")                              \
  X(INT)(s, looks, "looks")                                \
  X(BOOL)(s, budget_stretched, "budget_stretched")         \
  X(NUM)(s, seconds, "seconds")                            \
  {PERF__FIELDS_OBJ, "a", offsetof(s, a), &workload_table, NULL},     \
  {PERF__FIELDS_OBJ, "b", offsetof(s, b), &workload_table, NULL},     \
  X(OBJ)(s, sweep, "sweep")                                \
  X(OBJ)(s, noise, "noise")                                \
  X(OTEXT)(s, why, "why")                                  \
  X(OTEXT)(s, timing, "timing")
PERF__FIELDS_TABLE(ratio, ratio_t, NULL, NULL, 0)

/* A CROSSOVER record's members after its kind. */
#define crossover_MAP(s, X)         \
  X(TEXT)(s, clock, "clock")        \
  X(TEXT)(s, param, "param")        \
  X(TEXT)(s, a_name, "a_name")      \
  X(TEXT)(s, b_name, "b_name")      \
  X(NUM)(s, tie, "tie")             \
  X(PAIR)(s, range, "range")        \
  X(PAIR)(s, bracket, "bracket")    \
  X(NUM)(s, estimate, "estimate")   \
  X(NUM)(s, seconds, "seconds")     \
  X(HOOK)(s, points, "points")
PERF__FIELDS_TABLE(crossover, record_t, NULL, NULL, 0)

/* A sync check's members after its kind. */
#define syncs_MAP(s, X)                      \
  X(TEXT)(s, got, "got")                     \
  X(INT)(s, wanted, "wanted")                \
  X(BOOL)(s, at_least, "at_least")           \
  X(INT)(s, iterations, "iterations")        \
  X(NUM)(s, pass_s, "pass_s")                \
  X(NUM)(s, cupti_s, "cupti_s")              \
  X(OTEXT)(s, cannot, "cannot")
PERF__FIELDS_TABLE(syncs, perf__claimrec_syncs, NULL, NULL, 0)

/* A SAME_WORK count's members after its kind. */
#define count_MAP(s, X)                             \
  X(BOOL)(s, recorded, "recorded")                  \
  X(NUM)(s, insts, "insts")                         \
  X(NUM)(s, dram_read, "dram_read")                 \
  X(NUM)(s, was_insts, "was_insts")                 \
  X(NUM)(s, was_dram_read, "was_dram_read")         \
  X(NUM)(s, tolerance, "tolerance")                 \
  X(OTEXT)(s, was_recorded, "was_recorded")         \
  X(INT)(s, passes, "passes")                       \
  X(NUM)(s, count_s, "count_s")                     \
  X(NUM)(s, setup_s, "setup_s")
PERF__FIELDS_TABLE(count, perf__claimrec_count, NULL, NULL, 0)

/* A BASELINE record's members after its kind, by its form: what was
 * measured (not on a shared GPU), the check against the entry (not an
 * update's), the update's SM clock; a shared GPU's when and who. */
typedef perf__claimrec_baseline baseline_t;
#define bmeasured_MAP(s, X)               \
  X(NUM)(s, now_s, "now_s")               \
  X(OTEXT)(s, timing, "timing")           \
  X(LONG)(s, samples, "samples")          \
  X(OTEXT)(s, notes, "notes")
static int measured_form(const void *p) { return !((const baseline_t *)p)->shared; }
PERF__FIELDS_TABLE(bmeasured, baseline_t, measured_form, NULL, 1)

/* The check against the entry (not an update's). */
#define bcheck_MAP(s, X)                  \
  X(NUM)(s, was_s, "was_s")               \
  X(NUM)(s, change, "change")             \
  X(NUM)(s, noise, "noise")               \
  X(NUM)(s, between, "between")           \
  X(INT)(s, runs, "runs")                 \
  X(NUM)(s, tolerance, "tolerance")       \
  X(LONG)(s, was_samples, "was_samples")  \
  X(BOOL)(s, beyond, "beyond")            \
  X(OTEXT)(s, why, "why")
/* A check: neither an update nor a shared GPU. */
static int check_form(const void *p)
{
  const baseline_t *b = p;
  return !b->recorded && !b->shared;
}
PERF__FIELDS_TABLE(bcheck, baseline_t, check_form, NULL, 1)

/* An update's SM clock. */
#define bupdate_MAP(s, X) X(INT)(s, sm_mhz, "sm_mhz")
static int update_form(const void *p) { return ((const baseline_t *)p)->recorded; }
PERF__FIELDS_TABLE(bupdate, baseline_t, update_form, NULL, 1)

/* The record's members, its forms' groups among them. */
#define baseline_MAP(s, X)                \
  X(BOOL)(s, recorded, "recorded")        \
  X(HERE)(s, bmeasured, "now_s")          \
  X(HERE)(s, bcheck, "was_s")             \
  X(HERE)(s, bupdate, "sm_mhz")           \
  X(OTEXT)(s, shared, "shared")
PERF__FIELDS_TABLE(baseline, perf__claimrec_baseline, NULL, NULL, 0)

/* The record: its message and outcome, confirm before failing's members,
 * then the measurement its kind has. */
#define record_MAP(s, X)            \
  X(TEXT)(s, message, "message")    \
  X(HOOK)(s, outcome, "outcome")    \
  X(OTEXT)(s, id, "id")             \
  X(HOOK)(s, attempt, "attempt")    \
  X(HOOK)(s, measured, "kind")
PERF__FIELDS_TABLE(record, record_t, NULL, NULL, 0)

/* ---- the hooks --------------------------------------------------------------- */

/* A workload's samples, per iteration (NULL: NaN each). */
static void samples_write(perf__json *j, const void *p)
{
  const workload_t *w = p;
  perf__json_raw(j, ", \"samples_s\": [");
  for (size_t i = 0; i < w->nsamples; i++) {
    if (i) perf__json_raw(j, ", ");
    perf__json_num(j, w->samples_s ? w->samples_s[i] : NAN);
  }
  perf__json_raw(j, "]");
}
static int samples_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  workload_t *w = p;
  return perf__fields_nums(rd, o, "samples_s", &w->samples_s, &w->nsamples);
}
static int samples_copy(void *dst, const void *src)
{
  int e = 0;
  const workload_t *s = src;
  ((workload_t *)dst)->samples_s = perf__fields_dup_array(s->samples_s, s->nsamples, sizeof *s->samples_s, &e);
  return e;
}
static void samples_free(void *p) { free(((workload_t *)p)->samples_s), ((workload_t *)p)->samples_s = NULL; }
static const perf__fields_hook samples_hook = {samples_write, samples_read, samples_copy, samples_free};

/* The SM clock after each sample (null: unknown), one per sample. */
static void clocks_write(perf__json *j, const void *p)
{
  const workload_t *w = p;
  perf__json_raw(j, ", \"sm_clock_mhz\": [");
  for (size_t i = 0; i < w->nsamples; i++) {
    unsigned mhz = w->sm_clock_mhz ? w->sm_clock_mhz[i] : 0;
    perf__json_raw(j, i ? ", " : "");
    if (mhz) perf__json_raw(j, "%u", mhz);
    else perf__json_raw(j, "null");
  }
  perf__json_raw(j, "]");
}
static int clocks_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  workload_t *w = p;
  return get_mhz(rd, o, w->nsamples, &w->sm_clock_mhz);
}
static int clocks_copy(void *dst, const void *src)
{
  int e = 0;
  const workload_t *s = src;
  ((workload_t *)dst)->sm_clock_mhz =
      perf__fields_dup_array(s->sm_clock_mhz, s->nsamples, sizeof *s->sm_clock_mhz, &e);
  return e;
}
static void clocks_free(void *p) { free(((workload_t *)p)->sm_clock_mhz), ((workload_t *)p)->sm_clock_mhz = NULL; }
static const perf__fields_hook clocks_hook = {clocks_write, clocks_read, clocks_copy, clocks_free};

/* The declared work's flop type, as its word. */
static void flop_type_write(perf__json *j, const void *p)
{
  perf__fields_put_str(j, "flop_type", perf__peaks_type_word(((const workload_t *)p)->work.type));
}
static int flop_type_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  char *type = NULL;
  int e = perf__fields_str(rd, o, "flop_type", &type);
  if (!e && perf__peaks_type_of(type) == PERF_FLOP_TYPE_COUNT)
    e = perf__fields_bad(rd, "flop_type", "is not a flop type perfgate knows");
  if (!e) ((workload_t *)p)->work.type = perf__peaks_type_of(type);
  free(type);
  return e;
}
static const perf__fields_hook flop_type_hook = {flop_type_write, flop_type_read, NULL, NULL};

/* The rates of the declared work over the median: written, not read. */
static void rates_write(perf__json *j, const void *p)
{
  const workload_t *w = p;
  put_rate(j, "bytes_per_s", perf__peaks_bytes(&w->work), w);
  put_rate(j, "flops_per_s", w->work.flops, w);
}
static int rates_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  (void)rd, (void)o, (void)p;
  return 0;
}
static const perf__fields_hook rates_hook = {rates_write, rates_read, NULL, NULL};

/* What the GPU did in one iteration (baseline/trace.h), when a trace was
 * tried. */
static void trace_write(perf__json *j, const void *p)
{
  const workload_t *w = p;
  if (!w->trace.calls && !w->trace.why_not[0]) return;
  perf__json_raw(j, ", \"trace\": ");
  perf__trace_write(j, &w->trace);
}
static int trace_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  char why[160];
  const perf__jsontree_node *n = perf__jsontree_get(o, "trace");
  if (!n) return 0;
  int e = perf__trace_read(n, &((workload_t *)p)->trace, why, sizeof why);
  if (e == PERF__EPROTO) e = perf__fields_bad(rd, "trace", why);
  if (e == PERF__ENOMEM) e = perf__fields_no_memory(rd);
  return e;
}
static int trace_copy(void *dst, const void *src)
{
  return perf__trace_copy(&((workload_t *)dst)->trace, &((const workload_t *)src)->trace) ? -1 : 0;
}
static void trace_free(void *p) { perf__trace_free(&((workload_t *)p)->trace); }
static const perf__fields_hook trace_hook = {trace_write, trace_read, trace_copy, trace_free};

/* The ratio members of m after the record's own, its kind word when m has
 * none. Never fails (j->oom). */
static void put_ratio(perf__json *j, const ratio_t *m, const char *word)
{
  ratio_t named = *m; /* shallow: only kind is replaced */
  if (!named.kind) named.kind = (char *)word;
  perf__fields_put(j, &ratio_table, &named, 0);
}

/* A CROSSOVER record's points: each {"x", "side"} and, when measured, its
 * measurement members. */
static void points_write(perf__json *j, const void *p)
{
  const record_t *r = p;
  perf__json_raw(j, ", \"points\": [");
  for (size_t i = 0; i < r->npoints; i++) {
    const perf__claimrec_point *q = &r->points[i];
    perf__json_raw(j, "%s{\"x\": %.17g, \"side\": ", i ? ", " : "", q->x);
    perf__fields_put_text(j, q->side);
    if (q->measured) put_ratio(j, &q->m, "CROSSOVER_POINT");
    perf__json_raw(j, "}");
  }
  perf__json_raw(j, "]");
}

/* One crossover point (measured when it has a kind). Returns 0,
 * PERF__EPROTO or PERF__ENOMEM. */
static int read_point(perf__fields_reader *rd, const perf__jsontree_node *o, perf__claimrec_point *p)
{
  static const char *const point_kind[] = {"CROSSOVER_POINT"};
  if (o->type != PERF__J_OBJECT) return perf__fields_bad(rd, "", "is not an object");
  int e = perf__fields_num(rd, o, "x", &p->x);
  if (!e) e = perf__fields_str(rd, o, "side", &p->side);
  if (!e && !one_of(p->side, sides, 4)) e = perf__fields_bad(rd, "side", "is not a side a point can take");
  if (e || !perf__jsontree_get(o, "kind")) return e;
  p->measured = 1;
  e = perf__fields_get(rd, &ratio_table, o, &p->m);
  if (!e && !one_of(p->m.kind, point_kind, 1)) e = perf__fields_bad(rd, "kind", "is not CROSSOVER_POINT");
  return e;
}
static int points_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  record_t *r = p;
  const perf__jsontree_node *a;
  int e = perf__fields_member(rd, o, "points", PERF__J_ARRAY, &a);
  if (e) return e;
  r->points = a->n ? calloc(a->n, sizeof *r->points) : NULL;
  if (a->n && !r->points) return perf__fields_no_memory(rd);
  r->npoints = a->n;
  for (size_t i = 0; i < a->n && !e; i++) {
    char old[64], prefix[32];
    snprintf(prefix, sizeof prefix, "points[%zu].", i);
    perf__fields_enter(rd, prefix, old);
    e = read_point(rd, a->kids[i], &r->points[i]);
    perf__fields_leave(rd, old);
  }
  return e;
}
static int points_copy(void *dst, const void *src)
{
  record_t *d = dst;
  const record_t *s = src;
  int e = 0;
  d->points = perf__fields_dup_array(s->points, s->npoints, sizeof *s->points, &e);
  if (!d->points) {
    d->npoints = 0;
    return e;
  }
  for (size_t i = 0; i < s->npoints; i++) {
    e |= perf__fields_dup_str(&d->points[i].side, s->points[i].side);
    e |= perf__fields_copy(&ratio_table, &d->points[i].m, &s->points[i].m);
  }
  return e;
}
static void points_free(void *p)
{
  record_t *r = p;
  for (size_t i = 0; i < r->npoints; i++) {
    free(r->points[i].side);
    perf__fields_free(&ratio_table, &r->points[i].m);
  }
  free(r->points);
  r->points = NULL;
  r->npoints = 0;
}
static const perf__fields_hook points_hook = {points_write, points_read, points_copy, points_free};

/* The outcome, as its word. */
static void outcome_write(perf__json *j, const void *p)
{
  perf__json_raw(j, ", \"outcome\": \"%s\"", perf__status_word(((const record_t *)p)->outcome));
}
static int outcome_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  return read_outcome(rd, o, &((record_t *)p)->outcome);
}
static const perf__fields_hook outcome_hook = {outcome_write, outcome_read, NULL, NULL};

/* Confirm before failing's attempt (when > 0) and kept (when set). */
static void attempt_write(perf__json *j, const void *p)
{
  const record_t *r = p;
  if (r->attempt > 0) perf__json_raw(j, ", \"attempt\": %d", r->attempt);
  if (r->kept) perf__json_raw(j, ", \"kept\": true");
}
static int attempt_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  record_t *r = p;
  long attempt = 0;
  int e = perf__jsontree_get(o, "attempt") ? perf__fields_long(rd, o, "attempt", 1, 2, &attempt) : 0;
  if (!e && perf__jsontree_get(o, "kept")) e = perf__fields_bool(rd, o, "kept", &r->kept);
  r->attempt = (int)attempt;
  return e;
}
static const perf__fields_hook attempt_hook = {attempt_write, attempt_read, NULL, NULL};

/* The kinds whose members of their own follow their word: the member's
 * place in the record and its table (a ratio kind's and CROSSOVER's are
 * written by their own rows). */
static const struct own_row {
  perf__claimrec_kind kind;
  size_t off;
  const perf__fields_table *t;
} own[] = {
    {PERF__CLAIMREC_SYNCS, offsetof(record_t, syncs), &syncs_table},
    {PERF__CLAIMREC_SAME_WORK, offsetof(record_t, count), &count_table},
    {PERF__CLAIMREC_BASELINE, offsetof(record_t, baseline), &baseline_table},
};
enum { NOWN = sizeof own / sizeof own[0] };

/* The row of kind k's own members, or NULL. Never fails. */
static const struct own_row *own_of(perf__claimrec_kind k)
{
  for (size_t i = 0; i < NOWN; i++)
    if (own[i].kind == k) return &own[i];
  return NULL;
}

/* The measurement the record's kind has: a ratio's members, a
 * CROSSOVER's, a kind's own (own[]), or none (PLAIN). */
static void measured_write(perf__json *j, const void *p)
{
  const record_t *r = p;
  const struct own_row *o = own_of(r->kind);
  if (perf__claimrec_is_ratio(r->kind)) {
    put_ratio(j, &r->ratio, perf__claimrec_kind_word(r->kind));
  } else if (r->kind == PERF__CLAIMREC_CROSSOVER) {
    perf__fields_put_str(j, "kind", "CROSSOVER");
    perf__fields_put(j, &crossover_table, r, 0);
  } else if (perf__claimrec_kind_word(r->kind)) {
    perf__fields_put_str(j, "kind", perf__claimrec_kind_word(r->kind));
    if (o) perf__fields_put(j, o->t, (const char *)r + o->off, 0);
  }
}
static int measured_read(perf__fields_reader *rd, const perf__jsontree_node *o, void *p)
{
  record_t *r = p;
  int e = read_kind(rd, o, &r->kind);
  const struct own_row *w = own_of(r->kind);
  if (!e && perf__claimrec_is_ratio(r->kind)) return perf__fields_get(rd, &ratio_table, o, &r->ratio);
  if (!e && r->kind == PERF__CLAIMREC_CROSSOVER) return perf__fields_get(rd, &crossover_table, o, r);
  if (!e && w) return perf__fields_get(rd, w->t, o, (char *)r + w->off);
  return e;
}
static int measured_copy(void *dst, const void *src)
{
  record_t *d = dst;
  const record_t *s = src;
  int e = perf__fields_copy(&ratio_table, &d->ratio, &s->ratio);
  for (size_t i = 0; i < NOWN; i++)
    e |= perf__fields_copy(own[i].t, (char *)d + own[i].off, (const char *)s + own[i].off);
  return e | perf__fields_copy(&crossover_table, d, s);
}
static void measured_free(void *p)
{
  record_t *r = p;
  perf__fields_free(&ratio_table, &r->ratio);
  for (size_t i = 0; i < NOWN; i++) perf__fields_free(own[i].t, (char *)r + own[i].off);
  perf__fields_free(&crossover_table, r);
}
static const perf__fields_hook measured_hook = {measured_write, measured_read, measured_copy, measured_free};

/* ---- the record ----------------------------------------------------------- */

/* See claimrec.h. */
void perf__claimrec_write(perf__json *j, const perf__claimrec *r)
{
  perf__json_raw(j, "{");
  perf__fields_put(j, &record_table, r, 1);
  perf__json_raw(j, "}");
}

/* See claimrec.h. */
char *perf__claimrec_text(const perf__claimrec *r)
{
  perf__json j = {0};
  perf__claimrec_write(&j, r);
  if (j.oom) perf__json_free(&j);
  return j.s;
}

/* See claimrec.h. */
int perf__claimrec_read(const perf__jsontree_node *n, perf__claimrec *r, char *err, size_t len)
{
  perf__fields_reader rd = {.at = "", .err = err, .len = len};
  memset(r, 0, sizeof *r);
  int e = !n || n->type != PERF__J_OBJECT ? perf__fields_bad(&rd, "", "is not an object")
                                          : perf__fields_get(&rd, &record_table, n, r);
  if (e) perf__claimrec_free(r);
  return e;
}

/* See claimrec.h. */
int perf__claimrec_parse(const char *text, perf__claimrec *r, char *err, size_t len)
{
  memset(r, 0, sizeof *r);
  perf__jsontree_node *n = perf__jsontree_parse(text, "claim record", err, len);
  if (!n) return PERF__EPROTO;
  int e = perf__claimrec_read(n, r, err, len);
  perf__jsontree_free(n);
  return e;
}

/* See claimrec.h. */
int perf__claimrec_copy(perf__claimrec *dst, const perf__claimrec *src)
{
  *dst = *src;
  int e = perf__fields_copy(&record_table, dst, src);
  if (e) perf__claimrec_free(dst);
  return e ? PERF__ENOMEM : 0;
}

/* See claimrec.h. */
void perf__claimrec_free(perf__claimrec *r)
{
  perf__fields_free(&record_table, r);
  memset(r, 0, sizeof *r);
}

