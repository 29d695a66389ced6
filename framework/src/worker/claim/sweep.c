/* sweep.c — PERF_SWEEP: the running test's parameter sweep, its points and how claims name them. */
#include "worker/claim/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfgate.h"
#include "util/status.h"
#include "worker/context.h"

static struct {
  int active;
  char var[64];
  long v[PERF__SWEEP_MAX];
  size_t n, at;
  size_t mark; /* the test's cleanups before the current point */
} swp;

enum { MAX_END_HOOKS = 4 };
static void (*end_hooks[MAX_END_HOOKS])(void);
static size_t nend_hooks;

/* Aborts beyond MAX_END_HOOKS (a framework bug). */
void perf__sweep_on_end(void (*hook)(void))
{
  for (size_t i = 0; i < nend_hooks; i++)
    if (end_hooks[i] == hook) return;
  if (nend_hooks == MAX_END_HOOKS) {
    fprintf(stderr, "perfgate: more than %d sweep-end hooks\n", MAX_END_HOOKS);
    abort();
  }
  end_hooks[nend_hooks++] = hook;
}

/* The end-of-test check: a sweep left by return or goto never ran its
 * remaining points; the sweep is forgotten either way. Never fails. */
static void abandoned(perf__context_result *res)
{
  int was = swp.active;
  swp.active = 0;
  if (was && res->outcome == PERF_OUTCOME_PASS) {
    res->outcome = PERF_OUTCOME_ERROR;
    snprintf(res->reason, sizeof res->reason,
             "a PERF_SWEEP was left early (return or goto): its remaining points "
             "and crossover claims never ran");
  }
}

int perf__sweep_active(void) { return swp.active; }
const char *perf__sweep_var(void) { return swp.active ? swp.var : ""; }
long perf__sweep_value(void) { return swp.active ? swp.v[swp.at] : 0; }
size_t perf__sweep_index(void) { return swp.at; }
size_t perf__sweep_points(void) { return swp.n; }

/* Never fails (truncates). */
const char *perf__sweep_tag(char *buf, size_t len)
{
  if (!swp.active) snprintf(buf, len, "%s", "");
  else snprintf(buf, len, " [%s=%ld]", swp.var, swp.v[swp.at]);
  return buf;
}

/* The powers of two in [lo, hi]; ends the test as ERROR when there are none. */
static void powers(long lo, long hi, const char *head)
{
  swp.n = 0;
  for (long p = 1; p > 0 && p <= hi; p = p > (1L << 61) ? -1 : 2 * p)
    if (p >= lo) swp.v[swp.n++] = p;
  if (swp.n == 0)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: PERF_POW2(%ld, %ld) holds no power of two", head, lo,
                   hi);
}

/* Public: opens a sweep. Ends the test as ERROR inside another sweep, with
 * no values, more than PERF__SWEEP_MAX of them, or a name too long. */
perf__sweep perf__sweep_open(const char *var, perf_values values, const char *file, int line)
{
  char head[300];
  snprintf(head, sizeof head, "PERF_SWEEP(%s) at %s:%d", var, file, line);
  if (swp.active)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: sweeps cannot nest (one over %s is running)", head,
                   swp.var);
  if (strlen(var) >= sizeof swp.var)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: the variable's name is too long", head);
  if (values.list) {
    if (values.n == 0 || values.n > PERF__SWEEP_MAX)
      perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: %zu values; a sweep takes 1 to %d", head, values.n,
                     PERF__SWEEP_MAX);
    memcpy(swp.v, values.list, values.n * sizeof *swp.v);
    swp.n = values.n;
  } else
    powers(values.pow2_lo, values.pow2_hi, head);
  snprintf(swp.var, sizeof swp.var, "%s", var);
  perf__context_on_check(abandoned);
  return (perf__sweep){0, 0};
}

/* Public: moves to the next point, releasing what the point that ended
 * registered (PERF_ALLOC_*, PERF_DEFER); returns 0 after the last, once
 * every crossover claim of the sweep is decided (which may end the test). */
int perf__sweep_step(perf__sweep *s)
{
  if (s->state == 0) {
    s->state = 1;
    swp.at = 0;
    swp.active = 1;
  } else if (swp.active) {
    perf__context_unwind(swp.mark); /* what the point registered goes with it */
    swp.at++;
  }
  if (swp.active && swp.at < swp.n) {
    s->value = swp.v[swp.at];
    swp.mark = perf__context_cleanup_mark();
    perf__context_new_generation();
    return 1;
  }
  swp.active = 0;
  for (size_t i = 0; i < nend_hooks; i++) end_hooks[i]();
  perf__context_new_generation();
  return 0;
}
