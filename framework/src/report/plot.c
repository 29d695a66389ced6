/* plot.c — the charts a run's claim records make. */
/* Time and throughput against a sweep's parameter, and ratios against their
 * thresholds. */
#define _GNU_SOURCE
#include "report/plot.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/claimrec.h"
#include "io/file.h"
#include "io/json.h"
#include "baseline/peaks.h"
#include "util/status.h"
#include "report/svg.h"
#include "util/progname.h"

enum { MAX_LINES = 8, MAX_PARAMS = 4, MAX_SITES = 16, MAX_ROWS = 64 };

typedef struct line {
  char label[128];
  double x[PERF__CLAIMREC_MAX_POINTS], y[PERF__CLAIMREC_MAX_POINTS], lo[PERF__CLAIMREC_MAX_POINTS], hi[PERF__CLAIMREC_MAX_POINTS];
  int mark[PERF__CLAIMREC_MAX_POINTS];
  size_t n;
} line;

/* Time against one sweep parameter, a line per workload; and the rate of
 * the work the workloads declared, a line per workload and unit. */
typedef struct timechart {
  char param[64];
  line w[MAX_LINES];
  size_t nw;
  line r[MAX_LINES];
  size_t nr;
} timechart;

/* One ratio claim made at every point of a sweep. */
typedef struct site {
  char text[300], kind[16], param[64], clock[16];
  double threshold;
  line l;
} site;

typedef struct charts {
  const char *test;
  timechart t[MAX_PARAMS];
  size_t nt;
  site s[MAX_SITES];
  size_t ns;
  perf__svg_row rows[MAX_ROWS];
  char row_label[MAX_ROWS][120];
  size_t nrows;
  perf__plot_chart *out;
  size_t nout;
} charts;

/* A chart's name part for a claim, from its message "KIND(a, b, ...) at
 * file:line": the kind in lower case and the two workloads' names
 * ("crossover-gpu-cpu"), so that the name stays when the claim's line
 * moves. Into buf[len]; never fails ("claim" when the message has no
 * such form). */
static char *claim_slug(const char *msg, char *buf, size_t len)
{
  const char *open = strchr(msg, '('), *comma = open ? strchr(open, ',') : NULL;
  const char *second = comma ? comma + 1 + strspn(comma + 1, " ") : NULL;
  size_t n2 = second ? strcspn(second, ",)") : 0;
  if (!open || !second || !n2) return snprintf(buf, len, "claim"), buf;
  snprintf(buf, len, "%.*s-%.*s-%.*s", (int)(open - msg), msg, (int)(comma - open - 1), open + 1,
           (int)n2, second);
  for (char *p = buf; *p; p++) *p = (char)tolower((unsigned char)*p);
  return buf;
}

/* s, or "?" when it is unset. */
static const char *or_what(const char *s) { return s ? s : "?"; }

/* A claim's mark: PASS and FAIL decided, the rest open. */
static int mark_of(perf_outcome o)
{
  return o == PERF_OUTCOME_PASS ? PERF__MARK_PASS : o == PERF_OUTCOME_FAIL ? PERF__MARK_FAIL : PERF__MARK_OPEN;
}

/* A crossover point's mark: faster and slower decided, the rest open. */
static int mark_of_side(const char *side)
{
  if (side && !strcmp(side, "faster")) return PERF__MARK_PASS;
  if (side && !strcmp(side, "slower")) return PERF__MARK_FAIL;
  return PERF__MARK_OPEN;
}

/* Adds or replaces point x of l (a narrower interval replaces a wider one). */
static void put(line *l, double x, double y, double lo, double hi, int mark)
{
  size_t i = 0;
  while (i < l->n && l->x[i] != x) i++;
  if (i == PERF__CLAIMREC_MAX_POINTS) return;
  if (i < l->n && !((hi - lo) / y < (l->hi[i] - l->lo[i]) / l->y[i])) return;
  if (i == l->n) l->n++;
  l->x[i] = x, l->y[i] = y, l->lo[i] = lo, l->hi[i] = hi, l->mark[i] = mark;
}

static timechart *time_chart(charts *c, const char *param)
{
  for (size_t i = 0; i < c->nt; i++)
    if (!strcmp(c->t[i].param, param)) return &c->t[i];
  if (c->nt == MAX_PARAMS) return NULL;
  timechart *t = &c->t[c->nt++];
  snprintf(t->param, sizeof t->param, "%s", param);
  return t;
}

