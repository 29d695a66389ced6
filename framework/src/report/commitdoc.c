/* commitdoc.c — the commit report as a document: each GPU's verdict and changes, in each format. */
#define _GNU_SOURCE
#include "report/commitdoc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host/clock.h"
#include "history/band.h"
#include "history/judge.h"
#include "report/tally.h"
#include "report/xml.h"
#include "util/units.h"

typedef perf__commitdoc_change change;
typedef perf__commitdoc_gpu gpu_row;


/* A value as the report shows it: a time, or a ratio "5.54x". */
static char *value(const perf__series *s, double v, char *buf, size_t len)
{
  if (s->is_claim) snprintf(buf, len, "%.3fx", v);
  else perf__units_time(buf, len, v);
  return buf;
}

/* A change as one line: "+5.1% worse: 1.051 ms [1.041 ms, 1.061 ms]
 * against 1.000 ms, the centre of 12 earlier commits from c01 (+-0.8 %
 * between runs; p = 3.1e-07)"; undecided: "... vs 1.000 ms [...] at c03:
 * undecided: 2 earlier commits (5 tell the noise between runs)". Never
 * fails. */
static char *describe(const change *c, char *buf, size_t len)
{
  char a[32], al[32], ah[32], b[32], bl[32], bh[32];
  const perf__series *s = c->s;
  int u = snprintf(buf, len, "%+.1f%% %s: %s [%s, %s] ", 100 * c->rel, c->worse ? "worse" : "better",
                   value(s, c->now.value, a, sizeof a), value(s, c->now.lo, al, sizeof al),
                   value(s, c->now.hi, ah, sizeof ah));
  if (u < 0 || (size_t)u >= len) return buf;
  if (c->cls == PERF__JUDGE_SHORT)
    snprintf(buf + u, len - (size_t)u, "vs %s [%s, %s] at %.12s: undecided: %zu earlier %s%s%.12s "
             "(%d tell the noise between runs)", value(s, c->was.value, b, sizeof b),
             value(s, c->was.lo, bl, sizeof bl), value(s, c->was.hi, bh, sizeof bh), c->was_commit,
             c->band.n, perf__units_noun((long long)c->band.n, "commit", "commits"),
             c->band.cut ? " since its change at " : "", c->band.cut ? c->band_from : "",
             PERF__BAND_MIN_COMMITS);
  else
    u += snprintf(buf + u, len - (size_t)u, "against %s, the centre of %zu earlier commits %s "
                  "%.12s (+-%.1f %% between runs; p = %.2g)", value(s, exp(c->band.mean), b, sizeof b),
                  c->band.n, c->band.cut ? "since its change at" : "from", c->band_from,
                  100 * expm1(c->sd), c->p);
  if (c->cls == PERF__JUDGE_TAIL && u > 0 && (size_t)u < len)
    snprintf(buf + u, len - (size_t)u, ": undecided: the noise of its kind reaches this far by "
             "itself (p = %.2g in the tails its GPU's history shows, Student's t with %.3g degrees "
             "of freedom%s)", c->tail_p, c->tail_nu,
             perf__clock_host_side(perf__clock_of_name(c->s->clock)) ? ", at most a host clock's" : "");
  return buf;
}

static const struct {
  const char *word, *css;
} verdicts[] = {
#define X(v, word, css) {word, css},
    PERF__COMMITDOC_VERDICTS(X)
#undef X
};

/* The GPU's verdict: did not run; INCOMPLETE (no run of it whole);
 * UNDECIDED (every shard recorded unfit); REGRESSED (a failed test in a
 * fit shard or a change for the worse); UNDECIDED (a series moved with too
 * short a band or within its tails, or no series has a band long enough);
 * held. Never fails. */
perf__commitdoc_verdict perf__commitdoc_verdict_of(const gpu_row *g)
{
  if (!g->runs) return PERF__COMMITDOC_DID_NOT_RUN;
  if (g->incomplete[0]) return PERF__COMMITDOC_INCOMPLETE;
  if (g->unfit == g->shards) return PERF__COMMITDOC_UNDECIDED;
  if (g->failed || g->nworse) return PERF__COMMITDOC_REGRESSED;
  if (g->nundecided || !g->decided) return PERF__COMMITDOC_UNDECIDED;
  return PERF__COMMITDOC_HELD;
}

/* The GPU's verdict word. Never fails. */
static const char *verdict(const gpu_row *g)
{
  return verdicts[perf__commitdoc_verdict_of(g)].word;
}

/* Why g is UNDECIDED, into buf[len] ("" for another verdict). Never
 * fails. */
