/* bldoor.c — the door to this machine's baseline file: entries read, judged and recorded. */
/* Measurements are compared with the file's entries, or recorded for it. */
#define _POSIX_C_SOURCE 200809L
#include "worker/claim/bldoor.h"
#include "worker/claim/blmachine.h"

#include <cuda_runtime_api.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "baseline/baseline.h"
#include "baseline/blrule.h"
#include "baseline/machine.h"
#include "host/clock.h"
#include "record/confirm.h"
#include "worker/device/fingerprint.h"
#include "util/units.h"
#include "worker/device/gpu.h"
#include "stats/stats.h"
#include "util/status.h"
#include "worker/claim/sweep.h"
#include "worker/context.h"
#include "worker/device/cotenant.h"
#include "worker/device/neighbour.h"
#include "worker/claim/blwhy.h"
#include "worker/claim/throughput.h"
#include "baseline/trace.h"
#include "worker/sample/inband.h"
#include "worker/sample/reference.h"
#include "worker/sample/prepared.h"
#include "worker/sample/workload.h"

/* Tabs would break the record format. */
static void clean(char *dst, size_t n, const char *src)
{
  snprintf(dst, n, "%s", src);
  for (char *p = dst; *p; p++)
    if (*p == '\t' || *p == '\n') *p = ' ';
}

static void send_fingerprint(perf__blmachine *m)
{
  static int sent[2];
  int k = m->gpu;
  if (sent[k]++) return;
  char line[6000];
  size_t u = (size_t)snprintf(line, sizeof line, "F\t%s", m->path);
  for (size_t i = 0; i < m->now.nfp && u < sizeof line; i++)
    u += (size_t)snprintf(line + u, sizeof line - u, "\t%s\t%s", m->now.fp[i].key,
                          m->now.fp[i].value);
  perf__context_line(PERF_LINE_RECORD, "%s", line);
}


/* See bldoor.h. */
int perf__bldoor_shared(const perf_workload *w, const char *head, perf__claimrec_baseline *rec,
                        char *why, size_t len)
{
  const perf__wstate *st = w->perf__state;
  char who[240], what[16];
  if (st->shared_n <= 0) return 0;
  const perf__cotenant *ct = perf__cotenant_state();
  perf__neighbour_describe(ct, st->shared_from, who, sizeof who);
  snprintf(what, sizeof what, "%s%s", st->shared_of, st->shared_n == 1 ? "" : "s");
  if (perf__context_opt.update_baselines)
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: --update-baselines records nothing from a shared "
                      "GPU: another process used it during %ld %s of the measurement: %s; "
                      "record on a GPU no other job shares", head, st->shared_n, what, who);
  const char *still = perf__cotenant_still_on(ct) ? ", " PERF__CONFIRM_STILL_SHARED : "";
  char line[600];
  snprintf(line, sizeof line, "during %ld %s of the measurement: %s%s; run on a GPU no other job "
           "shares", st->shared_n, what, who, still);
  *rec = (perf__claimrec_baseline){.shared = strdup(line)};
  why[0] = '\0';
  if (*still) snprintf(why, len, " (another process used the GPU%s)", still);
  return 1;
}

/* Measures reference k into r. Returns 0, or -1 with the CUDA error in
 * why. */
static int measure_reference(perf__blrule_ref k, perf__reference *r, char *why, size_t len)
{
  if (k == PERF__BLR_REF_HOST) {
    perf__reference_host(r);
    return 0;
  }
  cudaError_t e = k == PERF__BLR_REF_GPU ? perf__reference_gpu(r) : perf__reference_launch(r);
  if (e) snprintf(why, len, "%s", cudaGetErrorString(e));
  return e ? -1 : 0;
}

/* perfgate's references for the measurements of this context generation
 * (a test, or a sweep point) into m's file: 0 where not measured. */
typedef struct gen_refs {
  double median[PERF__BLR_NREFS];
} gen_refs;

/* An update times the references once per generation that records into
 * m's file (the Python package's runs share a process: each run's tests
 * are new generations), records them as entries of their own (baseline/
 * blrule.h) and returns them for the generation's records, so that the
 * supervisor judges each run of a workload against the references of its
 * own process. One that cannot be measured is said and left 0. Never
 * fails. */
