/* rebaseline.c — --update-baselines in the supervisor: measurements from 5 runs (PERF__UPDATE_RUNS) merged into each machine's file. */
#define _POSIX_C_SOURCE 200809L
#include "supervisor/rebaseline.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/baseline.h"
#include "base/blyaml.h"
#include "base/machine.h"
#include "supervisor/baselinedir.h"
#include "base/blrule.h"
#include "base/units.h"
#include "base/stats.h"
#include "base/trace.h"
#include "base/status.h"
#include "base/grow.h"
#include "report/hwmove.h"

enum { RUNS = PERF__UPDATE_RUNS, MAX_RUNS = RUNS + PERF__UPDATE_RERUNS, MAX_FILES = 4, MAX_FIELDS = 64 };
/* An E record's declared work (4 fields: bytes read, written, flops, the
 * flop type's word) follows its references, when it has any. */
enum { WORK_AT = 12 + PERF__BLR_NREFS };

typedef struct meas {
  int file;
  char test[200], name[200], clock[16]; /* name: workload or claim */
  int is_ratio;
  double value[MAX_RUNS], mad[MAX_RUNS]; /* median (or ratio), spread */
  long samples[MAX_RUNS];
  perf__baseline_mhz clk[MAX_RUNS];      /* SM clock of each run's samples */
  double queue[MAX_RUNS];                /* events clock: host's queueing share */
  double ref[PERF__BLR_NREFS][MAX_RUNS]; /* perfgate's references in that run's
                                            process (0: not measured) */
  int seen[MAX_RUNS];                    /* runs RUNS.. are re-runs */
  perf__peaks_work work;                       /* its declared work (the last run's) */
  char *trace;                           /* its trace's JSON (the last run's); NULL */
} meas;

struct perf__rebaseline_runs {
  struct {
    char path[4200];
    perf__baseline fp;
  } files[MAX_FILES];
  size_t nfiles;
  meas *m;
  size_t n, cap;
  int accept_wide;     /* write entries over the tolerance ceiling */
  size_t flagged;      /* entries not written: their runs disagree or are too wide */
  char names[600];     /* the first of them, for the error */
};

/* NULL when out of memory. */
perf__rebaseline_runs *perf__rebaseline_new(void) { return calloc(1, sizeof(perf__rebaseline_runs)); }

/* Never fails. */
void perf__rebaseline_free(perf__rebaseline_runs *u)
{
  if (!u) return;
  for (size_t i = 0; i < u->n; i++) free(u->m[i].trace);
  free(u->m);
  free(u);
}

static int file_index(perf__rebaseline_runs *u, const char *path)
{
  for (size_t i = 0; i < u->nfiles; i++)
    if (!strcmp(u->files[i].path, path)) return (int)i;
  if (u->nfiles == MAX_FILES) return -1;
  snprintf(u->files[u->nfiles].path, sizeof u->files[0].path, "%s", path);
  perf__baseline_init(&u->files[u->nfiles].fp);
  return (int)u->nfiles++;
}

static meas *find_or_add(perf__rebaseline_runs *u, int file, const char *test,
                         const char *name, int is_ratio)
{
  for (size_t i = 0; i < u->n; i++)
    if (u->m[i].file == file && u->m[i].is_ratio == is_ratio &&
        !strcmp(u->m[i].test, test) && !strcmp(u->m[i].name, name))
      return &u->m[i];
  meas *m = perf__grow(u->m, &u->cap, u->n + 1, sizeof *m, 32);
  if (!m) return NULL;
  u->m = m;
  meas *x = &u->m[u->n++];
  memset(x, 0, sizeof *x);
  x->file = file;
  x->is_ratio = is_ratio;
  snprintf(x->test, sizeof x->test, "%s", test);
  snprintf(x->name, sizeof x->name, "%s", name);
  return x;
}

/* Splits a record line on tabs (in place). Returns the field count. */
static int split(char *line, char **f, int max)
{
  int n = 0;
  for (char *p = line; n < max;) {
    f[n++] = p;
    p = strchr(p, '\t');
    if (!p) break;
    *p++ = '\0';
  }
  return n;
}

