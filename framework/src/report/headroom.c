/* headroom.c — each ratio claim across a report's runs: outcomes, flips, and its headroom. */
/* The ratio range, the worst interval bound against the threshold, and the
 * threshold that held every time. */
#include "report/headroom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/claimrec.h"
#include "stats/stats.h"
#include "util/status.h"
#include "util/units.h"
#include "util/grow.h"
#include "report/svg.h"
#include "report/tally.h"

/* A row while it is being built: its ratios, for the median. */
typedef struct building {
  perf__headroom_row row;
  double *ratios;
  size_t nratios, cap;
} building;

/* What the headroom takes from one claim record of one run. */
typedef struct record {
  char claim[400];
  int similar;
  const char *kind;
  double threshold, ratio, lo, hi;
  perf_outcome outcome;
} record;

/* Reads a FASTER or SIMILAR record; 0 when it is one, -1 otherwise. */
static int read_record(const perf__claimrec *c, record *out)
{
  const perf__claimrec_ratio *m = &c->ratio;
  if (!perf__claimrec_is_ratio(c->kind)) return -1;
  snprintf(out->claim, sizeof out->claim, "%s", c->message ? c->message : "");
  char *colon = strrchr(out->claim, ':'); /* "...: PASS" */
  if (colon && colon > out->claim) *colon = '\0';
  out->similar = c->kind == PERF__CLAIMREC_SIMILAR;
  out->kind = perf__claimrec_kind_word(c->kind);
  out->threshold = m->threshold;
  out->ratio = m->ratio;
  out->lo = m->interval[0];
  out->hi = m->interval[1];
  out->outcome = c->outcome == PERF_OUTCOME_PASS ? PERF_OUTCOME_PASS
                 : c->outcome == PERF_OUTCOME_FAIL ? PERF_OUTCOME_FAIL
                                            : PERF_OUTCOME_INCONCLUSIVE;
  return 0;
}

/* What one run's interval leaves to spare (see headroom.h); NaN when the
 * claim never looked. */
static double spare(const record *c)
{
  if (!c->similar) return c->lo / c->threshold;
  double up = 1 + c->threshold;
  return fmin(c->lo * up, up / c->hi);
}

/* The row for test and claim, added when new; NULL without memory. */
static building *row_for(building **rows, size_t *n, size_t *cap, const char *test,
                         const record *c)
{
  for (size_t i = 0; i < *n; i++)
    if (!strcmp((*rows)[i].row.test, test) && !strcmp((*rows)[i].row.claim, c->claim))
      return &(*rows)[i];
  building *p = perf__grow(*rows, cap, *n + 1, sizeof *p, 16);
  if (!p) return NULL;
  *rows = p;
  building *b = &(*rows)[(*n)++];
  memset(b, 0, sizeof *b);
  snprintf(b->row.test, sizeof b->row.test, "%s", test);
  snprintf(b->row.claim, sizeof b->row.claim, "%s", c->claim);
  b->row.similar = c->similar;
  b->row.kind = c->kind;
  b->row.threshold = c->threshold;
  b->row.ratio_min = b->row.lo_min = b->row.headroom = INFINITY;
  b->row.ratio_max = b->row.hi_max = -INFINITY;
  return b;
}

/* Adds one run of the claim to its row. Returns 0 or PERF__ENOMEM. */
static int add(building *b, const record *c)
{
  perf__headroom_row *r = &b->row;
  double *p = perf__grow(b->ratios, &b->cap, b->nratios + 1, sizeof *p, 8);
  if (!p) return PERF__ENOMEM;
  b->ratios = p;
  b->ratios[b->nratios++] = c->ratio;
  r->runs++;
  r->passed += c->outcome == PERF_OUTCOME_PASS;
  r->failed += c->outcome == PERF_OUTCOME_FAIL;
  r->inconclusive += c->outcome == PERF_OUTCOME_INCONCLUSIVE;
  r->ratio_min = fmin(r->ratio_min, c->ratio);
  r->ratio_max = fmax(r->ratio_max, c->ratio);
  r->lo_min = fmin(r->lo_min, c->lo);
  r->hi_max = fmax(r->hi_max, c->hi);
  double s = spare(c);
  r->headroom = isnan(s) ? -INFINITY : fmin(r->headroom, s);
  return 0;
}

/* The row's summary once every run is in. */
static void finish(building *b)
{
  perf__headroom_row *r = &b->row;
  double scratch[64], *work = b->nratios <= 64 ? scratch : malloc(b->nratios * sizeof *work);
  r->ratio_median = work ? perf__stats_median_of(b->ratios, b->nratios, work) : NAN;
  if (work != scratch) free(work);
  int most = r->passed > r->failed ? r->passed : r->failed;
  if (r->inconclusive > most) most = r->inconclusive;
  r->flips = r->runs - most;
  double m = 1 + PERF__HEADROOM_MARGIN;
  r->held_at = r->similar ? m * fmax(r->hi_max, 1 / r->lo_min) - 1 : r->lo_min / m;
  free(b->ratios);
}