static gen_refs record_references(perf__blmachine *m)
{
  static unsigned long last[2];
  static gen_refs got[2];
  int kind = m->gpu;
  if (last[kind] == perf__context_generation()) return got[kind];
  last[kind] = perf__context_generation();
  for (int k = 0; k < PERF__BLR_NREFS; k++) {
    perf__blrule_ref ref = (perf__blrule_ref)k;
    perf__reference r;
    char why[160];
    got[kind].median[k] = 0;
    if (ref != PERF__BLR_REF_HOST && !kind) continue; /* a host file's work uses no GPU */
    if (measure_reference(ref, &r, why, sizeof why)) {
      perf__context_line(PERF_LINE_DETAIL, "perfgate's %s could not be measured: %s; not recorded",
                         perf__blrule_ref_name(ref), why);
      continue;
    }
    got[kind].median[k] = r.median;
    perf__context_line(PERF_LINE_RECORD, "E\t%s\t%s\t%s\t%s\t%.9g\t%.9g\t%ld\t0\t0\t0\t0", m->path,
                       PERF__BLR_REFERENCE_TEST, perf__blrule_ref_name(ref),
                       perf__blrule_ref_clock(ref), r.median, r.mad, r.n);
  }
  return got[kind];
}

/* Reference k for a check: read between its sample batches (the host one
 * of an in-band check: the readings beside the samples it decided on,
 * within the band, or above it when it decided on all: *how says so), or
 * timed now into r. Returns 0, or -1 with the CUDA error in why. */
static int reference_now(perf__blrule_ref k, const perf__bldoor_inband *ibc, perf__reference *r,
                         const char **how, char *why, size_t len)
{
  if (k == PERF__BLR_REF_HOST && ibc) {
    *r = perf__inband_reference(ibc->ib, ibc->on_all);
    *how = ibc->on_all      ? " between the slow sample batches"
           : ibc->ib->slow  ? " between the sample batches kept"
                            : " between the sample batches";
    if (r->n) return 0;
  }
  *how = "";
  return measure_reference(k, r, why, len);
}

/* The T record of an entry's trace (rebaseline.h), when it has one.
 * Never fails (without memory it is not sent: the entry keeps none). */
static void record_trace(const char *path, const char *test, const char *name,
                         const perf__trace *t)
{
  perf__json j = {0};
  perf__trace bare = *t;
  if (!t->calls) return;
  bare.events = NULL, bare.nevents = 0;
  perf__json_raw(&j, "T\t%s\t%s\t%s\t", path, test, name);
  perf__trace_write(&j, &bare);
  if (!j.oom) perf__context_line_raw(PERF_LINE_RECORD, j.s);
  perf__json_free(&j);
}

/* The supervisor's record of one measurement (rebaseline.h) as entry of
 * test_name: its time s (median, MAD, samples; launch_s: launch_ref below),
 * the SM clock of its samples (0 0 0: unknown), on
 * the events clock the host's share of it queueing the work (workload.h:
 * queue_share), perfgate's references as this process timed them (0: not
 * measured; the host one as read between w's sample batches where host_ref
 * is > 0: worker/sample/inband.h; the launch one only as read beside the
 * samples, launch_ref, 0 none: baseline/blrule.h's launch-normalized entries)
 * and w's declared work, when it declares any. Never fails. */
static void record_as(perf__blmachine *m, const char *test_name, const char *entry,
                      const perf_workload *w, const perf__bldoor_sampled *s, double host_ref)
{
  double median = s->median, mad = s->mad, launch_ref = s->launch_s;
  long samples = s->n;
  perf__baseline_mhz clk = s->clk;
  char test[200], name[96], work[160] = "";
  clean(test, sizeof test, test_name);
  clean(name, sizeof name, entry);
  send_fingerprint(m);
  gen_refs refs = record_references(m);
  if (host_ref > 0) refs.median[PERF__BLR_REF_HOST] = host_ref;
  refs.median[PERF__BLR_REF_LAUNCH] = launch_ref; /* beside the samples only: the update
                                                     judges a run over it (0: none) */
  perf__peaks_work k = perf__throughput_work(w);
  if (perf__peaks_declared(&k))
    snprintf(work, sizeof work, "\t%.17g\t%.17g\t%.17g\t%s", k.bytes_read, k.bytes_written,
             k.flops, perf__peaks_type_word(k.type));
  _Static_assert(PERF__BLR_NREFS == 3, "the E record carries three references");
  perf__context_line(PERF_LINE_RECORD, "E\t%s\t%s\t%s\t%s\t%.9g\t%.9g\t%ld\t%u\t%u\t%u\t%.3f\t%.9g\t%.9g\t%.9g%s",
                     m->path, test, name, perf__clock_name(w->perf__state->clock), median, mad,
                     samples, clk.median, clk.min, clk.max, w->perf__state->queue_share,
                     refs.median[0], refs.median[1], refs.median[2], work);
  record_trace(m->path, test, name, &w->perf__state->trace);
}