/* "T\tpath\ttest\tworkload\tJSON": the trace of the entry's measurement
 * in that run, kept as it came (the last run's is written). Returns 0,
 * PERF__EPROTO (not four fields, a trace perfgate cannot read) or
 * PERF__ENOMEM. */
static int take_trace(perf__rebaseline_runs *u, const char *text)
{
  char *copy = strdup(text), *f[5], why[200];
  if (!copy) return PERF__ENOMEM;
  int n = split(copy, f, 5), rc = n == 5 ? 0 : PERF__EPROTO;
  int file = rc ? -1 : file_index(u, f[1]);
  perf__trace t;
  if (!rc && (file < 0 || perf__trace_parse(f[4], &t, why, sizeof why))) rc = PERF__EPROTO;
  if (!rc) perf__trace_free(&t);
  meas *m = rc ? NULL : find_or_add(u, file, f[2], f[3], 0);
  char *json = m ? strdup(f[4]) : NULL;
  if (!rc && !json) rc = PERF__ENOMEM;
  if (!rc) free(m->trace), m->trace = json;
  free(copy);
  return rc;
}

/* See rebaseline.h. */
int perf__rebaseline_take(perf__rebaseline_runs *u, const char *text, int run)
{
  char line[8192], *f[MAX_FIELDS];
  if (!strncmp(text, "T\t", 2)) return run < 0 || run >= MAX_RUNS ? PERF__EPROTO : take_trace(u, text);
  snprintf(line, sizeof line, "%s", text);
  int n = split(line, f, MAX_FIELDS);
  if (n < 2 || run < 0 || run >= MAX_RUNS) return PERF__EPROTO;
  int file = file_index(u, f[1]);
  if (file < 0) return PERF__EPROTO;
  if (!strcmp(f[0], "F")) {
    for (int i = 2; i + 1 < n; i += 2) perf__baseline_set_fp(&u->files[file].fp, f[i], f[i + 1]);
    return 0;
  }
  int ratio = !strcmp(f[0], "R");
  if ((ratio && n != 5) || (!ratio && (strcmp(f[0], "E") || n < 11 || n > WORK_AT + 4)))
    return PERF__EPROTO;
  perf__peaks_work work = {0};
  if (!ratio && n == WORK_AT + 4) {
    work = (perf__peaks_work){strtod(f[WORK_AT], NULL), strtod(f[WORK_AT + 1], NULL),
                              strtod(f[WORK_AT + 2], NULL), perf__peaks_type_of(f[WORK_AT + 3])};
    if (work.type == PERF_FLOP_TYPE_COUNT) return PERF__EPROTO;
  }
  meas *m = find_or_add(u, file, f[2], f[3], ratio);
  if (!m) return PERF__ENOMEM;
  m->work = work;
  m->seen[run] = 1;
  m->value[run] = strtod(f[ratio ? 4 : 5], NULL);
  if (!ratio) {
    snprintf(m->clock, sizeof m->clock, "%s", f[4]);
    m->mad[run] = strtod(f[6], NULL);
    m->samples[run] = strtol(f[7], NULL, 10);
    m->clk[run] = (perf__baseline_mhz){(unsigned)strtoul(f[8], NULL, 10),
                                       (unsigned)strtoul(f[9], NULL, 10),
                                       (unsigned)strtoul(f[10], NULL, 10)};
    m->queue[run] = n > 11 ? strtod(f[11], NULL) : 0;
    for (int k = 0; k < PERF__BLR_NREFS; k++)
      m->ref[k][run] = n > 12 + k ? strtod(f[12 + k], NULL) : 0;
  }
  return 0;
}

/* 1 when m is one of perfgate's reference entries (not a calibration
 * entry of the same test). Never fails. */
static int is_reference(const meas *m)
{
  if (strcmp(m->test, PERF__BLR_REFERENCE_TEST)) return 0;
  for (int k = 0; k < PERF__BLR_NREFS; k++)
    if (!strcmp(m->name, perf__blrule_ref_name((perf__blrule_ref)k))) return 1;
  return 0; /* a calibration (peak_*): judged as any entry */
}

