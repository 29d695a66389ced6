/* svg.c — charts as SVG: lines with interval bands, reference lines and interval rows. */
/* The axes are log or linear. */
#include "report/svg.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/units.h"
#include "report/xml.h"

enum { W = 760, H = 420, ML = 84, MR = 220, MT = 40, MB = 58, PW = W - ML - MR, PH = H - MT - MB };

static const char *palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
static const char *mark_fill[] = {NULL, "#2ca02c", "#d62728", "#ffffff"};

typedef struct axis {
  int log;
  double lo, hi;
} axis;

/* A value the axis can show. */
static int usable(const axis *a, double v) { return isfinite(v) && (!a->log || v > 0); }

static void widen(const axis *a, double v, double *lo, double *hi)
{
  if (!usable(a, v)) return;
  if (v < *lo) *lo = v;
  if (v > *hi) *hi = v;
}

/* Pads [lo, hi] by 6 % (of the log span on a log axis); a single value or
 * none gets a range around it. Never fails. */
static void settle(axis *a, double lo, double hi)
{
  if (!(lo <= hi)) lo = 1, hi = 10;
  if (a->log) {
    if (lo == hi) lo /= 2, hi *= 2;
    double pad = pow(hi / lo, 0.06);
    a->lo = lo / pad, a->hi = hi * pad;
  } else {
    if (lo == hi) lo -= 1, hi += 1;
    double pad = 0.06 * (hi - lo);
    a->lo = lo - pad, a->hi = hi + pad;
  }
}

/* Position in [0, 1] along the axis. */
static double frac(const axis *a, double v)
{
  if (a->log) return (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo));
  return (v - a->lo) / (a->hi - a->lo);
}

static double px(const axis *a, double v) { return ML + PW * frac(a, v); }
static double py(const axis *a, double v) { return MT + PH * (1 - frac(a, v)); }

/* Up to 12 tick values: decades (with 2x and 5x when there are few) on a
 * log axis, a 1-2-5 step on a linear one or on a log axis spanning too
 * little for that. Returns how many. */
static size_t ticks(const axis *a, double *t)
{
  size_t n = 0;
  if (a->log) {
    for (int pass = 0; pass < 2 && n < 3; pass++) {
      n = 0;
      static const double steps[2][3] = {{1, 0, 0}, {1, 2, 5}};
      for (double d = pow(10, floor(log10(a->lo))); d <= a->hi && n < 12; d *= 10)
        for (int k = 0; k < 3 && steps[pass][k] > 0; k++) {
          double v = d * steps[pass][k];
          if (v >= a->lo && v <= a->hi && n < 12) t[n++] = v;
        }
    }
    if (n >= 3) return n;
    n = 0;
  }
  double span = a->hi - a->lo, step = pow(10, floor(log10(span / 5)));
  if (span / step > 10) step *= 2;
  if (span / step > 10) step *= 2.5;
  for (double v = ceil(a->lo / step) * step; v <= a->hi && n < 12; v += step) t[n++] = v;
  return n;
}

static void label(char *buf, size_t len, double v, int time)
{
  if (time) perf__units_time(buf, len, v);
  else snprintf(buf, len, "%.6g", v);
}

/* A tick label under the x axis; a power of two from 1024 up reads "2^k"
 * with k raised, so that long sweeps stay legible. */
static void x_label(FILE *f, double x, double v)
{
  int k;
  double m = frexp(v, &k);
  if (v >= 1024 && m == 0.5 && k - 1 < 63) {
    fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">2<tspan dy=\"-6\" "
               "font-size=\"9\">%d</tspan></text>\n", x, MT + PH + 18, k - 1);
    return;
  }
  char buf[48];
  label(buf, sizeof buf, v, 0);
  fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, MT + PH + 16,
          buf);
}

/* The x ticks: the data's own x values when there are at most 16. */
static size_t x_ticks(const perf__svg_chart *c, const axis *a, double *t)
{
  size_t n = 0;
  for (size_t s = 0; s < c->ns; s++)
    for (size_t i = 0; i < c->s[s].n; i++) {
      double v = c->s[s].x[i];
      int seen = !usable(a, v);
      for (size_t k = 0; k < n && !seen; k++) seen = t[k] == v;
      if (seen) continue;
      if (n == 16) return ticks(a, t);
      t[n++] = v;
    }
  return n ? n : ticks(a, t);
}

