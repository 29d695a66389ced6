/* changepoint.c — where a series of measurements shifted: its change points. */
/* Every change (E-divisive candidates kept by a permutation or t-test
 * against their neighbouring segments, at least a minimum size), and the
 * newest commits' suspected one. */
#include "history/changepoint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/dist.h"
#include "stats/rng.h"
#include "util/status.h"

/* How far a candidate's test has gone. */
enum { STALE, SCREENED, DECIDED };

/* A candidate change point and the evidence for it in its window (from
 * the cut before it to the cut after it). */
typedef struct cut {
  size_t at;
  double p, size;
  int t_test, suspected;
  int state; /* STALE: to judge; SCREENED: 999 permutations, none as
                large (likely p <= p_max, not yet sure); DECIDED */
} cut;

/* A value and its place in a window, to rank the window by sorting. */
typedef struct placed {
  double v;
  size_t i;
} placed;

/* A window ranked for best_split, reused by every permutation of it: what
 * does not change when the values are reordered (each value's distances
 * to all the others, the sum of all distances, the weights of Q's terms
 * at each split) is computed once, and the ranks move with the values. */
typedef struct ranked {
  size_t *rank;   /* rank[i]: v[i]'s place in sorted order (ties apart) */
  double *spread; /* spread[r]: the sum of |x - y| of the value of rank r
                     to all the others */
  double total;   /* the sum of |v[i] - v[k]| over all pairs */
  double *w_before, *w_after; /* Q at a split after t values, times m/2: the
                     distances between the sides less within the first times
                     w_before[t], less within the second times w_after[t] */
  struct { double count, sum; } *tree; /* a Fenwick tree over ranks of the
                     values before the split: how many, their sum; m + 1 */
  placed *order;  /* sorting room */
} ranked;

/* One search: the series, its options and the cuts so far. */
typedef struct work {
  const double *x;
  size_t n;
  const perf__changepoint_opts *o;
  perf__rng rng;
  double *scratch; /* n values */
  ranked rk;       /* room for a window of up to n values */
  cut *c;          /* k cuts, in index order */
  size_t k;
} work;

/* Q from the three sums of distances of a split into a values before and
 * b after: between the sides, within the first, within the second. */
static double energy(double between, double within_a, double within_b, double a, double b)
{
  double e = 2 * between / (a * b) - within_a / (a * (a - 1) / 2) - within_b / (b * (b - 1) / 2);
  return a * b / (a + b) * e;
}

static int by_placed(const void *x, const void *y)
{
  const placed *a = x, *b = y;
  return a->v < b->v ? -1 : a->v > b->v ? 1 : (a->i > b->i) - (a->i < b->i);
}

/* Ranks v[0..m) into r (room for m values) and weighs its splits.
 * O(m log m). Never fails. */
static void rank_window(ranked *r, const double *v, size_t m)
{
  for (size_t i = 0; i < m; i++) r->order[i] = (placed){v[i], i};
  qsort(r->order, m, sizeof *r->order, by_placed);
  double below = 0, all = 0;
  for (size_t k = 0; k < m; k++) all += r->order[k].v;
  r->total = 0;
  for (size_t k = 0; k < m; k++) { /* k values below it, m - 1 - k above */
    double x = r->order[k].v;
    r->rank[r->order[k].i] = k;
    r->spread[k] = (double)k * x - below + (all - below - x) - (double)(m - 1 - k) * x;
    r->total += x * (2.0 * (double)k - (double)m + 1);
    below += x;
  }
  /* Q(t) = t b / m (2 B / (t b) - W1 / C(t, 2) - W2 / C(b, 2)), b = m - t,
   *      = 2 / m (B - b / (t - 1) W1 - t / (b - 1) W2). */
  for (size_t t = 2; t + 2 <= m; t++)
    r->w_before[t] = (double)(m - t) / (double)(t - 1), r->w_after[t] = (double)t / (double)(m - t - 1);
}

/* The split of v[0..m), ranked in r, with the largest divergence Q, into
 * *q; each side at least min long. O(m log m): the three sums move with
 * the split, each value's distances to the values before it from the
 * tree. Returns the size of the part before it (0 when m < 2 min). Never
 * fails. */