static double median_of_runs(const double *v)
{
  double c[RUNS];
  memcpy(c, v, sizeof c);
  return perf__stats_median(c, RUNS);
}

/* The runs of m to judge: the RUNS runs, then the re-runs it has (in
 * order, none skipped). */
static int runs_of(const meas *m)
{
  int n = RUNS;
  while (n < MAX_RUNS && m->seen[n]) n++;
  return n;
}

/* The reference entry k of m's file as this update measured it, or NULL. */
static const meas *reference_of(const perf__rebaseline_runs *u, const meas *m, perf__blrule_ref k)
{
  for (size_t i = 0; i < u->n; i++) {
    const meas *x = &u->m[i];
    if (x->file == m->file && !x->is_ratio && !strcmp(x->test, PERF__BLR_REFERENCE_TEST) &&
        !strcmp(x->name, perf__blrule_ref_name(k)))
      return x;
  }
  return NULL;
}

/* 1 when a reference that applies to m (base/blrule.h) and that m's run r
 * timed in its own process ran slower than that reference's entry (its median over the update's runs) by more
 * than max(PERF__BLR_REF_MIN, its tolerance): the rule a check uses
 * (base/blrule.h), so that the machine was slow in that run. Never fails. */
static int machine_slow_in(const perf__rebaseline_runs *u, const meas *m, int r)
{
  for (int k = 0; k < PERF__BLR_NREFS; k++) {
    /* in a GPU's file every workload uses the GPU; a host file has no
     * GPU reference */
    if (!perf__blrule_ref_applies((perf__blrule_ref)k, m->clock, m->queue[r], 1)) continue;
    const meas *x = reference_of(u, m, (perf__blrule_ref)k);
    double v[MAX_RUNS];
    perf__blrule_fit f;
    int n = x ? runs_of(x) : 0;
    for (int i = 0; i < n; i++) v[i] = x->value[i];
    if (!(m->ref[k][r] > 0) || !n || perf__blrule_fit_runs(v, NULL, n, &f)) continue;
    if (m->ref[k][r] > f.median * (1 + fmax(PERF__BLR_REF_MIN, f.tolerance))) return 1;
  }
  return 0;
}

/* 1 when run r of m was left out as slower than the others, by at most
 * PERF__BLR_MODE_MAX, while the machine ran as usual in its process: a
 * slow mode of the workload itself, kept in the entry (slow_runs_s) so
 * that a check that lands in it is not called a regression. Never fails. */
static int slow_mode(const perf__rebaseline_runs *u, const meas *m, const perf__blrule_fit *f, int r)
{
  return !f->too_few && !is_reference(m) && f->why[r] == PERF__BLR_OUTLIER && f->off[r] > 0 &&
         f->off[r] <= PERF__BLR_MODE_MAX && !machine_slow_in(u, m, r);
}

static void today(char *buf, size_t len)
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%d", &tm);
}

/* Why run r was left out, as a phrase ("" when clean). */
static const char *left_out(const perf__rebaseline_runs *u, const meas *m, const perf__blrule_fit *f, int r,
                            char *buf, size_t len)
{
  const char *how = f->too_few ? "far" : "left out"; /* too many out: all are kept */
  if (f->why[r] == PERF__BLR_LOW_CLOCK)
    snprintf(buf, len, " (%s: SM clock %u MHz, the fastest run's %u)", how, m->clk[r].median,
             f->top_mhz);
  else if (f->why[r] == PERF__BLR_OUTLIER)
    snprintf(buf, len, " (%s: %+.1f%% off the runs' median%s)", how, 100 * f->off[r],
             slow_mode(u, m, f, r)                                ? "; kept as a slow mode"
             : f->off[r] > 0 && !is_reference(m) && machine_slow_in(u, m, r) ? "; the machine was slow too"
                                                                  : "");
  else
    buf[0] = '\0';
  return buf;
}

/* "31.38 us (left out: +47.5% off the runs' median), 23.41 us, ...; re-runs
 * 21.3 us, ...": each run's median, in run order, and why a run was left
 * out, so that a reviewer sees the between-run spread the tolerance came
 * from. Never fails (truncates). */
