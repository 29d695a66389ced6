/* claimrec.c — one claim's record: its JSON writer and reader (from a parsed tree), copy, free. */
#define _GNU_SOURCE
#include "record/claimrec.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
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

/* ---- writer ------------------------------------------------------------------ */

/* s (NULL: "") as a JSON string, with U+FFFD escaped: the worker's JSON
 * writer puts "\ufffd" for each invalid byte and reading that gives U+FFFD,
 * so a text read is written again as it was. Never fails (j->oom). */
static void put_text(perf__json *j, const char *s)
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
static void put_str(perf__json *j, const char *key, const char *s)
{
  perf__json_raw(j, ", \"%s\": ", key);
  put_text(j, s);
}

/* ", \"key\": " then v (null when not finite). Never fails (j->oom). */
static void put_num(perf__json *j, const char *key, double v)
{
  perf__json_raw(j, ", \"%s\": ", key);
  perf__json_num(j, v);
}

/* ", \"key\": [lo, hi]". Never fails (j->oom). */
static void put_pair(perf__json *j, const char *key, const double *v)
{
  perf__json_raw(j, ", \"%s\": [", key);
  perf__json_num(j, v[0]);
  perf__json_raw(j, ", ");
  perf__json_num(j, v[1]);
  perf__json_raw(j, "]");
}

/* A flag as JSON. Never fails. */
static const char *truth(int b) { return b ? "true" : "false"; }

/* The GPU watch's members: the SM clock after each sample (null: unknown),
 * the throttled samples discarded and kept, the reasons. Never fails. */
static void put_watch(perf__json *j, const perf__claimrec_workload *w)
{
  if (!w->watched) return;
  perf__json_raw(j, ", \"sm_clock_mhz\": [");
  for (size_t i = 0; i < w->nsamples; i++) {
    if (i) perf__json_raw(j, ", ");
    unsigned mhz = w->sm_clock_mhz ? w->sm_clock_mhz[i] : 0;
    if (mhz) perf__json_raw(j, "%u", mhz);
    else perf__json_raw(j, "null");
  }
  perf__json_raw(j, "], \"throttled_discarded\": %ld, \"throttled_kept\": %ld",
                 w->throttled_discarded, w->throttled_kept);
  put_str(j, "throttle_reasons", w->throttle_reasons);
}

/* Where the workload's GPU work went and what its clock waited for. Never
 * fails. */
