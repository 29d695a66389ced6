/* lastruns.c — the Markdown section comparing this run with its GPU's last N recorded runs. */
#include "report/lastruns.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/status.h"
#include "util/units.h"
#include "history/schema.h"
#include "history/series.h"
#include "history/connect.h"
#include "history/store.h"
#include "report/tally.h"

/* One series as the section shows it. */
typedef struct row {
  const perf__series *s;
  double now, median, min, max, change, z;
  size_t before;
  int outside; /* +1 worse beyond the earlier runs' spread, -1 better, 0 within */
} row;

/* A run is flagged when it is this many robust standard deviations (1.4826
 * MAD of the earlier runs, at least MAD_FLOOR of their median) from their
 * median. Being outside the range of 9 earlier runs alone happens to 2 in
 * 10 stationary series: an H100 suite run had 52 of 169 so. */
#define FLAG_Z 5.0
#define MAD_FLOOR 0.005

static int by_double(const void *x, const void *y)
{
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

/* The row of s, whose last point is this run (at); 0 when it has none or
 * nothing earlier to compare with. */
static int row_of(const perf__series *s, size_t at, row *r, double *tmp)
{
  if (!s->n || s->pts[s->n - 1].at != at || s->n < 2) return 0;
  size_t m = s->n - 1;
  for (size_t i = 0; i < m; i++) tmp[i] = s->pts[i].value;
  qsort(tmp, m, sizeof *tmp, by_double);
  *r = (row){s, s->pts[m].value, m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2, tmp[0],
             tmp[m - 1], 0, 0, m, 0};
  r->change = r->now / r->median - 1;
  for (size_t i = 0; i < m; i++) tmp[i] = fabs(tmp[i] - r->median);
  qsort(tmp, m, sizeof *tmp, by_double);
  double mad = m % 2 ? tmp[m / 2] : (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
  double sd = 1.4826 * fmax(mad, MAD_FLOOR * fabs(r->median));
  r->z = sd > 0 ? (r->now - r->median) / sd : 0;
  /* A ratio claim's value is b/a: higher is better; a workload's is time. */
  int sign = s->is_claim ? -1 : 1;
  r->outside = r->z >= FLAG_Z ? sign : r->z <= -FLAG_Z ? -sign : 0;
  return 1;
}

static int by_interest(const void *x, const void *y)
{
  const row *a = x, *b = y;
  if ((a->outside != 0) != (b->outside != 0)) return a->outside ? -1 : 1;
  double d = fabs(b->z) - fabs(a->z);
  return (d > 0) - (d < 0);
}

/* A value as the table shows it: a time, or a ratio "5.54x". */
static char *value(const perf__series *s, double v, char *buf, size_t len)
{
  if (s->is_claim) snprintf(buf, len, "%.3fx", v);
  else perf__units_time(buf, len, v);
  return buf;
}

static void md_row(FILE *f, const row *r)
{
  char now[32], med[32], lo[32], hi[32];
  const perf__series *s = r->s;
  fputs("| ", f);
  perf__tally_md_code(f, s->test, SIZE_MAX);
  fputs(" | ", f);
  perf__tally_md_cell(f, s->name, SIZE_MAX);
  fputs(s->sweep ? " " : "", f);
  perf__tally_md_cell(f, s->sweep ? s->sweep : "", SIZE_MAX);
  fputs(" | ", f);
  perf__tally_md_cell(f, s->clock, SIZE_MAX);
  fprintf(f, " | %s | %s (%s – %s) | %+.1f %% | %+.1f%s |\n",
          value(s, r->now, now, sizeof now), value(s, r->median, med, sizeof med),
          value(s, r->min, lo, sizeof lo), value(s, r->max, hi, sizeof hi), 100 * r->change, r->z,
          r->outside > 0 ? " ▲ worse" : r->outside < 0 ? " ▼ better" : "");
}

static void table(FILE *f, const row *rows, size_t n, size_t from, size_t to, long end)
{
  fputs("\n| test | measured | clock | now | earlier: median (range) | change | z |\n"
        "|---|---|---|---:|---:|---:|---:|\n", f);
  for (size_t i = from; i < to && i < n; i++) {
    if (ftell(f) > end) {
      fprintf(f, "\n%zu more not shown (size limit).\n", to - i);
      return;
    }
    md_row(f, &rows[i]);
  }
}

/* The section from a loaded set. */
static void section(FILE *f, const perf__series_set *set, long long run, long end)
{
  const perf__series_axis *a = set->naxes ? &set->axes[0] : NULL;
  size_t at = 0;
  while (a && at < a->n && a->run[at] != run) at++;
  if (!a || at == a->n) {
    fputs("This run is not in the history: nothing to compare.\n", f);
    return;
  }
  if (a->n < 2) {
    fputs("This is the first run of this GPU in the history: nothing to compare with yet.\n", f);
    return;
  }
  row *rows = calloc(set->n + 1, sizeof *rows);
  double *tmp = malloc((a->n + 1) * sizeof *tmp);
  size_t n = 0, outside = 0;
  for (size_t i = 0; rows && tmp && i < set->n; i++)
    if (row_of(&set->s[i], at, &rows[n], tmp)) outside += rows[n++].outside != 0;
  if (rows && tmp) {
    qsort(rows, n, sizeof *rows, by_interest);
    fprintf(f, "%zu earlier run%s (from %.10s, commit ", a->n - 1, a->n == 2 ? "" : "s",
            a->started[0]);
    perf__tally_md_code(f, a->commit[0], SIZE_MAX);
    fprintf(f, "); %zu series measured now and then; "
               "%zu flagged: at least %.0f robust standard deviations (z: 1.4826 MAD of the earlier "
               "runs, at least %.1f %% of their median) from the earlier median.%s\n",
            n, outside, FLAG_Z, 100 * MAD_FLOOR,
            a->n < 4 ? " With so few earlier runs, z says little." : "");
    if (outside) table(f, rows, n, 0, outside < 50 ? outside : 50, end);
    fprintf(f, "\n<details><summary>All %zu series</summary>\n", n);
    table(f, rows, n, 0, n, end);
    fputs("\n</details>\n", f);
  } else fputs("Out of memory: the comparison is left out.\n", f);
  free(rows);
  free(tmp);
}

/* See lastruns.h. */
void perf__lastruns_markdown(FILE *f, const perf__lastruns *h, long room)
{
  perf__store *s = NULL;
  perf__series_set set;
  char err[600];
  long end = ftell(f) + room;
  fprintf(f, "\n## Compared with the last %zu runs of this %s (", h->last,
          strncmp(h->gpu, "no GPU: ", 8) ? "GPU" : "machine");
  perf__tally_md_cell(f, h->gpu, SIZE_MAX);
  fputs(")\n\n", f);
  perf__series_query q = {NULL, h->gpu, NULL, h->last + 1, h->run, 1, 0};
  int v = 0, rc = perf__connect_open(h->location, 0, &s, err, sizeof err);
  if (!rc) rc = perf__schema_version(s, &v, err, sizeof err);
  if (!rc && !v) {
    snprintf(err, sizeof err, "%s: no perfgate tables", s->where);
    rc = PERF__EINVAL;
  }
  if (!rc) rc = perf__series_load(s, &q, &set, err, sizeof err);
  perf__store_close(s);
  if (rc) {
    fputs("The history could not be read: ", f);
    perf__tally_md_cell(f, err, SIZE_MAX);
    fputs("\n", f);
    return;
  }
  section(f, &set, h->run, end);
  perf__series_free(&set);
}