/* Least headroom first (never-decided claims before all). */
static int by_headroom(const void *a, const void *b)
{
  double x = ((const perf__headroom_row *)a)->headroom;
  double y = ((const perf__headroom_row *)b)->headroom;
  return (x > y) - (x < y);
}

/* See headroom.h. */
size_t perf__headroom_build(const perf__result *r, size_t n, perf__headroom_row **rows)
{
  building *b = NULL;
  size_t nb = 0, cap = 0;
  int oom = 0;
  *rows = NULL;
  for (size_t i = 0; i < n && !oom; i++) {
    /* a first attempt judged again counts as a run too: its FAIL shows */
    size_t first = r[i].first ? r[i].first->nclaims : 0;
    for (size_t k = 0; k < r[i].nclaims + first && !oom; k++) {
      const perf__claimrec *claim = k < r[i].nclaims ? &r[i].claims[k]
                                                     : &r[i].first->claims[k - r[i].nclaims];
      record c;
      if (read_record(claim, &c)) continue;
      building *row = row_for(&b, &nb, &cap, r[i].name, &c);
      oom = !row || add(row, &c);
    }
  }
  perf__headroom_row *out = oom || !nb ? NULL : malloc(nb * sizeof *out);
  for (size_t i = 0; i < nb; i++) {
    finish(&b[i]);
    if (out) out[i] = b[i].row;
  }
  free(b);
  if (!out) return 0;
  qsort(out, nb, sizeof *out, by_headroom);
  *rows = out;
  return nb;
}

/* See headroom.h. */
int perf__headroom_repeated(const perf__headroom_row *rows, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (rows[i].runs > 1) return 1;
  return 0;
}

/* "10 PASS", "8 PASS, 2 INCONCLUSIVE". */
static const char *outcomes(const perf__headroom_row *r, char *buf, size_t len)
{
  size_t used = 0;
  const int count[] = {r->passed, r->failed, r->inconclusive};
  const char *word[] = {"PASS", "FAIL", "INCONCLUSIVE"};
  buf[0] = '\0';
  for (int i = 0; i < 3 && used < len; i++)
    if (count[i])
      used += (size_t)snprintf(buf + used, len - used, "%s%d %s", used ? ", " : "", count[i],
                               word[i]);
  return buf;
}

/* "1.19x" (FASTER) or "within 7.3 %" (SIMILAR); "none" when a run never
 * cleared anything. */
static const char *held(const perf__headroom_row *r, char *buf, size_t len)
{
  if (!isfinite(r->held_at) || r->held_at <= 0)
    snprintf(buf, len, "none");
  else if (r->similar)
    snprintf(buf, len, "%.3g %%", 100 * r->held_at);
  else
    snprintf(buf, len, "%.3gx", r->held_at);
  return buf;
}

/* The most runs any row has. */
static int most_runs(const perf__headroom_row *rows, size_t n)
{
  int m = 0;
  for (size_t i = 0; i < n; i++)
    if (rows[i].runs > m) m = rows[i].runs;
  return m;
}

/* See headroom.h. */
void perf__headroom_print(FILE *f, const perf__headroom_row *rows, size_t n)
{
  if (!n) return;
  fprintf(f, "\nheadroom of each ratio claim over its runs, least first (the worst run's "
             "interval bound against what it needs; 'held at': the threshold that held every "
             "time with %.0f %% to spare):\n",
          100 * PERF__HEADROOM_MARGIN);
  fprintf(f, "  %-8s  %-22s  %-27s  %-10s  %s\n", "headroom", "outcomes",
          "ratio min / median / max", "held at", "claim");
  for (size_t i = 0; i < n; i++) {
    const perf__headroom_row *r = &rows[i];
    char o[80], h[32], range[64];
    snprintf(range, sizeof range, "%.3f / %.3f / %.3f", r->ratio_min, r->ratio_median,
             r->ratio_max);
    fprintf(f, "  %-8.3f  %-22s  %-27s  %-10s  %s: %s%s\n", r->headroom,
            outcomes(r, o, sizeof o), range, held(r, h, sizeof h), r->test, r->claim,
            r->flips ? "  << FLIPS" : r->headroom < 1 + PERF__HEADROOM_MARGIN ? "  << edge" : "");
  }
}