static void text(FILE *f, double x, double y, const char *anchor, const char *extra,
                 const char *s)
{
  fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
  perf__xml_str(f, s);
  fputs("</text>\n", f);
}

/* The opening tag, a white background, the title and the accessible name. */
static void open_svg(FILE *f, int w, int h, const char *title, const char *kind)
{
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"perf-chart\" "
             "data-kind=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
             "font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n<title>",
          kind, w, h, w, h);
  perf__xml_str(f, title);
  fprintf(f, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h);
  text(f, w / 2.0, 22, "middle", " font-size=\"14\" font-weight=\"bold\"", title);
}

/* Named x ticks: at most 12 of the names, evenly spaced, each cut to 10
 * characters. */
static void x_names(FILE *f, const perf__svg_chart *c, const axis *ax)
{
  size_t step = (c->nxnames + 11) / 12;
  for (size_t i = 0; i < c->nxnames; i += step ? step : 1) {
    double x = px(ax, (double)i);
    char buf[16];
    snprintf(buf, sizeof buf, "%.10s", c->xnames[i] ? c->xnames[i] : "?");
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e6e6e6\"/>\n", x,
            MT, x, MT + PH);
    text(f, x, MT + PH + 16, "middle", "", buf);
  }
}

static void grid(FILE *f, const perf__svg_chart *c, const axis *ax, const axis *ay)
{
  double t[16];
  char buf[48];
  size_t n = c->nxnames ? 0 : x_ticks(c, ax, t);
  if (c->nxnames) x_names(f, c, ax);
  for (size_t i = 0; i < n; i++) {
    double x = px(ax, t[i]);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#e6e6e6\"/>\n", x,
            MT, x, MT + PH);
    x_label(f, x, t[i]);
  }
  n = ticks(ay, t);
  for (size_t i = 0; i < n; i++) {
    double y = py(ay, t[i]);
    fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e6e6e6\"/>\n", ML,
            y, ML + PW, y);
    label(buf, sizeof buf, t[i], c->ytime);
    text(f, ML - 6, y + 4, "end", "", buf);
  }
  fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
             "stroke=\"#888888\"/>\n", ML, MT, PW, PH);
  text(f, ML + PW / 2.0, H - 14, "middle", "", c->xlabel);
  char rot[96];
  snprintf(rot, sizeof rot, " transform=\"rotate(-90 16 %d)\"", MT + PH / 2);
  text(f, 16, MT + PH / 2.0, "middle", rot, c->ylabel);
}

/* Shaded ranges and reference lines, under the data. */
static void guides(FILE *f, const perf__svg_chart *c, const axis *ax, const axis *ay)
{
  if (c->has_xband && usable(ax, c->xband[0]) && usable(ax, c->xband[1]))
    fprintf(f, "<rect class=\"xband\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
               "fill=\"#fff2cc\"/>\n", px(ax, c->xband[0]), MT,
            px(ax, c->xband[1]) - px(ax, c->xband[0]), PH);
  if (c->has_hband && usable(ay, c->hband[0]) && usable(ay, c->hband[1]))
    fprintf(f, "<rect class=\"hband\" x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" "
               "fill=\"#e2f5e2\"/>\n", ML, py(ay, c->hband[1]), PW,
            py(ay, c->hband[0]) - py(ay, c->hband[1]));
  for (size_t i = 0; i < c->nhline; i++)
    if (usable(ay, c->hline[i]))
      fprintf(f, "<line class=\"threshold\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                 "stroke=\"#333333\" stroke-dasharray=\"6 4\"/>\n", ML, py(ay, c->hline[i]),
              ML + PW, py(ay, c->hline[i]));
  if (c->has_vline && usable(ax, c->vline)) {
    double x = px(ax, c->vline);
    fprintf(f, "<line class=\"estimate\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
               "stroke=\"#555555\" stroke-dasharray=\"2 3\"/>\n", x, MT, x, MT + PH);
    if (c->vline_label) text(f, x + 4, MT + 14, "start", "", c->vline_label);
  }
  for (size_t i = 0; i < c->ncut && i < 8; i++) {
    double x = (px(ax, c->cut[i] - 1) + px(ax, c->cut[i])) / 2;
    fprintf(f, "<line class=\"change\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
               "stroke=\"#c0392b\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>\n", x, MT, x, MT + PH);
    if (c->cut_label[i]) text(f, x + 4, MT + 14 + 14 * (double)i, "start", " fill=\"#c0392b\"", c->cut_label[i]);
  }
}