/* The record of w's measurement s as the running test's entry (host_ref:
 * record_as). */
static void record(perf__blmachine *m, const perf_workload *w, const perf__bldoor_sampled *s,
                   double host_ref)
{
  char k[160];
  record_as(m, perf__context_name(), perf__blmachine_key(w, k, sizeof k), w, s, host_ref);
}

/* 1 while perf__bldoor_pair checks two different workloads: the host
 * snapshot before their rounds then covers both (perf__blwhy_host_busy). */
static int pair_window;

/* The throughput line of w's measurement (median per iteration, its
 * interval not known here), when w declared its work. Never fails. */
static void throughput(const perf_workload *w, double median, const char *clock)
{
  perf__claimrec_workload t = {.name = (char *)w->name, .median_s = median,
                               .median_interval_s = {NAN, NAN},
                               .trace = w->perf__state->trace}; /* borrowed, not freed */
  perf__throughput_record(&t, w);
  perf__bldoor_peaks(&t, w, clock);
  perf__throughput_print(&t, clock);
  free(t.spec_math_basis);
  free(t.measured_from);
}

/* Why the last check compare() did not decide was skipped ("": it was
 * decided, or had no entry). */
static char skipped_why[160];

/* The line of a slower check of e on another card that the rule does not
 * decide (baseline/blrule.h: perf__blrule_card_undecided; host: it is
 * host-paced): SKIP, saying why. Never fails. */
static perf_outcome another_card(const perf__blmachine *m, const perf__baseline_entry *e,
                                 const char *head, double median, double rel, const char *launch,
                                 int host)
{
  char now[32], was[32], bound[80];
  const char *host_bound = "a host-paced time differs between machines by up to 2.2x";
  snprintf(bound, sizeof bound, "cards of one model differ by up to its tolerance plus %.0f%%",
           100 * PERF__BLR_CARD_MARGIN);
  snprintf(skipped_why, sizeof skipped_why, "recorded on another card of this model (%.60s)",
           m->card);
  perf__context_line(PERF_LINE_DETAIL, "%s: SKIPPED: %s vs baseline %s per iteration (%s clock), "
                     "%+.1f%%, tolerance %.1f%%%s; the entry was recorded on another card of "
                     "this model (%s) and its host: %s, not decided on another machine's numbers",
                     head, perf__units_time(now, sizeof now, median),
                     perf__units_time(was, sizeof was, e->median_s), e->clock, 100 * rel,
                     100 * e->tolerance, launch, m->card,
                     e->launch_s > 0 || !host ? bound : host_bound);
  return PERF_OUTCOME_SKIP;
}

/* One comparison of a measurement with its entry, and what decided it. */
typedef struct check {
  perf__blmachine *m;
  const perf_workload *w;
  const char *head;
  perf__bldoor_sampled s;           /* the measurement (median, MAD: scaled) */
  int quiet;                        /* no line when there is no entry */
  const perf__hostload *host;       /* the host's load before it (NULL: unknown) */
  const perf__bldoor_inband *ibc;   /* how an in-band check sampled (NULL: not one) */
  const perf__baseline_entry *e;    /* its entry */
  double measured;                  /* the median as measured, before scaling */
  double scale, rel, se, host_rel, slow_run;
  perf__baseline_change c;
  int low_clock, unscaled, slower, hosted, mode; /* what leaves a slower one undecided */
  char launch[320], machine[600], busy[520];     /* their clauses */
} check;

/* k's entry into k->e. Returns 1, or 0 when there is none or the file is
 * another machine's (said unless k->quiet). A measurement with another
 * clock than its entry's ends the test as ERROR. */
