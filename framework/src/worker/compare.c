/* compare.c — the FASTER and SIMILAR claims: prepare both workloads, sample ABBA rounds, decide, report. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/units.h"
#include "worker/gpu.h"
#include "base/json.h"
#include "worker/gpuwatch.h"
#include "worker/nvtx.h"
#include "perfgate.h"
#include "worker/baselinecheck.h"
#include "worker/verdict.h"
#include "base/status.h"
#include "worker/sweep.h"
#include "worker/syncdetect.h"
#include "worker/test.h"
#include "worker/compare.h"
#include "worker/workload.h"

/* Every sample of one workload, per iteration, in the order taken. */
typedef struct samples {
  double *t;
  unsigned *mhz; /* SM clock after each sample (GPU watch); 0 unknown */
  size_t n, cap;
} samples;

typedef struct pair {
  perf_workload *a, *b;
  perf__rng order; /* picks ABBA or BAAB for each round */
  samples sa, sb;  /* for the claim's record (--json) */
  samples rounds_a, rounds_b; /* each round's value (the medians' data) */
  perf__retake ra, rb; /* each workload's retake counts before the claim */
  int err;
  char why[400];
} pair;

/* Never fails: without memory the sample is not kept (the record is then
 * short of it, the verdict is not affected). */
static void keep(samples *s, double t, unsigned mhz)
{
  if (s->n == s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    double *p = realloc(s->t, cap * sizeof *p);
    if (p) s->t = p;
    unsigned *m = p ? realloc(s->mhz, cap * sizeof *m) : NULL;
    if (m) s->mhz = m;
    if (!p || !m) return;
    s->cap = cap;
  }
  s->mhz[s->n] = mhz;
  s->t[s->n++] = t;
}

/* The claim being measured. Static, not on the stack: a CUDA error or a
 * fatal check inside a workload ends the test by longjmp, and
 * perf__compare_release must still find its samples to free them. */
static pair live;

static void free_samples(pair *p)
{
  samples *all[] = {&p->sa, &p->sb, &p->rounds_a, &p->rounds_b};
  for (int i = 0; i < 4; i++) {
    free(all[i]->t);
    free(all[i]->mhz);
    *all[i] = (samples){0};
  }
}

/* See verdict.h. */
void perf__compare_release(void)
{
  free_samples(&live);
  perf__verdict_release();
}

/* One round: ABBA or BAAB at random, so that interference with a period
 * cannot line up with one workload's positions; the outer two samples
 * belong to one workload, the inner two to the other, and each workload's
 * value is the mean of its two (linear drift cancels). Returns 0 or the
 * first sampling error (kept in p). */
static int abba(void *ctx, double *a, double *b)
{
  pair *p = ctx;
  int flip = perf__rng_below(&p->order, 2);
  perf_workload *outer = flip ? p->b : p->a, *inner = flip ? p->a : p->b;
  perf_workload *seq[4] = {outer, inner, inner, outer};
  double t[4];
  unsigned mhz[4];
  for (int i = 0; i < 4; i++) {
    p->err = perf__workload_sample(seq[i], &t[i], p->why, sizeof p->why);
    if (p->err) return p->err;
    mhz[i] = seq[i]->perf__state->last_mhz;
  }
  samples *so = flip ? &p->sb : &p->sa, *si = flip ? &p->sa : &p->sb;
  keep(so, t[0], mhz[0]), keep(si, t[1], mhz[1]), keep(si, t[2], mhz[2]),
      keep(so, t[3], mhz[3]);
  double o = 0.5 * (t[0] + t[3]), in = 0.5 * (t[1] + t[2]);
  *a = flip ? in : o;
  *b = flip ? o : in;
  keep(&p->rounds_a, *a, 0);
  keep(&p->rounds_b, *b, 0);
  return 0;
}

