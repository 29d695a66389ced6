/* markdown.c — --markdown: a summary table for a CI step summary, failures first, under 1 MB. */
#include "report/markdown.h"

#include <stdint.h>
#include <stdlib.h>

#include "util/registry.h"
#include "util/status.h"
#include "report/headroom.h"
#include "report/tally.h"

enum { MARKDOWN_CAP = 1000 * 1000 }; /* GitHub's step summary takes 1 MiB */

/* One row: outcome, test, wall time and, for a failure, its verdict lines
 * (else the reason); for a test that ran twice, the lines that show both
 * attempts. */
static void md_row(FILE *f, const perf__registry_test *t, const perf__result *r, int bad)
{
  char name[512];
  fprintf(f, "| %s | ", perf__status_word(r->outcome));
  perf__tally_md_code(f, perf__registry_fullname(t, name, sizeof name), SIZE_MAX);
  fprintf(f, " | %.2f s | ", r->seconds);
  int shown_lines = 0;
  for (size_t k = 0; (bad || r->first) && k < r->nlines && shown_lines < 14; k++)
    if (!r->verbose_only[k] && ((bad && (perf__tally_verdict_line(r->lines[k]) ||
                                         perf__tally_explain_line(r->lines[k]))) ||
                                perf__tally_first_attempt_line(r->lines[k]))) {
      fputs(shown_lines++ ? "<br>" : "", f);
      perf__tally_md_cell(f, r->lines[k], 600);
    }
  if (!shown_lines) perf__tally_md_cell(f, r->reason, 600);
  fputs(" |\n", f);
}

/* See markdown.h. */
void perf__markdown_write(FILE *f, const perf__result_set *s, const perf__lastruns *h)
{
  const perf__result *r = s->r;
  size_t n = s->n;
  perf__tally c = perf__tally_count(r, n);
  size_t shown = 0;
  fprintf(f, "## perfgate: %zu passed, %zu failed, %zu skipped\n\n",
          c.tests - c.failures - c.errors - c.skipped, c.failures + c.errors, c.skipped);
  fputs("| result | test | wall | details |\n|---|---|---:|---|\n", f);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      int bad = perf__tally_is_failure(r[i].outcome) || r[i].outcome == PERF_OUTCOME_ERROR;
      if (bad != (pass == 0)) continue;
      if (ftell(f) > MARKDOWN_CAP - 4096) continue;
      shown++;
      md_row(f, s->tests[i % s->nt], &r[i], bad);
    }
  if (shown < n) fprintf(f, "\n%zu more tests not shown: the summary stays under 1 MB.\n", n - shown);
  perf__headroom_row *rows;
  size_t nrows = perf__headroom_build(r, n, &rows);
  if (perf__headroom_repeated(rows, nrows) && ftell(f) < MARKDOWN_CAP - 64 * 1024)
    perf__headroom_markdown(f, rows, nrows);
  free(rows);
  if (h && ftell(f) < MARKDOWN_CAP - 64 * 1024) perf__lastruns_markdown(f, h, MARKDOWN_CAP - 4096 - ftell(f));
}
