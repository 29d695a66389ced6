/* tally.c — what the CI reports share: a run's outcome counts, which detail lines are failing verdicts, and a Markdown table's cell. */
#include "report/tally.h"

#include <string.h>

/* See tally.h. */
int perf__tally_is_failure(perf__outcome o) { return o == PERF__FAIL || o == PERF__INCONCLUSIVE; }

/* See tally.h. */
perf__tally perf__tally_count(const perf__result *r, size_t n)
{
  perf__tally c = {0};
  for (size_t i = 0; i < n; i++) {
    c.tests++;
    c.failures += perf__tally_is_failure(r[i].outcome);
    c.errors += r[i].outcome == PERF__ERROR;
    c.skipped += r[i].outcome == PERF__SKIP;
    c.seconds += r[i].seconds;
  }
  return c;
}

/* See tally.h. */
int perf__tally_verdict_line(const char *l)
{
  return strstr(l, ": FAIL:") || strstr(l, ": INCONCLUSIVE") || strstr(l, ": ERROR:");
}

/* See tally.h. */
void perf__tally_md_cell(FILE *f, const char *s, size_t max)
{
  for (size_t k = 0; *s && k < max; s++, k++) {
    if (*s == '|') fputs("\\|", f);
    else if (*s == '\n' || *s == '\r') fputc(' ', f);
    else fputc(*s, f);
  }
}
