/* hwmove.c — the hardware move: a workload's times on two GPUs against their peaks' prediction. */
#define _GNU_SOURCE
#include "report/hwmove.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "baseline/blrule.h"
#include "baseline/blyaml.h"
#include "io/file.h"
#include "io/json.h"
#include "baseline/machine.h"
#include "util/progname.h"
#include "report/roofline.h"
#include "util/status.h"
#include "util/units.h"
#include "report/tally.h"

/* The Markdown of the tables this process's update printed. */
static perf__json pending;

/* What a row says of a workload that declares no work. */
static const char NO_WORK[] = "no prediction: it declares no work";

/* See hwmove.h. */
double perf__hwmove_allowed(double tol_a, double tol_b)
{
  return (1 + tol_a) * (1 + tol_b) * (1 + PERF__HWMOVE_MARGIN) - 1;
}

/* See hwmove.h. */
double perf__hwmove_off(double measured, double predicted)
{
  return measured <= predicted ? predicted / measured - 1 : -(measured / predicted - 1);
}

/* One workload both files hold. */
typedef struct row {
  const perf__baseline_entry *from, *to;
  double measured;              /* from's time / to's: > 1, faster on to's GPU */
  int compared;                 /* 0: timed on different clocks */
  int predicted;                /* 1: p holds a prediction */
  perf__roofline_prediction p;
  int unexpected;
  char vs[300];                 /* the comparison: "1.38x faster on B than on A" */
  char says[600];               /* the prediction, or why there is none */
  char flag[300];               /* unexpected: how far from the prediction */
} row;

/* The two GPUs' names, from and to. */
typedef struct gpus {
  const char *from, *to;
} gpus;

/* "1.38x faster" or "1.25x slower" for a ratio r of times (> 1: faster).
 * Returns buf. Never fails. */
static char *speed(char *buf, size_t len, double r)
{
  snprintf(buf, len, "%.2fx %s", r >= 1 ? r : 1 / r, r >= 1 ? "faster" : "slower");
  return buf;
}

/* r->vs: "1.38x faster on B than on A", or "about as fast on B as on A
 * (1.00x)" when the times differ by less than 0.5 %. Never fails. */
static void compare(row *r, const gpus *g)
{
  char s[40];
  if (fabs(r->measured - 1) < 0.005)
    snprintf(r->vs, sizeof r->vs, "about as fast on %s as on %s (%.2fx)", g->to, g->from,
             r->measured);
  else
    snprintf(r->vs, sizeof r->vs, "%s on %s than on %s", speed(s, sizeof s, r->measured), g->to,
             g->from);
}

/* 1 when two declarations of work agree (a YAML number keeps 9 digits).
 * Never fails. */
static int same_work(const perf__peaks_work *a, const perf__peaks_work *b)
{
  const double x[] = {a->bytes_read, a->bytes_written, a->flops};
  const double y[] = {b->bytes_read, b->bytes_written, b->flops};
  for (int i = 0; i < 3; i++)
    if (fabs(x[i] - y[i]) > 1e-6 * fmax(fabs(x[i]), fabs(y[i]))) return 0;
  return !(a->flops > 0) || a->type == b->type;
}

/* The one factor by which a's declared work is b's (a's bytes read,
 * written and flops each that many times b's, the same flop type: the
 * same code over a buffer of another size, as perf_bytes_beyond_l2
 * gives), or 0 when they are not proportional. Never fails. */
static double work_scale(const perf__peaks_work *a, const perf__peaks_work *b)
{
  const double x[] = {a->bytes_read, a->bytes_written, a->flops};
  const double y[] = {b->bytes_read, b->bytes_written, b->flops};
  double k = 0;
  if (a->flops > 0 && a->type != b->type) return 0;
  for (int i = 0; i < 3; i++) {
    if (!(x[i] > 0) != !(y[i] > 0)) return 0;
    if (!(x[i] > 0)) continue;
    if (!k) k = x[i] / y[i];
    else if (fabs(x[i] / y[i] - k) > 1e-6 * k) return 0;
  }
  return k;
}

/* What bound k of w's peak is of: "DRAM", "host link", "fp16 math".
 * Returns buf. Never fails. */