static size_t split_ranked(ranked *r, const double *v, size_t m, size_t min, double *q)
{
  double within_before = 0, between = 0, sum_before = 0, best_q = 0;
  size_t best = 0;
  memset(r->tree, 0, (m + 1) * sizeof *r->tree);
  for (size_t t = 0; t + min <= m; t++) { /* t values before the split */
    if (t >= min && t >= 2 && m - t >= 2) {
      double within_after = r->total - within_before - between;
      double qt = between - r->w_before[t] * within_before - r->w_after[t] * within_after;
      if (!best || qt > best_q) best_q = qt, best = t;
    }
    size_t rk = r->rank[t];
    double x = v[t], less = 0, sum_less = 0; /* before it and smaller: how many, their sum */
    for (size_t k = rk; k > 0; k -= k & -k) less += r->tree[k].count, sum_less += r->tree[k].sum;
    double to_before = (2 * less - (double)t) * x + sum_before - 2 * sum_less;
    within_before += to_before;
    between += r->spread[rk] - 2 * to_before;
    for (size_t k = rk + 1; k <= m; k += k & -k) r->tree[k].count++, r->tree[k].sum += x;
    sum_before += x;
  }
  *q = 2 * best_q / (double)m;
  return best;
}

/* The best split of v[0..m) (see split_ranked), ranked in w's room. Never
 * fails. */
static size_t best_split(work *w, const double *v, size_t m, double *q)
{
  rank_window(&w->rk, v, m);
  return split_ranked(&w->rk, v, m, w->o->min_segment, q);
}

/* Q of the split of v[0..m) after t values (t and m - t at least 2).
 * O(m^2). Never fails. */
static double q_at(const double *v, size_t m, size_t t)
{
  double between = 0, within_a = 0, within_b = 0;
  for (size_t i = 0; i < m; i++)
    for (size_t j = i + 1; j < m; j++) {
      double d = fabs(v[i] - v[j]);
      if (j < t) within_a += d;
      else if (i >= t) within_b += d;
      else between += d;
    }
  return energy(between, within_a, within_b, (double)t, (double)(m - t));
}

/* The permutation test's p-value for a split of divergence q in v[0..m)
 * (w's window at lo): how often the values in random order have a best
 * split at least as large, over up to w's permutations. It stops once
 * the count shows p above p_max (most tests of a stationary window stop
 * within a few dozen), with screen also once 1/p_max - 1 permutations
 * (999) had none as large (*screened = 1: p <= p_max is then likely, not
 * sure), and runs at most 4e9 / m^2 permutations of a long window, never
 * fewer than 1999 (p's floor is 1/4001 at 1000 values; the cap was the
 * cost of a quadratic best split, kept so that a series gets the same
 * p-values; each permutation now costs m log m). Never fails. */
static double p_value(work *w, size_t lo, size_t m, double q, int screen, int *screened)
{
  const perf__changepoint_opts *o = w->o;
  unsigned reps = o->permutations;
  double cap = 4e9 / ((double)m * (double)m);
  if (cap < reps) reps = cap > 1999 ? (unsigned)cap : (reps < 1999 ? reps : 1999);
  unsigned as_large = 0, enough = (unsigned)(o->p_max * (reps + 1.0));
  unsigned look = screen ? (unsigned)ceil(1 / o->p_max - 1e-9) - 1 : 0;
  double *v = w->scratch;
  size_t *rank = w->rk.rank;
  memcpy(v, w->x + lo, m * sizeof *w->x);
  rank_window(&w->rk, v, m); /* once: the ranks move with the values */
  *screened = 0;
  for (unsigned r = 0; r < reps && as_large + 1 <= enough; r++) {
    if (r == look && r && !as_large) return *screened = 1, 1.0 / (r + 1.0);
    for (size_t i = m - 1; i > 0; i--) {
      size_t j = perf__rng_below(&w->rng, (uint32_t)(i + 1)), k = rank[i];
      double s = v[i];
      v[i] = v[j], v[j] = s;
      rank[i] = rank[j], rank[j] = k;
    }
    double qp;
    split_ranked(&w->rk, v, m, o->min_segment, &qp);
    if (qp >= q * (1 - 1e-12)) as_large++;
  }
  /* Stopped early or not, this is at most the p-value all reps would give,
   * and above p_max whenever the test stopped early. */
  return (as_large + 1.0) / (reps + 1.0);
}

/* Mean and sample variance of v[0..n); n >= 2. */
static void moments(const double *v, size_t n, double *mu, double *var)
{
  double s = 0, ss = 0;
  for (size_t i = 0; i < n; i++) s += v[i];
  *mu = s / (double)n;
  for (size_t i = 0; i < n; i++) ss += (v[i] - *mu) * (v[i] - *mu);
  *var = ss / (double)(n - 1);
}

