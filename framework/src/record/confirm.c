/* confirm.c — confirm before failing: when a failed test runs again, and what it keeps. */
/* The rule for a second attempt, the error budget each attempt spends, and
 * the KEEP message that names the claims a second attempt takes from the
 * first. */
#define _POSIX_C_SOURCE 200809L /* stpcpy */
#include "record/confirm.h"

#include <stdlib.h>
#include <string.h>

/* See confirm.h. */
perf_outcome perf__confirm_final(perf_outcome first, perf_outcome second)
{
  return first == PERF_OUTCOME_PASS ? PERF_OUTCOME_PASS : second;
}

/* See confirm.h. NULL without memory. */
char *perf__confirm_keep_text(const char *const *ids, size_t n, size_t *len)
{
  size_t total = 1;
  for (size_t k = 0; k < n; k++) total += strlen(ids[k]) + 1;
  char *s = malloc(total), *p = s;
  if (!s) return NULL;
  *p = '\0';
  for (size_t k = 0; k < n; k++)
    if (!strchr(ids[k], '\n')) p = stpcpy(stpcpy(p, ids[k]), "\n");
  *len = (size_t)(p - s);
  return s;
}

/* See confirm.h. */
int perf__confirm_listed(const char *list, const char *id)
{
  size_t n = strlen(id);
  for (const char *p = list; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t k = nl ? (size_t)(nl - p) : strlen(p);
    if (k == n && !strncmp(p, id, n)) return 1;
    p += k + (nl ? 1 : 0);
  }
  return 0;
}
