/* judge.c — one GPU's series at one commit: which moved beyond the noise of unchanged code. */
/* Each series against its band: moved for the worse or the better, moved no
 * more than unchanged code has, moved with the whole machine, or not
 * decidable yet. */
#include "history/judge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "stats/stats.h"
#include "util/status.h"

/* One group of series (kind and clock): its prior and its tails. */
typedef struct group {
  int is_claim, host;
  const char *clock;
  perf__band_prior prior;
  perf__band_tails tails;
} group;

/* 1 when x is of group g. */
static int of_group(const perf__judge_item *x, const group *g)
{
  return x->is_claim == g->is_claim && !strcmp(x->clock ? x->clock : "", g->clock);
}

/* Rule 2's tails of group g from its bands' left-out deviations (room
 * for n * PERF__BAND_WINDOW), a host clock's at most PERF__JUDGE_HOST_NU
 * degrees of freedom at the same spread. Never fails. */
static void tails_of(const perf__judge_item *it, size_t n, group *g, double *room)
{
  size_t nr = 0;
  for (size_t i = 0; i < n; i++)
    if (of_group(&it[i], g)) nr += perf__band_left_out(&it[i].band, &g->prior, room + nr);
  perf__band_tails_of(room, nr, &g->tails);
  double nu = g->tails.nu, cap = PERF__JUDGE_HOST_NU;
  if (!g->host || nu <= cap) return;
  double sd = isinf(nu) ? g->tails.scale : g->tails.scale * sqrt(nu / (nu - 2));
  g->tails = (perf__band_tails){cap, sd * sqrt((cap - 2) / cap)};
}

/* The groups of it[0..n) into g (room for n), their priors from the bands
 * (room: n bands) and their tails (rooms: n * PERF__BAND_WINDOW values).
 * Returns how many. Never fails. */
static size_t groups_of(const perf__judge_item *it, size_t n, group *g, perf__band *room,
                        double *devs)
{
  size_t ng = 0;
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < ng && !of_group(&it[i], &g[k])) k++;
    if (k == ng)
      g[ng++] = (group){it[i].is_claim, it[i].host, it[i].clock ? it[i].clock : "", {0, 0, 0, 0}, {0, 0}};
  }
  for (size_t k = 0; k < ng; k++) {
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
      if (of_group(&it[i], &g[k])) room[nb++] = it[i].band;
    perf__band_prior_of(room, nb, !g[k].is_claim, &g[k].prior);
    tails_of(it, n, &g[k], devs);
  }
  return ng;
}

/* See judge.h. */
int perf__judge_is_worse(perf__judge_worse w, double was, double now)
{
  return w == PERF__JUDGE_HIGHER ? now > was
         : w == PERF__JUDGE_LOWER ? now < was
                                  : fabs(log(now)) > fabs(log(was));
}

/* x's group among g[0..ng) (the last when none: never, as groups_of made
 * one for each item). Never fails. */
static const group *group_of(const perf__judge_item *x, const group *g, size_t ng)
{
  size_t at = 0;
  while (at + 1 < ng && !of_group(x, &g[at])) at++;
  return &g[at];
}

/* Rules 1 and 2 for x (decided) at value y, m decided in all: its fall, p
 * and class. Never fails. */
static void judge_one(perf__judge_item *x, const group *g, double y, size_t m)
{
  perf__band_fall_of(&x->band, &g->prior, y, &x->fall);
  double one = x->fall.t > 0 ? x->fall.p_up : x->fall.p_down;
  double two = x->worse == PERF__JUDGE_FARTHER ? 2 : 1;
  x->p = fmin(1, two * one);
  x->tail_p = fmax(x->p, fmin(1, two * perf__band_tail_p(&g->tails, x->fall.t)));
  x->tail_nu = g->tails.nu;
  if (!(x->p <= PERF__JUDGE_ALPHA / (double)m) || !(fabs(x->fall.rel) >= PERF__JUDGE_MIN_CHANGE))
    x->cls = PERF__JUDGE_WITHIN;
  else if (!(x->tail_p <= PERF__JUDGE_ALPHA / (double)m))
    x->cls = PERF__JUDGE_TAIL;
  else
    x->cls = perf__judge_is_worse(x->worse, exp(x->band.mean), y) ? PERF__JUDGE_WORSE : PERF__JUDGE_BETTER;
}