/* Welch's two-sided t-test of v[0..t) against v[t..m), its p-value times
 * the number of splits the window has (Bonferroni), at most 1. Never
 * fails. */
static double t_p_value(const double *v, size_t m, size_t t, size_t min)
{
  double ma, va, mb, vb, na = (double)t, nb = (double)(m - t);
  moments(v, t, &ma, &va);
  moments(v + t, m - t, &mb, &vb);
  double se2 = va / na + vb / nb;
  if (!(se2 > 0)) return ma == mb ? 1 : 0;
  double tt = (ma - mb) / sqrt(se2);
  double df = se2 * se2 / (va * va / (na * na * (na - 1)) + vb * vb / (nb * nb * (nb - 1)));
  double p = perf__dist_student_p(tt, df) * (double)(m - 2 * min + 1);
  return p < 1 ? p : 1;
}

/* Student's t of v[t..m) against v[0..t) with their pooled variance (m -
 * 2 degrees of freedom; t >= 2, the part after may be one value): 0 when
 * both means are equal, +-INFINITY when they differ and neither part
 * varies. Never fails. */
static double pooled_t(const double *v, size_t m, size_t t)
{
  double ma, va, mb = v[t], vb = 0;
  moments(v, t, &ma, &va);
  if (m - t > 1) moments(v + t, m - t, &mb, &vb);
  double pooled = ((double)(t - 1) * va + (double)(m - t - 1) * vb) / (double)(m - 2);
  double se = sqrt(pooled * (1.0 / (double)t + 1.0 / (double)(m - t)));
  if (!(se > 0)) return mb == ma ? 0 : mb > ma ? INFINITY : -INFINITY;
  return (mb - ma) / se;
}

/* Whether a permutation test can decide the best split of m values after
 * split of them at p_max. With a clean step, only the same partition and
 * its mirror image split as well, and random order draws one of them with
 * probability 2 / C(m, split): that is the smallest p-value any number of
 * permutations can give, so it must stay under p_max / 2, i.e.
 * C(m, split) >= 4 / p_max (4000 at 0.001: 5/5 of 10 has 252, 7/7 of 14
 * 3432, 5/11 of 16 4368). */
static int permutations_resolve(size_t m, size_t split, double p_max)
{
  double log_arrangements = lgamma((double)m + 1) - lgamma((double)split + 1) -
                            lgamma((double)(m - split) + 1);
  return log_arrangements >= log(4 / p_max);
}

/* See changepoint.h. */
void perf__changepoint_defaults(perf__changepoint_opts *o)
{
  *o = (perf__changepoint_opts){
      .min_segment = 5, .permutations = 9999, .p_max = 0.001, .min_size = 0.01, .seed = 1};
}

/* PERF__EINVAL for bad options or a value that is not finite. */
static int check_input(const double *x, size_t n, const perf__changepoint_opts *o)
{
  if (o->min_segment < 2 || o->permutations < 19 || !(o->p_max > 0 && o->p_max < 1) ||
      !(o->min_size >= 0))
    return PERF__EINVAL;
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return PERF__EINVAL;
  return 0;
}

/* Mean of x[lo..hi). */
static double mean(const double *x, size_t lo, size_t hi)
{
  double s = 0;
  for (size_t i = lo; i < hi; i++) s += x[i];
  return s / (double)(hi - lo);
}

/* after / before - 1, NaN when before is 0. */
static double relative(double before, double after)
{
  return before != 0 ? after / before - 1 : NAN;
}

/* Whether a cut's size is below the minimum (a NaN size is not). */
static int too_small(const work *w, const cut *c)
{
  return fabs(c->size) < w->o->min_size;
}

/* Judges w->c[i] in its window: its size, then (when it is large
 * enough) its p-value, screened or in full. Never fails. */
static void judge(work *w, size_t i, int screen)
{
  cut *c = &w->c[i];
  size_t lo = i ? w->c[i - 1].at : 0, hi = i + 1 < w->k ? w->c[i + 1].at : w->n;
  size_t m = hi - lo, split = c->at - lo;
  c->size = relative(mean(w->x, lo, c->at), mean(w->x, c->at, hi));
  c->p = NAN, c->t_test = 0, c->state = DECIDED;
  if (too_small(w, c)) return;
  c->t_test = !permutations_resolve(m, split, w->o->p_max);
  if (c->t_test) {
    c->p = t_p_value(w->x + lo, m, split, w->o->min_segment);
    return;
  }
  int screened;
  c->p = p_value(w, lo, m, q_at(w->x + lo, m, split), screen, &screened);
  if (screened) c->state = SCREENED;
}