/* The retake counts of both workloads (once when a == b). */
static perf__retake retakes(const perf_workload *a, const perf_workload *b)
{
  perf__retake r = a->perf__state->rt;
  if (a != b) {
    const perf__retake *o = &b->perf__state->rt;
    r.retaken += o->retaken;
    r.kept_disturbed += o->kept_disturbed;
    r.throttled_discarded += o->throttled_discarded;
    r.throttled_kept += o->throttled_kept;
  }
  return r;
}

/* What this claim's sampling discarded or kept despite a disturbance
 * (counts since `before`), as "; ..." text for the verdict line, or "". */
static void disturbances(const perf_workload *a, const perf_workload *b,
                         const perf__retake *before, char *buf, size_t len)
{
  perf__retake now = retakes(a, b);
  long re = now.retaken - before->retaken, kept = now.kept_disturbed - before->kept_disturbed;
  long td = now.throttled_discarded - before->throttled_discarded;
  long tk = now.throttled_kept - before->throttled_kept;
  size_t used = 0;
  buf[0] = '\0';
  if (re || kept)
    used += (size_t)snprintf(buf, len, "; %ld samples retaken and %ld kept although "
                             "the host preempted them", re, kept);
  if ((td || tk) && used < len) {
    char names[120];
    perf__gpuwatch_reason_names(a->perf__state->throttle_seen | b->perf__state->throttle_seen,
                            names, sizeof names);
    snprintf(buf + used, len - used, "; %ld samples discarded and %ld kept while "
             "the GPU was throttled (%s)", td, tk, names);
  }
}

static void trace(void *ctx, const perf__verdict_result *r)
{
  (void)ctx;
  perf__line(PERF__VERBOSE, "look %d at %d rounds: ratio %.4f, interval [%.4f, %.4f] -> %s",
             r->looks, r->rounds, r->ratio, r->lo, r->hi,
             r->verdict == PERF__INCONCLUSIVE ? "continue"
                                              : perf__status_word(r->verdict));
}

/* The claim's requirement, e.g. "needs >= 1.300x". */
static void requirement(const perf__claim *c, char *buf, size_t len)
{
  if (c->kind == PERF__CLAIM_FASTER)
    snprintf(buf, len, "needs >= %.3fx", c->threshold);
  else
    snprintf(buf, len, "needs within [%.3f, %.3f]", 1 / (1 + c->threshold),
             1 + c->threshold);
}

/* See verdict.h. */
void perf__compare_print(const char *head, const char *word, const char *need,
                          const char *ratio_name, const perf_workload *a,
                          const perf_workload *b, const perf__compared *m)
{
  const perf__verdict_result *r = &m->r;
  char ma[32], mb[32], how[400];
  perf__units_time(ma, sizeof ma, r->med_a);
  perf__units_time(mb, sizeof mb, r->med_b);
  perf__line(PERF__DETAIL,
             "%s: %s: %s %s vs %s %s per iteration (%s); "
             "%s %.3fx, %.2f%% CI [%.3f, %.3f], %s; %d ABBA rounds, %d "
             "look%s, %.2f s%s%s",
             head, word, a->name, ma, b->name, mb, perf__workload_clock_text(a, b, how, sizeof how),
             ratio_name, r->ratio, 100 * (1 - r->level), r->lo, r->hi, need, r->rounds,
             r->looks, r->looks == 1 ? "" : "s", r->seconds,
             r->stretched ? " (budget stretched: rounds too slow for the first look)" : "",
             m->disturbed);
}

/* The claim without its location: "FASTER(a, b, 2)". */
static const char *claim_text(const char *head)
{
  static char buf[300];
  snprintf(buf, sizeof buf, "%s", head);
  char *at = strstr(buf, " at ");
  if (at) *at = '\0';
  return buf;
}

/* The GPU watch's members: SM clock after each sample (null: unknown), the
 * throttled samples this claim discarded and kept (counts since `before`),
 * and the reasons seen in this test. */