static void run_values(const perf__rebaseline_runs *u, const meas *m, const perf__blrule_fit *f, char *buf,
                       size_t len)
{
  size_t used = 0;
  buf[0] = '\0';
  for (int r = 0; r < runs_of(m) && used < len; r++) {
    char t[32], why[96];
    perf__units_time(t, sizeof t, m->value[r]);
    int n = snprintf(buf + used, len - used, "%s%s%s", r == RUNS ? "; re-runs " : r ? ", " : "",
                     t, left_out(u, m, f, r, why, sizeof why));
    used += n > 0 ? (size_t)n : 0;
  }
}

/* Remembers an entry the update did not write, with why in a word or
 * two (for the error at the end). */
static void flag(perf__rebaseline_runs *u, const meas *m, const char *why)
{
  size_t used = strlen(u->names);
  if (used < sizeof u->names - 1)
    snprintf(u->names + used, sizeof u->names - used, "%s%s / %s (%s)", u->flagged ? ", " : "",
             m->test, m->name, why);
  u->flagged++;
}

/* The entry the clean runs of m make (f: their fit). */
static perf__baseline_entry entry_of(const perf__rebaseline_runs *u, const meas *m, const perf__blrule_fit *f,
                                     const char *date)
{
  double mads[MAX_RUNS];
  perf__baseline_mhz clk[MAX_RUNS];
  int k = 0;
  perf__baseline_entry e = {0};
  snprintf(e.test, sizeof e.test, "%s", m->test);
  snprintf(e.workload, sizeof e.workload, "%.95s", m->name);
  snprintf(e.clock, sizeof e.clock, "%s", m->clock);
  e.work = m->work;
  e.trace = m->trace; /* borrowed: perf__baseline_put_entry copies it */
  snprintf(e.recorded, sizeof e.recorded, "%s", date);
  for (int r = 0; r < runs_of(m); r++) {
    if (slow_mode(u, m, f, r)) e.slow_s[e.nslow++] = m->value[r];
    if (f->why[r] != PERF__BLR_CLEAN && !f->too_few) continue;
    e.runs_s[e.nruns++] = m->value[r];
    e.samples += m->samples[r];
    mads[k] = m->mad[r];
    clk[k++] = m->clk[r];
  }
  e.median_s = f->median;
  e.spread_s = perf__stats_median(mads, (size_t)k);
  e.sm_clock = perf__baseline_mhz_merge(clk, (size_t)k);
  e.tolerance = f->tolerance;
  return e;
}

/* 1 when a run of m on the events clock was launch-bound (the host's
 * queueing took PERF__BLR_LAUNCH_BOUND of the time or more): its time is the
 * host's pace, which differs between processes (by up to 25 % on the
 * H100's host, where 5 such runs that agreed within 1.1 % gave a 4.9 %
 * tolerance that 3 of 20 unchanged checks failed). */
static int launch_bound(const meas *m)
{
  for (int r = 0; r < runs_of(m); r++)
    if (m->queue[r] >= PERF__BLR_LAUNCH_BOUND) return 1;
  return 0;
}

/* Why the update does not write m's entry, or NULL when it does (with
 * accept_wide it writes every entry, from all runs where they disagree;
 * perfgate's reference entries are always written: a wide one only
 * explains less); *word gets the reason in a word or two. */
static const char *refused(const perf__rebaseline_runs *u, const meas *m, const perf__blrule_fit *f,
                           const char **word)
{
  if (u->accept_wide || is_reference(m)) return NULL;
  if (launch_bound(m))
    return *word = "launch-bound",
           "it is launch-bound on the events clock (its time is the host's pace to queue the "
           "work, which differs between processes; .clock = PERF_CLOCK_DEVICE times the GPU's "
           "work alone)";
  if (f->too_few)
    return *word = "runs disagree", "its runs disagree (more than one far from the others)";
  if (f->wide) return *word = "too wide", "its tolerance is over the ceiling";
  return NULL;
}

/* Judges m's runs (base/blrule.h). Returns 0 or PERF__EINVAL (a value
 * that is not a positive number). */
