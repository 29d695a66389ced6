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
#include "supervisor/rbjudge.h"

enum { RUNS = PERF__UPDATE_RUNS, MAX_RUNS = PERF__BL_MAX_RUNS, MAX_FILES = PERF__RBRUNS_FILES,
       MAX_FIELDS = 64 };
/* An E record's declared work (4 fields: bytes read, written, flops, the
 * flop type's word) follows its references, when it has any. */
enum { WORK_AT = 12 + PERF__BLR_NREFS };

typedef perf__rbruns_meas meas;
typedef perf__rbruns_judged judged;
typedef perf__rbruns_failure failure;
typedef perf__rbruns_tally tally;

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
                         const char *name, perf__rbruns_kind kind)
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

/* The median of m's values over its runs. */
static double median_of_runs(const meas *m)
{
  double c[MAX_RUNS];
  int n = perf__rbjudge_runs_of(m);
  memcpy(c, m->value, (size_t)n * sizeof c[0]);
  return perf__stats_median(c, (size_t)n);
}

static void today(char *buf, size_t len)
{
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, len, "%Y-%m-%d", &tm);
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

/* The first failure of test, or NULL when it did not fail; every test's
 * but perfgate's own when a failure could not be kept. */
static const failure *failure_of(const perf__rebaseline_runs *u, const char *test)
{
  static const failure unknown = {.why = "a failure could not be kept (out of memory)"};
  for (size_t i = 0; i < u->nfailed; i++)
    if (!strcmp(u->failed[i].test, test)) return &u->failed[i];
  return u->failed_all && strcmp(test, PERF__BLR_REFERENCE_TEST) ? &unknown : NULL;
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

/* Merges one measured workload (unless refused says why not: then the
 * old entry stays and it is flagged); prints its table rows. Returns 0,
 * PERF__ENOMEM, or PERF__EPROTO (a run's value is not a positive
 * number). */
static int merge_entry(perf__rebaseline_runs *u, perf__baseline *b, const meas *m, const char *date)
{
  judged j;
  if (perf__rbjudge_judge(u, m, &j)) return PERF__EPROTO;
  perf__baseline_entry e = perf__rbjudge_entry_of(u, m, &j, date);
  int wide = !!(u->how & PERF__REBASELINE_ACCEPT_WIDE);
  const char *word = "", *no = perf__rbjudge_refused(m, &j, wide, &word);
  perf__rbjudge_print_entry(u, m, &j, &e, perf__baseline_find(b, e.test, e.workload), no);
  if (no) {
    flag(u, m, word);
    tally_no(u, word);
    return 0;
  }
  if (!perf__rbjudge_is_reference(m)) u->written++, u->took[j.f.nruns]++;
  return perf__baseline_put_entry(b, &e);
}

static int merge_ratio(perf__baseline *b, const meas *m, const char *date)
{
  perf__baseline_ratio r = {0};
  snprintf(r.test, sizeof r.test, "%s", m->test);
  snprintf(r.claim, sizeof r.claim, "%s", m->name);
  snprintf(r.recorded, sizeof r.recorded, "%s", date);
  r.ratio = median_of_runs(m);
  printf("  %-56.56s %35.3fx\n    %s (%d %s)\n", m->test, r.ratio, m->name, perf__rbjudge_runs_of(m),
         perf__units_noun(perf__rbjudge_runs_of(m), "run", "runs"));
  return perf__baseline_put_ratio(b, &r);
}

/* The run of m's work count whose instructions are the median of its
 * runs (of an even count, the lower middle one: a run's own numbers, never
 * a mean), with the lowest and highest count of its runs in *least and
 * *most. Never fails. */
static int median_work_run(const meas *m, double *least, double *most)
{
  int n = perf__rbjudge_runs_of(m), order[MAX_RUNS];
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
  int mid = median_work_run(m, &least, &most), n = perf__rbjudge_runs_of(m);
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
    if (m->kind != M_ENTRY || perf__rbjudge_is_reference(m) || strcmp(m->test, test) || !all_runs(m) ||
        perf__rbjudge_runs_of(m) != run || perf__rbjudge_judge(u, m, &j))
      continue;
    perf__blrule_settle s = perf__blrule_settled(&j.f, u->max_runs);
    if (s == PERF__BLR_SETTLED) continue;
    snprintf(why, len, "%s: %s", m->name, perf__blrule_settle_word(s));
    return 1;
  }
  return 0;
}
