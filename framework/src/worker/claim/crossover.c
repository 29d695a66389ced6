/* crossover.c — PERF_EXPECT_CROSSOVER: one comparison per sweep point, then where a overtakes b. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/crossover.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "host/clock.h"
#include "util/units.h"
#include "perfgate.h"
#include "record/verdictline.h"
#include "worker/claim/claim.h"
#include "worker/claim/throughput.h"
#include "worker/claim/compare.h"
#include "worker/context.h"
#include "worker/claim/sweep.h"
#include "worker/sample/workload.h"

enum { MAX_SITES = 16 };

/* One PERF_EXPECT_CROSSOVER of the running sweep and its points so far. */
typedef struct site {
  const char *file;
  int line;
  char head[300];
  char an[96], bn[96], var[64];
  double lo, hi, tie;
  int fatal, decided;
  int kept;                    /* it passed in a first attempt: said so at
                                  the sweep's end, no point measured */
  size_t overruled;            /* points left undecided by their own verdict (a
                                  co-tenant, the host): their interval had a
                                  side, or a co-tenant left them none */
  const char *overruled_why;   /* the first such point's cause */
  double seconds;
  char clock[16];
  perf__crossover_point pt[PERF__SWEEP_MAX];
  perf__claimrec_point *rec;   /* each point's record (PERF__SWEEP_MAX) */
  perf__crossover_decision d;  /* once decided */
  /* The point being measured: */
  perf_workload *a, *b;
  long value;
  size_t n, last;              /* points; sweep index of the last one */
} site;

static site sites[MAX_SITES];
static size_t nsites;

/* Never fails. */
static void reset(void)
{
  for (size_t s = 0; s < nsites; s++) {
    perf__claimrec r = {.points = sites[s].rec, .npoints = sites[s].rec ? sites[s].n : 0};
    perf__claimrec_free(&r);
  }
  memset(sites, 0, sizeof sites);
  nsites = 0;
}

static int by_x(const void *a, const void *b)
{
  double x = ((const perf__crossover_point *)a)->x, y = ((const perf__crossover_point *)b)->x;
  return (x > y) - (x < y);
}

/* Where the medians' ratio crosses 1 between p[i] and p[i+1] (log-log when
 * both x are positive, linear otherwise). */
static double interpolate(const perf__crossover_point *p, size_t i)
{
  double y0 = log(p[i].speedup), y1 = log(p[i + 1].speedup), f = y0 / (y0 - y1);
  if (p[i].x > 0 && p[i + 1].x > 0)
    return exp(log(p[i].x) + f * (log(p[i + 1].x) - log(p[i].x)));
  return p[i].x + f * (p[i + 1].x - p[i].x);
}

/* The first crossing of 1 by the medians' ratio at or after index from. */
static double estimate(const perf__crossover_point *p, size_t n, size_t from)
{
  for (size_t i = from; i + 1 < n; i++)
    if (p[i].speedup < 1 && p[i + 1].speedup >= 1 && p[i].speedup > 0) return interpolate(p, i);
  return NAN;
}

/* The first contrary point, as FAIL's reason; 0 when there is none. A point
 * where a is faster at lo or below puts the turn below lo; one where it is
 * slower at hi or above puts it above hi. */
static int contrary(const perf__crossover_point *p, size_t n, double lo, double hi, const char *an,
                    const char *var, perf__crossover_decision *d)
{
  for (size_t i = 0; i < n; i++) {
    if (p[i].side == PERF__SIDE_FASTER && p[i].x <= lo) {
      snprintf(d->why, sizeof d->why, "%s is already faster at %s=%.15g, so it turns below %.15g",
               an, var, p[i].x, lo);
      return 1;
    }
    if (p[i].side == PERF__SIDE_SLOWER && p[i].x >= hi) {
      snprintf(d->why, sizeof d->why, "%s is still slower at %s=%.15g, so it turns above %.15g",
               an, var, p[i].x, hi);
      return 1;
    }
    for (size_t j = i + 1; p[i].side == PERF__SIDE_FASTER && j < n; j++)
      if (p[j].side == PERF__SIDE_SLOWER) {
        snprintf(d->why, sizeof d->why,
                 "%s is faster at %s=%.15g but slower at %s=%.15g: it turns more than once", an,
                 var, p[i].x, var, p[j].x);
        return 1;
      }
  }
  return 0;
}