/* The line labelled label among lines[0..*n) (added when new), or NULL
 * when the chart holds MAX_LINES already. Never fails otherwise. */
static line *line_of(line *lines, size_t *n, const char *label)
{
  size_t i = 0;
  while (i < *n && strcmp(lines[i].label, label)) i++;
  if (i == MAX_LINES) return NULL;
  if (i == *n) snprintf(lines[(*n)++].label, sizeof lines[0].label, "%s", label);
  return &lines[i];
}

/* w's declared work at point x as rates (baseline/peaks.h): one line for its
 * bytes, one for its math. Never fails (a full chart drops the line). */
static void add_rates(timechart *t, const perf__claimrec_workload *w, const char *clock, double x)
{
  double amount[2] = {perf__peaks_bytes(&w->work), w->work.flops}, r[3];
  for (int k = 0; k < 2; k++) {
    char label[128];
    if (!(amount[k] > 0)) continue;
    snprintf(label, sizeof label, "%s %s (%s)", w->name,
             k ? perf__peaks_type_word(w->work.type) : "bytes", clock);
    line *l = line_of(t->r, &t->nr, label);
    perf__peaks_rate(amount[k], w->median_s, w->median_interval_s, r);
    if (l) put(l, x, r[0], r[1], r[2], PERF__MARK_PLAIN);
  }
}

/* Both workloads of a measurement at sweep point x. */
static void add_times(charts *c, const perf__claimrec_ratio *m, const char *param, double x)
{
  timechart *t = time_chart(c, param);
  for (int side = 0; t && side < 2; side++) {
    const perf__claimrec_workload *w = side ? &m->b : &m->a;
    if (!w->name) continue;
    char label[128];
    snprintf(label, sizeof label, "%s (%s)", w->name, or_what(m->clock));
    line *l = line_of(t->w, &t->nw, label);
    if (l) put(l, x, w->median_s, w->median_interval_s[0], w->median_interval_s[1], PERF__MARK_PLAIN);
    add_rates(t, w, or_what(m->clock), x);
  }
}

/* A FASTER or SIMILAR claim made at sweep point x: its site's line. */
static void add_site(charts *c, const perf__claimrec *rec, const char *kind, const char *param,
                     double x)
{
  const perf__claimrec_ratio *m = &rec->ratio;
  char text[300], cut[80];
  snprintf(text, sizeof text, "%s", or_what(rec->message));
  snprintf(cut, sizeof cut, " [%s=", param);
  char *at = strstr(text, cut);
  if (at) *at = '\0';
  size_t i = 0;
  while (i < c->ns && strcmp(c->s[i].text, text)) i++;
  if (i == MAX_SITES) return;
  site *s = &c->s[i];
  if (i == c->ns) {
    c->ns++;
    snprintf(s->text, sizeof s->text, "%s", text);
    snprintf(s->kind, sizeof s->kind, "%s", kind);
    snprintf(s->param, sizeof s->param, "%s", param);
    snprintf(s->clock, sizeof s->clock, "%s", or_what(m->clock));
    s->threshold = m->threshold;
  }
  put(&s->l, x, m->ratio, m->interval[0], m->interval[1], mark_of(rec->outcome));
}

/* A row: the claim's text up to " at ", then suffix; its ratio and
 * interval (v: ratio, lo, hi) and what a FASTER or SIMILAR claim with
 * threshold t needs. */
static void put_row(charts *c, const char *text, const char *suffix, const char *kind, double t,
                    const double v[3], int mark)
{
  double value = v[0], lo = v[1], hi = v[2];
  if (c->nrows == MAX_ROWS) return;
  size_t i = c->nrows++;
  const char *at = strstr(text, " at ");
  snprintf(c->row_label[i], sizeof c->row_label[i], "%.*s%s", at ? (int)(at - text) : 80, text,
           suffix);
  int faster = perf__claimrec_at_least(kind);
  c->rows[i] = (perf__svg_row){c->row_label[i], value, lo, hi, faster ? t : 1 / (1 + t),
                               faster ? NAN : 1 + t, mark};
}