static const char *undecided_why(const gpu_row *g, char *buf, size_t len)
{
  buf[0] = '\0';
  if (perf__commitdoc_verdict_of(g) != PERF__COMMITDOC_UNDECIDED) return buf;
  if (g->unfit == g->shards)
    snprintf(buf, len, "every run of it was recorded on an unfit runner: %.200s",
             g->unfit_why ? g->unfit_why : "");
  else if (g->nshort && g->ntail)
    snprintf(buf, len, "%zu %s moved with fewer than %d earlier commits to tell the noise between "
             "runs, %zu no farther than the noise of its kind reaches by itself", g->nshort,
             perf__units_noun((long long)g->nshort, "series", "series"), PERF__BAND_MIN_COMMITS,
             g->ntail);
  else if (g->nshort)
    snprintf(buf, len, "%zu %s moved with fewer than %d earlier commits to tell the noise between "
             "runs", g->nshort, perf__units_noun((long long)g->nshort, "series", "series"),
             PERF__BAND_MIN_COMMITS);
  else if (g->ntail)
    snprintf(buf, len, "%zu %s moved beyond %s band but no farther than the noise of %s kind "
             "reaches by itself", g->ntail, perf__units_noun((long long)g->ntail, "series", "series"),
             g->ntail == 1 ? "its" : "their", g->ntail == 1 ? "its" : "their");
  else
    snprintf(buf, len, "no series has %d earlier commits to tell the noise between runs yet",
             PERF__BAND_MIN_COMMITS);
  return buf;
}

/* g's notes, each a line: the runs recorded unfit, the machine's move.
 * Returns how many (at most 2), into note[k][len]. Never fails. */
static int notes_of(const gpu_row *g, char note[2][400])
{
  int k = 0;
  if (g->unfit && g->unfit < g->shards)
    snprintf(note[k++], 400, "%ld of %ld %s recorded on an unfit runner (%.200s), %ld failed %s in "
             "them: not counted, they do not decide alone", g->unfit, g->shards,
             g->shards == g->runs ? "runs" : "shards", g->unfit_why ? g->unfit_why : "",
             g->unfit_failed, perf__units_noun(g->unfit_failed, "test", "tests"));
  if (g->shift.moved)
    snprintf(note[k++], 400, "the machine: %zu of %zu %s %+.1f %% at once (%+.1f %% .. %+.1f "
             "%%): a driver, the clocks or the host changed; %zu not counted as changes",
             g->shift.moved, g->shift.of, perf__units_noun((long long)g->shift.of, "workload", "workloads"),
             100 * g->shift.size, 100 * g->shift.smallest, 100 * g->shift.largest, g->machine);
  return k;
}

void perf__commitdoc_print_gpu(const gpu_row *g)
{
  char line[700], lab[600], why[300], note[2][400];
  printf("  %s: %s", g->name, verdict(g));
  if (!g->runs) return (void)printf(" this commit\n");
  if (*undecided_why(g, why, sizeof why)) printf(" (%s)", why);
  printf(": %ld %s", g->runs, perf__units_noun(g->runs, "run", "runs"));
  if (g->shards != g->runs) printf(" (%ld %s)", g->shards, perf__units_noun(g->shards, "shard", "shards"));
  printf(", %ld failed %s", g->failed, perf__units_noun(g->failed, "test", "tests"));
  if (g->retried) printf(" (%ld retried %s replaced by a later attempt)", g->retried,
                         perf__units_noun(g->retried, "shard", "shards"));
  if (g->incomplete[0]) printf("; %s, never green", g->incomplete);
  if (g->partial[0]) printf("; also %s (not whole)", g->partial);
  printf("; %zu of %zu series compared, %zu decided, %zu changed (%zu worse)", g->compared,
         g->series, g->decided, g->nch - g->nundecided, g->nworse);
  if (g->nundecided) printf(", %zu undecided", g->nundecided);
  putchar('\n');
  for (int k = 0, n = notes_of(g, note); k < n; k++) printf("      %s\n", note[k]);
  for (size_t i = 0; i < g->nch; i++)
    printf("      %s: %s\n", perf__series_label(g->ch[i].s, lab, sizeof lab),
           describe(&g->ch[i], line, sizeof line));
}

/* The rule in one sentence, into buf[len]. Never fails. */
static const char *rule(char *buf, size_t len)
{
  snprintf(buf, len, "A series moved when its value lies beyond the noise between runs its earlier "
           "commits show (since its last change point; at least %d of them: a prediction "
           "interval, p <= %g over the series of the GPU) by %.0f %% or more; a move that most "
           "workloads share is the machine's", PERF__BAND_MIN_COMMITS, PERF__JUDGE_ALPHA,
           100 * PERF__JUDGE_MIN_CHANGE);
  return buf;
}