/* See crossover.h. */
void perf__crossover_decide(const perf__crossover_point *in, size_t n,
                            const perf__crossover_ask *q, perf__crossover_decision *d)
{
  double lo = q->lo, hi = q->hi;
  const char *an = q->an, *bn = q->bn, *var = q->var;
  perf__crossover_point p[PERF__SWEEP_MAX];
  if (n > PERF__SWEEP_MAX) n = PERF__SWEEP_MAX;
  memcpy(p, in, n * sizeof *p);
  qsort(p, n, sizeof *p, by_x);
  d->slow_max = d->fast_min = NAN;
  size_t last_slow = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i].side == PERF__SIDE_SLOWER) d->slow_max = p[i].x, last_slow = i;
    if (p[i].side == PERF__SIDE_FASTER && isnan(d->fast_min)) d->fast_min = p[i].x;
  }
  d->estimate = estimate(p, n, last_slow);
  if (contrary(p, n, lo, hi, an, var, d)) {
    d->verdict = PERF_OUTCOME_FAIL;
    return;
  }
  char from[80] = "", to[80] = "";
  if (!isnan(d->slow_max)) snprintf(from, sizeof from, "%s=%.15g", var, d->slow_max);
  if (!isnan(d->fast_min)) snprintf(to, sizeof to, "%s=%.15g", var, d->fast_min);
  if (!isnan(d->slow_max) && !isnan(d->fast_min) && d->slow_max >= lo && d->fast_min <= hi) {
    d->verdict = PERF_OUTCOME_PASS;
    snprintf(d->why, sizeof d->why,
             "%s is slower than %s up to %s and faster from %s: it turns inside [%.15g, %.15g]", an,
             bn, from, to, lo, hi);
    return;
  }
  d->verdict = PERF_OUTCOME_INCONCLUSIVE;
  char where[200];
  if (from[0] && to[0])
    snprintf(where, sizeof where, "between %s and %s", from, to);
  else if (from[0])
    snprintf(where, sizeof where, "after %s (no point shows it faster)", from);
  else if (to[0])
    snprintf(where, sizeof where, "before %s (no point shows it slower)", to);
  else
    snprintf(where, sizeof where, "nowhere decided (no point shows it slower or faster)");
  snprintf(d->why, sizeof d->why,
           "%s turns %s, which [%.15g, %.15g] does not contain with confidence (tied points, "
           "and points whose interval straddles a margin, leave it open)", an, where, lo, hi);
}

/* The claim's record (claim.h): its points with their measurements, the
 * bracket and the estimate (it takes the points). Never fails (without
 * memory the record is short of strings). */
static void record(perf__claim *c, perf__claimrec *r)
{
  site *s = c->self;
  char id[400]; /* as perf__context_claim_open names it: one id for every point */
  snprintf(id, sizeof id, "%s:%d", s->file, s->line);
  r->id = strdup(id);
  r->clock = strdup(s->clock);
  r->param = strdup(s->var);
  r->a_name = strdup(s->an);
  r->b_name = strdup(s->bn);
  r->tie = s->tie;
  r->range[0] = s->lo, r->range[1] = s->hi;
  r->bracket[0] = s->d.slow_max, r->bracket[1] = s->d.fast_min;
  r->estimate = s->d.estimate;
  r->seconds = s->seconds;
  r->points = s->rec;
  r->npoints = s->n;
  s->rec = NULL;
}

/* Decides s from its points into s->d: the reason as c's detail, with the
 * points a disturbance left undecided. Returns the verdict. Never fails. */
static perf_outcome decide(perf__claim *c, site *s)
{
  perf__crossover_decision *d = &s->d;
  s->decided = 1;
  perf__crossover_decide(s->pt, s->n, &(perf__crossover_ask){s->lo, s->hi, s->an, s->bn, s->var},
                         d);
  size_t used = strlen(d->why);
  if (d->verdict == PERF_OUTCOME_INCONCLUSIVE && s->overruled && used < sizeof d->why)
    snprintf(d->why + used, sizeof d->why - used, "; %zu %s left undecided: %s", s->overruled,
             perf__units_noun((long long)s->overruled, "point", "points"),
             s->overruled_why ? s->overruled_why : "its measurement was disturbed");
  c->detail = d->why;
  return d->verdict;
}

