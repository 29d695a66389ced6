/* trendreport.c — --trend: the history's series per GPU and their change points. */
/* On the console, as charts (--plots) and as a page (--html). */
#define _GNU_SOURCE
#include "report/trendreport.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline/baseline.h"
#include "baseline/blyaml.h"
#include "host/cpumask.h"
#include "io/file.h"
#include "util/progname.h"
#include "baseline/trace.h"
#include "util/units.h"
#include "history/schema.h"
#include "history/series.h"
#include "history/connect.h"
#include "history/store.h"
#include "history/trend.h"
#include "report/plot.h"
#include "report/report.h"
#include "report/trenddoc.h"
#include "report/svg.h"
#include "report/xml.h"

enum { MAX_CUTS = PERF__TREND_MAX_CUTS, MAX_SHIFTS = 4 };

typedef perf__trenddoc_series found;

/* One GPU's machine shifts. */
typedef struct gpu_shifts {
  perf__trend_shift s[MAX_SHIFTS];
  size_t n;
} gpu_shifts;

/* A value as text: a time, or a ratio "5.54x". */
static char *value(const perf__series *s, double v, char *buf, size_t len)
{
  if (s->is_claim) snprintf(buf, len, "%.4gx", v);
  else perf__units_time(buf, len, v);
  return buf;
}

/* The tolerance band of s from its GPU's baseline file b (workloads only):
 * [median, median * (1 + tolerance)]. */
static void band_of(found *x, const perf__baseline *b)
{
  x->band[0] = x->band[1] = NAN;
  if (x->t.s->is_claim || !b) return;
  const perf__baseline_entry *e = perf__baseline_find(b, x->t.s->test, x->t.s->name);
  if (!e || strcmp(e->clock, x->t.s->clock)) return;
  x->band[0] = e->median_s;
  x->band[1] = e->median_s * (1 + e->tolerance);
}

/* The baseline file of gpu in dir, or NULL (none, or unreadable). */
static perf__baseline *baseline_of(const char *dir, const char *gpu)
{
  perf__baseline fp, *b = calloc(1, sizeof *b);
  char path[4096], err[300];
  if (!b) return NULL;
  perf__baseline_init(&fp);
  perf__baseline_set_fp(&fp, "name", gpu);
  perf__baseline_path(dir, &fp, path, sizeof path);
  perf__baseline_free(&fp);
  if (perf__blyaml_load(path, b, err, sizeof err) == 0) return b;
  free(b);
  return NULL;
}

/* commit cut to at most 12 bytes on a UTF-8 character boundary into
 * out[len]. Returns out. */
static char *short_commit(const char *commit, char *out, size_t len)
{
  size_t n = strlen(commit);
  if (n > 12) n = 12;
  while (n && n < strlen(commit) && ((unsigned char)commit[n] & 0xC0) == 0x80) n--;
  snprintf(out, len, "%.*s", (int)n, commit);
  return out;
}

/* Where axis index at of s's GPU is: "commit c14 (14 of 20, 2026-11-23)"
 * into buf[len]. Returns buf. */
static char *where_on_axis(const perf__series_set *set, size_t axis, size_t at, char *buf, size_t len)
{
  const perf__series_axis *a = &set->axes[axis];
  snprintf(buf, len, "commit %s (%zu of %zu, %.10s)", a->commit[at], at + 1, a->n, a->started[at]);
  return buf;
}

/* Change point k of x as a console line: confirmed (the test that
 * decided it) or suspected (how many of the newest commits show it), and
 * the earlier one it undoes. */
static void explain_cut(perf__store *st, const perf__series_set *set, const perf__series *s,
                        const perf__changepoint *cp);