static int find_entry(check *k)
{
  char name[160];
  perf__blmachine *m = k->m;
  perf__blmachine_key(k->w, name, sizeof name); /* named in the message below even when there is no file */
  k->e = m->exists ? perf__baseline_find(&m->file, perf__context_name(), name) : NULL;
  if (m->other || !k->e) {
    perf__context_baseline_state(1);
    if (!k->quiet && m->other)
      perf__context_line(PERF_LINE_DETAIL, "%s: SKIPPED: %s: not decided on another machine's "
                         "numbers", k->head, m->err);
    else if (!k->quiet)
      perf__context_line(PERF_LINE_DETAIL, "%s: SKIPPED: no baseline entry for %s / %s in %s",
                         k->head, perf__context_name(), name, m->path);
    return 0;
  }
  const char *clock = perf__clock_name(k->w->perf__state->clock);
  if (strcmp(k->e->clock, clock))
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: measured with the %s clock, the baseline "
                      "entry with %s", k->head, clock, k->e->clock);
  return 1;
}

/* Compares k's measurement with its entry (scaled by the launch reference
 * for a launch-normalized one). Never fails. */
static void change_of(check *k)
{
  const perf__baseline_entry *e = k->e;
  k->measured = k->s.median;
  k->scale = perf__blwhy_launch_scale(e, k->s.launch_s, k->launch, sizeof k->launch);
  k->s.median *= k->scale > 0 ? k->scale : 1, k->s.mad *= k->scale > 0 ? k->scale : 1;
  k->c = perf__blrule_compare(e, k->s.median, k->s.mad, k->s.n, &k->rel, &k->se);
}

/* What perfgate's references say of k's slowdown (rel, its standard
 * error se) against k's file, as a clause into k->machine ("" when none
 * applies or the file has no entry for it): the host one as an in-band
 * check read it (k->ibc), otherwise timed now (for each slower check: a
 * host disturbance comes and goes within seconds); never the launch one,
 * which scales a launch-normalized check instead (perf__blwhy_launch_scale);
 * k->host_rel gets the host reference's change (0 when it was not timed).
 * Returns 1 when one explains it (baseline/blrule.h). Never fails. */
static int machine_slower(check *k)
{
  const perf_workload *w = k->w;
  const perf__bldoor_inband *ibc = k->ibc;
  double rel = k->rel, se = k->se, *host_rel = &k->host_rel;
  char *note = k->machine;
  size_t len = sizeof k->machine;
  int explained = 0;
  size_t used = 0;
  note[0] = '\0';
  *host_rel = 0;
  for (int r = 0; r < PERF__BLR_NREFS && used < len; r++) {
    const char *name = perf__blrule_ref_name((perf__blrule_ref)r), *how;
    const perf__baseline_entry *e =
        perf__blrule_ref_applies((perf__blrule_ref)r, perf__clock_name(w->perf__state->clock),
                                 w->perf__state->queue_share, w->perf__state->uses_gpu)
            ? perf__baseline_find(&k->m->file, PERF__BLR_REFERENCE_TEST, name)
            : NULL;
    perf__reference fresh;
    char why[160];
    if (!e || r == PERF__BLR_REF_LAUNCH) continue; /* it scales, never excuses (per_launch) */
    if (reference_now((perf__blrule_ref)r, ibc, &fresh, &how, why, sizeof why)) {
      int n = snprintf(note + used, len - used, "; perfgate's %s could not be measured: %s", name,
                       why);
      used += n > 0 ? (size_t)n : 0;
      continue;
    }
    const perf__reference *f = &fresh;
    double ref_rel = 0;
    int beside = how[0] != '\0'; /* read beside the samples, not after them */
    int x = beside ? perf__blrule_readings_explain(e, f->median, rel, se, &ref_rel)
                   : perf__blrule_ref_explains(e, f->median, f->mad, f->n, rel, se, &ref_rel);
    if (r == PERF__BLR_REF_HOST) *host_rel = ref_rel;
    char now[32], was[32], tol[40] = "";
    if (!beside) snprintf(tol, sizeof tol, " (tolerance %.1f%%)", 100 * e->tolerance);
    int n = snprintf(note + used, len - used, "; perfgate's %s took %s%s vs %s at update (%s "
                     "clock), %+.1f%%%s: %s", name, perf__units_time(now, sizeof now, f->median),
                     how, perf__units_time(was, sizeof was, e->median_s), e->clock,
                     100 * ref_rel, tol, x ? "the machine is slower now, not decided"
                                           : "not what slowed it");
    used += n > 0 ? (size_t)n : 0;
    explained |= x;
  }
  return explained;
}