/* The claim's measure at the sweep's end (claim.h): the points so far
 * decide it. */
static perf_outcome measure_end(perf__claim *c) { return decide(c, c->self); }

/* Its verdict line is rendered from its record (record/verdictline.h). */
static const perf__claim_kind end_kind = {.rec = PERF__CLAIMREC_CROSSOVER, .rendered = 1,
                                          .measure = measure_end, .record = record};

/* The claim of site s, its head and kind set. */
static perf__claim claim_of(site *s, const perf__claim_kind *k)
{
  perf__claim c = {.kind = k, .file = s->file, .line = s->line, .fatal = s->fatal, .once = 1,
                   .self = s};
  snprintf(c.head, sizeof c.head, "%s", s->head);
  return c;
}

/* The sweep passed its last point: decides every claim not decided at
 * that point (a `continue` skipped it there), and says those kept from a
 * first attempt, then forgets them all. Never fails itself; a fatal claim
 * may end the test (the release hook then forgets them). */
static void sweep_ended(void)
{
  for (size_t i = 0; i < nsites; i++) {
    site *s = &sites[i];
    if (s->decided) continue;
    if (s->kept) {
      s->decided = 1;
      (void)perf__context_claim_open(s->file, s->line, "", 1);
      perf__context_claim_kept(s->head);
    } else if (s->n) {
      perf__claim c = claim_of(s, &end_kind);
      (void)perf__claim_run(&c);
    }
  }
  reset();
}

/* The site of this call, created at its first point. Ends the test as ERROR
 * when there are too many or it runs twice at one point. */
static site *site_of(const char *file, int line, const char *head)
{
  size_t at = perf__sweep_index();
  for (size_t i = 0; i < nsites; i++) {
    site *s = &sites[i];
    if (s->line != line || strcmp(s->file, file)) continue;
    if (s->n && s->last == at)
      perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: runs twice at one sweep point", head);
    return s;
  }
  if (nsites == MAX_SITES)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: more than %d crossover claims in one sweep", head,
                   MAX_SITES);
  perf__sweep_on_end(sweep_ended);
  perf__context_on_release(reset);
  site *s = &sites[nsites];
  s->rec = calloc(PERF__SWEEP_MAX, sizeof *s->rec);
  if (!s->rec) perf__context_end(PERF_OUTCOME_FAIL, 0, "%s: out of memory", head);
  nsites++;
  s->file = file;
  s->line = line;
  snprintf(s->head, sizeof s->head, "%s", head);
  return s;
}

/* Misuse ends the test as ERROR. */
static void check_use(const char *head, long value, double lo, double hi, double tie,
                      const char *var)
{
  if (!(tie >= 0 && tie < 1))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: the tie margin must be in [0, 1) (0.05 = 5 %%)", head);
  if (!perf__sweep_active())
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: must be inside a PERF_SWEEP body", head);
  if (value != perf__sweep_value())
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: %s is %ld but the sweep's point is %s=%ld; pass the "
                   "sweep variable", head, var, value, perf__sweep_var(), perf__sweep_value());
  if (!(isfinite(lo) && isfinite(hi) && lo < hi))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: the range must be finite with lo < hi", head);
}

/* A point's line (at: the head with the point's tag), rendered from its
 * record p (record/verdictline.h), with each workload's throughput line;
 * the names, variable and clock kept in s for the claim's record. Never
 * fails. */
static void print_point(site *s, const char *at, const perf__claimrec_point *p)
{
  char line[4096];
  perf__context_line(PERF_LINE_DETAIL, "%s",
                     perf__verdictline_point(at, s->a->name, p, line, sizeof line));
  perf__throughput_print(&p->m.a, p->m.clock);
  perf__throughput_print(&p->m.b, p->m.clock);
  snprintf(s->an, sizeof s->an, "%s", s->a->name);
  snprintf(s->bn, sizeof s->bn, "%s", s->b->name);
  snprintf(s->var, sizeof s->var, "%s", perf__sweep_var());
  snprintf(s->clock, sizeof s->clock, "%s", perf__clock_name(s->a->perf__state->clock));
}