static void print_cut(perf__store *st, const perf__series_set *set, const found *x, int k)
{
  const perf__series *s = x->t.s;
  const perf__changepoint *cp = &x->t.cp[k];
  char where[700], before[32], after[32], test[120], back[760] = "";
  int undone = perf__trend_undoes(&x->t, k);
  if (undone >= 0)
    snprintf(back, sizeof back, ", back to the level before commit %s",
             set->axes[s->axis].commit[s->pts[x->t.cp[undone].at].at]);
  if (cp->suspected)
    snprintf(test, sizeof test, "t-test of the newest %zu against the commits before: fewer than %zu, "
             "not yet a change point", s->n - cp->at, perf__trend_min_points() / 2);
  else snprintf(test, sizeof test, "%s", cp->t_test ? "t-test" : "permutations");
  printf("      %s %s: %s -> %s (%+.1f %%), p = %.2g (%s)%s\n",
         cp->suspected ? "suspected since" : "from",
         where_on_axis(set, s->axis, s->pts[cp->at].at, where, sizeof where),
         value(s, cp->before, before, sizeof before), value(s, cp->after, after, sizeof after),
         100 * cp->size, cp->p, test, back);
  if (!s->is_claim && cp->at > 0) explain_cut(st, set, s, cp);
}

/* Under a workload's change point: what changed in its GPU work between
 * the last commit before it and the first after, from the traces the
 * history recorded (baseline/trace.h), or why that is not known. Never fails
 * (a store error is said in the line). */
static void explain_cut(perf__store *st, const perf__series_set *set, const perf__series *s,
                        const perf__changepoint *cp)
{
  enum { LEN = 1 << 14 };
  char *was_json = NULL, *now_json = NULL, err[600] = "", why[200], *buf = NULL;
  size_t before = s->pts[cp->at - 1].at, after = s->pts[cp->at].at;
  perf__trace was = {0}, now = {0};
  int rc = st ? perf__series_trace(st, set, s, before, &was_json, err, sizeof err) : -1;
  if (!rc) rc = perf__series_trace(st, set, s, after, &now_json, err, sizeof err);
  if (rc || !was_json || !now_json)
    printf("        what changed in the GPU's work: not known: %s\n",
           !st   ? "the history was recorded before perfgate kept traces (schema 7)"
           : rc  ? err
                 : "no trace recorded at both commits");
  else if (perf__trace_parse(was_json, &was, why, sizeof why) ||
           perf__trace_parse(now_json, &now, why, sizeof why) || !(buf = malloc(LEN)))
    printf("        what changed in the GPU's work: not known: %s\n", buf ? why : "out of memory");
  else {
    perf__trace_explain(&(perf__trace_side){&was, cp->before, 0},
                        &(perf__trace_side){&now, cp->after, 0}, "        changed: ", buf, LEN);
    printf("        what changed in the GPU's work between commit %s and %s (the traces the "
           "history recorded):\n%s\n", set->axes[s->axis].commit[before],
           set->axes[s->axis].commit[after], buf);
  }
  perf__trace_free(&was), perf__trace_free(&now);
  free(buf), free(was_json), free(now_json);
}

/* One machine shift of GPU axis as console lines. */
static void print_shift(const perf__series_set *set, size_t axis, const perf__trend_shift *m)
{
  char where[700];
  printf("    the machine: %zu of %zu %s at once (ratio claims, measured within one process, "
         "have no vote)\n      %s %s: %+.1f %% (their median; %+.1f %% to %+.1f %%): the machine changed "
         "(a driver, its clocks, the host), not each workload\n",
         m->moved, m->of, perf__units_noun((long long)m->of, "workload", "workloads"),
         m->suspected ? "suspected since" : "from",
         where_on_axis(set, axis, m->at, where, sizeof where), 100 * m->size, 100 * m->smallest,
         100 * m->largest);
}

/* The console report of one GPU's series f[from..to) and its machine
 * shifts m. */