static void watch_json(perf__json *j, const perf_workload *w, const samples *s,
                       const perf__retake *before)
{
  const perf__wstate *st = w->perf__state;
  char names[120];
  if (!st->watched) return;
  perf__json_raw(j, ", \"sm_clock_mhz\": [");
  for (size_t i = 0; i < s->n; i++) {
    if (i) perf__json_raw(j, ", ");
    if (s->mhz[i])
      perf__json_raw(j, "%u", s->mhz[i]);
    else
      perf__json_raw(j, "null");
  }
  perf__json_raw(j, "], \"throttled_discarded\": %ld, \"throttled_kept\": %ld, "
                 "\"throttle_reasons\": ",
                 st->rt.throttled_discarded - before->throttled_discarded,
                 st->rt.throttled_kept - before->throttled_kept);
  perf__json_str(j, perf__gpuwatch_reason_names(st->throttle_seen, names, sizeof names));
}

/* Where the workload's GPU work went and what its clock waited for. */
static void route_json(perf__json *j, const perf_workload *w)
{
  static const char *const waits[] = {"nothing", "stream", "device", "?"};
  const perf__routing *r = &w->perf__state->route;
  perf__json_raw(j, ", \"waits_for\": \"%s\", \"gpu_work_checked\": %s, "
                 "\"undeclared_streams\": %s, \"gpu_work\": ",
                 waits[r->route], r->checked ? "true" : "false",
                 r->undeclared ? "true" : "false");
  perf__json_str(j, !r->checked     ? r->why_not
                    : r->summary[0] ? r->summary
                                    : "none (no CUDA context in the process)");
}

static void workload_json(perf__json *j, const perf_workload *w, double med, double mad,
                          const double *ci, const samples *s, const perf__retake *before)
{
  perf__json_raw(j, "{\"name\": ");
  perf__json_str(j, w->name);
  perf__json_raw(j, ", \"median_s\": ");
  perf__json_num(j, med);
  perf__json_raw(j, ", \"median_interval_s\": [");
  perf__json_num(j, ci[0]);
  perf__json_raw(j, ", ");
  perf__json_num(j, ci[1]);
  perf__json_raw(j, "], \"median_confidence\": ");
  perf__json_num(j, 1 - PERF__MEDIAN_LEVEL);
  perf__json_raw(j, ", \"mad_s\": ");
  perf__json_num(j, mad);
  perf__json_raw(j, ", \"cold_start_s\": ");
  perf__json_num(j, w->perf__state->cold_s);
  perf__json_raw(j, ", \"iterations_per_sample\": %ld, \"samples_s\": [", w->perf__state->batch);
  for (size_t i = 0; i < s->n; i++) {
    if (i) perf__json_raw(j, ", ");
    perf__json_num(j, s->t[i]);
  }
  perf__json_raw(j, "]");
  route_json(j, w);
  watch_json(j, w, s, before);
  perf__json_raw(j, "}");
}

/* The measurement members of a claim's record: clock, both workloads with
 * every sample (seconds per iteration), the ratio and its interval; the
 * sweep point inside a sweep. NULL without memory. */
static char *measurement_json(const char *kind, const perf__claim *c, const pair *p,
                              const perf__compared *m)
{
  const perf__verdict_result *r = &m->r;
  perf__json j = {0};
  perf__json_raw(&j, ", \"kind\": \"%s\", \"clock\": \"%s\", \"threshold\": ", kind,
                 perf__clock_name(p->a->perf__state->clock));
  perf__json_num(&j, c->threshold);
  perf__json_raw(&j, ", \"ratio\": ");
  perf__json_num(&j, r->ratio);
  perf__json_raw(&j, ", \"interval\": [");
  perf__json_num(&j, r->lo);
  perf__json_raw(&j, ", ");
  perf__json_num(&j, r->hi);
  perf__json_raw(&j, "], \"confidence\": ");
  perf__json_num(&j, 1 - r->level);
  perf__json_raw(&j, ", \"rounds\": %d, \"looks\": %d, \"budget_stretched\": %s, "
                 "\"seconds\": ", r->rounds, r->looks, r->stretched ? "true" : "false");
  perf__json_num(&j, r->seconds);
  perf__json_raw(&j, ", \"a\": ");
  workload_json(&j, p->a, r->med_a, r->mad_a, m->a_ci, &p->sa, &p->ra);
  perf__json_raw(&j, ", \"b\": ");
  workload_json(&j, p->b, r->med_b, r->mad_b, m->b_ci, &p->sb, &p->rb);
  perf__sweep_json(&j);
  if (j.oom) perf__json_free(&j);
  return j.oom ? NULL : j.s;
}