/* The band of series s: its hi edge forward, its lo edge back. */
static void band(FILE *f, const perf__svg_series *s, const axis *ax, const axis *ay,
                 const char *color)
{
  if (!s->lo || !s->hi) return;
  size_t k = 0;
  for (int back = 0; back < 2; back++)
    for (size_t j = 0; j < s->n; j++) {
      size_t i = back ? s->n - 1 - j : j;
      double v = back ? s->lo[i] : s->hi[i];
      if (!usable(ax, s->x[i]) || !usable(ay, s->lo[i]) || !usable(ay, s->hi[i])) continue;
      fprintf(f, "%s%.1f,%.1f", k++ ? " " : "<polygon class=\"band\" points=\"", px(ax, s->x[i]),
              py(ay, v));
    }
  if (k) fprintf(f, "\" fill=\"%s\" fill-opacity=\"0.18\" stroke=\"none\"/>\n", color);
}

/* The line and its markers; returns the points drawn. */
static size_t line(FILE *f, const perf__svg_series *s, const axis *ax, const axis *ay,
                   const char *color)
{
  size_t k = 0;
  for (size_t i = 0; i < s->n; i++)
    if (usable(ax, s->x[i]) && usable(ay, s->y[i]))
      fprintf(f, "%s%.1f,%.1f", k++ ? " " : "<polyline class=\"series\" points=\"",
              px(ax, s->x[i]), py(ay, s->y[i]));
  if (k) fprintf(f, "\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"/>\n", color);
  for (size_t i = 0; i < s->n; i++) {
    if (!usable(ax, s->x[i]) || !usable(ay, s->y[i])) continue;
    int m = s->mark ? s->mark[i] : PERF__MARK_PLAIN;
    fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
               "stroke=\"%s\" stroke-width=\"1.5\"/>\n", px(ax, s->x[i]), py(ay, s->y[i]),
            m > 0 && m < 4 ? mark_fill[m] : color, color);
  }
  return k;
}

/* label cut to len - 1 bytes, ending in "..." when it was longer. */
static const char *shorten(char *buf, size_t len, const char *label)
{
  snprintf(buf, len, "%s", label);
  if (strlen(label) >= len) memcpy(buf + len - 4, "...", 4);
  return buf;
}

static void legend(FILE *f, const char *label, size_t i, const char *color)
{
  char short_label[34];
  shorten(short_label, sizeof short_label, label);
  double y = MT + 12 + 20.0 * (double)i;
  fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
             "stroke-width=\"3\"/>\n", ML + PW + 12, y, ML + PW + 32, y, color);
  text(f, ML + PW + 38, y + 4, "start", "", short_label);
}

/* The axes' ranges over everything drawn. */
static void ranges(const perf__svg_chart *c, axis *ax, axis *ay)
{
  double xl = INFINITY, xh = -INFINITY, yl = INFINITY, yh = -INFINITY;
  for (size_t s = 0; s < c->ns; s++)
    for (size_t i = 0; i < c->s[s].n; i++) {
      const perf__svg_series *r = &c->s[s];
      if (!usable(ax, r->x[i])) continue;
      widen(ax, r->x[i], &xl, &xh);
      widen(ay, r->y[i], &yl, &yh);
      if (r->lo) widen(ay, r->lo[i], &yl, &yh);
      if (r->hi) widen(ay, r->hi[i], &yl, &yh);
    }
  for (size_t i = 0; i < c->nhline; i++) widen(ay, c->hline[i], &yl, &yh);
  for (int i = 0; i < 2; i++) {
    if (c->has_hband) widen(ay, c->hband[i], &yl, &yh);
    if (c->has_xband) widen(ax, c->xband[i], &xl, &xh);
  }
  if (c->has_vline) widen(ax, c->vline, &xl, &xh);
  if (c->nxnames) widen(ax, 0, &xl, &xh), widen(ax, (double)c->nxnames - 1, &xl, &xh);
  settle(ax, xl, xh);
  settle(ay, yl, yh);
}

