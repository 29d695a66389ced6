/* rebaseline.c — --update-baselines in the supervisor: runs merged into each machine's file. */
/* An update measures every test in 5 runs (PERF__UPDATE_RUNS). */
#define _POSIX_C_SOURCE 200809L
#include "supervisor/rebaseline.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline/baseline.h"
#include "baseline/blemit.h"
#include "baseline/blyaml.h"
#include "baseline/machine.h"
#include "supervisor/baselinedir.h"
#include "baseline/blrule.h"
#include "util/units.h"
#include "stats/stats.h"
#include "baseline/trace.h"
#include "util/status.h"
#include "util/grow.h"
#include "report/hwmove.h"

enum { RUNS = PERF__UPDATE_RUNS, MAX_RUNS = PERF__BL_MAX_RUNS, MAX_FILES = 4, MAX_FIELDS = 64 };
/* An E record's declared work (4 fields: bytes read, written, flops, the
 * flop type's word) follows its references, when it has any. */
enum { WORK_AT = 12 + PERF__BLR_NREFS };

/* What a measurement is: a workload's time (an entry), a ratio claim's
 * ratio, or what one call of a workload executed on the GPU (a work count,
 * for PERF_EXPECT_SAME_WORK claims). */
typedef enum meas_kind { M_ENTRY, M_RATIO, M_WORK } meas_kind;

typedef struct meas {
  int file;
  char test[200], name[200], clock[16]; /* name: workload or claim */
  meas_kind kind;
  double value[MAX_RUNS], mad[MAX_RUNS]; /* median (or ratio, or instructions), spread */
  double bytes[MAX_RUNS];                /* a work count's DRAM bytes read */
  long samples[MAX_RUNS];
  perf__baseline_mhz clk[MAX_RUNS];      /* SM clock of each run's samples */
  double queue[MAX_RUNS];                /* events clock: host's queueing share */
  double ref[PERF__BLR_NREFS][MAX_RUNS]; /* perfgate's references in that run's
                                            process (0: not measured) */
  int seen[MAX_RUNS];                    /* runs RUNS.. are the runs of tests that needed more */
  perf__peaks_work work;                 /* its declared work (the last run's) */
  char *trace;                           /* its trace's JSON (the last run's); NULL */
  int traced;                            /* that trace has items */
  perf__blrule_traced what;              /* and what they say (baseline/blrule.h) */
  char kernel[PERF__TRACE_NAME];         /* that trace's longest kernel ("": none) */
} meas;

/* An entry's runs judged: baseline/blrule.h's fit, what paces it, its floor. */
typedef struct judged {
  perf__blrule_fit f;     /* the floor raised where host-paced or the clock fell */
  perf__blrule_pace pace; /* PERF__BLR_PACE_GPU: not host-paced (or perfgate's reference) */
  double host_tol;        /* perfgate's host reference's tolerance over its processes (0: unknown) */
  double fall;            /* the SM clock's fall during its samples (clock_fall; 0: none) */
  unsigned lo, hi;        /* the SM clock's lowest and highest reading then (MHz) */
  const meas *from;       /* the entry whose readings fell so (m, or one of its kernel) */
  double v[MAX_RUNS], mad[MAX_RUNS]; /* each run's median and MAD as judged: m's, or
                                        launch-normalized (per_launch) */
  double launch_s;        /* the launch reference they are scaled to (0: not normalized) */
  int gpu_bound;          /* launch-paced, but its trace has the GPU busy for at least
                             PERF__BLR_GPU_PACED of its time: not launch-normalized */
} judged;

/* A test that failed in an update's run: none of its entries is written. */
typedef struct failure {
  char test[200];
  int run;
  char why[120];
} failure;

/* Entries not written for one reason, for the summary. */
typedef struct tally {
  const char *word;
  size_t n;
} tally;

struct perf__rebaseline_runs {
  struct {
    char path[4200];
    perf__baseline fp;
  } files[MAX_FILES];
  size_t nfiles;
  meas *m;
  size_t n, cap;
  int max_runs;        /* the most runs an entry takes */
  unsigned how;        /* PERF__REBASELINE_* of the write */
  failure *failed;     /* tests that failed, in the order they did */
  size_t nfailed, cap_failed;
  int failed_all;      /* a failure could not be kept: every test counts as failed */
  char failed_names[600];
  size_t flagged;      /* entries not written (refused: too wide, host-paced, ...) */
  char names[600];     /* the first of them, for the error */
  size_t written;      /* entries written (perfgate's references left out) */
  size_t took[MAX_RUNS + 1]; /* of those, how many took k runs */
  tally no[8];         /* entries not written, by reason */
};

/* NULL when out of memory. */
perf__rebaseline_runs *perf__rebaseline_new(int max_runs)
{
  perf__rebaseline_runs *u = calloc(1, sizeof(perf__rebaseline_runs));
  if (u)
    u->max_runs = max_runs < RUNS ? RUNS : max_runs > MAX_RUNS ? MAX_RUNS : max_runs;
  return u;
}