/* For a slower measurement, what else explains it: a low SM clock, a
 * slower machine (perfgate's references, timed now where not read beside
 * the samples), a busy host, a slow mode the update saw. Never fails. */
static void judge(check *k)
{
  const perf__baseline_entry *e = k->e;
  if (k->c != PERF__BL_SLOWER) return;
  k->low_clock = perf__blrule_clock_explains(e, k->s.median, k->s.clk.median);
  k->unscaled = !(k->scale > 0);
  k->slower = !k->low_clock && (k->unscaled || machine_slower(k));
  perf__blwhy_slower x = {k->rel, k->se, k->host_rel,
                          k->ibc && !k->ibc->on_all && k->ibc->ib->band_s > 0, pair_window};
  k->hosted = !k->low_clock && !k->slower &&
              perf__blwhy_host_busy(k->w, k->host, &x, k->busy, sizeof k->busy);
  k->mode = !k->low_clock && !k->slower && !k->hosted &&
            perf__blrule_slow_mode_explains(e, k->s.median, &k->slow_run);
}

/* The verdict word's parenthesis: why it was not decided, or which way it
 * changed (NULL: the same). Never fails. */
static const char *said_of(const check *k)
{
  return k->low_clock            ? "the SM clock was low: not decided"
         : k->unscaled           ? "no launch reading to scale it by: not decided"
         : k->slower             ? "the machine is slower: not decided"
         : k->hosted             ? "the host was busy: not decided"
         : k->mode               ? "a slow mode the update saw: not decided"
         : k->c == PERF__BL_SLOWER ? "regression"
         : k->c == PERF__BL_FASTER ? "improvement"
                                   : NULL;
}

/* The line's notes: the SM clock, the launch, the in-band phases, the
 * references, the host, a slow mode. Never fails (truncates). */
static void notes_of(const check *k, char *note, size_t len)
{
  char phases[400], was[32];
  perf__baseline_clock_note(k->e, k->s.median, k->s.clk, note, len);
  size_t used = strlen(note);
  perf__workload_launch_note(k->w, note + used, len - used);
  used = strlen(note);
  perf__blwhy_inband_note(k->ibc ? k->ibc->ib : NULL, k->ibc && k->ibc->on_all,
                          perf__baseline_find(&k->m->file, PERF__BLR_REFERENCE_TEST,
                                              perf__blrule_ref_name(PERF__BLR_REF_HOST)),
                          phases, sizeof phases);
  perf__units_append(note, len, &used, "%s%s%s%s", k->launch, phases, k->machine, k->busy);
  if (k->mode)
    perf__units_append(note, len, &used, "; the update left out a run this slow (%s, %+.1f%%) "
                       "while perfgate's reference ran as usual: a slow mode of the workload in "
                       "some processes, which a change of this size cannot be told from "
                       "(re-record if that run was a disturbance)",
                       perf__units_time(was, sizeof was, k->slow_run),
                       100 * (k->slow_run / k->e->median_s - 1));
}

/* k's result into out: its record's members (the verdict line is
 * rendered from them, record/verdictline.h; without memory its texts go
 * missing) and what the lines after it need. Never fails. */
static void checked_of(const check *k, perf__bldoor_checked *out)
{
  char how[400], note[2400];
  const char *why = said_of(k);
  notes_of(k, note, sizeof note);
  perf__prepared_clock_text(k->w, k->w, how, sizeof how);
  out->rec = (perf__claimrec_baseline){
      .now_s = k->s.median, .was_s = k->e->median_s, .timing = strdup(how), .change = k->rel,
      .noise = PERF__BLR_SIG * k->se, .between = perf__blrule_spread(k->e), .runs = k->e->nruns,
      .tolerance = k->e->tolerance, .samples = k->s.n, .was_samples = k->e->samples,
      .beyond = k->c != PERF__BL_SAME, .why = why ? strdup(why) : NULL,
      .notes = note[0] ? strdup(note) : NULL};
  out->entry = k->e;
  out->measured = k->measured;
  out->mhz = k->s.clk.median;
  out->slower = k->c == PERF__BL_SLOWER;
}

