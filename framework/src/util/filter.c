/* filter.c — GoogleTest-style test filters: "Pos[:Pos][-Neg[:Neg]]" with * and ? globs. */
#include "util/filter.h"

#include <string.h>

/* Iterative glob with single-star backtracking: linear in practice, no
 * recursion whatever the pattern. Never fails. */
int perf__filter_glob(const char *p, const char *end, const char *s)
{
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (p < end && (*p == '?' || *p == *s)) {
      p++;
      s++;
    } else if (p < end && *p == '*') {
      star = p++;
      resume = s;
    } else if (star) {
      p = star + 1;
      s = ++resume;
    } else
      return 0;
  }
  while (p < end && *p == '*') p++;
  return p == end;
}

/* 1 when name matches one of the ':'-separated patterns in [p, end). */
static int any(const char *p, const char *end, const char *name)
{
  while (p <= end) {
    const char *colon = memchr(p, ':', (size_t)(end - p));
    const char *stop = colon ? colon : end;
    if (stop > p && perf__filter_glob(p, stop, name)) return 1;
    p = stop + 1;
  }
  return 0;
}

/* Never fails. */
int perf__filter_match(const char *filter, const char *name)
{
  if (!filter) return 1;
  const char *dash = strchr(filter, '-');
  const char *pos_end = dash ? dash : filter + strlen(filter);
  int pos = pos_end == filter ? 1 : any(filter, pos_end, name);
  if (!pos) return 0;
  return dash ? !any(dash + 1, dash + 1 + strlen(dash + 1), name) : 1;
}

/* 1 when [p, stop) matches name and its suite part (before the first '.')
 * has no wildcard. Never fails. */
static int names_suite(const char *p, const char *stop, const char *name)
{
  const char *dot = memchr(p, '.', (size_t)(stop - p));
  if (!dot) return 0;
  for (const char *c = p; c < dot; c++)
    if (*c == '*' || *c == '?') return 0;
  return perf__filter_glob(p, stop, name);
}

/* Never fails. */
int perf__filter_explicit(const char *filter, const char *name)
{
  if (!filter || !perf__filter_match(filter, name)) return 0;
  const char *dash = strchr(filter, '-');
  const char *end = dash ? dash : filter + strlen(filter);
  for (const char *p = filter; p < end;) {
    const char *colon = memchr(p, ':', (size_t)(end - p));
    const char *stop = colon ? colon : end;
    if (stop > p && names_suite(p, stop, name)) return 1;
    p = stop + 1;
  }
  return 0;
}