/* A claim outside any sweep: one row, its clock in the label. */
static void add_row(charts *c, const perf__claimrec *rec, const char *kind)
{
  const perf__claimrec_ratio *m = &rec->ratio;
  char clock[40];
  snprintf(clock, sizeof clock, " (%s)", or_what(m->clock));
  double v[3] = {m->ratio, m->interval[0], m->interval[1]};
  put_row(c, rec->message ? rec->message : kind, clock, kind, m->threshold, v,
          mark_of(rec->outcome));
}

/* Sorts a line's points by x (insertion sort: at most 64). */
static void sort_line(line *l)
{
  for (size_t i = 1; i < l->n; i++)
    for (size_t j = i; j > 0 && l->x[j - 1] > l->x[j]; j--) {
      double *v[] = {l->x, l->y, l->lo, l->hi};
      for (int k = 0; k < 4; k++) {
        double s = v[k][j];
        v[k][j] = v[k][j - 1], v[k][j - 1] = s;
      }
      int m = l->mark[j];
      l->mark[j] = l->mark[j - 1], l->mark[j - 1] = m;
    }
}

static perf__svg_series series_of(line *l)
{
  sort_line(l);
  return (perf__svg_series){l->label, l->x, l->y, l->lo, l->hi, l->mark, l->n};
}

/* Makes name[len] differ from every chart already made for this run (the
 * same claim made twice in one test): "-2", "-3"... appended. Never fails. */
static void unique_name(const charts *c, char *name, size_t len)
{
  char base[200];
  snprintf(base, sizeof base, "%s", name);
  for (int k = 2, taken = 1; taken; k++) {
    taken = 0;
    for (size_t i = 0; i < c->nout && !taken; i++) taken = !strcmp(c->out[i].name, name);
    if (taken) snprintf(name, len, "%.180s-%d", base, k);
  }
}