static char *noun_of(char *buf, size_t len, const perf__roofline_work *w, perf__roofline_bound k)
{
  if (k == PERF__ROOF_MATH)
    snprintf(buf, len, "%s %s", perf__peaks_type_word(w->type), perf__roofline_noun(k));
  else snprintf(buf, len, "%s", perf__roofline_noun(k));
  return buf;
}

/* "memory-bound", "compute-bound (fp16)". Returns buf. Never fails. */
static char *bound_of(char *buf, size_t len, const perf__roofline_work *w, perf__roofline_bound k)
{
  if (k == PERF__ROOF_MATH)
    snprintf(buf, len, "%s (%s)", perf__roofline_adjective(k), perf__peaks_type_word(w->type));
  else snprintf(buf, len, "%s", perf__roofline_adjective(k));
  return buf;
}

/* r->says for a bound k of w that GPU gpu has no peak for (name: the
 * entries looked for, per GPU): "no prediction: A's file has no fp32 math
 * calibration (peak_fp32_events)", or "neither file has the ..." when the
 * other lacks it too (rate: the peaks found). Never fails. */
static void no_peak(row *r, const perf__roofline_work *w, perf__roofline_bound k, int gpu,
                    const double rate[2][PERF__ROOF_NBOUNDS], char name[2][PERF__ROOF_NBOUNDS][96],
                    const gpus *g)
{
  char what[64], who[300];
  snprintf(who, sizeof who, "%s's file has no", gpu ? g->to : g->from);
  if (!(rate[!gpu][k] > 0) && !strcmp(name[0][k], name[1][k]))
    snprintf(who, sizeof who, "neither file has the");
  snprintf(r->says, sizeof r->says, "no prediction: %s %s calibration (%s)", who,
           noun_of(what, sizeof what, w, k), name[gpu][k]);
}

/* r->says, the prediction of r (w its work on the `to` GPU, scale times
 * that on the `from` one; peaks looked up in from and to): "memory-bound:
 * the DRAM peaks predict 1.41x", or "no prediction: ...". Never fails. */
static void predict(row *r, const perf__roofline_work *w, double scale, const perf__baseline *from,
                    const perf__baseline *to, const gpus *g)
{
  double rate[2][PERF__ROOF_NBOUNDS] = {{0}};
  char name[2][PERF__ROOF_NBOUNDS][96], a[64], b[64], x[40];
  const perf__baseline *file[2] = {from, to};
  for (int f = 0; f < 2; f++)
    for (int k = 0; k < PERF__ROOF_NBOUNDS; k++)
      if (w->amount[k] > 0)
        rate[f][k] = perf__roofline_peak(file[f], w, (perf__roofline_bound)k, r->to->clock,
                                         name[f][k], sizeof name[f][k]);
  int gpu = 0;
  perf__roofline_bound k = PERF__ROOF_DRAM;
  perf__roofline_none none = perf__roofline_predict(w, rate, &r->p, &gpu, &k);
  if (none == PERF__ROOF_NO_PEAK) no_peak(r, w, k, gpu, rate, name, g);
  if (none == PERF__ROOF_NO_WORK) snprintf(r->says, sizeof r->says, "%s", NO_WORK);
  if (none != PERF__ROOF_PREDICTED) return;
  r->predicted = 1;
  r->p.time_s[0] *= scale; /* every term scales alike: the same bound */
  r->p.ratio *= scale;
  double pr = r->p.ratio;
  if ((pr >= 1) == (r->measured >= 1)) snprintf(x, sizeof x, "%.2fx", pr >= 1 ? pr : 1 / pr);
  else speed(x, sizeof x, pr);
  if (r->p.bound[0] == r->p.bound[1])
    snprintf(r->says, sizeof r->says, "%s: the %s peaks predict %s",
             bound_of(a, sizeof a, w, r->p.bound[1]), noun_of(b, sizeof b, w, r->p.bound[1]), x);
  else
    snprintf(r->says, sizeof r->says, "%s on %s, %s on %s: their rooflines predict %s",
             bound_of(a, sizeof a, w, r->p.bound[0]), g->from,
             bound_of(b, sizeof b, w, r->p.bound[1]), g->to, x);
}

