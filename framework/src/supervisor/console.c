/* console.c — the console report: a line per test, the numbers behind each verdict, the summary. */
#define _POSIX_C_SOURCE 200809L
#include "supervisor/console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/units.h"

static struct {
  int color, verbose, tty;
} rep;

/* Never fails. */
void perf__console_setup(perf__options_color color, int verbose)
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

static const char *paint(perf_outcome o)
{
  if (!rep.color) return "";
  switch (o) {
  case PERF_OUTCOME_PASS:
    return "\033[32m";
  case PERF_OUTCOME_SKIP:
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
  if (!r->output_len || (r->outcome != PERF_OUTCOME_FAIL && r->outcome != PERF_OUTCOME_ERROR &&
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
  if (r->outcome == PERF_OUTCOME_SKIP)
    printf(" skipped: %s", r->reason);
  else if (r->outcome != PERF_OUTCOME_PASS && r->reason[0])
    printf(": %s", r->reason);
  printf("\n");
  for (size_t i = 0; i < r->nlines; i++)
    if (!r->verbose_only[i] || rep.verbose) printf("      %s\n", r->lines[i]);
  print_output(r);
  fflush(stdout);
}

/* 1 for a result that did not pass (FAIL, INCONCLUSIVE, ERROR). */
static int bad(const perf__result *r)
{
  return r->outcome != PERF_OUTCOME_PASS && r->outcome != PERF_OUTCOME_SKIP;
}

/* qsort's order of result pointers: by test name, then run order. */
static int by_name(const void *x, const void *y)
{
  const perf__result *a = *(const perf__result *const *)x, *b = *(const perf__result *const *)y;
  int c = strcmp(a->name, b->name);
  return c ? c : (a > b) - (a < b);
}

/* One test's runs, in run order, and the first that did not pass. */
typedef struct failing {
  const perf__result **run, *first;
  size_t runs;
} failing;

/* qsort's order of failing tests: by their first run that did not pass. */
static int by_first(const void *x, const void *y)
{
  const failing *a = x, *b = y;
  return (a->first > b->first) - (a->first < b->first);
}

/* The summary's line for test t: the outcome of its last run that did not
 * pass and that run's reason, after "WORD in K of N runs" when it ran more
 * than once (each outcome counted when they differ). Never fails. */
static void summary_line(const failing *t)
{
  size_t count[PERF_OUTCOME_COUNT] = {0}, kinds = 0, worse = 0;
  const perf__result *last = t->first;
  for (size_t k = 0; k < t->runs; k++)
    if (bad(t->run[k])) {
      kinds += !count[t->run[k]->outcome]++;
      worse++;
      last = t->run[k];
    }
  printf("  %s%-5s%s %s: ", paint(last->outcome), perf__status_word(last->outcome), plain(),
         last->name);
  if (t->runs > 1 && kinds == 1)
    printf("%s in %zu of %zu runs: ", perf__status_word(last->outcome), worse, t->runs);
  else if (t->runs > 1) {
    printf("did not pass in %zu of %zu runs (", worse, t->runs);
    for (int o = 0, sep = 0; o < PERF_OUTCOME_COUNT; o++)
      if (count[o]) printf("%s%zu %s", sep++ ? ", " : "", count[o], perf__status_word(o));
    printf("): ");
  }
  printf("%s\n", last->reason);
}

/* The tests of r[0..n) that did not pass in some run, each once, in the
 * order of their first such run, into *out (malloc'd, as is its run
 * array *runs). Returns their count, or -1 when out of memory. */
static long failing_tests(const perf__result *r, size_t n, failing **out,
                          const perf__result ***runs)
{
  const perf__result **p = malloc((n ? n : 1) * sizeof *p);
  failing *t = malloc((n ? n : 1) * sizeof *t);
  if (!p || !t) return free(p), free(t), -1;
  for (size_t i = 0; i < n; i++) p[i] = &r[i];
  qsort(p, n, sizeof *p, by_name);
  size_t m = 0;
  for (size_t g = 0, h; g < n; g = h) {
    t[m] = (failing){p + g, NULL, 0};
    for (h = g; h < n && !strcmp(p[h]->name, p[g]->name); h++)
      if (!t[m].first && bad(p[h])) t[m].first = p[h];
    t[m].runs = h - g;
    m += t[m].first != NULL;
  }
  qsort(t, m, sizeof *t, by_first);
  *out = t;
  *runs = p;
  return (long)m;
}

/* Never fails (out of memory, the failing tests are not listed again). */
void perf__console_summary(const perf__result *r, size_t n)
{
  size_t passed = 0, failed = 0, skipped = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].outcome == PERF_OUTCOME_PASS) passed++;
    else if (r[i].outcome == PERF_OUTCOME_SKIP) skipped++;
    else failed++;
  }
  failing *t = NULL;
  const perf__result **runs = NULL;
  long m = failed ? failing_tests(r, n, &t, &runs) : 0;
  if (m < 0) printf("\nout of memory: the tests that did not pass are not listed again\n");
  if (m > 0)
    printf("\n%ld %s not pass:\n", m, perf__units_noun(m, "test did", "tests did"));
  for (long k = 0; k < m; k++) summary_line(&t[k]);
  free(t);
  free(runs);
  printf("\n%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
  fflush(stdout);
}