/* Sends a BASELINE record of rec (its strings freed; rec emptied) with
 * outcome o and the message head + said (NULL: ": WORD"). Never fails. */
static void send_check(const char *head, perf_outcome o, const char *said,
                       perf__claimrec_baseline *rec)
{
  char msg[1024];
  snprintf(msg, sizeof msg, "%s%s%s", head, said ? "" : ": ", said ? said : perf__status_word(o));
  perf__claimrec r = {.message = msg, .outcome = o, .kind = PERF__CLAIMREC_BASELINE,
                      .baseline = *rec};
  perf__context_claim(&r);
  r.message = NULL;
  perf__claimrec_free(&r);
  *rec = (perf__claimrec_baseline){0};
}

/* Compares k's measurement with its entry on time; its notes add what the
 * SM clock of the samples says against the entry's
 * (perf__baseline_clock_note), what perfgate's references (the host one as
 * an in-band check read it: k->ibc) and the host's load say of a slowdown;
 * a launch-normalized entry's check is of the time scaled by perfgate's
 * launch reference (read beside the samples, or timed now:
 * perf__blwhy_launch_scale). Returns the outcome (SKIP when there is no
 * entry, or another card's the rule does not decide). */
static perf_outcome compare(check *k)
{
  if (!find_entry(k)) return PERF_OUTCOME_SKIP;
  change_of(k);
  if (k->c == PERF__BL_SLOWER && k->m->card[0]) {
    int host = perf__blwhy_entry_host_paced(k->e, k->w);
    if (perf__blrule_card_undecided(k->e, k->rel, k->se, host))
      return another_card(k->m, k->e, k->head, k->s.median, k->rel, k->launch, host);
  }
  judge(k);
  perf_outcome o = k->c == PERF__BL_SLOWER ||
                           (k->c == PERF__BL_FASTER && perf__context_opt.strict_improvements)
                       ? PERF_OUTCOME_FAIL
                       : PERF_OUTCOME_PASS;
  if (k->low_clock || k->slower || k->hosted || k->mode) o = PERF_OUTCOME_INCONCLUSIVE;
  return o;
}

/* See bldoor.h. */
void perf__bldoor_after(const perf_workload *w, const perf__bldoor_checked *k)
{
  if (!k->entry) return;
  throughput(w, k->measured, perf__clock_name(w->perf__state->clock));
  if (k->slower) perf__blwhy_explain(k->entry, w, k->measured, k->mhz);
}

/* See bldoor.h. */
void perf__bldoor_explain(const perf_workload *w, double median, unsigned mhz)
{
  char k[160];
  struct stat st;
  if (!w->perf__state->uses_gpu || stat(perf__context_opt.baseline_dir, &st) || !S_ISDIR(st.st_mode))
    return; /* no baselines kept here: nothing to compare with, nothing to say */
  perf__blmachine *m = perf__blmachine_get(1);
  if (m->bad) return; /* a check in this test says what is wrong with the file */
  const perf__baseline_entry *e =
      m->exists ? perf__baseline_find(&m->file, perf__context_name(), perf__blmachine_key(w, k, sizeof k)) : NULL;
  if (e) perf__blwhy_explain(e, w, median, mhz);
  else
    perf__context_line(PERF_LINE_DETAIL, "  what changed in %s's GPU work: not known: no "
                       "baseline entry holds an earlier trace of it (record one with "
                       "--update-baselines)", w->name);
}