/* r->flag of a predicted r beyond what its entries' tolerances and the
 * margin allow. Never fails. */
static void flag(row *r)
{
  double off = perf__hwmove_off(r->measured, r->p.ratio);
  double allowed = perf__hwmove_allowed(r->from->tolerance, r->to->tolerance);
  if (fabs(off) <= allowed) return;
  r->unexpected = 1;
  snprintf(r->flag, sizeof r->flag,
           "%.1f%% %s than predicted (allowed %.1f%%: tolerances %.1f%% and %.1f%%, margin %.0f%%)",
           100 * fabs(off), off > 0 ? "slower" : "faster", 100 * allowed, 100 * r->from->tolerance,
           100 * r->to->tolerance, 100 * PERF__HWMOVE_MARGIN);
}

/* The row of one workload both files hold. Never fails. */
static row row_of(const perf__baseline_entry *from, const perf__baseline_entry *to,
                  const perf__baseline *ffile, const perf__baseline *tfile, const gpus *g)
{
  row r = {.from = from, .to = to, .measured = from->median_s / to->median_s};
  perf__roofline_work w;
  r.compared = !strcmp(from->clock, to->clock);
  if (!r.compared) {
    snprintf(r.vs, sizeof r.vs, "not compared: timed on the %s clock on %s, the %s clock on %s",
             from->clock, g->from, to->clock, g->to);
    return r;
  }
  compare(&r, g);
  int both = perf__peaks_declared(&from->work) && perf__peaks_declared(&to->work);
  const perf__peaks_work *d = perf__peaks_declared(&to->work) ? &to->work : &from->work;
  double scale = both && !same_work(&from->work, &to->work) ? work_scale(&from->work, &to->work)
                                                            : 1;
  if (!(scale > 0))
    snprintf(r.says, sizeof r.says, "no prediction: its declared work differs between the two "
             "files (its code changed)");
  else if (!perf__roofline_work_of(d, to->trace ? to->trace : from->trace, &w))
    snprintf(r.says, sizeof r.says, "%s", NO_WORK);
  else
    predict(&r, &w, scale, ffile, tfile, g);
  if (r.predicted && scale != 1) {
    size_t n = strlen(r.says);
    snprintf(r.says + n, sizeof r.says - n, " (its declared work %.3gx on %s: each GPU's own)",
             1 / scale, g->to);
  }
  if (r.predicted) flag(&r);
  return r;
}

/* 1 for an entry of perfgate's own (a reference or a calibration).
 * Never fails. */
static int own(const perf__baseline_entry *e) { return !strcmp(e->test, PERF__BLR_REFERENCE_TEST); }

/* Prints row r on out (the update table's layout: the test with both
 * times and ratios, then the workload and what it says). Never fails. */
static void print_row(FILE *out, const row *r)
{
  char was[32], now[32], m[16] = "-", p[16] = "-";
  perf__units_time(was, sizeof was, r->from->median_s);
  perf__units_time(now, sizeof now, r->to->median_s);
  if (r->compared) snprintf(m, sizeof m, "%.2fx", r->measured);
  if (r->predicted) snprintf(p, sizeof p, "%.2fx", r->p.ratio);
  fprintf(out, "  %-56.56s %11s %11s %8s %9s%s\n", r->to->test, was, now, m, p,
          r->unexpected ? " UNEXPECTED" : "");
  fprintf(out, "    %s (%s clock): %s%s%s%s%s\n", r->to->workload, r->to->clock, r->vs,
          r->says[0] ? "; " : "", r->says, r->unexpected ? "; UNEXPECTED: " : "", r->flag);
}

/* Row r as a Markdown table row on md. Never fails. */
static void md_row(FILE *md, const row *r)
{
  char name[400], was[32], now[32], m[16] = "-", p[16] = "-";
  snprintf(name, sizeof name, "%s / %s", r->to->test, r->to->workload);
  perf__units_time(was, sizeof was, r->from->median_s);
  perf__units_time(now, sizeof now, r->to->median_s);
  if (r->compared) snprintf(m, sizeof m, "%.2fx", r->measured);
  if (r->predicted) snprintf(p, sizeof p, "%.2fx", r->p.ratio);
  fputs("| ", md);
  perf__tally_md_code(md, name, sizeof name);
  fprintf(md, " | %s | %s | %s | %s | %s | ", r->to->clock, was, now, m, p);
  perf__tally_md_cell(md, r->compared ? r->says : r->vs, sizeof r->vs);
  if (r->unexpected) fputs("; **unexpected**: ", md);
  perf__tally_md_cell(md, r->flag, sizeof r->flag);
  fputs(" |\n", md);
}

