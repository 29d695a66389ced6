/* rbjudge.c — how an update judges each entry's runs: the fit, its pace, the clock's fall. */
#define _POSIX_C_SOURCE 200809L
#include "supervisor/rbjudge.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "baseline/machine.h"
#include "stats/stats.h"
#include "util/status.h"
#include "util/units.h"

typedef perf__rbruns_meas meas;
typedef perf__rbruns_judged judged;
enum { RUNS = PERF__BLR_RUNS, MAX_RUNS = PERF__BL_MAX_RUNS };

/* See rbjudge.h. */
int perf__rbjudge_is_reference(const meas *m)
{
  if (strcmp(m->test, PERF__BLR_REFERENCE_TEST)) return 0;
  for (int k = 0; k < PERF__BLR_NREFS; k++)
    if (!strcmp(m->name, perf__blrule_ref_name((perf__blrule_ref)k))) return 1;
  return 0; /* a calibration (peak_*): judged as any entry */
}

/* See rbjudge.h. */
int perf__rbjudge_runs_of(const meas *m)
{
  int n = RUNS;
  while (n < MAX_RUNS && m->seen[n]) n++;
  return n;
}


/* The reference entry k of m's file as this update measured it, or NULL. */
static const meas *reference_of(const perf__rbruns *u, const meas *m, perf__blrule_ref k)
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
static int machine_slow_in(const perf__rbruns *u, const meas *m, int r)
{
  for (int k = 0; k < PERF__BLR_NREFS; k++) {
    /* in a GPU's file every workload uses the GPU; a host file has no
     * GPU reference */
    if (!perf__blrule_ref_applies((perf__blrule_ref)k, m->clock, m->queue[r], 1)) continue;
    const meas *x = reference_of(u, m, (perf__blrule_ref)k);
    double v[MAX_RUNS];
    perf__blrule_fit f;
    int n = x ? perf__rbjudge_runs_of(x) : 0;
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
static int slow_mode(const perf__rbruns *u, const meas *m, const perf__blrule_fit *f, int r)
{
  return !f->too_few && !perf__rbjudge_is_reference(m) && f->why[r] == PERF__BLR_OUTLIER && f->off[r] > 0 &&
         f->off[r] <= PERF__BLR_MODE_MAX && !machine_slow_in(u, m, r);
}


/* Why run r was left out, as a phrase ("" when clean). */
static const char *left_out(const perf__rbruns *u, const meas *m, const perf__blrule_fit *f, int r,
                            char *buf, size_t len)
{
  const char *how = f->too_few ? "far" : "left out"; /* too many out: all are kept */
  if (f->why[r] == PERF__BLR_LOW_CLOCK)
    snprintf(buf, len, " (%s: SM clock %u MHz, the fastest run's %u)", how, m->clk[r].median,
             f->top_mhz);
  else if (f->why[r] == PERF__BLR_OUTLIER)
    snprintf(buf, len, " (%s: %+.1f%% off the runs' median%s)", how, 100 * f->off[r],
             slow_mode(u, m, f, r)                                ? "; kept as a slow mode"
             : f->off[r] > 0 && !perf__rbjudge_is_reference(m) && machine_slow_in(u, m, r) ? "; the machine was slow too"
                                                                  : "");
  else
    buf[0] = '\0';
  return buf;
}

/* "31.38 us (left out: +47.5% off the runs' median), 23.41 us, ...; more runs
 * 21.3 us, ...": each run's median, in run order, and why a run was left
 * out, so that a reviewer sees the between-run spread the tolerance came
 * from. Never fails (truncates). */
static void run_values(const perf__rbruns *u, const meas *m, const judged *j, char *buf,
                       size_t len)
{
  const perf__blrule_fit *f = &j->f;
  size_t used = 0;
  buf[0] = '\0';
  for (int r = 0; r < perf__rbjudge_runs_of(m) && used < len; r++) {
    char t[32], why[96];
    perf__units_time(t, sizeof t, j->v[r]);
    int n = snprintf(buf + used, len - used, "%s%s%s", r == RUNS ? "; more runs " : r ? ", " : "",
                     t, left_out(u, m, f, r, why, sizeof why));
    used += n > 0 ? (size_t)n : 0;
  }
}


/* See rbjudge.h. */
perf__baseline_entry perf__rbjudge_entry_of(const perf__rbruns *u, const meas *m, const judged *j,
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
  for (int r = 0; r < perf__rbjudge_runs_of(m); r++) {
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



/* The SM clock's fall while m's samples ran, over its runs whose readings
 * are known: (highest - lowest) / highest of the samples' readings, with
 * them in *lo and *hi; 0 when no run's are known or the fall is within
 * PERF__BL_CLOCK_MOVED. Never fails. */
static double fall_of(const meas *m, unsigned *lo, unsigned *hi)
{
  unsigned a = UINT_MAX, b = 0;
  for (int r = 0; r < perf__rbjudge_runs_of(m); r++) {
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
static void clock_fall(const perf__rbruns *u, const meas *m, judged *j)
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
static double host_tolerance(const perf__rbruns *u, const meas *m)
{
  double v[MAX_RUNS];
  int n = 0;
  perf__blrule_fit f;
  const meas *x = reference_of(u, m, PERF__BLR_REF_HOST);
  if (x && perf__rbjudge_runs_of(x) >= 2) {
    n = perf__rbjudge_runs_of(x);
    memcpy(v, x->value, (size_t)n * sizeof v[0]);
  } else {
    for (int r = 0; r < perf__rbjudge_runs_of(m); r++)
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

/* See rbjudge.h. */
int perf__rbjudge_judge(const perf__rbruns *u, const meas *m, judged *j)
{
  double queue = 0;
  unsigned mhz[MAX_RUNS];
  int n = perf__rbjudge_runs_of(m);
  memset(j, 0, sizeof *j);
  for (int r = 0; r < n; r++) {
    j->v[r] = m->value[r], j->mad[r] = m->mad[r], mhz[r] = m->clk[r].median;
    queue = fmax(queue, m->queue[r]);
  }
  if (perf__blrule_fit_runs(j->v, mhz, n, &j->f)) return PERF__EINVAL;
  if (perf__rbjudge_is_reference(m)) return 0;
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

/* See rbjudge.h. */
const char *perf__rbjudge_refused(const meas *m, const judged *j, int accept_wide, const char **word)
{
  if (accept_wide || perf__rbjudge_is_reference(m)) return NULL;
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


/* "caught" when a check +change slower than e would fail it, "no" when
 * not; "-" for an entry not written. */
static const char *catches(const perf__baseline_entry *e, const char *no, double change)
{
  return no ? "-" : perf__blrule_catches(e, change) ? "caught" : "no";
}

/* Prints the rows under m's entry about its pace and whether its runs
 * settled. Never fails. */
static void print_pace(const perf__rbruns *u, const meas *m, const judged *j)
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

/* See rbjudge.h. */
void perf__rbjudge_print_entry(const perf__rbruns *u, const meas *m, const judged *j,
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
    snprintf(clean, sizeof clean, "all %d: they disagree", perf__rbjudge_runs_of(m));
  else
    snprintf(clean, sizeof clean, "%d clean", f->nclean);
  printf("    %s (%s clock, %s); runs %s; spread between runs %.2f%% (%s)\n", m->name, m->clock,
         sm, runs, 100 * f->spread, clean);
  print_pace(u, m, j);
  const char *w, *forced = no ? NULL : perf__rbjudge_refused(m, j, 0, &w);
  if (no && never_written(j))
    printf("    not written: %s (tolerance %.1f%%): %s; --accept-wide writes it with that "
           "tolerance\n", no, 100 * f->tolerance, old ? "the old entry is kept" : "it has no entry");
  else if (no)
    printf("    not written: %s (tolerance %.1f%%, ceiling %.0f%%): %s; %s\n", no,
           100 * f->tolerance, 100 * f->line, old ? "the old entry is kept" : "it has no entry",
           j->pace != PERF__BLR_PACE_GPU ? "--accept-wide writes it with that tolerance"
                                         : "rerun the update on a quiet machine, or give "
                                           "--accept-wide to write it");
  else if ((f->wide || f->too_few) && perf__rbjudge_is_reference(m))
    printf("    written %s (perfgate's reference, always written): it explains only slowdowns "
           "of the machine above %.1f%%\n", f->too_few ? "from all runs" : "wide",
           100 * f->tolerance);
  else if (f->wide || f->too_few || forced)
    print_wide(f->too_few                       ? "from all runs (they disagree)"
               : f->tolerance <= f->floor + 1e-12 ? "at its floor"
                                                  : "wide",
               f->tolerance, f->line, forced != NULL);
}