/* The weakest cut that fails, or w->k: one below the minimum size (the
 * smallest first), else one whose p is above p_max (the largest
 * first). */
static size_t weakest(const work *w)
{
  size_t pick = w->k;
  int pick_small = 0;
  for (size_t i = 0; i < w->k; i++) {
    const cut *c = &w->c[i], *b = &w->c[pick < w->k ? pick : 0];
    int small = too_small(w, c);
    if (!small && !(c->p > w->o->p_max)) continue;
    if (pick == w->k || small > pick_small ||
        (small == pick_small && (small ? fabs(c->size) < fabs(b->size) : c->p > b->p)))
      pick = i, pick_small = small;
  }
  return pick;
}

/* Removes w->c[i]; its neighbours are judged again. */
static void drop(work *w, size_t i)
{
  memmove(&w->c[i], &w->c[i + 1], (w->k - i - 1) * sizeof *w->c);
  w->k--;
  if (i) w->c[i - 1].state = STALE;
  if (i < w->k) w->c[i].state = STALE;
}

/* Backward elimination: judges every stale cut (screened), removes the
 * weakest that fails, until none fails; then the screened ones get their
 * full test, and any that fails starts it again. Never fails. */
static void prune(work *w)
{
  for (;;) {
    for (size_t i = 0; i < w->k; i++)
      if (w->c[i].state == STALE) judge(w, i, 1);
    size_t i = weakest(w);
    if (i < w->k) {
      drop(w, i);
      continue;
    }
    int screened = 0;
    for (i = 0; i < w->k; i++)
      if (w->c[i].state == SCREENED) judge(w, i, 0), screened = 1;
    if (!screened) return;
  }
}

static int by_at(const void *a, const void *b)
{
  size_t x = ((const cut *)a)->at, y = ((const cut *)b)->at;
  return (x > y) - (x < y);
}

/* Candidate cuts: the best E-divisive split of the series, then of each
 * part, down to parts shorter than two segments, into w->c (index
 * order). Returns 0 or PERF__ENOMEM. */
static int candidates(work *w)
{
  size_t min = w->o->min_segment, top = 0;
  size_t *stack = malloc(2 * (w->n / min + 2) * sizeof *stack); /* parts of min or more */
  if (!stack) return PERF__ENOMEM;
  stack[top++] = 0, stack[top++] = w->n;
  while (top) {
    size_t hi = stack[--top], lo = stack[--top];
    double q;
    size_t t = hi - lo >= 2 * min ? best_split(w, w->x + lo, hi - lo, &q) : 0;
    if (!t) continue;
    w->c[w->k++] = (cut){.at = lo + t, .state = STALE};
    stack[top++] = lo, stack[top++] = lo + t;
    stack[top++] = lo + t, stack[top++] = hi;
  }
  free(stack);
  qsort(w->c, w->k, sizeof *w->c, by_at);
  return 0;
}

/* The split of the newest values of v[0..m): the t with at least min
 * values before it and fewer than min after it whose |pooled t| is
 * largest (*tt); *tried: how many there were. Returns t, or 0 when m <
 * min + 1. */
static size_t tail_split(const double *v, size_t m, size_t min, double *tt, size_t *tried)
{
  size_t best = 0;
  *tt = 0, *tried = 0;
  if (m < min + 1) return 0;
  for (size_t t = m - min + 1 > min ? m - min + 1 : min; t < m; t++, (*tried)++) {
    double s = fabs(pooled_t(v, m, t));
    if (!best || s > *tt) *tt = s, best = t;
  }
  return best;
}

/* The suspected change at lo + t in w's window lo..n (|t| = tt, chosen
 * from tried splits) into *c: 1 when its p-value times tried is at most
 * p_max and its size at least the minimum, else 0. */
static int tail_cut(const work *w, size_t lo, size_t t, double tt, size_t tried, cut *c)
{
  double p = perf__dist_student_p(tt, (double)(w->n - lo - 2)) * (double)tried;
  *c = (cut){.at = lo + t, .p = p < 1 ? p : 1, .t_test = 1, .suspected = 1, .state = DECIDED,
             .size = relative(mean(w->x, lo, lo + t), mean(w->x, lo + t, w->n))};
  return c->p <= w->o->p_max && !too_small(w, c);
}

