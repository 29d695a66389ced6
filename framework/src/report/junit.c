/* junit.c — --junit: the run as JUnit XML, one <testsuite> per suite, for GitLab and Jenkins. */
#include "report/junit.h"

#include <string.h>

#include "util/status.h"
#include "report/tally.h"
#include "report/xml.h"

/* The verdict lines, then the test's own output: what GitLab shows. Never
 * fails (stream errors show in ferror(f)), as every writer here. */
static void junit_system_out(FILE *f, const perf__result *r)
{
  fputs("      <system-out>", f);
  for (size_t k = 0; k < r->nlines; k++) {
    if (r->verbose_only[k]) continue;
    perf__xml_str(f, r->lines[k]);
    fputc('\n', f);
  }
  if (r->output_len) {
    fputs("--- output of the test ---\n", f);
    perf__xml_text(f, r->output, perf__result_output_shown(r));
    if (r->output_truncated) fputs(PERF__OUTPUT_CUT "\n", f);
  }
  fputs("</system-out>\n", f);
}

/* One <testcase>, with its failure, error or skip. */
static void junit_case(FILE *f, const perf__registry_test *t, const perf__result *r, int device)
{
  fputs("    <testcase name=\"", f);
  perf__xml_str(f, t->name);
  fputs("\" classname=\"", f);
  perf__xml_str(f, t->suite);
  if (device >= 0) fprintf(f, "@gpu%d", device);
  fputs("\" file=\"", f);
  perf__xml_str(f, t->file);
  fprintf(f, "\" line=\"%d\" time=\"%.3f\">\n", t->line, r->seconds);
  const char *tag = r->outcome == PERF_OUTCOME_SKIP ? "skipped"
                    : r->outcome == PERF_OUTCOME_ERROR ? "error"
                    : perf__tally_is_failure(r->outcome) ? "failure" : NULL;
  if (tag) { /* the message: the first failing verdict, numbers and all */
    const char *msg = r->reason;
    for (size_t k = 0; r->outcome != PERF_OUTCOME_SKIP && k < r->nlines; k++)
      if (!r->verbose_only[k] && perf__tally_verdict_line(r->lines[k]) &&
          !perf__tally_first_attempt_line(r->lines[k])) { /* the final attempt's */
        msg = r->lines[k];
        break;
      }
    fprintf(f, "      <%s message=\"", tag);
    perf__xml_str(f, msg);
    fprintf(f, "\" type=\"%s\">", perf__status_word(r->outcome));
    perf__xml_str(f, r->reason);
    fprintf(f, "</%s>\n", tag);
  }
  junit_system_out(f, r);
  fputs("    </testcase>\n", f);
}

/* The <testsuite> of the suite of result i of s, with every result of
 * that suite from i on. */
static void junit_suite(FILE *f, const perf__result_set *s, size_t i, const char *when, int device)
{
  const perf__registry_test **tests = s->tests;
  size_t nt = s->nt;
  const char *suite = tests[i % nt]->suite;
  perf__tally c = {0};
  for (size_t j = i; j < s->n; j++)
    if (!strcmp(tests[j % nt]->suite, suite)) {
      perf__tally one = perf__tally_count(&s->r[j], 1);
      c.tests++, c.failures += one.failures, c.errors += one.errors;
      c.skipped += one.skipped, c.seconds += one.seconds;
    }
  fputs("  <testsuite name=\"", f);
  perf__xml_str(f, suite);
  if (device >= 0) fprintf(f, "@gpu%d", device);
  fprintf(f, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" "
             "time=\"%.3f\" timestamp=\"%s\">\n",
          c.tests, c.failures, c.errors, c.skipped, c.seconds, when);
  for (size_t j = i; j < s->n; j++)
    if (!strcmp(tests[j % nt]->suite, suite)) junit_case(f, tests[j % nt], &s->r[j], device);
  fputs("  </testsuite>\n", f);
}

/* See junit.h: one <testsuite> per suite, in order of first appearance. */
void perf__junit_write(FILE *f, const perf__result_set *s, time_t started, int device)
{
  char when[32];
  perf__tally all = perf__tally_count(s->r, s->n);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", gmtime(&started));
  fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"perfgate\" "
             "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" "
             "timestamp=\"%s\">\n",
          all.tests, all.failures, all.errors, all.skipped, all.seconds, when);
  for (size_t i = 0; i < s->n; i++) {
    size_t first = 0;
    while (strcmp(s->tests[first % s->nt]->suite, s->tests[i % s->nt]->suite)) first++;
    if (first == i) junit_suite(f, s, i, when, device); /* else written already */
  }
  fputs("</testsuites>\n", f);
}