static int fit(const meas *m, perf__blrule_fit *f)
{
  double v[MAX_RUNS];
  unsigned mhz[MAX_RUNS];
  int n = runs_of(m);
  for (int r = 0; r < n; r++) v[r] = m->value[r], mhz[r] = m->clk[r].median;
  return perf__blrule_fit_runs(v, mhz, n, f);
}

/* Prints m's rows of the update table: the entry e (old: the file's, or
 * NULL) and its tolerance, each run with why it was left out, and, when
 * `no` is the reason it is not written, that. Never fails. */
static void print_entry(const perf__rebaseline_runs *u, const meas *m, const perf__blrule_fit *f,
                        const perf__baseline_entry *e,
                        const perf__baseline_entry *old, const char *no)
{
  char was[32] = "-", now[32], change[32] = "new", sm[40] = "SM clock unknown", runs[700];
  char clean[40];
  if (old) {
    perf__units_time(was, sizeof was, old->median_s);
    snprintf(change, sizeof change, "%+.1f%%", 100 * (e->median_s / old->median_s - 1));
  }
  perf__units_time(now, sizeof now, e->median_s);
  if (e->sm_clock.median) snprintf(sm, sizeof sm, "SM clock %u MHz", e->sm_clock.median);
  printf("  %-56.56s %11s %11s %8s %6.1f%%%s\n", m->test, was, now, change, 100 * e->tolerance,
         no ? " NOT WRITTEN" : f->wide || f->too_few ? " WIDE" : "");
  run_values(u, m, f, runs, sizeof runs);
  if (f->too_few)
    snprintf(clean, sizeof clean, "all %d: they disagree", runs_of(m));
  else
    snprintf(clean, sizeof clean, "%d clean", f->nclean);
  printf("    %s (%s clock, %s); runs %s; spread between runs %.2f%% (%s)\n", m->name, m->clock,
         sm, runs, 100 * f->spread, clean);
  if (no)
    printf("    not written: %s (tolerance %.1f%%, ceiling %.0f%%): %s; rerun the update on a "
           "quiet machine, or give --accept-wide to write it\n", no, 100 * f->tolerance,
           100 * PERF__BLR_CEILING, old ? "the old entry is kept" : "it has no entry");
  else if ((f->wide || f->too_few) && is_reference(m))
    printf("    written %s (perfgate's reference, always written): it explains only slowdowns "
           "of the machine above %.1f%%\n", f->too_few ? "from all runs" : "wide",
           100 * f->tolerance);
  else if (f->wide || f->too_few)
    printf("    written %s (--accept-wide): it catches only changes above %.1f%%\n",
           f->too_few ? "from all runs" : "wide", 100 * f->tolerance);
}

/* Merges one measured workload (unless its runs disagree, are too wide or
 * launch-bound: then the old entry stays and it is flagged); prints its
 * table rows. Returns 0, PERF__ENOMEM, or PERF__EPROTO (a run's value is
 * not a positive number). */
static int merge_entry(perf__rebaseline_runs *u, perf__baseline *b, const meas *m, const char *date)
{
  perf__blrule_fit f;
  if (fit(m, &f)) return PERF__EPROTO;
  perf__baseline_entry e = entry_of(u, m, &f, date);
  const char *word = "", *no = refused(u, m, &f, &word);
  print_entry(u, m, &f, &e, perf__baseline_find(b, e.test, e.workload), no);
  if (no) {
    flag(u, m, word);
    return 0;
  }
  return perf__baseline_put_entry(b, &e);
}

static int merge_ratio(perf__baseline *b, const meas *m, const char *date)
{
  perf__baseline_ratio r = {0};
  snprintf(r.test, sizeof r.test, "%s", m->test);
  snprintf(r.claim, sizeof r.claim, "%s", m->name);
  snprintf(r.recorded, sizeof r.recorded, "%s", date);
  r.ratio = median_of_runs(m->value);
  printf("  %-56.56s %35.3fx\n    %s\n", m->test, r.ratio, m->name);
  return perf__baseline_put_ratio(b, &r);
}

static int all_runs(const meas *m)
{
  for (int r = 0; r < RUNS; r++)
    if (!m->seen[r]) return 0;
  return 1;
}