/* 1 at the sweep's last point. */
static int last_point(void) { return perf__sweep_index() + 1 >= perf__sweep_points(); }

/* The claim's measure at a point (claim.h): a against b there, its side
 * kept; at the sweep's last point the points decide it, before it the
 * claim is pending. */
static perf_outcome measure_point(perf__claim *c)
{
  site *s = c->self;
  perf_workload *a = s->a, *b = s->b;
  char at[360], tag[96];
  snprintf(at, sizeof at, "%s%s", s->head, perf__sweep_tag(tag, sizeof tag));
  perf__compare_ask ask = {{PERF__CLAIM_SIDE, s->tie}, "CROSSOVER_POINT",
                           perf__context_alpha_share() / (double)perf__sweep_points(), at};
  perf__compare_run(a, b, &ask, &c->m);
  perf__claim_feed_pair(c);
  perf__compare_result *m = &c->m;
  /* A point is decided only when its own verdict is: a co-tenant's rounds
   * or samples the host preempted on every retake leave it undecided,
   * whatever side the interval of its rounds shows; one a co-tenant left
   * with no interval at all names it too. */
  perf__verdict_side side = perf__verdict_side_of(s->tie, m->r.lo, m->r.hi);
  int shared = m->r.why && !strcmp(m->r.why, PERF__COMPARE_WHY_SHARED);
  if (m->r.verdict == PERF_OUTCOME_INCONCLUSIVE && (side != PERF__SIDE_UNDECIDED || shared)) {
    side = PERF__SIDE_UNDECIDED;
    if (!s->overruled++) s->overruled_why = m->r.why;
  }
  s->pt[s->n] = (perf__crossover_point){(double)s->value, side, m->r.ratio};
  s->rec[s->n] = (perf__claimrec_point){(double)s->value, strdup(perf__claimrec_side_word(side)),
                                        1, m->rec};
  m->rec = (perf__claimrec_ratio){0};
  print_point(s, at, &s->rec[s->n++]);
  s->last = perf__sweep_index();
  s->seconds += m->r.seconds;
  if (!last_point()) return c->pending = 1, PERF_OUTCOME_PASS;
  return decide(c, s);
}

/* Taken from a first attempt (claim.h): said at the last point, or at the
 * sweep's end when a `continue` skips it there. */
static int kept(perf__claim *c)
{
  site *s = c->self;
  s->kept = 1;
  if (!last_point()) return perf__context_claim_close(), 1;
  s->decided = 1;
  return perf__context_claim_kept(s->head);
}

static const perf__claim_kind point_kind = {.rec = PERF__CLAIMREC_CROSSOVER, .rendered = 1,
                                            .measure = measure_point, .record = record,
                                            .kept = kept};

/* Public: PERF_EXPECT_CROSSOVER / PERF_ASSERT_CROSSOVER. Returns 1 before
 * the sweep's last point, then whether the claim held. */
int perf__crossover(perf_workload *a, perf_workload *b, long value, perf__range range,
                    double tie, perf__names names, perf__site at)
{
  char head[300];
  snprintf(head, sizeof head, "CROSSOVER(%s, %s, %s, %.15g, %.15g) at %s:%d", names.a, names.b,
           names.c, range.lo, range.hi, at.file, at.line);
  check_use(head, value, range.lo, range.hi, tie, names.c);
  if (a == b) perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: compares a workload with itself", head);
  if (!a->name) a->name = names.a;
  if (!b->name) b->name = names.b;
  site *s = site_of(at.file, at.line, head);
  s->a = a, s->b = b, s->value = value;
  s->lo = range.lo, s->hi = range.hi, s->tie = tie;
  s->fatal = at.fatal;
  perf__claim c = claim_of(s, &point_kind);
  c.a = a, c.b = b;
  return perf__claim_run(&c);
}
