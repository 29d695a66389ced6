/* trend.c — where a history series shifted, and where a whole machine did. */
/* Change points by E-divisive means, placed on the series' commits; a
 * machine's shift is many workloads shifting at one commit. */
#include "history/trend.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "util/status.h"

/* See trend.h. */
size_t perf__trend_min_points(void)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  return 2 * o.min_segment;
}

/* See trend.h. */
int perf__trend_changes(const perf__series *s, perf__changepoint *out, size_t max)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  if (s->n < perf__trend_min_points()) return 0;
  double *x = malloc(s->n * sizeof *x);
  if (!x) return PERF__ENOMEM;
  for (size_t i = 0; i < s->n; i++) x[i] = s->pts[i].value;
  int n = perf__changepoint_find(x, s->n, &o, out, max);
  free(x);
  return n;
}

/* The series left to search, shared by the threads. */
typedef struct queue {
  perf__trend_series *const *t;
  size_t n;
  atomic_size_t next;
  atomic_int failed;
} queue;

/* A thread's loop: takes the next series until none is left. */
static void *search(void *arg)
{
  queue *q = arg;
  for (size_t i; (i = atomic_fetch_add(&q->next, 1)) < q->n;) {
    q->t[i]->ncp = perf__trend_changes(q->t[i]->s, q->t[i]->cp, PERF__TREND_MAX_CUTS);
    if (q->t[i]->ncp < 0) atomic_store(&q->failed, 1);
  }
  return NULL;
}

/* See trend.h. */
int perf__trend_changes_each(perf__trend_series *const *t, size_t n, int threads)
{
  enum { MOST = 64 };
  pthread_t id[MOST];
  queue q = {t, n, 0, 0};
  int started = 0, want = threads < 1 ? 1 : threads > MOST ? MOST : threads;
  if ((size_t)want > n) want = n ? (int)n : 1;
  while (started < want - 1 && !pthread_create(&id[started], NULL, search, &q)) started++;
  search(&q);
  for (int k = 0; k < started; k++) pthread_join(id[k], NULL);
  return atomic_load(&q.failed) ? PERF__ENOMEM : 0;
}

/* +1 for a change point upward, -1 downward. */
static int direction(const perf__changepoint *cp)
{
  return cp->size > 0 ? 1 : -1;
}

/* The commit (axis index) of t's change point k. */
static size_t commit_of(const perf__trend_series *t, int k)
{
  return t->s->pts[t->cp[k].at].at;
}

/* t's unmarked change point going dir within one commit of axis index at,
 * the nearest, of at most bound in size; -1 when none. */
static int near_cut(const perf__trend_series *t, size_t at, int dir, double bound)
{
  int best = -1;
  size_t best_d = 2;
  for (int k = 0; k < t->ncp; k++) {
    size_t c = commit_of(t, k), d = c > at ? c - at : at - c;
    if (!t->shift[k] && direction(&t->cp[k]) == dir && fabs(t->cp[k].size) <= bound && d < best_d)
      best = k, best_d = d;
  }
  return best;
}

/* Whether t is a workload tested with commits on both sides of axis
 * index at. */
static int spans(const perf__trend_series *t, size_t at)
{
  const perf__series *s = t->s;
  return !s->is_claim && s->n >= perf__trend_min_points() && s->pts[0].at < at &&
         s->pts[s->n - 1].at >= at;
}

/* A vote for a machine's shift at one commit, one way, of change points
 * up to bound in size. */
typedef struct vote {
  size_t at, moved, exact, of;
  int dir;
  double bound;
} vote;

/* The votes for a shift at axis index at going dir of change points up
 * to bound in size; their sizes into sizes[0..moved). */
static vote count(perf__trend_series *const *t, size_t n, size_t at, int dir, double bound,
                  double *sizes)
{
  vote v = {at, 0, 0, 0, dir, bound};
  for (size_t i = 0; i < n; i++) {
    if (!spans(t[i], at)) continue;
    v.of++;
    int k = near_cut(t[i], at, dir, bound);
    if (k < 0) continue;
    sizes[v.moved++] = t[i]->cp[k].size;
    v.exact += commit_of(t[i], k) == at;
  }
  return v;
}

static int by_value(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of sizes[0..m) (sorted in place); NaN when m is 0. */
static double median(double *sizes, size_t m)
{
  if (!m) return NAN;
  qsort(sizes, m, sizeof *sizes, by_value);
  return (sizes[(m - 1) / 2] + sizes[m / 2]) / 2;
}

/* The vote at axis index at going dir, of the change points at most twice
 * the median size of all that are there: a workload that moved much more
 * than the machine changed as well. */
static vote vote_at(perf__trend_series *const *t, size_t n, size_t at, int dir, double *sizes)
{
  vote v = count(t, n, at, dir, INFINITY, sizes);
  return count(t, n, at, dir, 2 * fabs(median(sizes, v.moved)), sizes);
}

/* The best vote among the commits of the workloads' unmarked change
 * points: the most workloads, then the most at that very commit, then the
 * earliest. dir is 0 when there is none. */
static vote best_vote(perf__trend_series *const *t, size_t n, double *sizes)
{
  vote best = {0, 0, 0, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    for (int k = 0; !t[i]->s->is_claim && k < t[i]->ncp; k++) {
      if (t[i]->shift[k]) continue;
      vote v = vote_at(t, n, commit_of(t[i], k), direction(&t[i]->cp[k]), sizes);
      if (!best.dir || v.moved > best.moved || (v.moved == best.moved && v.exact > best.exact) ||
          (v.moved == best.moved && v.exact == best.exact && v.at < best.at))
        best = v;
    }
  return best;
}

/* Marks the change points of vote v as shift id and describes it. */
static perf__trend_shift mark(perf__trend_series *const *t, size_t n, vote v, int id, double *sizes)
{
  perf__trend_shift s = {v.at, v.moved, v.of, 0, 0, 0, 1};
  count(t, n, v.at, v.dir, v.bound, sizes);
  for (size_t i = 0; i < n; i++) {
    int k = spans(t[i], v.at) ? near_cut(t[i], v.at, v.dir, v.bound) : -1;
    if (k < 0) continue;
    t[i]->shift[k] = id;
    s.suspected &= t[i]->cp[k].suspected;
  }
  s.size = median(sizes, v.moved);
  s.smallest = sizes[0], s.largest = sizes[v.moved - 1];
  return s;
}

/* See trend.h. */
int perf__trend_shifts(perf__trend_series *const *t, size_t n, perf__trend_shift *out, size_t max)
{
  double *sizes = malloc((n ? n : 1) * sizeof *sizes);
  if (!sizes) return PERF__ENOMEM;
  size_t found = 0;
  while (found < max) {
    vote v = best_vote(t, n, sizes);
    if (!v.dir || v.moved < PERF__TREND_SHIFT_MIN || 2 * v.moved < v.of) break;
    out[found] = mark(t, n, v, (int)found + 1, sizes);
    found++;
  }
  free(sizes);
  return (int)found;
}

/* See trend.h. */
int perf__trend_undoes(const perf__trend_series *t, int k)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  int j = k - 1;
  while (j >= 0 && t->shift[j]) j--; /* the series' own change point before it */
  if (j < 0) return -1;
  const perf__changepoint *a = &t->cp[j], *b = &t->cp[k];
  if (direction(a) == direction(b) || !(a->before > 0)) return -1;
  return fabs(b->after / a->before - 1) < o.min_size ? j : -1;
}