static void print_gpu(perf__store *st, const perf__series_set *set, const found *f, size_t from,
                      size_t to, const gpu_shifts *m, int verbose)
{
  size_t axis = f[from].t.s->axis;
  const perf__series_axis *a = &set->axes[axis];
  size_t tested = 0, cuts = 0, suspected = 0, absorbed = 0;
  for (size_t i = from; i < to; i++) {
    tested += f[i].t.s->n >= perf__trend_min_points();
    cuts += perf__trenddoc_own_cuts(&f[i].t, &suspected);
    absorbed += (size_t)f[i].t.ncp;
  }
  absorbed -= cuts;
  char first[16], last[16], extra[200] = "";
  if (m->n)
    snprintf(extra, sizeof extra, "; %zu %s of the machine (%zu %s change points, counted once)", m->n,
             perf__units_noun((long long)m->n, "shift", "shifts"), absorbed,
             perf__units_noun((long long)absorbed, "workload's", "workloads'"));
  printf("\n%s: %zu commit%s (%s, %.10s ... %s, %.10s)\n  %zu series, %zu with at least "
         "%zu commits tested (fewer cannot be); %zu change point%s",
         a->gpu, a->n, a->n == 1 ? "" : "s", short_commit(a->commit[0], first, sizeof first),
         a->started[0], short_commit(a->commit[a->n - 1], last, sizeof last), a->started[a->n - 1],
         to - from, tested, perf__trend_min_points(), cuts, cuts == 1 ? "" : "s");
  if (suspected) printf(" (%zu suspected)", suspected);
  printf("%s\n", extra);
  for (size_t k = 0; k < m->n; k++) print_shift(set, axis, &m->s[k]);
  for (size_t i = from; i < to; i++) {
    size_t none = 0;
    if (!perf__trenddoc_own_cuts(&f[i].t, &none)) continue;
    char label[600];
    printf("    %s\n", perf__series_label(f[i].t.s, label, sizeof label));
    for (int k = 0; k < f[i].t.ncp; k++)
      if (!f[i].t.shift[k]) print_cut(st, set, &f[i], k);
  }
  for (size_t i = from; verbose && i < to; i++) {
    char label[600], v[32];
    const perf__series_point *last = &f[i].t.s->pts[f[i].t.s->n - 1];
    printf("    . %s: %zu %s, last %s\n", perf__series_label(f[i].t.s, label, sizeof label),
           f[i].t.s->n, perf__units_noun((long long)f[i].t.s->n, "commit", "commits"),
           value(f[i].t.s, last->value, v, sizeof v));
  }
}

