/* tally.c — what the CI reports share: outcome counts, failing verdict lines, Markdown cells. */
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include "report/tally.h"

#include <string.h>

#include "baseline/trace.h"

/* See tally.h. */
int perf__tally_is_failure(perf_outcome o) { return o == PERF_OUTCOME_FAIL || o == PERF_OUTCOME_INCONCLUSIVE; }

/* See tally.h. */
perf__tally perf__tally_count(const perf__result *r, size_t n)
{
  perf__tally c = {0};
  for (size_t i = 0; i < n; i++) {
    c.tests++;
    c.failures += perf__tally_is_failure(r[i].outcome);
    c.errors += r[i].outcome == PERF_OUTCOME_ERROR;
    c.skipped += r[i].outcome == PERF_OUTCOME_SKIP;
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
int perf__tally_explain_line(const char *l)
{
  return !strncmp(l, PERF__TRACE_CHANGED, strlen(PERF__TRACE_CHANGED)) ||
         !strncmp(l, "  what changed in ", 18);
}

/* See tally.h. */
int perf__tally_first_attempt_line(const char *l)
{
  if (!strncmp(l, PERF__RESULT_FIRST, strlen(PERF__RESULT_FIRST))) return 1;
  return strncmp(l, PERF__RESULT_CONFIRMED, strlen(PERF__RESULT_CONFIRMED)) ? 0 : 2;
}

/* How much of s a cell shows: at most max bytes, never ending inside a
 * UTF-8 character. Never fails. */
static size_t cell_length(const char *s, size_t max)
{
  size_t n = strnlen(s, max);
  while (n == max && n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) n--;
  return n;
}

/* See tally.h. */
void perf__tally_md_cell(FILE *f, const char *s, size_t max)
{
  static const char *const entity[] = {['<'] = "&lt;", ['>'] = "&gt;", ['&'] = "&amp;"};
  size_t n = cell_length(s, max);
  for (size_t k = 0; k < n; k++) {
    unsigned char c = (unsigned char)s[k];
    if (c == '\n' || c == '\r') fputc(' ', f);
    else if (c < sizeof entity / sizeof entity[0] && entity[c]) fputs(entity[c], f);
    else if (strchr("\\`*_[]~$|", c)) fprintf(f, "\\%c", c); /* CommonMark: as written */
    else fputc(c, f);
  }
}

/* See tally.h. */
void perf__tally_md_code(FILE *f, const char *s, size_t max)
{
  size_t n = cell_length(s, max), run = 0, fence = 1;
  if (!n) return;
  for (size_t k = 0; k < n; k++) {
    run = s[k] == '`' ? run + 1 : 0;
    if (run >= fence) fence = run + 1;
  }
  /* CommonMark takes one space off each end when both have one */
  int pad = strchr("` \n\r", s[0]) || strchr("` \n\r", s[n - 1]);
  for (size_t k = 0; k < fence; k++) fputc('`', f);
  if (pad) fputc(' ', f);
  for (size_t k = 0; k < n; k++) {
    if (s[k] == '\n' || s[k] == '\r') fputc(' ', f);
    else if (s[k] == '|') fputs("\\|", f); /* GFM's table escape, which holds in a code span */
    else fputc(s[k], f);
  }
  if (pad) fputc(' ', f);
  for (size_t k = 0; k < fence; k++) fputc('`', f);
}