/* See svg.h. */
void perf__svg_chart_write(FILE *f, const perf__svg_chart *c)
{
  axis ax = {.log = c->xlog}, ay = {.log = c->ylog};
  ranges(c, &ax, &ay);
  open_svg(f, W, H, c->title, "lines");
  grid(f, c, &ax, &ay);
  guides(f, c, &ax, &ay);
  size_t drawn = 0;
  for (size_t s = 0; s < c->ns; s++)
    band(f, &c->s[s], &ax, &ay, palette[s % 8]);
  for (size_t s = 0; s < c->ns; s++) {
    drawn += line(f, &c->s[s], &ax, &ay, palette[s % 8]);
    legend(f, c->s[s].label, s, palette[s % 8]);
  }
  if (!drawn) text(f, ML + PW / 2.0, MT + PH / 2.0, "middle", "", "no measured point to draw");
  fputs("</svg>\n", f);
}

/* One interval row at height y. */
static void row(FILE *f, const perf__svg_row *r, const axis *ax, double y, int left, int width)
{
  double x0 = left;
  double a = r->need_lo, b = isnan(r->need_hi) ? ax->hi : r->need_hi;
  if (usable(ax, a) && usable(ax, b))
    fprintf(f, "<rect class=\"need\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"16\" "
               "fill=\"#e2f5e2\"/>\n", x0 + width * frac(ax, a), y - 8,
            width * (frac(ax, b) - frac(ax, a)));
  if (usable(ax, r->need_lo))
    fprintf(f, "<line class=\"threshold\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"#333333\" stroke-dasharray=\"3 2\"/>\n", x0 + width * frac(ax, r->need_lo),
            y - 10, x0 + width * frac(ax, r->need_lo), y + 10);
  if (usable(ax, r->lo) && usable(ax, r->hi))
    fprintf(f, "<line class=\"interval\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
               "stroke=\"#1f77b4\" stroke-width=\"3\"/>\n", x0 + width * frac(ax, r->lo), y,
            x0 + width * frac(ax, r->hi), y);
  if (usable(ax, r->value))
    fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" "
               "stroke=\"#1f77b4\"/>\n", x0 + width * frac(ax, r->value), y,
            r->mark > 0 && r->mark < 4 ? mark_fill[r->mark] : "#1f77b4");
}

/* See svg.h. */
void perf__svg_rows_write(FILE *f, const char *title, const perf__svg_row *rows, size_t n)
{
  enum { LEFT = 430, WIDTH = 360, ROW = 30, TOP = 44 };
  int h = TOP + ROW * (int)n + 40;
  axis ax = {.log = 1};
  double lo = 1, hi = 1;
  for (size_t i = 0; i < n; i++) {
    widen(&ax, rows[i].lo, &lo, &hi), widen(&ax, rows[i].hi, &lo, &hi);
    widen(&ax, rows[i].value, &lo, &hi), widen(&ax, rows[i].need_lo, &lo, &hi);
    widen(&ax, rows[i].need_hi, &lo, &hi);
  }
  settle(&ax, lo, hi);
  open_svg(f, LEFT + WIDTH + 30, h, title, "rows");
  double t[16];
  char buf[48];
  size_t nt = ticks(&ax, t);
  for (size_t i = 0; i < nt; i++) {
    double x = LEFT + WIDTH * frac(&ax, t[i]);
    fprintf(f, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>\n", x, TOP - 6,
            x, h - 34, t[i] == 1 ? "#999999" : "#e6e6e6");
    snprintf(buf, sizeof buf, "%gx", t[i]);
    text(f, x, h - 20, "middle", "", buf);
  }
  for (size_t i = 0; i < n; i++) {
    double y = TOP + ROW * (double)i + ROW / 2.0;
    char short_label[64]; /* 63 characters fit in LEFT at the charts' font */
    text(f, LEFT - 10, y + 4, "end", "", shorten(short_label, sizeof short_label, rows[i].label));
    row(f, &rows[i], &ax, y, LEFT, WIDTH);
  }
  text(f, LEFT + WIDTH / 2.0, h - 4, "middle", "",
       "speedup (FASTER) or ratio (SIMILAR) with its interval; green: needed");
  fputs("</svg>\n", f);
}
