/* console.c — the console report: one line per test, the numbers behind each verdict, the summary. */
#define _POSIX_C_SOURCE 200809L
#include "supervisor/console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/units.h"

static struct {
  int color, verbose, tty;
} rep;

/* Never fails. */
void perf__console_setup(perf__color color, int verbose)
{
  const char *term = getenv("TERM");
  /* progress lines rewrite the line in place: a terminal that cannot
   * (TERM=dumb, as Emacs shells set) gets plain lines only */
  rep.tty = isatty(STDOUT_FILENO) && !(term && !strcmp(term, "dumb"));
  rep.verbose = verbose;
  rep.color = color == PERF__COLOR_ALWAYS ||
              (color == PERF__COLOR_AUTO && rep.tty && !getenv("NO_COLOR") &&
               term && strcmp(term, "dumb") != 0);
}

static const char *paint(perf__outcome o)
{
  if (!rep.color) return "";
  switch (o) {
  case PERF__PASS:
    return "\033[32m";
  case PERF__SKIP:
    return "\033[33m";
  default:
    return "\033[31m";
  }
}

static const char *plain(void) { return rep.color ? "\033[0m" : ""; }

/* Never fails. */
void perf__console_progress(const char *name, size_t k, size_t total)
{
  if (!rep.tty) return;
  printf("[%zu/%zu] %s \u2026", k, total, name);
  fflush(stdout);
}

/* Never fails. */
void perf__console_info(const char *line)
{
  if (rep.verbose) printf("info  %s\n", line);
}

/* Never fails. */
void perf__console_notice(const char *line)
{
  if (rep.tty) printf("\r\033[K");
  printf("note  %s\n", line);
}

/* The test's own output, indented, when it failed or with --verbose. */
static void print_output(const perf__result *r)
{
  if (!r->output_len || (r->outcome != PERF__FAIL && r->outcome != PERF__ERROR &&
                         !rep.verbose))
    return;
  printf("      output of the test:\n");
  const char *p = r->output, *end = r->output + perf__result_output_shown(r);
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    int n = nl ? (int)(nl - p) : (int)(end - p);
    printf("      | %.*s\n", n, p);
    p += n + (nl ? 1 : 0);
  }
  if (r->output_truncated) printf("      | " PERF__OUTPUT_CUT "\n");
}

/* Never fails. */
void perf__console_result(const perf__result *r)
{
  if (rep.tty) printf("\r\033[K");
  printf("%s%-5s%s %s (%.2f s wall)", paint(r->outcome),
         perf__status_word(r->outcome), plain(), r->name, r->seconds);
  if (r->outcome == PERF__SKIP)
    printf(" skipped: %s", r->reason);
  else if (r->outcome != PERF__PASS && r->reason[0])
    printf(": %s", r->reason);
  printf("\n");
  for (size_t i = 0; i < r->nlines; i++)
    if (!r->verbose_only[i] || rep.verbose) printf("      %s\n", r->lines[i]);
  print_output(r);
  fflush(stdout);
}

/* Never fails. */
void perf__console_summary(const perf__result *r, size_t n)
{
  size_t passed = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].outcome == PERF__PASS) passed++;
    else if (r[i].outcome == PERF__SKIP) skipped++;
    else failed++;
  }
  if (failed) {
    printf("\n%zu %s not pass:\n", failed,
           perf__units_noun((long long)failed, "test did", "tests did"));
    for (size_t i = 0; i < n; i++)
      if (r[i].outcome != PERF__PASS && r[i].outcome != PERF__SKIP)
        printf("  %s%-5s%s %s: %s\n", paint(r[i].outcome),
               perf__status_word(r[i].outcome), plain(), r[i].name,
               r[i].reason);
  }
  printf("\n%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  fflush(stdout);
}