/* The calibrations both files hold, as "peak_dram_events 3.017 TB/s ->
 * 4.300 TB/s (1.43x)" phrases (arrow: "->" or "→"), into buf. Returns
 * how many. Never fails (truncates). */
static size_t calibrations(const perf__baseline *from, const perf__baseline *to, const char *arrow,
                           char *buf, size_t len)
{
  size_t n = 0, used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < to->nentries; i++) {
    const perf__baseline_entry *t = &to->entries[i], *f;
    if (!own(t) || strncmp(t->workload, PERF__BL_PEAK_PREFIX, strlen(PERF__BL_PEAK_PREFIX)))
      continue;
    double rt = perf__roofline_rate(t), rf;
    if (!(f = perf__baseline_find(from, t->test, t->workload)) || !(rf = perf__roofline_rate(f)) ||
        !(rt > 0))
      continue;
    char a[32], b[32];
    int bytes = !(t->work.flops > 0);
    perf__units_append(buf, len, &used, "%s%s %s %s %s (%.2fx)", n++ ? ", " : "", t->workload,
                       perf__peaks_rate_text(a, sizeof a, rf, bytes, t->work.type), arrow,
                       perf__peaks_rate_text(b, sizeof b, rt, bytes, t->work.type), rt / rf);
  }
  return n;
}

/* Counts the workloads (perfgate's own aside) of a that b does not hold.
 * Never fails. */
static size_t only_in(const perf__baseline *a, const perf__baseline *b)
{
  size_t n = 0;
  for (size_t i = 0; i < a->nentries; i++)
    n += !own(&a->entries[i]) &&
         !perf__baseline_find(b, a->entries[i].test, a->entries[i].workload);
  return n;
}

/* The table's heads on out. Never fails. */
static void heads(const perf__baseline *from, const char *from_path, const perf__baseline *to,
                  const char *to_path, const gpus *g, FILE *out)
{
  char cal[1500];
  fprintf(out, "\nhardware move: from %s (%s) to %s (%s)\n", g->from, from_path, g->to, to_path);
  if (calibrations(from, to, "->", cal, sizeof cal))
    fprintf(out, "  peaks both files measured (perfgate's calibrations): %s\n", cal);
  else
    fprintf(out, "  peaks: no calibration entry in both files: no workload is predicted\n");
  fprintf(out, "  (speedup: the time on %s over the time on %s; predicted: what the calibrations "
          "predict for it from its declared work)\n", g->from, g->to);
  fprintf(out, "  %-56s %11s %11s %8s %9s\n", "entry", "from", "to", "speedup", "predicted");
}

/* The same as Markdown on md: a heading, a paragraph, the table's head.
 * Never fails. */
static void md_heads(const perf__baseline *from, const char *from_path, const perf__baseline *to,
                     const char *to_path, const gpus *g, FILE *md)
{
  char cal[1500];
  int ncal = calibrations(from, to, "→", cal, sizeof cal) > 0;
  fputs("\n### Hardware move: ", md);
  perf__tally_md_cell(md, g->from, 200);
  fputs(" → ", md);
  perf__tally_md_cell(md, g->to, 200);
  fputs("\n\nFrom ", md);
  perf__tally_md_code(md, from_path, 4200);
  fputs(" to ", md);
  perf__tally_md_code(md, to_path, 4200);
  fputs(ncal ? ". Peaks both files measured (perfgate's calibrations): "
             : ". No calibration entry in both files: no workload is predicted", md);
  perf__tally_md_cell(md, cal, sizeof cal);
  fputs(". Speedup: the first GPU's time over the second's; predicted: what the calibrations "
        "predict from the workload's declared work.\n\n| workload | clock | ", md);
  perf__tally_md_cell(md, g->from, 200);
  fputs(" | ", md);
  perf__tally_md_cell(md, g->to, 200);
  fputs(" | speedup | predicted | |\n|---|---|---:|---:|---:|---:|---|\n", md);
}