/* Never fails. */
void perf__rebaseline_free(perf__rebaseline_runs *u)
{
  if (!u) return;
  for (size_t i = 0; i < u->n; i++) free(u->m[i].trace);
  free(u->m);
  free(u->failed);
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
                         const char *name, meas_kind kind)
{
  for (size_t i = 0; i < u->n; i++)
    if (u->m[i].file == file && u->m[i].kind == kind &&
        !strcmp(u->m[i].test, test) && !strcmp(u->m[i].name, name))
      return &u->m[i];
  meas *m = perf__grow(u->m, &u->cap, u->n + 1, sizeof *m, 32);
  if (!m) return NULL;
  u->m = m;
  meas *x = &u->m[u->n++];
  memset(x, 0, sizeof *x);
  x->file = file;
  x->kind = kind;
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

/* The name of t's kernel with the most GPU time into name ("" when it has
 * none). Never fails. */
static void longest_kernel(const perf__trace *t, char *name, size_t len)
{
  double most = 0;
  name[0] = '\0';
  for (size_t i = 0; i < t->n; i++)
    if (t->items[i].kind == PERF__TRACE_KERNEL && t->items[i].device_s > most) {
      most = t->items[i].device_s;
      snprintf(name, len, "%s", t->items[i].name);
    }
}

/* "T\tpath\ttest\tworkload\tJSON": the trace of the entry's measurement
 * in that run, kept as it came (the last run's is written), and what it
 * says of the entry's pace (baseline/blrule.h). Returns 0, PERF__EPROTO (not
 * four fields, a trace perfgate cannot read) or PERF__ENOMEM. */
static int take_trace(perf__rebaseline_runs *u, const char *text)
{
  char *copy = strdup(text), *f[5], why[200];
  if (!copy) return PERF__ENOMEM;
  int n = split(copy, f, 5), rc = n == 5 ? 0 : PERF__EPROTO;
  int file = rc ? -1 : file_index(u, f[1]);
  perf__trace t = {0};
  if (!rc && (file < 0 || perf__trace_parse(f[4], &t, why, sizeof why))) rc = PERF__EPROTO;
  meas *m = rc ? NULL : find_or_add(u, file, f[2], f[3], M_ENTRY);
  char *json = m ? strdup(f[4]) : NULL;
  if (!rc && !json) rc = PERF__ENOMEM;
  if (!rc) {
    free(m->trace), m->trace = json;
    m->traced = perf__blrule_traced_of(&t, &m->what);
    longest_kernel(&t, m->kernel, sizeof m->kernel);
  }
  perf__trace_free(&t);
  free(copy);
  return rc;
}

/* A count in a W record into *v: a number in [lo, PERF__BL_WORK_MAX] (what
 * the file holds), all of the text. Returns 1, or 0 when it is not one. */
static int count_of(const char *text, double lo, double *v)
{
  char *end;
  errno = 0;
  *v = strtod(text, &end);
  return *text && !*end && !errno && *v >= lo && *v <= PERF__BL_WORK_MAX;
}

/* "W\tpath\ttest\tworkload\tinsts\tdram_read" (split into f[n], file the
 * path's): what one call of the workload executed on the GPU in run `run`.
 * Returns 0, PERF__EPROTO (not six fields, an empty name, an instruction
 * count below 1 or a byte count below 0, either not a number or over
 * PERF__BL_WORK_MAX) or PERF__ENOMEM. */
static int take_work(perf__rebaseline_runs *u, int file, char **f, int n, int run)
{
  double insts, bytes;
  if (n != 6 || !f[2][0] || !f[3][0] || !count_of(f[4], 1, &insts) ||
      !count_of(f[5], 0, &bytes))
    return PERF__EPROTO;
  meas *m = find_or_add(u, file, f[2], f[3], M_WORK);
  if (!m) return PERF__ENOMEM;
  m->seen[run] = 1;
  m->value[run] = insts;
  m->bytes[run] = bytes;
  return 0;
}

/* See rebaseline.h. */
int perf__rebaseline_take(perf__rebaseline_runs *u, const char *text, int run)
{
  char line[8192], *f[MAX_FIELDS];
  if (run < 0 || run >= u->max_runs) return PERF__EPROTO;
  if (!strncmp(text, "T\t", 2)) return take_trace(u, text);
  snprintf(line, sizeof line, "%s", text);
  int n = split(line, f, MAX_FIELDS);
  if (n < 2) return PERF__EPROTO;
  int file = file_index(u, f[1]);
  if (file < 0) return PERF__EPROTO;
  if (!strcmp(f[0], "F")) {
    for (int i = 2; i + 1 < n; i += 2) perf__baseline_set_fp(&u->files[file].fp, f[i], f[i + 1]);
    return 0;
  }
  if (!strcmp(f[0], "W")) return take_work(u, file, f, n, run);
  int ratio = !strcmp(f[0], "R");
  if ((ratio && n != 5) || (!ratio && (strcmp(f[0], "E") || n < 11 || n > WORK_AT + 4)))
    return PERF__EPROTO;
  perf__peaks_work work = {0};
  if (!ratio && n == WORK_AT + 4) {
    work = (perf__peaks_work){strtod(f[WORK_AT], NULL), strtod(f[WORK_AT + 1], NULL),
                              strtod(f[WORK_AT + 2], NULL), perf__peaks_type_of(f[WORK_AT + 3])};
    if (work.type == PERF_FLOP_TYPE_COUNT) return PERF__EPROTO;
  }
  meas *m = find_or_add(u, file, f[2], f[3], ratio ? M_RATIO : M_ENTRY);
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

/* See rebaseline.h. */
void perf__rebaseline_failed(perf__rebaseline_runs *u, const char *test, int run, const char *why)
{
  for (size_t i = 0; i < u->nfailed; i++)
    if (!strcmp(u->failed[i].test, test)) return;
  failure *f = perf__grow(u->failed, &u->cap_failed, u->nfailed + 1, sizeof *f, 8);
  if (!f) {
    u->failed_all = 1; /* never write a failed test's entries */
    return;
  }
  u->failed = f;
  f = &u->failed[u->nfailed++];
  snprintf(f->test, sizeof f->test, "%s", test);
  snprintf(f->why, sizeof f->why, "%s", why);
  f->run = run;
  size_t used = strlen(u->failed_names);
  if (used < sizeof u->failed_names - 1)
    snprintf(u->failed_names + used, sizeof u->failed_names - used, "%s%s", used ? ", " : "", test);
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

/* The runs of m to judge: the RUNS runs, then the more runs it has (in
 * order, none skipped). */
static int runs_of(const meas *m)
{
  int n = RUNS;
  while (n < MAX_RUNS && m->seen[n]) n++;
  return n;
}

/* The median of m's values over its runs. */
static double median_of_runs(const meas *m)
{
  double c[MAX_RUNS];
  int n = runs_of(m);
  memcpy(c, m->value, (size_t)n * sizeof c[0]);
  return perf__stats_median(c, (size_t)n);
}

/* The reference entry k of m's file as this update measured it, or NULL. */
static const meas *reference_of(const perf__rebaseline_runs *u, const meas *m, perf__blrule_ref k)
{
  for (size_t i = 0; i < u->n; i++) {
    const meas *x = &u->m[i];
    if (x->file == m->file && x->kind == M_ENTRY && !strcmp(x->test, PERF__BLR_REFERENCE_TEST) &&
        !strcmp(x->name, perf__blrule_ref_name(k)))
      return x;
  }
  return NULL;
}

/* 1 when a reference that applies to m (baseline/blrule.h) and that m's run r
 * timed in its own process ran above that reference's band (its entry as
 * the update's runs make it: perf__blrule_ref_band, the rule a check
 * uses), so that the machine was slow in that run. Never fails. */
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
    perf__baseline_entry e = {.median_s = f.median, .tolerance = f.tolerance};
    if (m->ref[k][r] > perf__blrule_ref_band(&e)) return 1;
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

/* "31.38 us (left out: +47.5% off the runs' median), 23.41 us, ...; more runs
 * 21.3 us, ...": each run's median, in run order, and why a run was left
 * out, so that a reviewer sees the between-run spread the tolerance came
 * from. Never fails (truncates). */
static void run_values(const perf__rebaseline_runs *u, const meas *m, const judged *j, char *buf,
                       size_t len)
{
  const perf__blrule_fit *f = &j->f;
  size_t used = 0;
  buf[0] = '\0';
  for (int r = 0; r < runs_of(m) && used < len; r++) {
    char t[32], why[96];
    perf__units_time(t, sizeof t, j->v[r]);
    int n = snprintf(buf + used, len - used, "%s%s%s", r == RUNS ? "; more runs " : r ? ", " : "",
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

/* The entry the clean runs of m make (j: their values and fit). */
static perf__baseline_entry entry_of(const perf__rebaseline_runs *u, const meas *m, const judged *j,
                                     const char *date)
{
  const perf__blrule_fit *f = &j->f;
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
    if (slow_mode(u, m, f, r)) e.slow_s[e.nslow++] = j->v[r];
    if (f->why[r] != PERF__BLR_CLEAN && !f->too_few) continue;
    e.runs_s[e.nruns++] = j->v[r];
    e.samples += m->samples[r];
    mads[k] = j->mad[r];
    clk[k++] = m->clk[r];
  }
  e.median_s = f->median;
  e.spread_s = perf__stats_median(mads, (size_t)k);
  e.sm_clock = perf__baseline_mhz_merge(clk, (size_t)k);
  e.tolerance = f->tolerance;
  e.launch_s = j->launch_s;
  return e;
}

/* The first failure of test, or NULL when it did not fail; every test's
 * but perfgate's own when a failure could not be kept. */
static const failure *failure_of(const perf__rebaseline_runs *u, const char *test)
{
  static const failure unknown = {.why = "a failure could not be kept (out of memory)"};
  for (size_t i = 0; i < u->nfailed; i++)
    if (!strcmp(u->failed[i].test, test)) return &u->failed[i];
  return u->failed_all && strcmp(test, PERF__BLR_REFERENCE_TEST) ? &unknown : NULL;
}


/* The SM clock's fall while m's samples ran, over its runs whose readings
 * are known: (highest - lowest) / highest of the samples' readings, with
 * them in *lo and *hi; 0 when no run's are known or the fall is within
 * PERF__BL_CLOCK_MOVED. Never fails. */
static double fall_of(const meas *m, unsigned *lo, unsigned *hi)
{
  unsigned a = UINT_MAX, b = 0;
  for (int r = 0; r < runs_of(m); r++) {
    if (!m->clk[r].min || !m->clk[r].max) continue;
    a = m->clk[r].min < a ? m->clk[r].min : a;
    b = m->clk[r].max > b ? m->clk[r].max : b;
  }
  if (!b || a >= b) return 0;
  double fall = (double)(b - a) / b;
  if (fall <= PERF__BL_CLOCK_MOVED) return 0;
  *lo = a, *hi = b;
  return fall;
}

/* The clock's fall that m's time moves with (baseline/blrule.h: the floor of a
 * power-paced entry), into j: the largest of m's and of the entries of its
 * test whose longest kernel is m's (the same kernel in the same processes
 * meets the same power state; which of them the clock's readings catch
 * low is chance: an H200's 8192^2 GEMM read 1935-1980 MHz as one entry and
 * 1515-1980 as the other, in the same runs, 2026-11-29). Never fails. */
static void clock_fall(const perf__rebaseline_runs *u, const meas *m, judged *j)
{
  for (size_t i = 0; i < u->n; i++) {
    const meas *x = &u->m[i];
    if (x != m && (x->kind != M_ENTRY || x->file != m->file || strcmp(x->test, m->test) ||
                   !m->kernel[0] || strcmp(x->kernel, m->kernel)))
      continue;
    unsigned lo = 0, hi = 0;
    double fall = fall_of(x, &lo, &hi);
    if (fall > j->fall) j->fall = fall, j->lo = lo, j->hi = hi, j->from = x;
  }
}

/* The tolerance perfgate's host reference allows between this update's
 * processes: its entry's runs (timed once in each run's process), else,
 * where the update has no such entry, the readings m's own processes
 * took; 0 when neither has two runs. The entry comes first: a reading in
 * an entry's own process follows that test's samples and carries their
 * aftermath (H200, 2026-11-29: busy_sync's five readings gave a 62 %
 * tolerance, the reference entry's eleven runs 8.4 %), which would put
 * every host-paced floor over PERF__BLR_WRITE_CEILING. Never fails. */
static double host_tolerance(const perf__rebaseline_runs *u, const meas *m)
{
  double v[MAX_RUNS];
  int n = 0;
  perf__blrule_fit f;
  const meas *x = reference_of(u, m, PERF__BLR_REF_HOST);
  if (x && runs_of(x) >= 2) {
    n = runs_of(x);
    memcpy(v, x->value, (size_t)n * sizeof v[0]);
  } else {
    for (int r = 0; r < runs_of(m); r++)
      if (m->ref[PERF__BLR_REF_HOST][r] > 0) v[n++] = m->ref[PERF__BLR_REF_HOST][r];
  }
  return n >= 2 && !perf__blrule_fit_runs(v, NULL, n, &f) ? f.tolerance : 0;
}

/* 1 when the driver's launch path paces j's measurement (baseline/blrule.h:
 * launch-bound, the submit clock). Never fails. */
static int launch_paced(const judged *j)
{
  return j->pace == PERF__BLR_PACE_LAUNCH || j->pace == PERF__BLR_PACE_SUBMIT;
}

/* 1 when the update never writes j's entry unless asked (baseline/blrule.h:
 * launch-paced, neither launch-normalized nor GPU-bound). Never fails. */
static int never_written(const judged *j)
{
  return launch_paced(j) && !(j->launch_s > 0) && !j->gpu_bound;
}

/* 1 when m's trace has the GPU busy for at least PERF__BLR_GPU_PACED of
 * median (seconds per iteration): its time is mostly the GPU's, waited for
 * (a 1.5 ms GEMM with a sync after it is "launch-bound" on the events
 * clock: the host's sync takes the time). Never fails. */
static int gpu_bound(const meas *m, double median)
{
  return m->traced && perf__blrule_gpu_bound(&m->what, median);
}

/* Scales j's n run values (m's) to the median of perfgate's launch
 * reference over them when every run read it (baseline/blrule.h: a
 * launch-normalized entry), setting j->launch_s; leaves them as they are
 * otherwise. Never fails. */
static void per_launch(const meas *m, int n, judged *j)
{
  double l[MAX_RUNS];
  for (int r = 0; r < n; r++) {
    l[r] = m->ref[PERF__BLR_REF_LAUNCH][r];
    if (!(l[r] > 0)) return;
  }
  double mid = perf__stats_median(l, (size_t)n);
  for (int r = 0; r < n; r++) {
    j->v[r] = perf__blrule_per_launch(m->value[r], mid, m->ref[PERF__BLR_REF_LAUNCH][r]);
    j->mad[r] = perf__blrule_per_launch(m->mad[r], mid, m->ref[PERF__BLR_REF_LAUNCH][r]);
  }
  j->launch_s = mid;
}

/* Judges m's runs (baseline/blrule.h) into j: the fit (of all runs where
 * the host paces it), and its floor where the host paces it or the clock
 * fell. Returns 0 or PERF__EINVAL (a value that is not a positive
 * number). */
static int judge(const perf__rebaseline_runs *u, const meas *m, judged *j)
{
  double queue = 0;
  unsigned mhz[MAX_RUNS];
  int n = runs_of(m);
  memset(j, 0, sizeof *j);
  for (int r = 0; r < n; r++) {
    j->v[r] = m->value[r], j->mad[r] = m->mad[r], mhz[r] = m->clk[r].median;
    queue = fmax(queue, m->queue[r]);
  }
  if (perf__blrule_fit_runs(j->v, mhz, n, &j->f)) return PERF__EINVAL;
  if (is_reference(m)) return 0;
  int gpu = !perf__machine_is_host(&u->files[m->file].fp);
  j->pace = perf__blrule_pace_of(m->clock, queue, gpu, m->traced ? &m->what : NULL, j->f.median);
  if (gpu && launch_paced(j)) {
    j->gpu_bound = gpu_bound(m, j->f.median);
    if (!j->gpu_bound) per_launch(m, n, j);
  }
  if (j->pace != PERF__BLR_PACE_GPU && perf__blrule_fit_all(j->v, n, &j->f)) return PERF__EINVAL;
  if (!gpu || never_written(j)) j->f.line = PERF__BLR_CEILING;
  if (gpu) clock_fall(u, m, j);
  perf__blrule_raise_floor(&j->f, j->fall);
  if (j->pace == PERF__BLR_PACE_GPU) return 0;
  if (j->launch_s > 0) {
    perf__blrule_raise_floor(&j->f, PERF__BLR_LAUNCH_FLOOR);
    return 0;
  }
  j->host_tol = host_tolerance(u, m);
  perf__blrule_raise_floor(&j->f, fmax(PERF__BLR_HOST_PACED_FLOOR, j->host_tol));
  return 0;
}

/* 1 when the host paces j's measurement (baseline/blrule.h). Never fails. */
static int paced(const judged *j) { return j->pace != PERF__BLR_PACE_GPU; }

/* Why the update does not write m's entry (j: its runs judged), or NULL
 * when it does (baseline/blrule.h): up to j->f.line (PERF__BLR_WRITE_CEILING
 * in a GPU's file, WIDE over PERF__BLR_CEILING, from all runs where they
 * disagree; PERF__BLR_CEILING in a host's), never launch-bound or on the
 * submit clock unless launch-normalized or GPU-bound; every entry with
 * PERF__REBASELINE_ACCEPT_WIDE in how, and
 * perfgate's reference entries always (a wide one only explains less);
 * *word gets the reason in a word or two. */
static const char *refused(const meas *m, const judged *j, unsigned how, const char **word)
{
  if ((how & PERF__REBASELINE_ACCEPT_WIDE) || is_reference(m)) return NULL;
  if (j->pace == PERF__BLR_PACE_LAUNCH && never_written(j))
    return *word = perf__blrule_pace_word(j->pace),
           "it is launch-bound on the events clock (its time is the host's pace to queue the "
           "work: on an H200 such entries ran 25-62% slower in an unchanged check while "
           "perfgate's host reference ran as usual), and perfgate's launch_reference, which "
           "such entries are judged over, was not read beside it in every run (no GPU, or a "
           "launch error); .clock = PERF_CLOCK_DEVICE times the GPU's work alone";
  if (j->pace == PERF__BLR_PACE_SUBMIT && never_written(j))
    return *word = perf__blrule_pace_word(j->pace),
           "it is host-paced: the submit clock times the host's calls alone, which move with "
           "the host between processes far more than between an update's runs, and perfgate's "
           "launch_reference, which such entries are judged over, was not read beside it in "
           "every run";
  if (j->f.tolerance <= j->f.line) return NULL;
  if (paced(j) && !j->f.too_few)
    return *word = perf__blrule_pace_word(j->pace),
           "it is host-paced: such times move with the host between processes minutes apart "
           "far more than between an update's runs (an H200's pageable-copy sweep points: runs "
           "within 2%, then +12-24% in unchanged checks); time the GPU's part alone (pinned "
           "memory, the events clock) to gate it";
  if (j->f.too_few)
    return *word = "runs disagree", "its runs disagree (more of them far from the others than the "
                                    "rule leaves out)";
  return *word = "too wide", "its tolerance is over the ceiling";
}

/* Counts an entry not written for word (one of refused's, or the
 * supervisor's), for the summary. Never fails (past the table's room,
 * the last row counts it). */
static void tally_no(perf__rebaseline_runs *u, const char *word)
{
  size_t i = 0, n = sizeof u->no / sizeof u->no[0];
  while (i < n - 1 && u->no[i].word && strcmp(u->no[i].word, word)) i++;
  u->no[i].word = u->no[i].word ? u->no[i].word : word;
  u->no[i].n++;
}

/* "caught" when a check +change slower than e would fail it, "no" when
 * not; "-" for an entry not written. */
static const char *catches(const perf__baseline_entry *e, const char *no, double change)
{
  return no ? "-" : perf__blrule_catches(e, change) ? "caught" : "no";
}

/* Prints the rows under m's entry about its pace and whether its runs
 * settled. Never fails. */
static void print_pace(const perf__rebaseline_runs *u, const meas *m, const judged *j)
{
  perf__blrule_settle s = perf__blrule_settled(&j->f, u->max_runs);
  /* perfgate's own entries (references, calibrations) are no test's: they never ask for more */
  if (s != PERF__BLR_SETTLED && strcmp(m->test, PERF__BLR_REFERENCE_TEST))
    printf("    not settled after %d %s (%s): the update's time budget (--update-budget) ended "
           "its runs\n", j->f.nruns, perf__units_noun(j->f.nruns, "run", "runs"),
           perf__blrule_settle_word(s));
  if (j->fall > 0)
    printf("    power-paced: the SM clock read %u to %u MHz while %s samples ran (the GPU at its "
           "power or thermal limit), a fall of %.1f%%: its time moves with the GPU's state "
           "between processes, so its tolerance is at least that\n", j->lo, j->hi,
           j->from == m ? "its" : "its kernel's (in another entry of the test)", 100 * j->fall);
  if (j->pace == PERF__BLR_PACE_GPU) return;
  char per[32];
  if (j->gpu_bound)
    printf("    not launch-normalized: its trace has the GPU busy for half of its time or more "
           "(its time is the GPU's work, waited for)\n");
  if (j->launch_s > 0) {
    printf("    %s, launch-normalized: %s; its runs are scaled to perfgate's launch_reference "
           "read beside them (median %s per launch, submit clock); its tolerance's floor "
           "%.0f%%\n", perf__blrule_pace_word(j->pace), perf__blrule_pace_why(j->pace),
           perf__units_time(per, sizeof per, j->launch_s), 100 * PERF__BLR_LAUNCH_FLOOR);
    return;
  }
  char ref[80] = "";
  if (j->host_tol > 0)
    snprintf(ref, sizeof ref, ", perfgate's host_reference over its processes %.1f%%",
             100 * j->host_tol);
  printf("    %s: %s; its tolerance's floor %.1f%% = max(%.0f%%%s)\n", perf__blrule_pace_word(j->pace),
         perf__blrule_pace_why(j->pace), 100 * fmax(PERF__BLR_HOST_PACED_FLOOR, j->host_tol),
         100 * PERF__BLR_HOST_PACED_FLOOR, ref);
}

/* Prints the row saying how a wide entry was written (forced: only
 * because of --accept-wide; else under line) and what it still catches.
 * Never fails. */
static void print_wide(const char *how, double tolerance, double line, int forced)
{
  if (forced)
    printf("    written %s (--accept-wide): it catches only changes above %.1f%%\n", how,
           100 * tolerance);
  else
    printf("    written %s (up to %.0f%%): it catches only changes above %.1f%%\n", how,
           100 * line, 100 * tolerance);
}

/* Prints m's rows of the update table: the entry e (old: the file's, or
 * NULL) with its tolerance, clock, runs and what it catches, each run with
 * why it was left out, what paces it, and, when `no` is the reason it is
 * not written, that. Never fails. */
static void print_entry(const perf__rebaseline_runs *u, const meas *m, const judged *j,
                        const perf__baseline_entry *e, const perf__baseline_entry *old,
                        const char *no)
{
  const perf__blrule_fit *f = &j->f;
  char was[32] = "-", now[32], change[32] = "new", sm[40] = "SM clock unknown", runs[1400];
  char clean[40];
  if (old) {
    perf__units_time(was, sizeof was, old->median_s);
    snprintf(change, sizeof change, "%+.1f%%", 100 * (e->median_s / old->median_s - 1));
  }
  perf__units_time(now, sizeof now, e->median_s);
  if (e->sm_clock.median) snprintf(sm, sizeof sm, "SM clock %u MHz", e->sm_clock.median);
  printf("  %-56.56s %11s %11s %8s %6.1f%% %-6s %4d %6s %6s%s\n", m->test, was, now, change,
         100 * e->tolerance, m->clock, f->nruns, catches(e, no, 0.05), catches(e, no, 0.10),
         no                        ? " NOT WRITTEN"
         : f->too_few || f->wide ? " WIDE"
                                 : "");
  run_values(u, m, j, runs, sizeof runs);
  if (f->too_few)
    snprintf(clean, sizeof clean, "all %d: they disagree", runs_of(m));
  else
    snprintf(clean, sizeof clean, "%d clean", f->nclean);
  printf("    %s (%s clock, %s); runs %s; spread between runs %.2f%% (%s)\n", m->name, m->clock,
         sm, runs, 100 * f->spread, clean);
  print_pace(u, m, j);
  const char *w, *forced = no ? NULL : refused(m, j, 0, &w);
  if (no && never_written(j))
    printf("    not written: %s (tolerance %.1f%%): %s; --accept-wide writes it with that "
           "tolerance\n", no, 100 * f->tolerance, old ? "the old entry is kept" : "it has no entry");
  else if (no)
    printf("    not written: %s (tolerance %.1f%%, ceiling %.0f%%): %s; %s\n", no,
           100 * f->tolerance, 100 * f->line, old ? "the old entry is kept" : "it has no entry",
           j->pace != PERF__BLR_PACE_GPU ? "--accept-wide writes it with that tolerance"
                                         : "rerun the update on a quiet machine, or give "
                                           "--accept-wide to write it");
  else if ((f->wide || f->too_few) && is_reference(m))
    printf("    written %s (perfgate's reference, always written): it explains only slowdowns "
           "of the machine above %.1f%%\n", f->too_few ? "from all runs" : "wide",
           100 * f->tolerance);
  else if (f->wide || f->too_few || forced)
    print_wide(f->too_few                       ? "from all runs (they disagree)"
               : f->tolerance <= f->floor + 1e-12 ? "at its floor"
                                                  : "wide",
               f->tolerance, f->line, forced != NULL);
}

/* Merges one measured workload (unless refused says why not: then the
 * old entry stays and it is flagged); prints its table rows. Returns 0,
 * PERF__ENOMEM, or PERF__EPROTO (a run's value is not a positive
 * number). */
static int merge_entry(perf__rebaseline_runs *u, perf__baseline *b, const meas *m, const char *date)
{
  judged j;
  if (judge(u, m, &j)) return PERF__EPROTO;
  perf__baseline_entry e = entry_of(u, m, &j, date);
  const char *word = "", *no = refused(m, &j, u->how, &word);
  print_entry(u, m, &j, &e, perf__baseline_find(b, e.test, e.workload), no);
  if (no) {
    flag(u, m, word);
    tally_no(u, word);
    return 0;
  }
  if (!is_reference(m)) u->written++, u->took[j.f.nruns]++;
  return perf__baseline_put_entry(b, &e);
}

static int merge_ratio(perf__baseline *b, const meas *m, const char *date)
{
  perf__baseline_ratio r = {0};
  snprintf(r.test, sizeof r.test, "%s", m->test);
  snprintf(r.claim, sizeof r.claim, "%s", m->name);
  snprintf(r.recorded, sizeof r.recorded, "%s", date);
  r.ratio = median_of_runs(m);
  printf("  %-56.56s %35.3fx\n    %s (%d %s)\n", m->test, r.ratio, m->name, runs_of(m),
         perf__units_noun(runs_of(m), "run", "runs"));
  return perf__baseline_put_ratio(b, &r);
}

/* The run of m's work count whose instructions are the median of its
 * runs (of an even count, the lower middle one: a run's own numbers, never
 * a mean), with the lowest and highest count of its runs in *least and
 * *most. Never fails. */
static int median_work_run(const meas *m, double *least, double *most)
{
  int n = runs_of(m), order[MAX_RUNS];
  for (int r = 0; r < n; r++) { /* insertion sort by count: at most 16 runs */
    int k = r;
    for (; k > 0 && m->value[order[k - 1]] > m->value[r]; k--) order[k] = order[k - 1];
    order[k] = r;
  }
  *least = m->value[order[0]], *most = m->value[order[n - 1]];
  return order[(n - 1) / 2];
}

/* Merges m's work count, the median run's, when its runs agree within
 * PERF__BL_WORK_TOLERANCE (what a SAME_WORK claim allows); otherwise it is
 * not written (the old one stays) and counted. Prints its table rows.
 * Returns 0 or PERF__ENOMEM. */
static int merge_work(perf__rebaseline_runs *u, perf__baseline *b, const meas *m, const char *date)
{
  double least, most;
  int mid = median_work_run(m, &least, &most), n = runs_of(m);
  double apart = most / least - 1;
  char insts[32], lo[32], hi[32], bytes[32], change[32] = "new";
  const perf__baseline_work *old = perf__baseline_find_work(b, m->test, m->name);
  if (apart > PERF__BL_WORK_TOLERANCE) {
    printf("  %-56.56s %11s NOT WRITTEN\n    %s: not written: its instruction counts differ "
           "between runs by %.2f%% (%s to %s; more than the %.1f%% a SAME_WORK claim allows): "
           "its work depends on data or timing; %s\n", m->test, "", m->name, 100 * apart,
           perf__units_count(lo, sizeof lo, least), perf__units_count(hi, sizeof hi, most),
           100 * PERF__BL_WORK_TOLERANCE, old ? "the old one is kept" : "it has none");
    tally_no(u, "counts differ between runs");
    return 0;
  }
  perf__baseline_work w = {.insts = m->value[mid], .dram_read = m->bytes[mid]};
  snprintf(w.test, sizeof w.test, "%s", m->test);
  snprintf(w.workload, sizeof w.workload, "%.95s", m->name);
  snprintf(w.recorded, sizeof w.recorded, "%s", date);
  if (old) snprintf(change, sizeof change, "%+.2f%%", 100 * (w.insts / old->insts - 1));
  printf("  %-56.56s %23s instructions %8s\n    %s (%d %s, %.2f%% apart; the median run's): "
         "%s DRAM bytes read per call\n", m->test, perf__units_count(insts, sizeof insts, w.insts),
         change, m->name, n, perf__units_noun(n, "run", "runs"), 100 * apart,
         perf__units_count(bytes, sizeof bytes, w.dram_read));
  u->written++, u->took[n]++;
  return perf__baseline_put_work(b, &w);
}

static int all_runs(const meas *m)
{
  for (int r = 0; r < RUNS; r++)
    if (!m->seen[r]) return 0;
  return 1;
}

/* 1 when b holds m's entry, ratio or work count (from before the update).
 * Never fails. */
static int has_old(const perf__baseline *b, const meas *m)
{
  return m->kind == M_RATIO  ? perf__baseline_find_ratio(b, m->test, m->name) != NULL
         : m->kind == M_WORK ? perf__baseline_find_work(b, m->test, m->name) != NULL
                             : perf__baseline_find(b, m->test, m->name) != NULL;
}

/* Prints the row of an entry, ratio or work count of m's test, which
 * failed (x), and counts it: not written, the old one kept. Never fails. */
static void print_failed(perf__rebaseline_runs *u, const meas *m, const failure *x,
                         const perf__baseline *b)
{
  int old = has_old(b, m);
  printf("  %-56.56s %11s NOT WRITTEN\n    %s: not written: its test failed in run %d (%s): %s; "
         "--force writes it\n", m->test, "", m->name, x->run + 1, x->why,
         old ? "the old one is kept" : "it has none");
  tally_no(u, "from tests that failed");
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
  printf("  %-56s %11s %11s %8s %7s %-6s %4s %6s %6s\n", "entry", "old", "new", "change", "tol.",
         "clock", "runs", "+5%", "+10%");
  for (size_t k = 0; !r && k < u->n; k++) {
    const meas *m = &u->m[k];
    const failure *x = failure_of(u, m->test);
    if (m->file != (int)i) continue;
    if (x && !(u->how & PERF__REBASELINE_FORCE)) {
      print_failed(u, m, x, b);
      continue;
    }
    if (!all_runs(m)) {
      printf("  %-56.56s not recorded: not measured in all %d runs\n", m->test, RUNS);
      tally_no(u, "not measured in every run");
      continue;
    }
    r = m->kind == M_RATIO  ? merge_ratio(b, m, date)
        : m->kind == M_WORK ? merge_work(u, b, m, date)
                            : merge_entry(u, b, m, date);
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
  if (!r) r = perf__blemit_save(u->files[i].path, &b, err, len);
  if (!r) printf("baselines: wrote %s\n", u->files[i].path);
  if (!r) perf__hwmove_after_update(u->files[i].path, &b); /* beside another GPU's file */
  perf__baselinedir_unlock(lock);
  perf__baseline_free(&b);
  return r;
}

/* The median of the runs the written entries took (0: none written). */
static int median_runs(const perf__rebaseline_runs *u)
{
  size_t seen = 0;
  for (int k = 0; k <= MAX_RUNS; k++)
    if ((seen += u->took[k]) * 2 >= u->written && u->written) return k;
  return 0;
}

/* The update's last line: "N entries written (M runs each, median), K not
 * written: 2 too wide, 1 host-paced; tests that failed: a (run 1), b".
 * Never fails. */
static void print_summary(const perf__rebaseline_runs *u)
{
  size_t not = 0;
  for (size_t i = 0; i < sizeof u->no / sizeof u->no[0] && u->no[i].word; i++) not += u->no[i].n;
  printf("\nbaselines: %zu %s written", u->written,
         perf__units_noun((long long)u->written, "entry", "entries"));
  if (u->written) printf(" (%d runs each, median)", median_runs(u));
  printf(", %zu not written", not);
  for (size_t i = 0; i < sizeof u->no / sizeof u->no[0] && u->no[i].word; i++)
    printf("%s%zu %s", i ? ", " : ": ", u->no[i].n, u->no[i].word);
  if (u->nfailed || u->failed_all) {
    printf("; tests that failed%s: ", u->how & PERF__REBASELINE_FORCE ? " (written: --force)" : "");
    for (size_t i = 0; i < u->nfailed; i++)
      printf("%s%s (run %d)", i ? ", " : "", u->failed[i].test, u->failed[i].run + 1);
    if (u->failed_all) printf("%sothers not kept (out of memory)", u->nfailed ? ", " : "");
  }
  printf("\n");
}

/* See rebaseline.h. */
int perf__rebaseline_write(perf__rebaseline_runs *u, unsigned how, char *err, size_t len)
{
  u->how = how;
  u->flagged = u->written = 0;
  u->names[0] = '\0';
  memset(u->took, 0, sizeof u->took);
  memset(u->no, 0, sizeof u->no);
  char date[16];
  today(date, sizeof date);
  for (size_t i = 0; i < u->nfiles; i++) {
    int r = write_file(u, i, date, err, len);
    if (r) return r;
  }
  if (!u->nfiles) printf("\nbaselines: nothing was measured, nothing written\n");
  else print_summary(u);
  fflush(stdout);
  return 0;
}

/* See rebaseline.h. */
size_t perf__rebaseline_flagged(const perf__rebaseline_runs *u, const char **names)
{
  if (names) *names = u->names;
  return u->flagged;
}

/* See rebaseline.h. */
size_t perf__rebaseline_failed_tests(const perf__rebaseline_runs *u, const char **names)
{
  if (names) *names = u->failed_names;
  return u->nfailed;
}

/* See rebaseline.h. */
int perf__rebaseline_wants_more(const perf__rebaseline_runs *u, const char *test, int run,
                                char *why, size_t len)
{
  if (failure_of(u, test) || run >= u->max_runs) return 0;
  for (size_t i = 0; i < u->n; i++) {
    const meas *m = &u->m[i];
    judged j;
    if (m->kind != M_ENTRY || is_reference(m) || strcmp(m->test, test) || !all_runs(m) ||
        runs_of(m) != run || judge(u, m, &j))
      continue;
    perf__blrule_settle s = perf__blrule_settled(&j.f, u->max_runs);
    if (s == PERF__BLR_SETTLED) continue;
    snprintf(why, len, "%s: %s", m->name, perf__blrule_settle_word(s));
    return 1;
  }
  return 0;
}
