/* check.c — the plain checks of a test body: PERF_EXPECT_TRUE, PERF_EXPECT_NEAR and PERF_SKIP. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "perfgate.h"
#include "worker/context.h"
#include "worker/sweep.h"

/* Public: EXPECT/ASSERT_TRUE. Returns ok; a fatal failure ends the test. */
int perf__truth(int ok, const char *expr, const char *file, int line, int fatal)
{
  char msg[400], tag[96];
  snprintf(msg, sizeof msg, "TRUE(%s) at %s:%d%s %s", expr, file, line,
           perf__sweep_tag(tag, sizeof tag), ok ? "holds" : "is false");
  if (!ok) perf__context_line(PERF__DETAIL, "%s", msg);
  perf__context_claimf(ok ? PERF__PASS : PERF__FAIL, "%s", msg);
  if (!ok && fatal) perf__context_end(PERF__FAIL, 0, "%s", msg);
  return ok;
}

/* The index of the worst entry (the first NaN, else the largest error
 * relative to its bound); *err gets its error over the bound's scale. */
static size_t worst_entry(const double *got, const double *want, const double *scale, size_t n,
                          double *err)
{
  size_t at = 0;
  *err = 0;
  for (size_t i = 0; i < n; i++) {
    double e = fabs(got[i] - want[i]) / (scale ? scale[i] : 1.0);
    if (isnan(e)) {
      *err = e;
      return i;
    }
    if (e > *err) *err = e, at = i;
  }
  return at;
}

/* Public: EXPECT/ASSERT_NEAR(_SCALED). Returns 1 when every entry is within
 * tol; a fatal failure ends the test. n == 0 or a tol that is not a number
 * >= 0 ends the test as ERROR. */
int perf__near(const double *got, const double *want, const double *scale, size_t n,
               double tol, const char *gn, const char *wn, const char *file, int line,
               int fatal)
{
  char head[300], msg[600], tag[96];
  snprintf(head, sizeof head, "NEAR%s(%s, %s, %zu, %g) at %s:%d%s", scale ? "_SCALED" : "", gn,
           wn, n, tol, file, line, perf__sweep_tag(tag, sizeof tag));
  if (n == 0 || !got || !want || !(tol >= 0))
    perf__context_end(PERF__ERROR, 0, "%s: needs n >= 1 entries and a tolerance >= 0", head);
  double err;
  size_t at = worst_entry(got, want, scale, n, &err);
  int ok = err <= tol;
  snprintf(msg, sizeof msg, "%s: worst error %.3g%s at [%zu] (got %.9g, want %.9g) %s", head,
           err, scale ? " of its scale" : "", at, got[at], want[at],
           ok ? "holds" : "is too large");
  if (!ok) perf__context_line(PERF__DETAIL, "%s", msg);
  perf__context_claimf(ok ? PERF__PASS : PERF__FAIL, "%s", msg);
  if (!ok && fatal) perf__context_end(PERF__FAIL, 0, "%s", msg);
  return ok;
}

/* Public: PERF_SKIP. Does not return. */
void perf__skip(const char *file, int line, const char *fmt, ...)
{
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  perf__context_end(PERF__SKIP, 0, "%s (at %s:%d)", msg, file, line);
}