/* The count line on out and md, with the first unexpected workloads'
 * names (names). Never fails. */
static void tail(const perf__hwmove_count *c, const char *names, const gpus *g, FILE *out, FILE *md)
{
  char line[1600];
  snprintf(line, sizeof line, "hardware move from %s to %s: %zu unexpected %s of %zu predicted "
           "%s (beyond both entries' tolerances and a %.0f%% margin)%s%s; %zu %s in both files, "
           "%zu only in %s's, %zu only in %s's", g->from, g->to, c->unexpected,
           perf__units_noun((long long)c->unexpected, "change", "changes"), c->predicted,
           perf__units_noun((long long)c->predicted, "workload", "workloads"),
           100 * PERF__HWMOVE_MARGIN, c->unexpected ? ": " : "", names, c->both,
           perf__units_noun((long long)c->both, "workload", "workloads"), c->only_from, g->from,
           c->only_to, g->to);
  fprintf(out, "  %s\n", line);
  if (!md) return;
  fputs("\n", md);
  perf__tally_md_cell(md, line, sizeof line);
  fputs("\n", md);
}

/* See hwmove.h. */
perf__hwmove_count perf__hwmove_table(const perf__baseline *from, const char *from_path,
                                      const perf__baseline *to, const char *to_path, FILE *out,
                                      FILE *md)
{
  gpus g = {perf__baseline_model(from), perf__baseline_model(to)};
  perf__hwmove_count c = {.only_from = only_in(from, to), .only_to = only_in(to, from)};
  char names[600] = "";
  size_t used = 0;
  heads(from, from_path, to, to_path, &g, out);
  if (md) md_heads(from, from_path, to, to_path, &g, md);
  for (size_t i = 0; i < to->nentries; i++) {
    const perf__baseline_entry *t = &to->entries[i];
    const perf__baseline_entry *f = own(t) ? NULL : perf__baseline_find(from, t->test, t->workload);
    if (!f) continue;
    row r = row_of(f, t, from, to, &g);
    c.both++;
    c.predicted += r.predicted;
    if (r.unexpected && c.unexpected++ < 4)
      perf__units_append(names, sizeof names, &used, "%s%s / %s", c.unexpected > 1 ? ", " : "",
                         t->test, t->workload);
    print_row(out, &r);
    if (md) md_row(md, &r);
  }
  if (c.unexpected > 4) perf__units_append(names, sizeof names, &used, ", ...");
  tail(&c, names, &g, out, md);
  return c;
}

/* The directory of path ("." for a bare name) into dir. Never fails
 * (truncates). */
static void dir_of(const char *path, char *dir, size_t len)
{
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, len, ".");
  else snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* Where a search for other GPUs' files tells what it found: out gets the
 * tables, md their Markdown (NULL: none), err a line after "who: " for
 * each file (or the directory) that cannot be read. */
typedef struct told {
  FILE *out, *md, *err;
  const char *who; /* the option the search is for: "--update-baselines" */
} told;

/* 1 for a baseline file's name (perf__baseline_is_file_name). */
static int is_baseline(const struct dirent *e) { return perf__baseline_is_file_name(e->d_name); }

/* The table to `to` (the file at to_path) from the file at path, unless
 * it is to's own file (self: its stat, when known), a host's or of to's
 * GPU model, onto t. Returns 1 when it printed one, 0 when not, -1 after
 * naming on t->err a file that cannot be read. */
static int one_other(const char *path, const struct stat *self, const char *to_path,
                     const perf__baseline *to, const told *t)
{
  struct stat st;
  if (self && !stat(path, &st) && st.st_dev == self->st_dev && st.st_ino == self->st_ino) return 0;
  perf__baseline from;
  char why[4800];
  int e = perf__blyaml_load(path, &from, why, sizeof why);
  if (e == PERF__ENOMEM) snprintf(why, sizeof why, "%s: %s", path, perf__status_strerror(e));
  if (e) fprintf(t->err, "%s: %s: %s: no hardware move from it\n", perf__progname(), t->who, why);
  int shown = !e && !perf__machine_is_host(&from) &&
              strcmp(perf__baseline_model(&from), perf__baseline_model(to));
  if (shown) perf__hwmove_table(&from, path, to, to_path, t->out, t->md);
  perf__baseline_free(&from);
  return e ? -1 : shown;
}

