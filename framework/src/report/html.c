/* html.c — --html: a self-contained static page: summary, failures first, charts inline. */
#define _GNU_SOURCE
#include "report/html.h"

#include <stdlib.h>
#include <string.h>

#include "report/headroom.h"
#include "report/plot.h"
#include "util/status.h"
#include "util/units.h"
#include "history/secret.h"
#include "report/xml.h"

static const char style[] =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1100px}"
    "table{border-collapse:collapse;margin:8px 0 24px}"
    "td,th{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top;font-size:14px}"
    ".o{font-weight:bold;font-family:monospace}.PASS{color:#1a7f37}.FAIL,.ERROR,"
    ".INCONCLUSIVE{color:#c62828}.SKIP{color:#8a6d00}"
    "section{border-top:1px solid #ccc;padding-top:8px;margin-top:16px}"
    "pre{background:#f6f8fa;padding:8px;white-space:pre-wrap;font-size:12px}"
    "figure{margin:8px 0}svg{max-width:100%;height:auto}";

/* Marks the body with how many charts have a laid-out box, for a browser
 * check: data-charts (in the page) and data-charts-rendered. */
static const char script[] =
    "addEventListener('load',function(){var c=document.querySelectorAll('svg.perf-chart'),"
    "n=0;for(var i=0;i<c.length;i++){var b=c[i].getBoundingClientRect();"
    "if(b.width>0&&b.height>0)n++;}document.body.setAttribute('data-charts-rendered',n);});";

/* As the console counts: FAIL, ERROR and INCONCLUSIVE did not pass. */
static int failed_outcome(perf_outcome o)
{
  return o == PERF_OUTCOME_FAIL || o == PERF_OUTCOME_ERROR || o == PERF_OUTCOME_INCONCLUSIVE;
}

/* Position in the page: failures first, then passes, then skips. */
static int rank(perf_outcome o) { return failed_outcome(o) ? 0 : o == PERF_OUTCOME_PASS ? 1 : 2; }

static void summary(FILE *f, const perf__result *r, size_t n, time_t started, int code,
                    int argc, char **argv)
{
  size_t passed = 0, failed = 0, skipped = 0, errors = 0;
  double secs = 0;
  for (size_t i = 0; i < n; i++) {
    passed += r[i].outcome == PERF_OUTCOME_PASS;
    skipped += r[i].outcome == PERF_OUTCOME_SKIP;
    failed += failed_outcome(r[i].outcome);
    errors += r[i].outcome == PERF_OUTCOME_ERROR;
    secs += r[i].seconds;
  }
  char when[64];
  struct tm tm;
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime_r(&started, &tm));
  fprintf(f, "<h1>perfgate report</h1>\n<p id=\"summary\"><b>%zu passed, %zu failed, %zu "
             "skipped</b> (%zu of the failed %s) of %zu %s; %.1f s; exit code %d; "
             "started %s.</p>\n",
          passed, failed, skipped, errors,
          perf__units_noun((long long)errors, "is an error", "are errors"), n,
          perf__units_noun((long long)n, "test", "tests"), secs, code, when);
  fputs("<p>Command: <code>", f);
  for (int i = 0; i < argc; i++) {
    char *arg = perf__secret_masked(argv[i]); /* --history=postgresql://u:***@... */
    if (i) fputc(' ', f);
    perf__xml_str(f, arg ? arg : "***");
    free(arg);
  }
  fputs("</code></p>\n", f);
}

static void table(FILE *f, const perf__result *r, const size_t *order, size_t n)
{
  fputs("<table id=\"tests\"><tr><th>outcome</th><th>test</th><th>wall time</th><th>reason</th></tr>\n", f);
  for (size_t k = 0; k < n; k++) {
    const perf__result *t = &r[order[k]];
    const char *w = perf__status_word(t->outcome);
    fprintf(f, "<tr><td class=\"o %s\">%s</td><td><a href=\"#t%zu\">", w, w, k);
    perf__xml_str(f, t->name);
    fprintf(f, "</a></td><td>%.2f s</td><td>", t->seconds);
    perf__xml_str(f, t->outcome == PERF_OUTCOME_PASS ? "" : t->reason);
    fputs("</td></tr>\n", f);
  }
  fputs("</table>\n", f);
}

/* One test: its outcome, reason, verdict lines, its own output when it
 * failed, and charts. */
static void section(FILE *f, const perf__result *t, size_t k)
{
  const char *w = perf__status_word(t->outcome);
  fprintf(f, "<section id=\"t%zu\" class=\"test\" data-outcome=\"%s\"><h3><span class=\"o %s\">"
             "%s</span> ", k, w, w, w);
  perf__xml_str(f, t->name);
  fprintf(f, " <small>(%.2f s wall)</small></h3>\n", t->seconds);
  if (t->outcome != PERF_OUTCOME_PASS && t->reason[0]) {
    fputs("<p class=\"reason\">", f);
    perf__xml_str(f, t->reason);
    fputs("</p>\n", f);
  }
  int any = 0;
  for (size_t i = 0; i < t->nlines; i++) {
    if (t->verbose_only[i]) continue;
    fputs(any++ ? "\n" : "<pre class=\"lines\">", f);
    perf__xml_str(f, t->lines[i]);
  }
  if (any) fputs("</pre>\n", f);
  if (t->output_len && (t->outcome == PERF_OUTCOME_FAIL || t->outcome == PERF_OUTCOME_ERROR)) {
    fputs("<p>Output of the test:</p>\n<pre class=\"output\">", f);
    perf__xml_text(f, t->output, perf__result_output_shown(t));
    if (t->output_truncated) fputs(PERF__OUTPUT_CUT "\n", f);
    fputs("</pre>\n", f);
  }
  perf__plot_chart *c;
  size_t m = perf__plot_test(t, &c);
  for (size_t i = 0; i < m; i++) {
    fputs("<figure>", f);
    fputs(c[i].svg, f);
    fputs("</figure>\n", f);
  }
  perf__plot_free(c, m);
  fputs("</section>\n", f);
}

/* The forest plot of every ratio claim, least headroom on top. */
static void headroom(FILE *f, const perf__result *r, size_t n)
{
  perf__headroom_row *rows;
  size_t nrows = perf__headroom_build(r, n, &rows);
  if (nrows) {
    fputs("<figure id=\"headroom\">", f);
    perf__headroom_svg(f, rows, nrows);
    fputs("</figure>\n", f);
  }
  free(rows);
}

/* See html.h. */
void perf__html_write(FILE *f, const perf__result *r, size_t n, time_t started, int code,
                      int argc, char **argv)
{
  size_t *order = malloc((n ? n : 1) * sizeof *order), k = 0;
  if (!order) {
    fputs("<!DOCTYPE html><title>perfgate report</title><p>out of memory</p>\n", f);
    return;
  }
  for (int pass = 0; pass < 3; pass++)
    for (size_t i = 0; i < n; i++)
      if (rank(r[i].outcome) == pass) order[k++] = i;
  fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             "<title>perfgate report</title>\n<style>%s</style>\n<script>%s</script></head>\n"
             "<body>\n", style, script);
  summary(f, r, n, started, code, argc, argv);
  headroom(f, r, n);
  table(f, r, order, n);
  for (size_t i = 0; i < n; i++) section(f, &r[order[i]], i);
  fputs("</body></html>\n", f);
  free(order);
}