/* See bldoor.h. */
void perf__bldoor_measured(perf_workload *w, double median, double mad, long samples,
                                  perf__baseline_mhz clk, const perf__hostload *host,
                                  double launch_s)
{
  if (!perf__context_opt.update_baselines && !perf__context_opt.baseline_check_all) return;
  perf__blmachine *m = perf__blmachine_of(w);
  char head[300];
  char tag[96];
  snprintf(head, sizeof head, "BASELINE(%s) (%s)%s", w->name,
           perf__context_opt.update_baselines ? "--update-baselines" : "--baseline-check=all",
           perf__sweep_tag(tag, sizeof tag));
  char why[200], said[240];
  perf__bldoor_checked out = {0};
  if (perf__bldoor_shared(w, head, &out.rec, why, sizeof why)) {
    snprintf(said, sizeof said, ": %s%s", perf__status_word(PERF_OUTCOME_INCONCLUSIVE), why);
    send_check(head, PERF_OUTCOME_INCONCLUSIVE, said, &out.rec);
    return;
  }
  if (perf__context_opt.update_baselines) {
    record(m, w, &(perf__bldoor_sampled){median, mad, samples, clk, launch_s}, 0);
    return;
  }
  check k = {.m = m, .w = w, .head = head, .s = {median, mad, samples, clk, launch_s}, .quiet = 1,
             .host = host};
  perf_outcome o = compare(&k);
  if (o == PERF_OUTCOME_SKIP) return;
  checked_of(&k, &out);
  send_check(head, o, NULL, &out.rec);
  perf__bldoor_after(w, &out);
}

/* See bldoor.h. */
void perf__bldoor_pair(perf_workload *a, perf_workload *b, const perf__compare_result *m)
{
  const perf__verdict_result *r = &m->r;
  const perf__claimrec_workload *ra = &m->rec.a, *rb = &m->rec.b;
  pair_window = b != a;
  perf__bldoor_measured(a, r->med_a, r->mad_a, r->rounds,
                               perf__baseline_mhz_of(ra->sm_clock_mhz, ra->sm_clock_mhz ? ra->nsamples : 0),
                               &m->host_before, m->launch_s);
  if (b != a)
    perf__bldoor_measured(b, r->med_b, r->mad_b, r->rounds,
                                 perf__baseline_mhz_of(rb->sm_clock_mhz, rb->sm_clock_mhz ? rb->nsamples : 0),
                                 &m->host_before, m->launch_s);
  pair_window = 0;
}

/* See bldoor.h. */
void perf__bldoor_calibration(const perf_workload *cal, perf__calibrate_peak peak,
                                     perf_flop_type t, const perf__claimrec_workload *o)
{
  if (!perf__context_opt.update_baselines) return;
  perf__blmachine *m = perf__blmachine_of(cal);
  char name[64];
  perf__baseline_peak_name(peak == PERF__CAL_LINK ? perf__peaks_link_word(perf__calibrate_link_ways(cal))
                           : peak == PERF__CAL_DRAM ? "dram"
                                                    : perf__peaks_type_word(t),
                           perf__clock_name(cal->perf__state->clock), name, sizeof name);
  perf__bldoor_sampled s = {o->median_s, o->mad_s, (long)o->nsamples,
                           perf__baseline_mhz_of(o->sm_clock_mhz, o->sm_clock_mhz ? o->nsamples : 0),
                           0};
  record_as(m, PERF__BLR_REFERENCE_TEST, name, cal, &s, 0);
}

/* The rate of this machine's calibration entry for t on clock, into
 * *rate, with "baselines/x.yaml, recorded DATE" in from; 0 when there is
 * none. A malformed file ends the test (machine_of). */
static void peak_of(const perf_workload *w, perf_flop_type t, const char *clock, double *rate,
                    char *from, size_t len)
{
  perf__blmachine *m = perf__blmachine_of(w);
  char name[64];
  *rate = 0;
  if (!m->exists) return;
  const perf__baseline_entry *e =
      perf__baseline_find(&m->file, PERF__BLR_REFERENCE_TEST,
                          perf__baseline_peak_name(t == PERF_FLOP_NONE ? "dram"
                                                                       : perf__peaks_type_word(t),
                                                   clock, name, sizeof name));
  double work = !e ? 0 : t == PERF_FLOP_NONE ? perf__peaks_bytes(&e->work) : e->work.flops;
  if (!(work > 0) || !(e->median_s > 0)) return;
  *rate = work / e->median_s;
  snprintf(from, len, "perfgate's calibration in %s, recorded %s", m->path, e->recorded);
}