/* Appends a chart named test--suffix; the svg text is made by draw. */
static void emit(charts *c, const char *suffix, void (*draw)(FILE *, const void *), const void *arg)
{
  perf__plot_chart *o = realloc(c->out, (c->nout + 1) * sizeof *o);
  if (!o) return;
  c->out = o;
  perf__plot_chart *ch = &o[c->nout];
  size_t len = 0;
  FILE *f = open_memstream(&ch->svg, &len);
  if (!f) return;
  draw(f, arg);
  if (fclose(f) || !ch->svg) {
    free(ch->svg);
    return;
  }
  snprintf(ch->name, sizeof ch->name, "%s--%s", c->test, suffix);
  for (char *p = ch->name; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_')) *p = '_';
  unique_name(c, ch->name, sizeof ch->name);
  c->nout++;
}

static void draw_chart(FILE *f, const void *arg) { perf__svg_chart_write(f, arg); }

static void time_charts(charts *c, int xlog)
{
  for (size_t i = 0; i < c->nt; i++) {
    timechart *t = &c->t[i];
    perf__svg_series s[MAX_LINES];
    for (size_t k = 0; k < t->nw; k++) s[k] = series_of(&t->w[k]);
    char title[300], xl[96], suffix[96];
    snprintf(title, sizeof title, "%s: time per iteration against %s", c->test, t->param);
    snprintf(xl, sizeof xl, "%s", t->param);
    snprintf(suffix, sizeof suffix, "time-%s", t->param);
    perf__svg_chart ch = {.title = title, .xlabel = xl, .xlog = xlog, .ylog = 1, .ytime = 1,
                          .ylabel = "time per iteration (median, 95% interval band)",
                          .s = s, .ns = t->nw};
    emit(c, suffix, draw_chart, &ch);
    if (!t->nr) continue;
    for (size_t k = 0; k < t->nr; k++) s[k] = series_of(&t->r[k]);
    snprintf(title, sizeof title, "%s: throughput against %s", c->test, t->param);
    snprintf(suffix, sizeof suffix, "throughput-%s", t->param);
    perf__svg_chart rc = {.title = title, .xlabel = xl, .xlog = xlog, .ylog = 1,
                          .ylabel = "declared work per second: bytes (B/s) or operations of the "
                                    "type named (from the medians, 95% interval band)",
                          .s = s, .ns = t->nr};
    emit(c, suffix, draw_chart, &rc);
  }
}

/* A site measured at one point only: a row, its point and clock in the
 * label. */
static void site_row(charts *c, const site *s)
{
  char suffix[120];
  snprintf(suffix, sizeof suffix, " [%s=%.15g] (%s)", s->param, s->l.x[0], s->clock);
  double v[3] = {s->l.y[0], s->l.lo[0], s->l.hi[0]};
  put_row(c, s->text, suffix, s->kind, s->threshold, v, s->l.mark[0]);
}

static void site_charts(charts *c, int xlog)
{
  for (size_t i = 0; i < c->ns; i++) {
    site *s = &c->s[i];
    if (s->l.n == 1) {
      site_row(c, s);
      continue;
    }
    int faster = perf__claimrec_at_least(s->kind);
    perf__svg_series se = series_of(&s->l);
    se.label = faster ? "speedup, interval" : "ratio, interval";
    char suffix[160], yl[120];
    claim_slug(s->text, suffix, sizeof suffix);
    snprintf(yl, sizeof yl, "%s (%s clock medians); %s", faster ? "speedup of a over b" : "a / b",
             s->clock, faster ? "dashed: needed" : "green band: needed");
    perf__svg_chart ch = {.title = s->text, .xlabel = s->param, .xlog = xlog, .ylog = 1,
                          .ylabel = yl, .s = &se, .ns = 1};
    if (faster) ch.hline[ch.nhline++] = s->threshold;
    else ch.has_hband = 1, ch.hband[0] = 1 / (1 + s->threshold), ch.hband[1] = 1 + s->threshold;
    emit(c, suffix, draw_chart, &ch);
  }
}

/* A CROSSOVER record: the speedup of a over b at each point, 1, the range
 * claimed and the estimate. */
static void crossover_chart(charts *c, const perf__claimrec *rec, int *time_xlog)
{
  const char *param = rec->param, *an = rec->a_name, *bn = rec->b_name;
  if (!param || !an || !bn) return;
  line l = {.n = 0};
  int xlog = 1;
  for (size_t i = 0; i < rec->npoints; i++) {
    const perf__claimrec_point *p = &rec->points[i];
    double x = p->x;
    xlog &= x > 0;
    const perf__claimrec_ratio *m = &p->m; /* all unset when not measured */
    put(&l, x, p->measured ? m->ratio : NAN, p->measured ? m->interval[0] : NAN,
        p->measured ? m->interval[1] : NAN, mark_of_side(p->side));
    add_times(c, m, param, x);
  }
  *time_xlog &= xlog; /* its points are on the parameter's time chart too */
  perf__svg_series se = series_of(&l);
  double tie = rec->tie;
  se.label = isfinite(tie) && tie > 0 ? "green: faster; red: slower; band: tied" : "green: faster; red: slower";
  char title[400], yl[200], est[64], suffix[160], msg[300];
  const char *msg_full = rec->message ? rec->message : "CROSSOVER";
  snprintf(msg, sizeof msg, "%s", msg_full);
  char *at = strstr(msg, " at ");
  if (at) *at = '\0';
  double e = rec->estimate;
  snprintf(title, sizeof title, "%s: %s", msg, perf__status_word(rec->outcome));
  snprintf(yl, sizeof yl, "speedup of %s over %s (%s clock medians)", an, bn,
           or_what(rec->clock));
  snprintf(est, sizeof est, "%s = %.3g", param, e);
  claim_slug(msg_full, suffix, sizeof suffix);
  perf__svg_chart ch = {.title = title, .xlabel = param, .ylabel = yl, .xlog = xlog, .ylog = 1,
                        .s = &se, .ns = 1, .hline = {1}, .nhline = 1, .has_xband = 1,
                        .xband = {rec->range[0], rec->range[1]},
                        .has_vline = isfinite(e), .vline = e, .vline_label = est};
  if (isfinite(tie) && tie > 0)
    ch.has_hband = 1, ch.hband[0] = 1 / (1 + tie), ch.hband[1] = 1 + tie;
  emit(c, suffix, draw_chart, &ch);
}

static void draw_rows(FILE *f, const void *arg)
{
  const charts *c = arg;
  char title[300];
  snprintf(title, sizeof title, "%s: ratio claims against what they need", c->test);
  perf__svg_rows_write(f, title, c->rows, c->nrows);
}

/* One claim record. */
static void add_record(charts *c, const perf__claimrec *rec, int *xlog)
{
  const char *kind = perf__claimrec_kind_word(rec->kind);
  const perf__claimrec_sweep *sw = &rec->ratio.sweep;
  int ratio = perf__claimrec_is_ratio(rec->kind);
  if (rec->kind == PERF__CLAIMREC_CROSSOVER) crossover_chart(c, rec, xlog);
  else if (ratio && sw->set && sw->param) {
    double x = (double)sw->value;
    *xlog &= x > 0;
    add_times(c, &rec->ratio, sw->param, x);
    add_site(c, rec, kind, sw->param, x);
  } else if (ratio)
    add_row(c, rec, kind);
}

/* See plot.h. */
size_t perf__plot_test(const perf__result *r, perf__plot_chart **out)
{
  charts *c = calloc(1, sizeof *c);
  *out = NULL;
  if (!c) return 0;
  c->test = r->name;
  int xlog = 1;
  for (size_t k = 0; k < r->nclaims; k++) add_record(c, &r->claims[k], &xlog);
  time_charts(c, xlog);
  site_charts(c, xlog);
  if (c->nrows) emit(c, "claims", draw_rows, c);
  size_t n = c->nout;
  *out = c->out;
  free(c);
  return n;
}

/* Never fails. */
void perf__plot_free(perf__plot_chart *c, size_t n)
{
  for (size_t i = 0; i < n; i++) free(c[i].svg);
  free(c);
}

/* 1 when name was written before in this run (names[0..n)). */
static int taken(char (*names)[200], size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return 1;
  return 0;
}

/* Writes one chart as a standalone SVG file (perf__file_replace). Returns
 * 0, or after a message ENOMEM (the text ran out of memory) or EIO. */
static int save(const char *dir, const char *name, const char *svg)
{
  char path[4400], why[200];
  perf__json j = {0};
  perf__json_raw(&j, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  perf__json_raw(&j, "%s", svg);
  snprintf(path, sizeof path, "%s/%s.svg", dir, name);
  int e = j.oom ? (snprintf(why, sizeof why, "%s", strerror(ENOMEM)), ENOMEM)
                : perf__file_replace(path, j.s, j.len, 0, NULL, why, sizeof why) ? EIO : 0;
  perf__json_free(&j);
  if (e) fprintf(stderr, "%s: cannot write --plots=%s: %s: %s\n", perf__progname(), dir, path, why);
  return e;
}

/* See plot.h. */
int perf__plot_mkdir(const char *dir, char *err, size_t len)
{
  struct stat st;
  if (!*dir) return snprintf(err, len, "--plots needs a directory"), -1;
  if (mkdir(dir, 0777) && errno != EEXIST)
    return snprintf(err, len, "--plots=%s: cannot create it: %s", dir, strerror(errno)), -1;
  if (stat(dir, &st) || !S_ISDIR(st.st_mode))
    return snprintf(err, len, "--plots=%s: not a directory", dir), -1;
  if (access(dir, W_OK))
    return snprintf(err, len, "--plots=%s: cannot write in it: %s", dir, strerror(errno)), -1;
  return 0;
}

/* See plot.h. */
int perf__plot_dir(const char *dir, const perf__result *r, size_t n)
{
  char why[4400];
  if (perf__plot_mkdir(dir, why, sizeof why)) {
    fprintf(stderr, "%s: %s\n", perf__progname(), why);
    return PERF__EIO;
  }
  char (*names)[200] = NULL;
  size_t used = 0;
  int err = 0;
  for (size_t i = 0; i < n && !err; i++) {
    perf__plot_chart *c;
    size_t m = perf__plot_test(&r[i], &c);
    void *grown = m ? realloc(names, (used + m) * sizeof *names) : names;
    if (m && !grown) err = ENOMEM;
    else names = grown;
    for (size_t k = 0; k < m && !err; k++) {
      char name[200];
      snprintf(name, sizeof name, "%s", c[k].name);
      for (int rep = 2; taken(names, used, name); rep++)
        snprintf(name, sizeof name, "%.180s-%d", c[k].name, rep);
      snprintf(names[used++], sizeof names[0], "%s", name);
      err = save(dir, name, c[k].svg);
    }
    perf__plot_free(c, m);
  }
  free(names);
  if (err == ENOMEM)
    fprintf(stderr, "%s: cannot write --plots=%s: out of memory\n", perf__progname(), dir);
  return err ? PERF__EIO : 0;
}