/* A workload's median interval from its round values (whose median is the
 * reported one); NaN when there are none or no memory. */
static void median_interval(const samples *s, double *ci)
{
  ci[0] = ci[1] = NAN;
  if (s->n && perf__stats_median_ci(s->t, s->n, PERF__MEDIAN_LEVEL, &ci[0], &ci[1])) ci[0] = ci[1] = NAN;
}

/* Ends the test as ERROR when the two workloads cannot be compared. */
static void check_comparable(const char *head, const perf_workload *a,
                             const perf_workload *b)
{
  perf_clock ca = a->perf__state->clock, cb = b->perf__state->clock;
  if (ca != cb)
    perf__test_end(PERF__ERROR, 0,
                   "%s: cannot compare '%s' (%s clock) with '%s' (%s clock); "
                   "give both the same .clock",
                   head, a->name, perf__clock_name(ca), b->name,
                   perf__clock_name(cb));
}

/* See verdict.h. */
void perf__compare_run(perf_workload *a, perf_workload *b, perf__claim c, const char *kind,
                   double alpha_scale, const char *head, const char *an, const char *bn,
                   perf__compared *out)
{
  perf__verdict_cfg cfg;
  perf__verdict_defaults(&cfg);
  memset(out, 0, sizeof *out);
  if (perf__syncdetect_in_check())
    perf__test_end(PERF__ERROR, 0, "%s: timing inside a sync check (CUPTI is "
                   "attached there); move the claim out of PERF_NO_SYNC_IN",
                   head);
  if (!a->name) a->name = an;
  if (!b->name) b->name = bn;
  cfg.budget_s = perf__wopt.budget_s;
  cfg.alpha *= alpha_scale;
  /* Enough time per sample that max_rounds rounds fill the budget: the
   * bootstrap's cost stays bounded however long the budget is. */
  double min_sample = cfg.budget_s / (4.0 * cfg.max_rounds);
  double warm_cap = cfg.budget_s / 4;
  perf__nvtx_push("%s: warm-up %s", claim_text(head), a->name);
  perf__workload_prepare(a, min_sample, warm_cap);
  perf__nvtx_pop();
  if (b != a) {
    perf__nvtx_push("%s: warm-up %s", claim_text(head), b->name);
    perf__workload_prepare(b, min_sample, warm_cap);
    perf__nvtx_pop();
  }
  check_comparable(head, a, b);

  perf__rng rng;
  perf__rng_seed(&rng, perf__wopt.seed);
  free_samples(&live);
  pair *p = &live;
  *p = (pair){.a = a, .b = b, .ra = a->perf__state->rt, .rb = b->perf__state->rt};
  perf__rng_seed(&p->order, perf__wopt.seed + 1);
  perf__retake before = retakes(a, b);
  perf__verdict_result *r = &out->r;
  perf__nvtx_push("%s: %s vs %s", claim_text(head), a->name, b->name);
  int err = perf__verdict_run(&cfg, &c, abba, perf__wopt.verbose ? trace : NULL,
                          p, &rng, r);
  perf__nvtx_pop();
  if (err) {
    free_samples(p);
    if (p->err) perf__gpu_end(p->err, p->why);
    perf__test_end(PERF__FAIL, 0, "%s: statistics failed: %s", head, perf__status_strerror(err));
  }
  disturbances(a, b, &before, out->disturbed, sizeof out->disturbed);
  median_interval(&p->rounds_a, out->a_ci);
  median_interval(&p->rounds_b, out->b_ci);
  perf__baselinecheck_measured(a, r->med_a, r->mad_a, r->rounds);
  if (b != a) perf__baselinecheck_measured(b, r->med_b, r->mad_b, r->rounds);
  out->json = measurement_json(kind, &c, p, out);
  free_samples(p);
}