/* A file-name-safe form of s (letters, digits, '.', '_', '-'). */
static void slug(const char *s, char *out, size_t len)
{
  size_t k = 0;
  for (; *s && k + 1 < len; s++)
    out[k++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
               *s == '.' || *s == '_' ? *s : '-';
  out[k] = '\0';
}

/* A stable file name for series s: its GPU's and label's slugs cut short,
 * and a hash of both so that names never collide or shift when other
 * series come and go. */
static void file_name(const perf__series_set *set, const perf__series *s, char *out, size_t len)
{
  char label[600], a[80], b[100];
  unsigned long long h = 1469598103934665603ull;
  perf__series_label(s, label, sizeof label);
  for (const char *p = set->axes[s->axis].gpu; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  for (const char *p = label; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
  slug(set->axes[s->axis].gpu, a, 40);
  slug(label, b, 90);
  snprintf(out, len, "trend--%s--%s--%08llx.svg", a, b, h & 0xffffffffull);
}

/* --plots: one SVG for each series with two points or more. */
static int plots(const char *dir, const perf__series_set *set, const found *f, size_t n)
{
  char err[600];
  size_t written = 0;
  if (perf__plot_mkdir(dir, err, sizeof err)) return fprintf(stderr, "%s: %s\n", perf__progname(), err), 2;
  for (size_t i = 0; i < n; i++) {
    if (f[i].t.s->n < 2) continue;
    char name[300], path[4400], why[300];
    file_name(set, f[i].t.s, name, sizeof name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *svg = perf__trenddoc_chart(set, &f[i]);
    int e = !svg ? (snprintf(why, sizeof why, "out of memory"), -1)
                 : perf__file_replace(path, svg, strlen(svg), 0, NULL, why, sizeof why);
    free(svg);
    if (e) return fprintf(stderr, "%s: cannot write --plots=%s: %s: %s\n", perf__progname(), dir, path, why), 2;
    written++;
  }
  printf("perfgate trend: %zu chart%s in %s\n", written, written == 1 ? "" : "s", dir);
  return 0;
}

/* The machine shifts of each GPU's block of f (sorted by axis) into
 * m[axis]. Returns 0 or -1 without memory. */
static int machine_shifts(const perf__series_set *set, found *f, gpu_shifts *m)
{
  perf__trend_series **t = malloc((set->n ? set->n : 1) * sizeof *t);
  if (!t) return -1;
  int rc = 0;
  for (size_t i = 0; i < set->n && rc >= 0;) {
    size_t j = i, axis = f[i].t.s->axis;
    for (; j < set->n && f[j].t.s->axis == axis; j++) t[j - i] = &f[j].t;
    rc = perf__trend_shifts(t, j - i, m[axis].s, MAX_SHIFTS);
    m[axis].n = rc > 0 ? (size_t)rc : 0;
    i = j;
  }
  free(t);
  return rc < 0 ? -1 : 0;
}

/* Finds the change points of every series, and its tolerance band. */
static int analyse(const perf__options_cli *cli, const perf__series_set *set, found *f)
{
  perf__baseline **bl = calloc(set->naxes + 1, sizeof *bl);
  if (!bl) return -1;
  for (size_t i = 0; i < set->naxes; i++) bl[i] = baseline_of(cli->baseline_dir, set->axes[i].gpu);
  perf__trend_series **t = malloc((set->n + 1) * sizeof *t);
  int rc = t ? 0 : -1;
  for (size_t i = 0; i < set->n && !rc; i++) f[i].t.s = &set->s[i], t[i] = &f[i].t;
  /* As many series at once as the CPUs this process may use. */
  if (!rc && perf__trend_changes_each(t, set->n, perf__cpumask_count())) rc = -1;
  for (size_t i = 0; i < set->n && !rc; i++) band_of(&f[i], bl[set->s[i].axis]);
  free(t);
  for (size_t i = 0; i < set->naxes; i++)
    if (bl[i]) perf__baseline_free(bl[i]), free(bl[i]);
  free(bl);
  return rc;
}

/* "N runs", and " (M shards)" when a run id's shards made them fewer, as
 * --commit-report says it, into out[len]. Returns out; never fails. */
static const char *runs_of(const perf__series_set *set, char *out, size_t len)
{
  int u = snprintf(out, len, "%zu %s", set->runs, perf__units_noun((long long)set->runs, "run", "runs"));
  if (set->shards != set->runs && u > 0 && (size_t)u < len)
    snprintf(out + u, len - (size_t)u, " (%zu %s)", set->shards,
             perf__units_noun((long long)set->shards, "shard", "shards"));
  return out;
}

/* Prints and draws an analysed set. */
static int report(perf__store *st, const perf__options_cli *cli, const perf__series_set *set,
                  const found *f, const gpu_shifts *m, const char *where)
{
  perf__changepoint_opts o;
  perf__changepoint_defaults(&o);
  char runs[80];
  printf("perfgate trend: %s: %s; change points by E-divisive means, each against its "
         "neighbouring segments (p <= %g by a permutation test, or Welch's t-test where a split has too "
         "few arrangements; segments of at least %zu commits; changes of at least %g %%)\n",
         where, runs_of(set, runs, sizeof runs), o.p_max, o.min_segment, 100 * o.min_size);
  for (size_t i = 0; i < set->n;) {
    size_t j = i;
    while (j < set->n && set->s[j].axis == set->s[i].axis) j++;
    print_gpu(st, set, f, i, j, &m[set->s[i].axis], cli->verbose);
    i = j;
  }
  int code = 0;
  if (cli->plots && plots(cli->plots, set, f, set->n)) code = 2;
  perf__trenddoc doc = {set, f, set->n};
  for (const perf__report_format *fm = perf__report_formats(); fm->opt; fm++) { /* the table's rows */
    const char *path = fm->trend ? perf__report_path(cli, fm) : NULL;
    if (!path) continue;
    if (perf__report_write_doc(fm->opt, path, fm->trend, &doc)) code = 2;
    else printf("perfgate trend: the page is %s\n", path);
  }
  return code;
}

static int by_axis(const void *x, const void *y)
{
  const perf__series *a = x, *b = y;
  if (a->axis != b->axis) return a->axis < b->axis ? -1 : 1;
  char la[600], lb[600];
  return strcmp(perf__series_label(a, la, sizeof la), perf__series_label(b, lb, sizeof lb));
}

/* Says why the set has no series, with the branches and GPUs that have
 * runs when --branch or --gpu matched none (listed in have: "" when the
 * history has no runs). Returns the exit code: 0 for a history with no
 * runs yet whatever the filters (or with nothing to chart), 2 when a
 * filter (tests, --branch, --gpu) matched nothing in the runs it has, as
 * --list does. */
static int nothing(const perf__options_cli *cli, const perf__series_set *set, const char *filter,
                   const char *where, const char *have)
{
  int picked = cli->branch || cli->trend_gpu;
  char runs[80];
  if (!set->runs && (!picked || !have[0]))
    return printf("perfgate trend: %s: no runs recorded yet\n", where), 0;
  if (!set->runs) {
    fprintf(stderr, "%s: --trend: %s: no runs recorded%s%s%s%s%s%s; %s\n", perf__progname(), where,
            cli->branch ? " on branch '" : "", cli->branch ? cli->branch : "", cli->branch ? "'" : "",
            cli->trend_gpu ? " on GPU '" : "", cli->trend_gpu ? cli->trend_gpu : "",
            cli->trend_gpu ? "'" : "", have);
    return 2;
  }
  if (filter && *filter) {
    fprintf(stderr, "%s: --trend: no series matches the filter %s in the %s%s%s\n", perf__progname(), filter,
            runs_of(set, runs, sizeof runs), cli->branch ? " of branch " : "", cli->branch ? cli->branch : "");
    return 2;
  }
  printf("perfgate trend: %s: %s, with no series to follow (a FASTER or SIMILAR claim's ratio "
         "and its workloads' medians are one)\n", where, runs_of(set, runs, sizeof runs));
  return 0;
}

/* The branches and GPUs with runs, "the branches with runs: ...; the
 * GPUs with runs: ..." into have[len] ("" when the store has no runs).
 * Returns 0 or the store's error. */
static int with_runs(perf__store *s, char *have, size_t len, char *err, size_t elen)
{
  char branches[600], gpus[600];
  int rc = perf__series_values(s, PERF__SERIES_BRANCH, branches, sizeof branches, err, elen);
  if (!rc) rc = perf__series_values(s, PERF__SERIES_GPU, gpus, sizeof gpus, err, elen);
  have[0] = '\0';
  if (!rc && branches[0]) snprintf(have, len, "the branches with runs: %s; the GPUs with runs: %s", branches, gpus);
  return rc;
}

/* See trendreport.h. */
int perf__trendreport_run(const perf__options_cli *cli)
{
  perf__store *s = NULL;
  perf__series_set set;
  char err[600], where[512], have[1300] = "";
  const char *filter = *cli->trend ? cli->trend : cli->filter;
  perf__series_query q = {filter, cli->trend_gpu, cli->branch, (size_t)cli->trend_last, 0, 0, 0};
  int v = 0, rc = perf__connect_open(cli->history, 0, &s, err, sizeof err);
  if (!rc) snprintf(where, sizeof where, "%s", s->where);
  if (!rc) rc = perf__schema_version(s, &v, err, sizeof err);
  if (!rc && !v) { /* an empty store: no runs, and nothing to read them from */
    perf__store_close(s);
    return printf("perfgate trend: %s: no runs recorded yet\n", where), 0;
  }
  if (!rc) rc = perf__series_load(s, &q, &set, err, sizeof err);
  if (!rc && !set.n && (cli->branch || cli->trend_gpu) && !set.runs &&
      (rc = with_runs(s, have, sizeof have, err, sizeof err)))
    perf__series_free(&set);
  if (rc) perf__store_close(s);
  if (rc) return fprintf(stderr, "%s: --history: %s\n", perf__progname(), err), 2;
  if (!set.n) {
    int code = nothing(cli, &set, filter, where, have);
    perf__series_free(&set);
    perf__store_close(s);
    return code;
  }
  /* Sorting moves the series: the hash table no longer applies to them. */
  qsort(set.s, set.n, sizeof *set.s, by_axis);
  found *f = calloc(set.n, sizeof *f);
  gpu_shifts *m = calloc(set.naxes + 1, sizeof *m);
  int code = !f || !m || analyse(cli, &set, f) || machine_shifts(&set, f, m)
                 ? (fprintf(stderr, "%s: --trend: out of memory\n", perf__progname()), 2)
                 : report(v >= 7 ? s : NULL, cli, &set, f, m, where);
  perf__store_close(s);
  free(m);
  free(f);
  perf__series_free(&set);
  return code;
}
