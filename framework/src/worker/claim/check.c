/* check.c — the plain checks of a test body: PERF_EXPECT_TRUE, PERF_EXPECT_NEAR and PERF_SKIP. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "perfgate.h"
#include "worker/claim/claim.h"
#include "worker/claim/sweep.h"
#include "worker/context.h"

/* A plain check's state: decided when made, its message after the head. */
typedef struct plain {
  int ok;
  char said[400];
} plain;

/* The check's measure (claim.h): what the caller decided. */
static perf_outcome measure(perf__claim *c)
{
  const plain *p = c->self;
  c->said = p->said;
  return p->ok ? PERF_OUTCOME_PASS : PERF_OUTCOME_FAIL;
}

/* TRUE and NEAR: no id (never taken from a first attempt); a line, rendered
 * from the record (record/verdictline.h), only when it does not hold. */
static const perf__claim_kind true_kind = {.rec = PERF__CLAIMREC_TRUE, .rendered = 1,
                                           .measure = measure};
static const perf__claim_kind near_kind = {.rec = PERF__CLAIMREC_NEAR, .rendered = 1,
                                           .measure = measure};

/* Runs a check of kind k decided as ok, headed head, its message head + said.
 * Returns ok; a fatal failure ends the test. */
static int run(const perf__claim_kind *k, int ok, const char *head, const char *said, int fatal)
{
  plain p = {.ok = ok};
  perf__claim c = {.kind = k, .fatal = fatal, .fresh = 1, .self = &p};
  snprintf(c.head, sizeof c.head, "%s", head);
  snprintf(p.said, sizeof p.said, "%s", said);
  return perf__claim_run(&c);
}

/* Public: EXPECT/ASSERT_TRUE. Returns ok; a fatal failure ends the test. */
int perf__truth(int ok, const char *expr, perf__site at)
{
  char head[300], tag[96];
  snprintf(head, sizeof head, "TRUE(%.150s) at %s:%d%s", expr, at.file, at.line,
           perf__sweep_tag(tag, sizeof tag));
  return run(&true_kind, ok, head, ok ? " holds" : " is false", at.fatal);
}

/* The index of the worst entry (the first NaN, else the largest error
 * relative to its bound); *err gets its error over the bound's scale (an
 * exact match is 0 whatever its scale). */
static size_t worst_entry(const double *got, const double *want, const double *scale, size_t n,
                          double *err)
{
  size_t at = 0;
  *err = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs(got[i] - want[i]);
    double e = d == 0 ? 0 : d / (scale ? scale[i] : 1.0);
    if (isnan(e)) {
      *err = e;
      return i;
    }
    if (e > *err) *err = e, at = i;
  }
  return at;
}

/* The first scale that is not a finite number > 0, or -1. */
static long long bad_scale(const double *scale, long long n)
{
  for (long long i = 0; scale && i < n; i++)
    if (!(scale[i] > 0 && isfinite(scale[i]))) return i;
  return -1;
}

/* Public: EXPECT/ASSERT_NEAR(_SCALED). Returns 1 when every entry is within
 * tol; a fatal failure ends the test. n < 1, a tol that is not a number
 * >= 0 or a bad scale ends the test as ERROR. */
int perf__near(const double *got, const double *want, const double *scale, long long n,
               double tol, perf__names names, perf__site at)
{
  char head[400], msg[400], tag[96], sarg[120] = "";
  if (scale) snprintf(sarg, sizeof sarg, ", %.100s", names.c);
  snprintf(head, sizeof head, "NEAR%s(%.100s, %.100s%s, %lld, %g) at %s:%d%s",
           scale ? "_SCALED" : "", names.a, names.b, sarg, n, tol, at.file, at.line,
           perf__sweep_tag(tag, sizeof tag));
  if (n < 1 || !got || !want || !(tol >= 0))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: needs n >= 1 entries and a tolerance >= 0", head);
  long long bad = bad_scale(scale, n);
  if (bad >= 0)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: %s[%lld] is %g; a scale must be a finite number > 0",
                      head, names.c, bad, scale[bad]);
  double err;
  size_t worst = worst_entry(got, want, scale, (size_t)n, &err);
  int ok = err <= tol;
  snprintf(msg, sizeof msg, ": worst error %.3g%s at [%zu] (got %.9g, want %.9g) %s", err,
           scale ? " of its scale" : "", worst, got[worst], want[worst],
           ok ? "holds" : "is too large");
  return run(&near_kind, ok, head, msg, at.fatal);
}

/* Public: PERF_SKIP. Does not return. */
void perf__skip(const char *file, int line, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  perf__context_end(PERF_OUTCOME_SKIP, 0, "%s (at %s:%d)", msg, file, line);
}