/* Runs one ratio claim; returns 1 when it held. Ends the test on a fatal
 * failure, a CUDA error, a missing device or misuse. */
static int run_claim(perf_workload *a, perf_workload *b, perf__claim c,
                     const char *head, const char *an, const char *bn,
                     int fatal)
{
  perf__compared m;
  const char *kind = c.kind == PERF__CLAIM_FASTER ? "FASTER" : "SIMILAR";
  perf__compare_run(a, b, c, kind, 1.0, head, an, bn, &m);
  char word[96], need[64];
  if (m.r.verdict == PERF__INCONCLUSIVE && m.r.why)
    snprintf(word, sizeof word, "%s (%s)", perf__status_word(m.r.verdict), m.r.why);
  else
    snprintf(word, sizeof word, "%s", perf__status_word(m.r.verdict));
  requirement(&c, need, sizeof need);
  perf__compare_print(head, word, need, c.kind == PERF__CLAIM_FASTER ? "speedup" : "ratio",
                       a, b, &m);
  char key[400], tag[96];
  snprintf(key, sizeof key, "%s%s", claim_text(head), perf__sweep_tag(tag, sizeof tag));
  perf__baselinecheck_ratio(a, key, m.r.ratio);
  if (m.json) perf__test_claim_data(m.json);
  free(m.json);
  perf__outcome v = m.r.verdict;
  perf__test_claim(v, "%s: %s", head, perf__status_word(v));
  if (v != PERF__PASS && fatal)
    perf__test_end(PERF__FAIL, 0, "%s: %s", head, perf__status_word(v));
  return v == PERF__PASS;
}

/* Public: PERF_EXPECT_FASTER / PERF_ASSERT_FASTER. */
int perf__faster(perf_workload *a, perf_workload *b, double factor,
                 const char *an, const char *bn, const char *file, int line,
                 int fatal)
{
  char head[300];
  char tag[96];
  snprintf(head, sizeof head, "FASTER(%s, %s, %g) at %s:%d%s", an, bn, factor,
           file, line, perf__sweep_tag(tag, sizeof tag));
  if (!(factor > 0 && isfinite(factor)))
    perf__test_end(PERF__ERROR, 0, "%s: the factor must be a positive number",
                   head);
  return run_claim(a, b, (perf__claim){PERF__CLAIM_FASTER, factor}, head, an,
                   bn, fatal);
}

/* Public: PERF_EXPECT_SIMILAR / PERF_ASSERT_SIMILAR. */
int perf__similar(perf_workload *a, perf_workload *b, double tolerance,
                  const char *an, const char *bn, const char *file, int line,
                  int fatal)
{
  char head[300];
  char tag[96];
  snprintf(head, sizeof head, "SIMILAR(%s, %s, %g) at %s:%d%s", an, bn,
           tolerance, file, line, perf__sweep_tag(tag, sizeof tag));
  if (!(tolerance > 0 && isfinite(tolerance)))
    perf__test_end(PERF__ERROR, 0,
                   "%s: the tolerance must be a positive number (0.05 = 5 %%)",
                   head);
  return run_claim(a, b, (perf__claim){PERF__CLAIM_SIMILAR, tolerance}, head,
                   an, bn, fatal);
}
