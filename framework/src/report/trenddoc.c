/* trenddoc.c — the trend report as a document: each series' chart and change points, as a page. */
#define _GNU_SOURCE
#include "report/trenddoc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "record/claimrec.h"
#include "report/svg.h"
#include "report/xml.h"

typedef perf__trenddoc_series found;
enum { MAX_CUTS = PERF__TREND_MAX_CUTS };

/* See trenddoc.h. */
size_t perf__trenddoc_own_cuts(const perf__trend_series *t, size_t *suspected)
{
  size_t n = 0;
  for (int k = 0; k < t->ncp; k++)
    if (!t->shift[k]) n++, *suspected += (size_t)t->cp[k].suspected;
  return n;
}

/* See trenddoc.h. */
char *perf__trenddoc_chart(const perf__series_set *set, const found *x)
{
  const perf__series *s = x->t.s;
  const perf__series_axis *a = &set->axes[s->axis];
  double *xs = calloc(s->n + 1, 4 * sizeof *xs);
  char label[600], cut_text[MAX_CUTS][64], *text = NULL;
  size_t len = 0;
  FILE *f = xs ? open_memstream(&text, &len) : NULL;
  if (!f) return free(xs), NULL;
  double *y = xs + s->n, *lo = y + s->n, *hi = lo + s->n;
  for (size_t i = 0; i < s->n; i++)
    xs[i] = (double)s->pts[i].at, y[i] = s->pts[i].value, lo[i] = s->pts[i].lo, hi[i] = s->pts[i].hi;
  perf__svg_series line = {s->is_claim ? "ratio, as its verdict line gives it" : "median per iteration",
                           xs, y, lo, hi, NULL, s->n};
  perf__svg_chart c = {.title = perf__series_label(s, label, sizeof label),
                       .xlabel = "commit, in the order first recorded",
                       .ylabel = s->is_claim ? "ratio" : "time per iteration",
                       .ytime = !s->is_claim, .s = &line, .ns = 1,
                       .xnames = (const char *const *)a->commit, .nxnames = a->n};
  char title[700];
  if (isfinite(x->band[0])) {
    c.has_hband = 1, c.hband[0] = x->band[0], c.hband[1] = x->band[1];
    snprintf(title, sizeof title, "%s (green: baseline to its tolerance)", label);
    c.title = title;
  }
  if (perf__claimrec_at_least(s->kind) && isfinite(s->threshold)) c.hline[c.nhline++] = s->threshold;
  for (int k = 0; k < x->t.ncp && k < MAX_CUTS; k++) {
    const perf__changepoint *cp = &x->t.cp[k];
    c.cut[c.ncut] = (double)s->pts[cp->at].at;
    if (x->t.shift[k]) snprintf(cut_text[k], sizeof cut_text[k], "the machine: %+.1f %%", 100 * cp->size);
    else snprintf(cut_text[k], sizeof cut_text[k], "%s%+.1f %% (p = %.2g)", cp->suspected ? "suspected " : "",
                  100 * cp->size, cp->p);
    c.cut_label[c.ncut++] = cut_text[k];
  }
  perf__svg_chart_write(f, &c);
  int bad = ferror(f);
  if (fclose(f) || bad) free(text), text = NULL;
  free(xs);
  return text;
}

/* See trenddoc.h. */
int perf__trenddoc_html(FILE *p, const perf__trenddoc *doc)
{
  const perf__series_set *set = doc->set;
  const found *f = doc->f;
  size_t n = doc->n;
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>perfgate trend"
        "</title><style>body{font-family:sans-serif;margin:24px;max-width:1100px}"
        "svg{max-width:100%;height:auto}td,th{border:1px solid #ddd;padding:3px 6px}"
        "table{border-collapse:collapse}</style></head><body>\n<h1>perfgate trend</h1>\n", p);
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      size_t suspected = 0, own = perf__trenddoc_own_cuts(&f[i].t, &suspected);
      if ((own > 0) != (pass == 0) || f[i].t.s->n < 2) continue;
      char label[600];
      fputs("<figure><figcaption>", p);
      perf__xml_str(p, set->axes[f[i].t.s->axis].gpu);
      fputs(": ", p);
      perf__xml_str(p, perf__series_label(f[i].t.s, label, sizeof label));
      fprintf(p, "%s</figcaption>\n", own > suspected ? " <b>(change point)</b>"
                                       : own       ? " <b>(suspected change)</b>"
                                       : f[i].t.ncp ? " (the machine's shift)" : "");
      char *svg = perf__trenddoc_chart(set, &f[i]);
      if (svg) fputs(svg, p);
      free(svg);
      fputs("</figure>\n", p);
    }
  fputs("</body></html>\n", p);
  return 0;
}