/* See commitdoc.h. */
int perf__commitdoc_markdown(FILE *f, const perf__commitdoc *r)
{
  char line[700], lab[600], text[400], note[2][400];
  fprintf(f, "### perfgate: commit `%.40s` across GPUs\n\nEarlier commits: %s. %s.\n\n| GPU | "
             "verdict | runs | failed tests | series compared (decided) | changed (worse) | "
             "undecided |\n|---|---|---|---|---|---|---|\n",
          r->commit, r->how, rule(text, sizeof text));
  for (size_t i = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    int bad = perf__commitdoc_verdict_of(g) == PERF__COMMITDOC_REGRESSED;
    fputs("| ", f);
    perf__tally_md_cell(f, g->name, SIZE_MAX);
    fprintf(f, " | %s%s%s | %ld | %ld | %zu of %zu (%zu) | %zu (%zu) | %zu |\n", bad ? "**" : "",
            verdict(g), bad ? "**" : "", g->runs, g->failed, g->compared, g->series, g->decided,
            g->nch - g->nundecided, g->nworse, g->nundecided);
  }
  for (size_t i = 0, said = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    int n = notes_of(g, note);
    const char *what[4] = {g->incomplete[0] ? g->incomplete : g->partial, undecided_why(g, text, sizeof text),
                           n > 0 ? note[0] : "", n > 1 ? note[1] : ""};
    for (int k = 0; k < 4; k++) {
      if (!what[k][0]) continue;
      fputs(said++ ? "- " : "\n- ", f);
      perf__tally_md_cell(f, g->name, SIZE_MAX);
      fputs(": ", f);
      perf__tally_md_cell(f, what[k], SIZE_MAX);
      fputs(k ? "\n" : g->incomplete[0] ? ", never green\n" : " (not whole)\n", f);
    }
  }
  for (size_t i = 0; i < r->ng; i++)
    for (size_t k = 0; k < r->g[i].nch; k++) {
      fputs(k ? "" : "\n", f);
      fputs("- ", f);
      perf__tally_md_cell(f, r->g[i].name, SIZE_MAX);
      fputs(" · ", f);
      perf__tally_md_code(f, perf__series_label(r->g[i].ch[k].s, lab, sizeof lab), SIZE_MAX);
      fputs(": ", f);
      perf__tally_md_cell(f, describe(&r->g[i].ch[k], line, sizeof line), SIZE_MAX);
      fputs("\n", f);
    }
  return 0;
}

/* See commitdoc.h. */
int perf__commitdoc_html(FILE *f, const perf__commitdoc *r)
{
  char line[700], lab[600], text[400], note[2][400];
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfgate: "
        "commit ", f);
  perf__xml_str(f, r->commit);
  fputs("</title></head><body>\n<h1>perfgate: commit <code>", f);
  perf__xml_str(f, r->commit);
  fputs("</code> across GPUs</h1>\n<p>Earlier commits: ", f);
  perf__xml_str(f, r->how);
  fputs(". ", f);
  perf__xml_str(f, rule(text, sizeof text));
  fputs(".</p>\n<table><tr><th>GPU</th><th>verdict</th><th>runs</th><th>failed tests</th>"
        "<th>changes</th></tr>\n", f);
  for (size_t i = 0; i < r->ng; i++) {
    const gpu_row *g = &r->g[i];
    perf__commitdoc_verdict v = perf__commitdoc_verdict_of(g);
    fputs("<tr><td>", f);
    perf__xml_str(f, g->name);
    fprintf(f, "</td><td class=\"%s\">%s</td><td>%ld</td><td>%ld</td><td>", verdicts[v].css,
            verdicts[v].word, g->runs, g->failed);
    if (g->incomplete[0] || g->partial[0]) {
      perf__xml_str(f, g->incomplete[0] ? g->incomplete : g->partial);
      fputs(g->incomplete[0] ? ", never green<br>" : " (not whole)<br>", f);
    }
    if (*undecided_why(g, text, sizeof text)) perf__xml_str(f, text), fputs("<br>", f);
    for (int k = 0, n = notes_of(g, note); k < n; k++) perf__xml_str(f, note[k]), fputs("<br>", f);
    for (size_t k = 0; k < g->nch; k++) {
      perf__xml_str(f, perf__series_label(g->ch[k].s, lab, sizeof lab));
      fputs(": ", f);
      perf__xml_str(f, describe(&g->ch[k], line, sizeof line));
      fputs("<br>", f);
    }
    fputs("</td></tr>\n", f);
  }
  fputs("</table></body></html>\n", f);
  return 0;
}