static void put_route(perf__json *j, const perf__claimrec_workload *w)
{
  put_str(j, "waits_for", w->waits_for);
  perf__json_raw(j, ", \"gpu_work_checked\": %s, \"undeclared_streams\": %s",
                 truth(w->gpu_work_checked), truth(w->undeclared_streams));
  put_str(j, "gpu_work", w->gpu_work);
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

/* ", \"key\": v" when v > 0. Never fails (j->oom). */
static void put_known(perf__json *j, const char *key, double v)
{
  if (v > 0) put_num(j, key, v);
}

/* The declared work and its rates, when it declared any. Never fails
 * (j->oom). */
static void put_work(perf__json *j, const perf__claimrec_workload *w)
{
  const perf__peaks_work *k = &w->work;
  if (!perf__peaks_declared(k)) return;
  perf__json_raw(j, ", \"work\": {\"bytes_read\": ");
  perf__json_num(j, k->bytes_read);
  put_num(j, "bytes_written", k->bytes_written);
  put_num(j, "flops", k->flops);
  put_str(j, "flop_type", perf__peaks_type_word(k->type));
  put_rate(j, "bytes_per_s", perf__peaks_bytes(k), w);
  put_rate(j, "flops_per_s", k->flops, w);
  put_known(j, "spec_dram_bytes_per_s", w->spec_dram);
  put_known(j, "spec_math_per_s", w->spec_math);
  put_known(j, "spec_link_bytes_per_s", w->spec_link);
  if (w->spec_math_basis) put_str(j, "spec_math_basis", w->spec_math_basis);
  put_known(j, "measured_dram_bytes_per_s", w->measured_dram);
  put_known(j, "measured_math_per_s", w->measured_math);
  put_known(j, "measured_link_bytes_per_s", w->measured_link);
  if (w->measured_from) put_str(j, "measured_from", w->measured_from);
  perf__json_raw(j, "}");
}

/* One workload as a JSON object. Never fails (j->oom). */
static void put_workload(perf__json *j, const perf__claimrec_workload *w)
{
  perf__json_raw(j, "{\"name\": ");
  put_text(j, w->name);
  put_num(j, "median_s", w->median_s);
  put_pair(j, "median_interval_s", w->median_interval_s);
  put_num(j, "median_confidence", w->median_confidence);
  put_num(j, "mad_s", w->mad_s);
  put_num(j, "cold_start_s", w->cold_start_s);
  perf__json_raw(j, ", \"iterations_per_sample\": %ld, \"samples_s\": [",
                 w->iterations_per_sample);
  for (size_t i = 0; i < w->nsamples; i++) {
    if (i) perf__json_raw(j, ", ");
    perf__json_num(j, w->samples_s ? w->samples_s[i] : NAN);
  }
  perf__json_raw(j, "]");
  put_route(j, w);
  put_watch(j, w);
  put_work(j, w);
  if (w->trace.calls || w->trace.why_not[0]) {
    perf__json_raw(j, ", \"trace\": ");
    perf__trace_write(j, &w->trace);
  }
  perf__json_raw(j, "}");
}

/* The sweep point, when the claim was made in a sweep. Never fails. */
static void put_sweep(perf__json *j, const perf__claimrec_sweep *s)
{
  if (!s->set) return;
  perf__json_raw(j, ", \"sweep\": {\"param\": ");
  put_text(j, s->param);
  perf__json_raw(j, ", \"value\": %ld, \"point\": %zu, \"points\": %zu}", s->value, s->point,
                 s->points);
}

/* The disturbances, when there were any. Never fails (j->oom). */
static void put_noise(perf__json *j, const perf__claimrec_noise *n)
{
  if (!n->set) return;
  perf__json_raw(j, ", \"noise\": {\"host_retaken\": %ld, \"host_kept\": %ld, "
                 "\"gpu_retaken\": %ld, \"gpu_kept\": %ld, \"shared_rounds\": %ld, "
                 "\"early_look\": %s, \"cause\": ", n->host_retaken, n->host_kept,
                 n->gpu_retaken, n->gpu_kept, n->shared_rounds, truth(n->early_look));
  put_text(j, n->cause ? n->cause : "");
  perf__json_raw(j, "}");
}

/* The measurement members (from ", \"kind\"" on); kind is m->kind, or word
 * when that is unset. Never fails (j->oom). */
static void put_ratio(perf__json *j, const perf__claimrec_ratio *m, const char *word)
{
  put_str(j, "kind", m->kind ? m->kind : word);
  put_str(j, "clock", m->clock);
  put_num(j, "threshold", m->threshold);
  put_num(j, "ratio", m->ratio);
  put_pair(j, "interval", m->interval);
  put_num(j, "confidence", m->confidence);
  perf__json_raw(j, ", \"rounds\": %d, \"looks\": %d, \"budget_stretched\": %s", m->rounds,
                 m->looks, truth(m->budget_stretched));
  put_num(j, "seconds", m->seconds);
  perf__json_raw(j, ", \"a\": ");
  put_workload(j, &m->a);
  perf__json_raw(j, ", \"b\": ");
  put_workload(j, &m->b);
  put_sweep(j, &m->sweep);
  put_noise(j, &m->noise);
  if (m->why) put_str(j, "why", m->why);
  if (m->timing) put_str(j, "timing", m->timing);
}

/* One crossover point; its measurement members when it was measured. */
static void put_point(perf__json *j, const perf__claimrec_point *p)
{
  perf__json_raw(j, "{\"x\": %.17g, \"side\": ", p->x);
  put_text(j, p->side);
  if (p->measured) put_ratio(j, &p->m, "CROSSOVER_POINT");
  perf__json_raw(j, "}");
}

/* A CROSSOVER claim's members (from ", \"kind\"" on). Never fails. */
static void put_crossover(perf__json *j, const perf__claimrec *r)
{
  put_str(j, "kind", "CROSSOVER");
  put_str(j, "clock", r->clock);
  put_str(j, "param", r->param);
  put_str(j, "a_name", r->a_name);
  put_str(j, "b_name", r->b_name);
  put_num(j, "tie", r->tie);
  put_pair(j, "range", r->range);
  put_pair(j, "bracket", r->bracket);
  put_num(j, "estimate", r->estimate);
  put_num(j, "seconds", r->seconds);
  perf__json_raw(j, ", \"points\": [");
  for (size_t i = 0; i < r->npoints; i++) {
    if (i) perf__json_raw(j, ", ");
    put_point(j, &r->points[i]);
  }
  perf__json_raw(j, "]");
}

/* See claimrec.h. */
void perf__claimrec_write(perf__json *j, const perf__claimrec *r)
{
  perf__json_raw(j, "{\"message\": ");
  put_text(j, r->message);
  perf__json_raw(j, ", \"outcome\": \"%s\"", perf__status_word(r->outcome));
  if (r->id) put_str(j, "id", r->id);
  if (r->attempt > 0) perf__json_raw(j, ", \"attempt\": %d", r->attempt);
  if (r->kept) perf__json_raw(j, ", \"kept\": true");
  if (perf__claimrec_is_ratio(r->kind))
    put_ratio(j, &r->ratio, perf__claimrec_kind_word(r->kind));
  else if (r->kind == PERF__CLAIMREC_CROSSOVER)
    put_crossover(j, r);
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

/* ---- reader ------------------------------------------------------------------ */

/* Where a reader is: the path of the object it reads ("a.", "points[2].")
 * and where its first problem goes. */
typedef struct reader {
  char at[64];
  char *err;
  size_t len;
} reader;

/* Records a problem with member key; returns PERF__EPROTO. */
static int bad(reader *rd, const char *key, const char *what)
{
  int at = (int)strlen(rd->at);
  if (!*key && at && rd->at[at - 1] == '.') at--; /* "points[2]", not "points[2]." */
  snprintf(rd->err, rd->len, "claim record: '%.*s%s' %s", at, rd->at, key, what);
  return PERF__EPROTO;
}

/* Records running out of memory; returns PERF__ENOMEM. */
static int no_memory(reader *rd)
{
  snprintf(rd->err, rd->len, "claim record: out of memory");
  return PERF__ENOMEM;
}

/* Member key of obj, which must be of type t. Returns 0 with *out set,
 * PERF__EPROTO when it is absent or of another type. */
static int member(reader *rd, const perf__jsontree_node *obj, const char *key,
                  perf__jsontree_type t, const perf__jsontree_node **out)
{
  static const char *const want[] = {"is not an object", "is not an array", "is not a string",
                                     "is not a number or word"};
  *out = perf__jsontree_get(obj, key);
  if (!*out) return bad(rd, key, "is missing");
  return (*out)->type == t ? 0 : bad(rd, key, want[t]);
}

/* A string member, copied. Returns 0, PERF__EPROTO or PERF__ENOMEM. */
static int get_str(reader *rd, const perf__jsontree_node *obj, const char *key, char **out)
{
  const perf__jsontree_node *n;
  int e = member(rd, obj, key, PERF__J_STRING, &n);
  if (e) return e;
  *out = strdup(n->text);
  return *out ? 0 : no_memory(rd);
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
static int get_num(reader *rd, const perf__jsontree_node *obj, const char *key, double *out)
{
  const perf__jsontree_node *n = perf__jsontree_get(obj, key);
  if (!n) return bad(rd, key, "is missing");
  return as_num(n, out) ? bad(rd, key, "is not a number") : 0;
}

/* A scalar as a whole number in [lo, hi]. Returns 0, or -1 when it is not one. */
static int as_long(const perf__jsontree_node *n, long lo, long hi, long *out)
{
  char *end;
  if (n->type != PERF__J_PLAIN) return -1;
  errno = 0;
  *out = strtol(n->text, &end, 10);
  return *end || end == n->text || errno || *out < lo || *out > hi ? -1 : 0;
}

/* A whole-number member in [lo, hi]. Returns 0 or PERF__EPROTO. */
static int get_long(reader *rd, const perf__jsontree_node *obj, const char *key, long lo,
                    long hi, long *out)
{
  const perf__jsontree_node *n = perf__jsontree_get(obj, key);
  if (!n) return bad(rd, key, "is missing");
  return as_long(n, lo, hi, out) ? bad(rd, key, "is not a whole number in range") : 0;
}

/* An int member. Returns 0 or PERF__EPROTO. */
static int get_int(reader *rd, const perf__jsontree_node *obj, const char *key, int *out)
{
  long v;
  int e = get_long(rd, obj, key, INT_MIN, INT_MAX, &v);
  if (!e) *out = (int)v;
  return e;
}

/* A count member (size_t, not negative). Returns 0 or PERF__EPROTO. */
static int get_size(reader *rd, const perf__jsontree_node *obj, const char *key, size_t *out)
{
  long v;
  int e = get_long(rd, obj, key, 0, LONG_MAX, &v);
  if (!e) *out = (size_t)v;
  return e;
}

/* A true/false member. Returns 0 or PERF__EPROTO. */
static int get_bool(reader *rd, const perf__jsontree_node *obj, const char *key, int *out)
{
  const perf__jsontree_node *n = perf__jsontree_get(obj, key);
  if (!n) return bad(rd, key, "is missing");
  int t = n->type == PERF__J_PLAIN && !strcmp(n->text, "true");
  int f = n->type == PERF__J_PLAIN && !strcmp(n->text, "false");
  if (!t && !f) return bad(rd, key, "is not true or false");
  *out = t;
  return 0;
}

/* A member [lo, hi] of two numbers. Returns 0 or PERF__EPROTO. */
static int get_pair(reader *rd, const perf__jsontree_node *obj, const char *key, double *out)
{
  const perf__jsontree_node *n;
  int e = member(rd, obj, key, PERF__J_ARRAY, &n);
  if (e) return e;
  if (n->n != 2 || as_num(n->kids[0], &out[0]) || as_num(n->kids[1], &out[1]))
    return bad(rd, key, "is not a pair of numbers");
  return 0;
}

/* An array member of numbers, malloc'd (NULL when empty). Returns 0,
 * PERF__EPROTO or PERF__ENOMEM. */
static int get_nums(reader *rd, const perf__jsontree_node *obj, const char *key, double **out,
                    size_t *n)
{
  const perf__jsontree_node *a;
  int e = member(rd, obj, key, PERF__J_ARRAY, &a);
  if (e) return e;
  *out = a->n ? malloc(a->n * sizeof **out) : NULL;
  if (a->n && !*out) return no_memory(rd);
  *n = a->n;
  for (size_t i = 0; i < a->n; i++)
    if (as_num(a->kids[i], &(*out)[i])) return bad(rd, key, "is not an array of numbers");
  return 0;
}

/* The SM clocks (null: 0), n of them, malloc'd. Returns 0, PERF__EPROTO or
 * PERF__ENOMEM. */
static int get_mhz(reader *rd, const perf__jsontree_node *obj, size_t n, unsigned **out)
{
  const perf__jsontree_node *a;
  int e = member(rd, obj, "sm_clock_mhz", PERF__J_ARRAY, &a);
  if (e) return e;
  if (a->n != n) return bad(rd, "sm_clock_mhz", "does not have one clock per sample");
  *out = n ? calloc(n, sizeof **out) : NULL;
  if (n && !*out) return no_memory(rd);
  for (size_t i = 0; i < n; i++) {
    long v = 0;
    const perf__jsontree_node *k = a->kids[i];
    int null = k->type == PERF__J_PLAIN && !strcmp(k->text, "null");
    if (!null && (as_long(k, 1, UINT_MAX, &v)))
      return bad(rd, "sm_clock_mhz", "is not an array of clocks in MHz (or null)");
    (*out)[i] = (unsigned)v;
  }
  return 0;
}

/* The GPU watch's members, when the workload was watched. Returns 0,
 * PERF__EPROTO or PERF__ENOMEM. */
static int read_watch(reader *rd, const perf__jsontree_node *o, perf__claimrec_workload *w)
{
  if (!perf__jsontree_get(o, "sm_clock_mhz")) return 0;
  w->watched = 1;
  int e = get_mhz(rd, o, w->nsamples, &w->sm_clock_mhz);
  if (!e) e = get_long(rd, o, "throttled_discarded", LONG_MIN, LONG_MAX, &w->throttled_discarded);
  if (!e) e = get_long(rd, o, "throttled_kept", LONG_MIN, LONG_MAX, &w->throttled_kept);
  if (!e) e = get_str(rd, o, "throttle_reasons", &w->throttle_reasons);
  return e;
}

/* A number member that may be absent (then 0). Returns 0 or
 * PERF__EPROTO. */
static int get_optional(reader *rd, const perf__jsontree_node *obj, const char *key, double *out)
{
  *out = 0;
  return perf__jsontree_get(obj, key) ? get_num(rd, obj, key, out) : 0;
}

/* The declared work and its peaks, when there is any (its rates are
 * derived, not read). Returns 0, PERF__EPROTO or PERF__ENOMEM. */
static int read_work(reader *rd, const perf__jsontree_node *o, perf__claimrec_workload *w)
{
  const perf__jsontree_node *n;
  char *type = NULL;
  if (!perf__jsontree_get(o, "work")) return 0;
  int e = member(rd, o, "work", PERF__J_OBJECT, &n);
  if (!e) e = get_num(rd, n, "bytes_read", &w->work.bytes_read);
  if (!e) e = get_num(rd, n, "bytes_written", &w->work.bytes_written);
  if (!e) e = get_num(rd, n, "flops", &w->work.flops);
  if (!e) e = get_str(rd, n, "flop_type", &type);
  if (!e && perf__peaks_type_of(type) == PERF_FLOP_TYPE_COUNT)
    e = bad(rd, "work.flop_type", "is not a flop type perfgate knows");
  if (!e) w->work.type = perf__peaks_type_of(type);
  free(type);
  if (!e) e = get_optional(rd, n, "spec_dram_bytes_per_s", &w->spec_dram);
  if (!e) e = get_optional(rd, n, "spec_math_per_s", &w->spec_math);
  if (!e) e = get_optional(rd, n, "spec_link_bytes_per_s", &w->spec_link);
  if (!e && perf__jsontree_get(n, "spec_math_basis"))
    e = get_str(rd, n, "spec_math_basis", &w->spec_math_basis);
  if (!e) e = get_optional(rd, n, "measured_dram_bytes_per_s", &w->measured_dram);
  if (!e) e = get_optional(rd, n, "measured_math_per_s", &w->measured_math);
  if (!e) e = get_optional(rd, n, "measured_link_bytes_per_s", &w->measured_link);
  if (!e && perf__jsontree_get(n, "measured_from"))
    e = get_str(rd, n, "measured_from", &w->measured_from);
  return e;
}

/* Appends prefix to the reader's path (truncated when too long), returning
 * the old path in old[64]. Never fails. */
static void enter(reader *rd, const char *prefix, char *old)
{
  size_t used = strlen(rd->at), n = strlen(prefix);
  memcpy(old, rd->at, sizeof rd->at);
  if (n > sizeof rd->at - 1 - used) n = sizeof rd->at - 1 - used;
  memcpy(rd->at + used, prefix, n);
  rd->at[used + n] = '\0';
}

/* Workload member key of o. Returns 0, PERF__EPROTO or PERF__ENOMEM. */
static int read_workload(reader *rd, const perf__jsontree_node *o, const char *key,
                         perf__claimrec_workload *w)
{
  const perf__jsontree_node *n;
  char old[64], prefix[8];
  int e = member(rd, o, key, PERF__J_OBJECT, &n);
  if (e) return e;
  snprintf(prefix, sizeof prefix, "%s.", key);
  enter(rd, prefix, old);
  e = get_str(rd, n, "name", &w->name);
  if (!e) e = get_num(rd, n, "median_s", &w->median_s);
  if (!e) e = get_pair(rd, n, "median_interval_s", w->median_interval_s);
  if (!e) e = get_num(rd, n, "median_confidence", &w->median_confidence);
  if (!e) e = get_num(rd, n, "mad_s", &w->mad_s);
  if (!e) e = get_num(rd, n, "cold_start_s", &w->cold_start_s);
  if (!e) e = get_long(rd, n, "iterations_per_sample", LONG_MIN, LONG_MAX, &w->iterations_per_sample);
  if (!e) e = get_nums(rd, n, "samples_s", &w->samples_s, &w->nsamples);
  if (!e) e = get_str(rd, n, "waits_for", &w->waits_for);
  if (!e) e = get_bool(rd, n, "gpu_work_checked", &w->gpu_work_checked);
  if (!e) e = get_bool(rd, n, "undeclared_streams", &w->undeclared_streams);
  if (!e) e = get_str(rd, n, "gpu_work", &w->gpu_work);
  if (!e) e = read_watch(rd, n, w);
  if (!e) e = read_work(rd, n, w);
  if (!e && perf__jsontree_get(n, "trace")) {
    char why[160];
    e = perf__trace_read(perf__jsontree_get(n, "trace"), &w->trace, why, sizeof why);
    if (e == PERF__EPROTO) e = bad(rd, "trace", why);
    if (e == PERF__ENOMEM) e = no_memory(rd);
  }
  memcpy(rd->at, old, sizeof rd->at);
  return e;
}

/* The sweep point, when there is one. Returns 0, PERF__EPROTO or
 * PERF__ENOMEM. */
static int read_sweep(reader *rd, const perf__jsontree_node *o, perf__claimrec_sweep *s)
{
  const perf__jsontree_node *n;
  char old[64];
  if (!perf__jsontree_get(o, "sweep")) return 0;
  int e = member(rd, o, "sweep", PERF__J_OBJECT, &n);
  if (e) return e;
  s->set = 1;
  enter(rd, "sweep.", old);
  e = get_str(rd, n, "param", &s->param);
  if (!e) e = get_long(rd, n, "value", LONG_MIN, LONG_MAX, &s->value);
  if (!e) e = get_size(rd, n, "point", &s->point);
  if (!e) e = get_size(rd, n, "points", &s->points);
  memcpy(rd->at, old, sizeof rd->at);
  return e;
}

/* The disturbances, when the record has them. Returns 0, PERF__EPROTO or
 * PERF__ENOMEM. */
static int read_noise(reader *rd, const perf__jsontree_node *o, perf__claimrec_noise *s)
{
  const perf__jsontree_node *n;
  char old[64];
  if (!perf__jsontree_get(o, "noise")) return 0;
  int e = member(rd, o, "noise", PERF__J_OBJECT, &n);
  if (e) return e;
  s->set = 1;
  enter(rd, "noise.", old);
  e = get_long(rd, n, "host_retaken", 0, LONG_MAX, &s->host_retaken);
  if (!e) e = get_long(rd, n, "host_kept", 0, LONG_MAX, &s->host_kept);
  if (!e) e = get_long(rd, n, "gpu_retaken", 0, LONG_MAX, &s->gpu_retaken);
  if (!e) e = get_long(rd, n, "gpu_kept", 0, LONG_MAX, &s->gpu_kept);
  if (!e) e = get_long(rd, n, "shared_rounds", 0, LONG_MAX, &s->shared_rounds);
  if (!e) e = get_bool(rd, n, "early_look", &s->early_look);
  if (!e) e = get_str(rd, n, "cause", &s->cause);
  memcpy(rd->at, old, sizeof rd->at);
  return e;
}

/* The measurement members of o (its kind already checked). Returns 0,
 * PERF__EPROTO or PERF__ENOMEM. */
static int read_ratio(reader *rd, const perf__jsontree_node *o, perf__claimrec_ratio *m)
{
  int e = get_str(rd, o, "kind", &m->kind);
  if (!e) e = get_str(rd, o, "clock", &m->clock);
  if (!e) e = get_num(rd, o, "threshold", &m->threshold);
  if (!e) e = get_num(rd, o, "ratio", &m->ratio);
  if (!e) e = get_pair(rd, o, "interval", m->interval);
  if (!e) e = get_num(rd, o, "confidence", &m->confidence);
  if (!e) e = get_int(rd, o, "rounds", &m->rounds);
  if (!e) e = get_int(rd, o, "looks", &m->looks);
  if (!e) e = get_bool(rd, o, "budget_stretched", &m->budget_stretched);
  if (!e) e = get_num(rd, o, "seconds", &m->seconds);
  if (!e) e = read_workload(rd, o, "a", &m->a);
  if (!e) e = read_workload(rd, o, "b", &m->b);
  if (!e) e = read_sweep(rd, o, &m->sweep);
  if (!e) e = read_noise(rd, o, &m->noise);
  if (!e && perf__jsontree_get(o, "why")) e = get_str(rd, o, "why", &m->why);
  if (!e && perf__jsontree_get(o, "timing")) e = get_str(rd, o, "timing", &m->timing);
  return e;
}

/* 1 when s is one of the n words. */
static int one_of(const char *s, const char *const *words, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(s, words[i])) return 1;
  return 0;
}

/* One crossover point (measured when it has a kind). Returns 0,
 * PERF__EPROTO or PERF__ENOMEM. */
static int read_point(reader *rd, const perf__jsontree_node *o, perf__claimrec_point *p)
{
  static const char *const point_kind[] = {"CROSSOVER_POINT"};
  if (o->type != PERF__J_OBJECT) return bad(rd, "", "is not an object");
  int e = get_num(rd, o, "x", &p->x);
  if (!e) e = get_str(rd, o, "side", &p->side);
  if (!e && !one_of(p->side, sides, 4)) e = bad(rd, "side", "is not a side a point can take");
  if (e || !perf__jsontree_get(o, "kind")) return e;
  p->measured = 1;
  e = read_ratio(rd, o, &p->m);
  if (!e && !one_of(p->m.kind, point_kind, 1)) e = bad(rd, "kind", "is not CROSSOVER_POINT");
  return e;
}

/* The points of a CROSSOVER record. Returns 0, PERF__EPROTO or
 * PERF__ENOMEM. */
static int read_points(reader *rd, const perf__jsontree_node *o, perf__claimrec *r)
{
  const perf__jsontree_node *a;
  int e = member(rd, o, "points", PERF__J_ARRAY, &a);
  if (e) return e;
  r->points = a->n ? calloc(a->n, sizeof *r->points) : NULL;
  if (a->n && !r->points) return no_memory(rd);
  r->npoints = a->n;
  for (size_t i = 0; i < a->n && !e; i++) {
    char old[64], prefix[32];
    snprintf(prefix, sizeof prefix, "points[%zu].", i);
    enter(rd, prefix, old);
    e = read_point(rd, a->kids[i], &r->points[i]);
    memcpy(rd->at, old, sizeof rd->at);
  }
  return e;
}

/* A CROSSOVER record's members. Returns 0, PERF__EPROTO or PERF__ENOMEM. */
static int read_crossover(reader *rd, const perf__jsontree_node *o, perf__claimrec *r)
{
  int e = get_str(rd, o, "clock", &r->clock);
  if (!e) e = get_str(rd, o, "param", &r->param);
  if (!e) e = get_str(rd, o, "a_name", &r->a_name);
  if (!e) e = get_str(rd, o, "b_name", &r->b_name);
  if (!e) e = get_num(rd, o, "tie", &r->tie);
  if (!e) e = get_pair(rd, o, "range", r->range);
  if (!e) e = get_pair(rd, o, "bracket", r->bracket);
  if (!e) e = get_num(rd, o, "estimate", &r->estimate);
  if (!e) e = get_num(rd, o, "seconds", &r->seconds);
  if (!e) e = read_points(rd, o, r);
  return e;
}

/* The outcome named by member "outcome". Returns 0 or PERF__EPROTO. */
static int read_outcome(reader *rd, const perf__jsontree_node *o, perf_outcome *out)
{
  const perf__jsontree_node *n;
  int e = member(rd, o, "outcome", PERF__J_STRING, &n);
  if (e) return e;
  for (int k = 0; k < PERF_OUTCOME_COUNT; k++)
    if (!strcmp(n->text, perf__status_word((perf_outcome)k))) return *out = (perf_outcome)k, 0;
  return bad(rd, "outcome", "is not an outcome (PASS, SKIP, INCONCLUSIVE, FAIL or ERROR)");
}

/* The kind named by member "kind" (PLAIN when there is none). Returns 0 or
 * PERF__EPROTO. */
static int read_kind(reader *rd, const perf__jsontree_node *o, perf__claimrec_kind *out)
{
  const perf__jsontree_node *n;
  *out = PERF__CLAIMREC_PLAIN;
  if (!perf__jsontree_get(o, "kind")) return 0;
  int e = member(rd, o, "kind", PERF__J_STRING, &n);
  if (e) return e;
  for (int k = 0; k < PERF__CLAIMREC_KIND_COUNT; k++) {
    const char *w = perf__claimrec_kind_word((perf__claimrec_kind)k);
    if (w && !strcmp(n->text, w)) return *out = (perf__claimrec_kind)k, 0;
  }
  return bad(rd, "kind", "is not a claim kind (FASTER, SIMILAR, CROSSOVER, BANDWIDTH, FLOPS or "
               "LINK_BANDWIDTH)");
}

/* The optional members of confirm before failing: id, attempt (1 or 2),
 * kept. Returns 0, PERF__EPROTO or PERF__ENOMEM. */
static int read_attempt(reader *rd, const perf__jsontree_node *n, perf__claimrec *r)
{
  long attempt = 0;
  int e = perf__jsontree_get(n, "id") ? get_str(rd, n, "id", &r->id) : 0;
  if (!e && perf__jsontree_get(n, "attempt")) e = get_long(rd, n, "attempt", 1, 2, &attempt);
  if (!e && perf__jsontree_get(n, "kept")) e = get_bool(rd, n, "kept", &r->kept);
  r->attempt = (int)attempt;
  return e;
}

/* The whole record into r (left partly filled on failure). Returns 0,
 * PERF__EPROTO or PERF__ENOMEM. */
static int read_record(reader *rd, const perf__jsontree_node *n, perf__claimrec *r)
{
  if (!n || n->type != PERF__J_OBJECT) return bad(rd, "", "is not an object");
  int e = get_str(rd, n, "message", &r->message);
  if (!e) e = read_outcome(rd, n, &r->outcome);
  if (!e) e = read_attempt(rd, n, r);
  if (!e) e = read_kind(rd, n, &r->kind);
  if (!e && perf__claimrec_is_ratio(r->kind))
    e = read_ratio(rd, n, &r->ratio);
  else if (!e && r->kind == PERF__CLAIMREC_CROSSOVER)
    e = read_crossover(rd, n, r);
  return e;
}

/* See claimrec.h. */
int perf__claimrec_read(const perf__jsontree_node *n, perf__claimrec *r, char *err, size_t len)
{
  reader rd = {.at = "", .err = err, .len = len};
  memset(r, 0, sizeof *r);
  int e = read_record(&rd, n, r);
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

/* ---- copy and free ----------------------------------------------------------- */

/* A copy of s (NULL stays NULL). Returns 0, or -1 without memory. */
static int dup_str(char **dst, const char *s)
{
  *dst = s ? strdup(s) : NULL;
  return s && !*dst ? -1 : 0;
}

/* A copy of n items of size each (NULL when none); *e set without memory. */
static void *dup_array(const void *src, size_t n, size_t size, int *e)
{
  void *p = n && src ? malloc(n * size) : NULL;
  if (p) memcpy(p, src, n * size);
  if (n && src && !p) *e = -1;
  return p;
}

/* Deep copy of a workload whose scalars are already in dst. Returns 0, or
 * -1 without memory (what was copied is freed by the caller). */
static int copy_workload(perf__claimrec_workload *dst, const perf__claimrec_workload *src)
{
  int e = dup_str(&dst->name, src->name);
  e |= dup_str(&dst->waits_for, src->waits_for);
  e |= dup_str(&dst->gpu_work, src->gpu_work);
  e |= dup_str(&dst->throttle_reasons, src->throttle_reasons);
  e |= dup_str(&dst->spec_math_basis, src->spec_math_basis);
  e |= dup_str(&dst->measured_from, src->measured_from);
  dst->samples_s = dup_array(src->samples_s, src->nsamples, sizeof *src->samples_s, &e);
  dst->sm_clock_mhz = dup_array(src->sm_clock_mhz, src->nsamples, sizeof *src->sm_clock_mhz, &e);
  if (perf__trace_copy(&dst->trace, &src->trace)) e = -1;
  return e;
}

/* Deep copy of a measurement whose scalars are already in dst. Returns 0,
 * or -1 without memory. */
static int copy_ratio(perf__claimrec_ratio *dst, const perf__claimrec_ratio *src)
{
  int e = dup_str(&dst->kind, src->kind);
  e |= dup_str(&dst->clock, src->clock);
  e |= dup_str(&dst->sweep.param, src->sweep.param);
  e |= dup_str(&dst->noise.cause, src->noise.cause);
  e |= dup_str(&dst->why, src->why);
  e |= dup_str(&dst->timing, src->timing);
  e |= copy_workload(&dst->a, &src->a);
  e |= copy_workload(&dst->b, &src->b);
  return e;
}

/* Deep copy of the points, whose scalars are already in dst. Returns 0, or
 * -1 without memory. */
static int copy_points(perf__claimrec *dst, const perf__claimrec *src)
{
  int e = 0;
  dst->points = dup_array(src->points, src->npoints, sizeof *src->points, &e);
  if (!dst->points) {
    dst->npoints = 0;
    return e;
  }
  for (size_t i = 0; i < src->npoints; i++) {
    e |= dup_str(&dst->points[i].side, src->points[i].side);
    e |= copy_ratio(&dst->points[i].m, &src->points[i].m);
  }
  return e;
}

/* See claimrec.h. */
int perf__claimrec_copy(perf__claimrec *dst, const perf__claimrec *src)
{
  *dst = *src;
  int e = dup_str(&dst->message, src->message);
  e |= dup_str(&dst->id, src->id);
  e |= copy_ratio(&dst->ratio, &src->ratio);
  e |= dup_str(&dst->clock, src->clock);
  e |= dup_str(&dst->param, src->param);
  e |= dup_str(&dst->a_name, src->a_name);
  e |= dup_str(&dst->b_name, src->b_name);
  e |= copy_points(dst, src);
  if (e) perf__claimrec_free(dst);
  return e ? PERF__ENOMEM : 0;
}

/* Frees what a workload owns. Never fails. */
static void free_workload(perf__claimrec_workload *w)
{
  free(w->name);
  free(w->samples_s);
  free(w->waits_for);
  free(w->gpu_work);
  free(w->sm_clock_mhz);
  free(w->throttle_reasons);
  free(w->spec_math_basis);
  free(w->measured_from);
  perf__trace_free(&w->trace);
}

/* Frees what a measurement owns. Never fails. */
static void free_ratio(perf__claimrec_ratio *m)
{
  free(m->kind);
  free(m->clock);
  free(m->sweep.param);
  free(m->noise.cause);
  free(m->why);
  free(m->timing);
  free_workload(&m->a);
  free_workload(&m->b);
}

/* See claimrec.h. */
void perf__claimrec_free(perf__claimrec *r)
{
  free(r->message);
  free(r->id);
  free_ratio(&r->ratio);
  free(r->clock);
  free(r->param);
  free(r->a_name);
  free(r->b_name);
  for (size_t i = 0; i < r->npoints; i++) {
    free(r->points[i].side);
    free_ratio(&r->points[i].m);
  }
  free(r->points);
  memset(r, 0, sizeof *r);
}