/* See bldoor.h. */
void perf__bldoor_peaks(perf__claimrec_workload *o, const perf_workload *w, const char *clock)
{
  char from[4400] = "";
  if (!perf__peaks_declared(&o->work) || !w->perf__state->uses_gpu || !clock) return;
  if (perf__peaks_bytes(&o->work) > 0 && !(o->measured_dram > 0))
    peak_of(w, PERF_FLOP_NONE, clock, &o->measured_dram, from, sizeof from);
  if (o->work.flops > 0 && !(o->measured_math > 0))
    peak_of(w, o->work.type, clock, &o->measured_math, from, sizeof from);
  if (from[0] && !o->measured_from) o->measured_from = strdup(from);
}

/* See bldoor.h. */
void perf__bldoor_ratio(perf_workload *any, const char *claim, double ratio)
{
  if (!perf__context_opt.update_baselines || !(ratio > 0) || !isfinite(ratio)) return;
  perf__blmachine *m = perf__blmachine_of(any);
  char test[200], c[200];
  clean(test, sizeof test, perf__context_name());
  clean(c, sizeof c, claim);
  send_fingerprint(m);
  perf__context_line(PERF_LINE_RECORD, "R\t%s\t%s\t%s\t%.9g", m->path, test, c, ratio);
}

/* See bldoor.h. */
const perf__baseline_work *perf__bldoor_work(const perf_workload *w, char *why, size_t len)
{
  perf__blmachine *m = perf__blmachine_usable(perf__blmachine_get(1));
  char k[160];
  perf__blmachine_key(w, k, sizeof k);
  const perf__baseline_work *e =
      m->exists ? perf__baseline_find_work(&m->file, perf__context_name(), k) : NULL;
  if (m->other)
    snprintf(why, len, "the baseline file is another machine's: %s", m->err);
  else if (!m->exists)
    snprintf(why, len, "no baseline file for this GPU (%s): make baseline-update records one",
             m->path);
  else if (!e)
    snprintf(why, len, "%s has no work count of %s: --update-baselines (make baseline-update) "
             "records it", m->path, k);
  return e;
}

/* See bldoor.h. */
void perf__bldoor_record_work(const perf_workload *w, double insts, double dram_read)
{
  perf__blmachine *m = perf__blmachine_usable(perf__blmachine_get(1));
  char test[200], k[160], name[160];
  clean(test, sizeof test, perf__context_name());
  clean(name, sizeof name, perf__blmachine_key(w, k, sizeof k));
  send_fingerprint(m);
  perf__context_line(PERF_LINE_RECORD, "W\t%s\t%s\t%s\t%.17g\t%.17g", m->path, test, name,
                     floor(insts + 0.5), floor(dram_read + 0.5)); /* counts: whole numbers */
}

/* See bldoor.h. */
const perf__baseline_entry *perf__bldoor_entry(const perf_workload *w)
{
  perf__blmachine *m = perf__blmachine_of(w);
  char k[160];
  return m->exists ? perf__baseline_find(&m->file, perf__context_name(), perf__blmachine_key(w, k, sizeof k))
                   : NULL;
}

/* See bldoor.h. */
double perf__bldoor_host_band(const perf_workload *w)
{
  perf__blmachine *m = perf__blmachine_of(w);
  if (perf__context_opt.update_baselines || !m->exists) return 0;
  return perf__blrule_ref_band(perf__baseline_find(&m->file, PERF__BLR_REFERENCE_TEST,
                                                   perf__blrule_ref_name(PERF__BLR_REF_HOST)));
}

/* See bldoor.h. */
perf_outcome perf__bldoor_check(perf_workload *w, const char *head, const perf__bldoor_sampled *s,
                                const perf__hostload *host, const perf__bldoor_inband *ibc,
                                perf__bldoor_checked *out)
{
  perf__blmachine *m = perf__blmachine_of(w);
  skipped_why[0] = '\0';
  check k = {.m = m, .w = w, .head = head, .s = *s, .host = host, .ibc = ibc};
  perf_outcome o = compare(&k);
  *out = (perf__bldoor_checked){0};
  if (o != PERF_OUTCOME_SKIP) checked_of(&k, out);
  out->skipped = m->other        ? "the baseline file is another machine's"
                 : skipped_why[0] ? skipped_why
                                  : "no baseline entry";
  return o;
}

/* See bldoor.h. */
void perf__bldoor_record(const perf_workload *w, const perf__bldoor_sampled *s, double host_ref)
{
  record(perf__blmachine_of(w), w, s, host_ref);
}