/* See headroom.h. */
void perf__headroom_markdown(FILE *f, const perf__headroom_row *rows, size_t n)
{
  if (!n) return;
  fprintf(f, "\n### Headroom over %d %s\n\n"
             "The worst run's interval bound against what each claim needs (above 1: held "
             "with that much to spare); held at: the threshold that held every time with "
             "%.0f %% to spare.\n\n"
             "| headroom | outcomes | ratio min / median / max | held at | claim |\n"
             "|---:|---|---|---|---|\n",
          most_runs(rows, n), perf__units_noun(most_runs(rows, n), "run", "runs"),
          100 * PERF__HEADROOM_MARGIN);
  for (size_t i = 0; i < n; i++) {
    const perf__headroom_row *r = &rows[i];
    char o[80], h[32], claim[sizeof r->test + sizeof r->claim + 2];
    fprintf(f, "| %.3f%s | %s | %.3f / %.3f / %.3f | %s | ", r->headroom,
            r->flips ? " (flips)" : "", outcomes(r, o, sizeof o), r->ratio_min,
            r->ratio_median, r->ratio_max, held(r, h, sizeof h));
    snprintf(claim, sizeof claim, "%s: %s", r->test, r->claim);
    perf__tally_md_code(f, claim, SIZE_MAX);
    fputs(" |\n", f);
  }
}

/* See headroom.h. */
void perf__headroom_json(perf__json *j, const perf__headroom_row *rows, size_t n)
{
  perf__json_raw(j, ",\n\"headroom\": [");
  for (size_t i = 0; i < n; i++) {
    const perf__headroom_row *r = &rows[i];
    perf__json_raw(j, "%s\n  {\"test\": ", i ? "," : "");
    perf__json_str(j, r->test);
    perf__json_raw(j, ", \"claim\": ");
    perf__json_str(j, r->claim);
    perf__json_raw(j, ", \"kind\": \"%s\", \"threshold\": ", r->kind ? r->kind : "FASTER");
    perf__json_num(j, r->threshold);
    perf__json_raw(j, ", \"runs\": %d, \"outcomes\": {\"PASS\": %d, \"FAIL\": %d, "
                      "\"INCONCLUSIVE\": %d}, \"flips\": %d, \"ratio\": {\"min\": ",
                   r->runs, r->passed, r->failed, r->inconclusive, r->flips);
    perf__json_num(j, r->ratio_min);
    perf__json_raw(j, ", \"median\": ");
    perf__json_num(j, r->ratio_median);
    perf__json_raw(j, ", \"max\": ");
    perf__json_num(j, r->ratio_max);
    perf__json_raw(j, "}, \"interval_extremes\": [");
    perf__json_num(j, r->lo_min);
    perf__json_raw(j, ", ");
    perf__json_num(j, r->hi_max);
    perf__json_raw(j, "], \"headroom\": ");
    perf__json_num(j, r->headroom);
    perf__json_raw(j, ", \"held_at\": ");
    perf__json_num(j, r->held_at);
    perf__json_raw(j, "}");
  }
  perf__json_raw(j, "]");
}

/* "headroom claim [point] test": the claim before the test, which the plot
 * cuts short, and without its " at file:line". Never fails. */
static void plot_label(char *buf, size_t len, const perf__headroom_row *r)
{
  char claim[sizeof r->claim];
  snprintf(claim, sizeof claim, "%s", r->claim);
  char *at = NULL, *point = strrchr(r->claim, '[');
  for (char *p = strstr(claim, " at "); p; p = strstr(p + 1, " at ")) at = p; /* the last */
  if (at) /* " at file:line [n=16]" becomes " [n=16]" */
    snprintf(at, sizeof claim - (size_t)(at - claim), "%s%s", point ? " " : "", point ? point : "");
  snprintf(buf, len, "%.3f %s %s", r->headroom, claim, r->test);
}

/* See headroom.h. */
void perf__headroom_svg(FILE *f, const perf__headroom_row *rows, size_t n)
{
  perf__svg_row *sr = calloc(n ? n : 1, sizeof *sr);
  char (*label)[700] = calloc(n ? n : 1, sizeof *label); /* score, claim, test */
  if (!sr || !label) {
    free(sr);
    free(label);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    const perf__headroom_row *r = &rows[i];
    double k = r->similar ? 1 : r->threshold; /* FASTER: needs at 1 */
    plot_label(label[i], sizeof label[i], r);
    sr[i] = (perf__svg_row){.label = label[i], .value = r->ratio_median / k,
                            .lo = r->lo_min / k, .hi = r->hi_max / k,
                            .need_lo = r->similar ? 1 / (1 + r->threshold) : 1,
                            .need_hi = r->similar ? 1 + r->threshold : NAN,
                            .mark = r->flips ? PERF__MARK_OPEN
                                    : r->passed == r->runs ? PERF__MARK_PASS
                                                           : PERF__MARK_FAIL};
  }
  char title[200];
  snprintf(title, sizeof title, "headroom: every ratio claim over %d %s, least on top "
           "(FASTER divided by its factor)", most_runs(rows, n),
           perf__units_noun(most_runs(rows, n), "run", "runs"));
  perf__svg_rows_write(f, title, sr, n);
  free(sr);
  free(label);
}