/* The newest values: a change fewer than min_segment values before the
 * end, reported as suspected. When it splits the last cut's window better
 * than that cut, the cut stood on a few of the newest values: it is
 * removed (its neighbour judged again in its wider window) and the
 * newest values tested after the cut before it. Never fails. */
static void suspect(work *w)
{
  size_t min = w->o->min_segment, tried, t;
  double tt;
  cut c;
  if (w->k) {
    size_t lo = w->k >= 2 ? w->c[w->k - 2].at : 0, last = w->c[w->k - 1].at;
    t = tail_split(w->x + lo, w->n - lo, min, &tt, &tried);
    if (t && tt > fabs(pooled_t(w->x + lo, w->n - lo, last - lo)) &&
        tail_cut(w, lo, t, tt, tried, &c)) {
      drop(w, w->k - 1);
      prune(w);
    }
  }
  size_t lo = w->k ? w->c[w->k - 1].at : 0;
  t = tail_split(w->x + lo, w->n - lo, min, &tt, &tried);
  if (t && tail_cut(w, lo, t, tt, tried, &c)) w->c[w->k++] = c;
}

static int by_p(const void *a, const void *b)
{
  const perf__changepoint *x = a, *y = b;
  if (x->p != y->p) return x->p < y->p ? -1 : 1;
  return (x->at > y->at) - (x->at < y->at);
}

static int by_index(const void *a, const void *b)
{
  size_t x = ((const perf__changepoint *)a)->at, y = ((const perf__changepoint *)b)->at;
  return (x > y) - (x < y);
}

/* w's cuts as change points with their segments' means into out[0..max):
 * the max with the smallest p-values, in index order. Returns how many,
 * or PERF__ENOMEM. */
static int emit(const work *w, perf__changepoint *out, size_t max)
{
  perf__changepoint *all = malloc((w->k ? w->k : 1) * sizeof *all);
  if (!all) return PERF__ENOMEM;
  for (size_t i = 0; i < w->k; i++) {
    const cut *c = &w->c[i];
    size_t lo = i ? w->c[i - 1].at : 0, hi = i + 1 < w->k ? w->c[i + 1].at : w->n;
    all[i] = (perf__changepoint){.at = c->at, .before = mean(w->x, lo, c->at),
                                 .after = mean(w->x, c->at, hi), .p = c->p,
                                 .t_test = c->t_test, .suspected = c->suspected};
    all[i].size = relative(all[i].before, all[i].after);
  }
  size_t k = w->k;
  if (k > max) {
    qsort(all, k, sizeof *all, by_p);
    k = max;
    qsort(all, k, sizeof *all, by_index);
  }
  if (k) memcpy(out, all, k * sizeof *out);
  free(all);
  return (int)k;
}

/* See changepoint.h. */
int perf__changepoint_find(const double *x, size_t n, const perf__changepoint_opts *o,
                           perf__changepoint *out, size_t max)
{
  if (check_input(x, n, o)) return PERF__EINVAL;
  work w = {.x = x, .n = n, .o = o};
  size_t room = n ? n : 1;
  w.scratch = malloc(room * sizeof *w.scratch);
  w.c = malloc((n / o->min_segment + 2) * sizeof *w.c);
  w.rk = (ranked){.rank = malloc(room * sizeof *w.rk.rank),
                  .spread = malloc(room * sizeof *w.rk.spread), .w_before = malloc((room + 1) * sizeof *w.rk.w_before),
                  .w_after = malloc((room + 1) * sizeof *w.rk.w_after), .tree = malloc((room + 1) * sizeof *w.rk.tree),
                  .order = malloc(room * sizeof *w.rk.order)};
  int rc = w.scratch && w.c && w.rk.rank && w.rk.spread && w.rk.w_before && w.rk.w_after && w.rk.tree && w.rk.order ? 0 : PERF__ENOMEM;
  perf__rng_seed(&w.rng, o->seed);
  if (!rc) rc = candidates(&w);
  if (!rc) {
    prune(&w);
    suspect(&w);
    rc = emit(&w, out, max);
  }
  free(w.scratch);
  free(w.c);
  free(w.rk.rank), free(w.rk.spread), free(w.rk.w_before), free(w.rk.w_after), free(w.rk.tree), free(w.rk.order);
  return rc;
}