/* The tables to `to` (the file at to_path) from each other GPU's file in
 * dir, in name order, onto t; each file (or the directory) that cannot be
 * read is counted in *bad. Returns how many tables. Never fails
 * otherwise. */
static size_t each_other(const char *dir, const char *to_path, const perf__baseline *to,
                         const told *t, size_t *bad)
{
  struct stat self;
  struct dirent **names;
  size_t tables = 0;
  int have_self = !stat(to_path, &self), n = scandir(dir, &names, is_baseline, alphasort);
  if (n < 0) {
    fprintf(t->err, "%s: %s: cannot read the directory '%s': %s: no hardware move\n",
            perf__progname(), t->who, dir, strerror(errno));
    ++*bad;
    return 0;
  }
  for (int i = 0; i < n; i++) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
    int r = one_other(path, have_self ? &self : NULL, to_path, to, t);
    tables += r > 0;
    *bad += r < 0;
    free(names[i]);
  }
  free(names);
  return tables;
}

/* See hwmove.h. */
void perf__hwmove_after_update(const char *path, const perf__baseline *b)
{
  if (perf__machine_is_host(b)) return;
  char dir[4200], *text = NULL;
  size_t len = 0, bad = 0;
  dir_of(path, dir, sizeof dir);
  FILE *md = open_memstream(&text, &len);
  told t = {stdout, md, stderr, "--update-baselines"};
  each_other(dir, path, b, &t, &bad);
  if (md && !fclose(md) && len) perf__json_raw(&pending, "%s", text);
  free(text);
  fflush(stdout);
}

/* See hwmove.h. */
void perf__hwmove_markdown(FILE *f)
{
  if (pending.len && !pending.oom) fwrite(pending.s, 1, pending.len, f);
}

/* Writes text[len] (or, when oom, nothing) to --markdown=path. Returns 0,
 * or 2 after a message. */
static int save(const char *path, const char *text, size_t len, int oom)
{
  char why[400];
  if (oom) snprintf(why, sizeof why, "%s", strerror(ENOMEM));
  if (!oom && !perf__file_replace(path, text, len, 0, NULL, why, sizeof why)) return 0;
  fprintf(stderr, "%s: cannot write --markdown=%s: %s\n", perf__progname(), path, why);
  return 2;
}

/* See hwmove.h. */
int perf__hwmove_run(const perf__options_cli *cli)
{
  const char *file = cli->compare_baselines, *who = "--compare-baselines";
  perf__baseline to;
  char why[4800], *text = NULL, host[400];
  size_t len = 0, bad = 0;
  if (perf__blyaml_load(file, &to, why, sizeof why)) {
    fprintf(stderr, "%s: %s: %s\n", perf__progname(), who, why);
    perf__baseline_free(&to);
    return 2;
  }
  if (perf__machine_is_host(&to)) {
    fprintf(stderr, "%s: %s: %s is a host's baseline file (%s): the hardware move compares GPUs' "
            "files\n", perf__progname(), who, file, perf__machine_describe(&to, host, sizeof host));
    perf__baseline_free(&to);
    return 2;
  }
  FILE *md = cli->markdown ? open_memstream(&text, &len) : NULL;
  told t = {stdout, md, stderr, who};
  size_t tables = each_other(cli->baseline_dir, file, &to, &t, &bad);
  int oom = cli->markdown && (!md || ferror(md)), code = bad ? 2 : 0;
  if (md && fclose(md)) oom = 1;
  if (!tables && !bad)
    fprintf(stderr, "%s: %s: no other GPU's baseline file in '%s' to compare %s with "
            "(--baseline-dir=DIR names another directory)\n", perf__progname(), who,
            cli->baseline_dir, file);
  if (!tables) code = 2;
  else if (cli->markdown && save(cli->markdown, text, len, oom)) code = 2;
  free(text);
  perf__baseline_free(&to);
  return code;
}