/* Loads file i (under the updaters' lock) and merges this run's
 * measurements into *b. Returns 0 or an error with err filled (b is then
 * still to be freed). */
static int merge_file(perf__rebaseline_runs *u, size_t i, const char *date, perf__baseline *b,
                      char *err, size_t len)
{
  int r = perf__blyaml_load(u->files[i].path, b, err, len);
  if (r && !(r == PERF__EIO && errno == ENOENT)) return r == PERF__EIO ? PERF__EIO : PERF__EBADFILE;
  if (r) { /* a new file */
    perf__baseline_init(b);
    r = 0;
  } else if (perf__machine_other(b, &u->files[i].fp)) { /* its entries are not this machine's */
    size_t n = strlen(perf__machine_say_other(u->files[i].path, b, &u->files[i].fp, err, len));
    snprintf(err + n, len - n, ": move it away (or give another --baseline-dir) and update again");
    return PERF__EBADFILE;
  }
  for (size_t k = 0; k < u->files[i].fp.nfp; k++)
    perf__baseline_set_fp(b, u->files[i].fp.fp[k].key, u->files[i].fp.fp[k].value);
  printf("\nbaselines: %s (%zu %s before this update; entries not re-measured are kept)\n",
         u->files[i].path, b->nentries, perf__units_noun((long long)b->nentries, "entry", "entries"));
  printf("  %-56s %11s %11s %8s %7s\n", "entry", "old", "new", "change", "tol.");
  for (size_t k = 0; !r && k < u->n; k++) {
    const meas *m = &u->m[k];
    if (m->file != (int)i) continue;
    if (!all_runs(m)) {
      printf("  %-56.56s not recorded: not measured in all %d runs\n", m->test, RUNS);
      continue;
    }
    r = m->is_ratio ? merge_ratio(b, m, date) : merge_entry(u, b, m, date);
    if (r == PERF__EPROTO)
      snprintf(err, len, "%s / %s: a run's median is not a positive number", m->test, m->name);
    else if (r)
      snprintf(err, len, "%s", perf__status_strerror(r));
  }
  fflush(stdout);
  return r;
}

/* Merges everything for file i and writes it, holding the updaters' lock
 * (perf__baselinedir_lock) from the load to the rename, so that a concurrent updater's entries are
 * read and kept rather than overwritten. Returns 0 or an error. */
static int write_file(perf__rebaseline_runs *u, size_t i, const char *date, char *err,
                      size_t len)
{
  perf__baseline b;
  int lock = perf__baselinedir_lock(u->files[i].path, err, len);
  if (lock < 0) return PERF__EIO;
  int r = merge_file(u, i, date, &b, err, len);
  if (!r) r = perf__blyaml_save(u->files[i].path, &b, err, len);
  if (!r) printf("baselines: wrote %s\n", u->files[i].path);
  if (!r) perf__hwmove_after_update(u->files[i].path, &b); /* beside another GPU's file */
  perf__baselinedir_unlock(lock);
  perf__baseline_free(&b);
  return r;
}

/* See rebaseline.h. */
int perf__rebaseline_write(perf__rebaseline_runs *u, int accept_wide, char *err, size_t len)
{
  u->accept_wide = accept_wide;
  char date[16];
  today(date, sizeof date);
  for (size_t i = 0; i < u->nfiles; i++) {
    int r = write_file(u, i, date, err, len);
    if (r) return r;
  }
  if (!u->nfiles) printf("\nbaselines: nothing was measured, nothing written\n");
  return 0;
}

/* See rebaseline.h. */
size_t perf__rebaseline_flagged(const perf__rebaseline_runs *u, const char **names)
{
  if (names) *names = u->names;
  return u->flagged;
}

/* See rebaseline.h. */
int perf__rebaseline_wants_rerun(const perf__rebaseline_runs *u, const char *test, int run)
{
  for (size_t i = 0; i < u->n; i++) {
    const meas *m = &u->m[i];
    perf__blrule_fit f;
    if (m->is_ratio || strcmp(m->test, test) || !all_runs(m) || runs_of(m) != run) continue;
    if (!fit(m, &f) && !f.too_few && f.nclean == run - 1) return 1;
  }
  return 0;
}