/* 1 when workload x votes for a machine's move up (slower; 0 down). */
static int votes(const perf__judge_item *x, int up)
{
  double p = up ? x->fall.p_up : x->fall.p_down;
  return !x->is_claim && x->cls != PERF__JUDGE_SHORT && p <= PERF__JUDGE_VOTE_P &&
         fabs(x->fall.rel) >= PERF__JUDGE_MIN_CHANGE;
}

/* Rule 3: the machine's move (m->moved 0: none); each workload that
 * moved its way judged again without it. room holds n values. Never
 * fails. */
static void machine(perf__judge_item *it, size_t n, const group *g, size_t ng, size_t k,
                    perf__judge_machine *m, double *room)
{
  size_t of = 0, up = 0, down = 0;
  for (size_t i = 0; i < n; i++) {
    of += !it[i].is_claim && it[i].cls != PERF__JUDGE_SHORT;
    up += votes(&it[i], 1);
    down += votes(&it[i], 0);
  }
  *m = (perf__judge_machine){.up = up >= down, .of = of};
  size_t nv = up >= down ? up : down, j = 0;
  if (nv < PERF__JUDGE_SHIFT_MIN || 2 * nv < of) return;
  m->moved = nv, m->smallest = INFINITY, m->largest = -INFINITY;
  for (size_t i = 0; i < n; i++)
    if (votes(&it[i], m->up)) {
      room[j++] = log1p(it[i].fall.rel);
      m->smallest = fmin(m->smallest, it[i].fall.rel), m->largest = fmax(m->largest, it[i].fall.rel);
    }
  double shift = perf__stats_median(room, j);
  m->size = expm1(shift);
  for (size_t i = 0; i < n; i++) {
    perf__judge_item *x = &it[i];
    if (x->is_claim || !perf__judge_moved(x->cls) || (x->fall.t > 0) != m->up) continue;
    double rel = x->fall.rel;
    if (fabs(log1p(rel)) > 2 * fabs(shift)) judge_one(x, group_of(x, g, ng), x->y / exp(shift), k);
    if (fabs(log1p(rel)) <= 2 * fabs(shift) || !perf__judge_moved(x->cls)) x->cls = PERF__JUDGE_MACHINE;
    x->fall.rel = rel; /* the move the report shows is the whole one */
  }
}

/* See judge.h. */
int perf__judge_moved(perf__judge_class c)
{
  return c == PERF__JUDGE_WORSE || c == PERF__JUDGE_BETTER || c == PERF__JUDGE_TAIL;
}

/* See judge.h. */
int perf__judge_commit(perf__judge_item *it, size_t n, perf__judge_machine *m, size_t *decided)
{
  perf__band *room = malloc((n + 1) * sizeof *room);
  group *g = malloc((n + 1) * sizeof *g);
  double *vals = malloc((n + 1) * PERF__BAND_WINDOW * sizeof *vals);
  if (!room || !g || !vals) return free(room), free(g), free(vals), PERF__ENOMEM;
  size_t ng = groups_of(it, n, g, room, vals), k = 0;
  for (size_t i = 0; i < n; i++) k += it[i].band.n >= PERF__BAND_MIN_COMMITS;
  for (size_t i = 0; i < n; i++) {
    it[i].cls = PERF__JUDGE_SHORT;
    it[i].p = it[i].tail_p = NAN;
    if (it[i].band.n >= PERF__BAND_MIN_COMMITS) judge_one(&it[i], group_of(&it[i], g, ng), it[i].y, k);
  }
  machine(it, n, g, ng, k, m, vals);
  *decided = k;
  free(room);
  free(g);
  free(vals);
  return 0;
}

/* See judge.h. */
perf__judge_worse perf__judge_worse_of(int is_claim, const char *kind)
{
  if (!is_claim) return PERF__JUDGE_HIGHER;
  for (int k = 0; kind && k < PERF__CLAIMREC_KIND_COUNT; k++) {
    const char *word = perf__claimrec_kind_word((perf__claimrec_kind)k);
    if (word && !strcmp(word, kind) && perf__claimrec_is_ratio((perf__claimrec_kind)k))
      return perf__claimrec_at_least(kind) ? PERF__JUDGE_LOWER : PERF__JUDGE_FARTHER;
  }
  return PERF__JUDGE_LOWER;
}
