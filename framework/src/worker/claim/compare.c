/* compare.c — comparing two workloads: ABBA rounds sampled until the verdict rule decides. */
/* It prepares both, and writes the verdict line and the measurement record. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker/claim/compare.h"

#include "host/clock.h"
#include "record/confirm.h"
#include "stats/stats.h"
#include "util/status.h"
#include "util/units.h"
#include "util/grow.h"
#include "worker/context.h"
#include "worker/claim/canary.h"
#include "worker/device/cotenant.h"
#include "worker/device/neighbour.h"
#include "worker/device/gpu.h"
#include "worker/device/gpuwatch.h"
#include "worker/claim/hostnoise.h"
#include "worker/claim/measrec.h"
#include "worker/device/nvtx.h"
#include "worker/claim/sweep.h"
#include "worker/claim/throughput.h"
#include "worker/sync/syncdetect.h"
#include "worker/sample/reference.h"
#include "worker/sample/workload.h"

/* Every sample of one workload, per iteration, in the order taken. */
typedef struct samples {
  double *t;
  unsigned *mhz; /* SM clock after each sample (GPU watch); 0 unknown */
  size_t n, cap;
} samples;

typedef struct pair {
  perf_workload *a, *b;
  perf__rng order; /* picks ABBA or BAAB for each round */
  samples sa, sb;  /* for the claim's record (--json) */
  samples rounds_a, rounds_b; /* each round's value (the medians' data) */
  samples round_from, round_to; /* each round's start and end (perf__clock_now) */
  samples round_clean;          /* the canary's word on the round: 1 clean, 2 and its
                                   link probe too (perf__canary_says); 0 not judged */
  perf__canary canary;          /* judges the rounds beside another process */
  double from;                  /* when sampling began */
  perf__reference_launcher launch; /* read after each round where a baseline wants it
                                      (st NULL: not) */
  samples launch_t;            /* its readings, seconds per launch (host clock) */
  perf__retake ra, rb; /* each workload's retake counts before the claim */
  int first_look;      /* the verdict's first look (rounds) */
  int stopped;         /* sampling stopped: every round shared (hopeless) */
  long pruned;         /* rounds dropped at a look: on the link's foreign traffic */
  int err;
  char why[600];
} pair;

/* Never fails: without memory the sample is not kept (the record is then
 * short of it, the verdict is not affected). */
static void keep(samples *s, double t, unsigned mhz)
{
  if (s->n == s->cap) {
    size_t cap = perf__grow_cap(s->cap, s->n + 1, 64);
    double *p = realloc(s->t, cap * sizeof *p);
    if (p) s->t = p;
    unsigned *m = p ? realloc(s->mhz, cap * sizeof *m) : NULL;
    if (m) s->mhz = m;
    if (!p || !m) return;
    s->cap = cap;
  }
  s->mhz[s->n] = mhz;
  s->t[s->n++] = t;
}

/* The claim being measured. Static, not on the stack: a CUDA error or a
 * fatal check inside a workload ends the test by longjmp, and
 * perf__compare_release must still find its samples to free them. */
static pair live;

static void free_samples(pair *p)
{
  samples *all[] = {&p->sa,         &p->sb,       &p->rounds_a,    &p->rounds_b,
                    &p->round_from, &p->round_to, &p->round_clean, &p->launch_t};
  perf__reference_launch_close(&p->launch);
  perf__canary_close(&p->canary);
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    free(all[i]->t);
    free(all[i]->mhz);
    *all[i] = (samples){0};
  }
}

/* The release hook: frees the samples of a claim that a longjmp (CUDA
 * error, fatal check in a workload) left unfinished. Never fails. */
static void release(void)
{
  free_samples(&live);
  perf__verdict_release();
}

/* 1 when p's rounds are watched for co-tenants (a GPU workload's): the
 * canary reads only then, so a host-only claim never touches the GPU. */
static int watched(const pair *p)
{
  return p->a->perf__state->watched || p->b->perf__state->watched;
}

/* Shared samples kept by a and b so far (once when a == b). */
static long kept_shared(const pair *p)
{
  long k = p->a->perf__state->rt.shared_kept;
  return p->b != p->a ? k + p->b->perf__state->rt.shared_kept : k;
}

/* 1 when the round that began at begin must be taken again: NVML, read
 * since, shows another process used the GPU during it (its first window
 * reported only after the round's first samples were kept; while the
 * canary judges the rounds, only the host link's foreign traffic counts:
 * perf__cotenant_shares), while none of its samples was kept shared (then
 * the wait for the co-tenant is spent, and the round stands, to be dropped
 * from the decision: exclude_shared). The discarded samples count as
 * retaken. */
static int take_again(pair *p, double begin, long kept0)
{
  if (!p->a->perf__state->watched && !p->b->perf__state->watched) return 0;
  if (kept_shared(p) != kept0 ||
      !perf__cotenant_shares(perf__cotenant_state(), begin, perf__clock_now()))
    return 0;
  p->a->perf__state->rt.shared_retaken += 2;
  p->b->perf__state->rt.shared_retaken += 2;
  return 1;
}

/* Moves round i of p's records to place k (prune). Never fails. */
static void move_round(pair *p, size_t i, size_t k)
{
  samples *per_round[] = {&p->rounds_a, &p->rounds_b, &p->round_from, &p->round_to,
                          &p->round_clean};
  for (size_t j = 0; j < sizeof per_round / sizeof per_round[0]; j++)
    per_round[j]->t[k] = per_round[j]->t[i];
}

/* Before a look (perf__verdict_cfg's prune), while the canary judges p's
 * rounds: two reads of the link, forced, the second so that GPM's samples
 * of the last round, which trail by up to an interval, are in (issue 50:
 * a claim decided at its first look had all 12 rounds dropped at the read
 * after it), and the rounds they show another process's traffic over
 * dropped, so that
 * the look sees only the rest and sampling goes on for their places (a
 * claim of 50 ms beside a neighbour that copies half the time was decided
 * on rounds the link showed shared only after it, then dropped whole:
 * issue 50). NVML's spans are left to exclude_shared. Returns the rounds
 * that stand; all of them when the link is not read or the rounds' times
 * were not all kept (no memory). */
static int prune_link(void *ctx, double *a, double *b, int n)
{
  pair *p = ctx;
  size_t all = (size_t)n, k = 0;
  if (!watched(p) || !p->canary.clean || p->canary.gave_up || p->round_from.n != all ||
      p->round_to.n != all || p->round_clean.n != all || p->rounds_a.n != all ||
      p->rounds_b.n != all || !perf__cotenant_poll(1))
    return n;
  const perf__cotenant *ct = perf__cotenant_state();
  if (ct->link_on == 1) (void)perf__cotenant_poll(1); /* link_on is checked again next */
  if (ct->link_on != 1 || !ct->nlink_spans) return n;
  for (size_t i = 0; i < all; i++) {
    if (p->round_clean.t[i] < PERF__CANARY_CLEAN_LINK &&
        perf__cotenant_overlaps_link(ct, p->round_from.t[i], p->round_to.t[i]))
      continue;
    a[k] = a[i], b[k] = b[i];
    move_round(p, i, k++);
  }
  p->pruned += (long)(all - k);
  p->rounds_a.n = p->rounds_b.n = p->round_from.n = p->round_to.n = p->round_clean.n = k;
  return (int)k;
}

/* Reads perfgate's launch reference after a round, where p reads it
 * (baseline/blrule.h: a launch-normalized baseline entry is judged over it);
 * on a CUDA error it stops reading, its readings then not used. Never
 * fails. */
static void read_launch(pair *p)
{
  double s;
  if (!p->launch.st) return;
  if (perf__reference_launch_reading(&p->launch, &s)) {
    perf__reference_launch_close(&p->launch);
    p->launch_t.n = 0;
    return;
  }
  keep(&p->launch_t, s, 0);
}

/* Opens the launch reference for p's rounds when this run records or
 * checks the baselines of workloads a GPU runs (a and b). Never fails (one
 * that cannot be opened is not read). */
static void open_launch(pair *p)
{
  if (!perf__context_opt.update_baselines && !perf__context_opt.baseline_check_all) return;
  if (!p->a->perf__state->uses_gpu && !p->b->perf__state->uses_gpu) return;
  (void)perf__reference_launch_open(&p->launch);
}

/* The median of p's launch readings (seconds per launch), 0 when none. */
static double launch_median(pair *p)
{
  if (!p->launch.st || !p->launch_t.n) return 0;
  double *scratch = malloc(p->launch_t.n * sizeof *scratch);
  double m = scratch ? perf__stats_median_of(p->launch_t.t, p->launch_t.n, scratch) : 0;
  free(scratch);
  return m;
}

/* See compare.h. */
int perf__compare_link_hopeless(int alone_spent, long pruned, size_t standing, int first_look,
                                double elapsed_s)
{
  return alone_spent && pruned >= first_look && !standing &&
         elapsed_s >= PERF__COMPARE_LINK_STOP_S;
}

/* 1 when p's claim cannot be decided beside the neighbour it has: the
 * test's wait for co-tenants is spent, at least the first look's rounds
 * are taken, none of them did the canary find clean, and another process
 * used the GPU during every one of them (as NVML tells now); or the
 * canary judges, and the link's foreign traffic dropped every round at
 * the looks (perf__compare_link_hopeless). A neighbour that comes and
 * goes leaves clean rounds, and sampling goes on. Never fails. */
static int hopeless(pair *p)
{
  if (!p->a->perf__state->watched && !p->b->perf__state->watched) return 0;
  if (p->canary.clean && !p->canary.gave_up &&
      perf__compare_link_hopeless(perf__workload_alone_spent(), p->pruned, p->rounds_a.n,
                                  p->first_look, perf__clock_now() - p->from))
    return 1;
  if (!perf__workload_alone_spent() || p->round_from.n < (size_t)p->first_look ||
      p->round_to.n != p->round_from.n || (p->canary.clean && !p->canary.gave_up) ||
      !perf__cotenant_poll(0))
    return 0;
  const perf__cotenant *ct = perf__cotenant_state();
  for (size_t i = 0; i < p->round_from.n; i++)
    if (!perf__cotenant_overlaps(ct, p->round_from.t[i], p->round_to.t[i])) return 0;
  return 1;
}

/* One round: ABBA or BAAB at random, so that interference with a period
 * cannot line up with one workload's positions; the outer two samples
 * belong to one workload, the inner two to the other, and each workload's
 * value is the mean of its two (linear drift cancels). A round another
 * process shared is taken again (take_again). Beside another process the
 * canary judges the round after it (canary.h). Returns 0, the first
 * sampling error (kept in p), PERF__VERDICT_SKIP for a round the canary
 * found disturbed (not kept), or PERF__VERDICT_STOP before any sample when
 * the claim is hopeless beside a neighbour that never left. */
static int abba(void *ctx, double *a, double *b)
{
  pair *p = ctx;
  if (hopeless(p)) return p->stopped = 1, PERF__VERDICT_STOP;
  int flip = perf__rng_below(&p->order, 2);
  perf_workload *outer = flip ? p->b : p->a, *inner = flip ? p->a : p->b;
  perf_workload *seq[4] = {outer, inner, inner, outer};
  double t[4], begin;
  unsigned mhz[4];
  long kept0;
  do {
    begin = perf__clock_now(), kept0 = kept_shared(p);
    p->canary.loud = 0; /* readings of a round taken again do not count */
    for (int i = 0; i < 4; i++) {
      p->err = perf__workload_sample(seq[i], &t[i], p->why, sizeof p->why);
      if (p->err) return p->err;
      mhz[i] = seq[i]->perf__state->last_mhz;
      p->canary.idled = !seq[i]->perf__state->uses_gpu; /* the GPU idled through it */
      if (i < 3 && watched(p)) perf__canary_between(&p->canary);
    }
  } while (take_again(p, begin, kept0));
  perf__canary_says says = watched(p) ? perf__canary_round(&p->canary, 0) : PERF__CANARY_UNJUDGED;
  if (says == PERF__CANARY_DISTURBED) return PERF__VERDICT_SKIP;
  keep(&p->round_clean, says > 0 ? (double)says : 0, 0); /* 2: the link judged too */
  samples *so = flip ? &p->sb : &p->sa, *si = flip ? &p->sa : &p->sb;
  keep(so, t[0], mhz[0]), keep(si, t[1], mhz[1]), keep(si, t[2], mhz[2]),
      keep(so, t[3], mhz[3]);
  double o = 0.5 * (t[0] + t[3]), in = 0.5 * (t[1] + t[2]);
  *a = flip ? in : o;
  *b = flip ? o : in;
  keep(&p->rounds_a, *a, 0);
  keep(&p->rounds_b, *b, 0);
  keep(&p->round_from, begin, 0);
  keep(&p->round_to, perf__clock_now(), 0);
  read_launch(p);
  return 0;
}

static void trace(void *ctx, const perf__verdict_result *r)
{
  (void)ctx;
  perf__context_line(PERF_LINE_VERBOSE, "look %d at %d %s: ratio %.4f, interval [%.4f, %.4f] -> %s",
             r->looks, r->rounds, perf__units_noun(r->rounds, "round", "rounds"), r->ratio, r->lo,
             r->hi,
             r->verdict == PERF_OUTCOME_INCONCLUSIVE ? "continue"
                                              : perf__status_word(r->verdict));
}

/* See compare.h. */
const char *perf__compare_claim_text(const char *head)
{
  static char buf[300];
  snprintf(buf, sizeof buf, "%s", head);
  char *at = strstr(buf, " at ");
  if (at) *at = '\0';
  return buf;
}

/* The measurement part of a claim's record (measrec.h) from p's samples,
 * m's verdict and the disturbances d. Never fails. */
static void measurement_record(perf__claimrec_ratio *o, const char *kind, const perf__verdict_claim *c,
                               const pair *p, const perf__compare_result *m, const perf__retake *d)
{
  const perf__verdict_result *r = &m->r;
  perf__measrec_side sa = {p->a, p->sa.t, p->sa.mhz, p->sa.n, &p->ra, r->med_a, r->mad_a, m->a_ci};
  perf__measrec_side sb = {p->b, p->sb.t, p->sb.mhz, p->sb.n, &p->rb, r->med_b, r->mad_b, m->b_ci};
  perf__measrec_fill(o, &(perf__measrec_in){kind, c->threshold, r, &sa, &sb, d, m->disturbed});
}

/* A workload's median interval from its round values (whose median is the
 * reported one); NaN when there are none or no memory. */
static void median_interval(const samples *s, double *ci)
{
  ci[0] = ci[1] = NAN;
  if (s->n && perf__stats_median_ci(s->t, s->n, PERF__MEDIAN_LEVEL, &ci[0], &ci[1])) ci[0] = ci[1] = NAN;
}

/* Decides claim c on a[m], b[m] alone at r's level into r: PASS or FAIL
 * as the interval says; INCONCLUSIVE with fewer than first_look rounds
 * (r's numbers then stay those of all rounds, for the verdict line).
 * Returns 0, PERF__ENOMEM or the bootstrap's error. */
static int decide_again(const perf__verdict_claim *c, const perf__verdict_cfg *cfg, perf__rng *rng,
                        const double *a, const double *b, size_t m, perf__verdict_result *r)
{
  r->verdict = PERF_OUTCOME_INCONCLUSIVE;
  if ((int)m < cfg->first_look) return 0;
  double *scratch = malloc(m * sizeof *scratch);
  if (!scratch) return PERF__ENOMEM;
  r->rounds = (int)m;
  r->med_a = perf__stats_median_of(a, m, scratch), r->mad_a = perf__stats_mad_of(a, m, scratch);
  r->med_b = perf__stats_median_of(b, m, scratch), r->mad_b = perf__stats_mad_of(b, m, scratch);
  free(scratch);
  int similar = c->kind == PERF__CLAIM_SIMILAR;
  r->ratio = similar ? r->med_a / r->med_b : r->med_b / r->med_a;
  perf__stats_boot boot = {r->level, cfg->reps, rng};
  int err = perf__stats_boot_ratio_ci(similar ? a : b, similar ? b : a, m, &boot, &r->lo, &r->hi);
  if (!err) r->verdict = perf__verdict_decide(c, r->lo, r->hi);
  return err;
}

/* See compare.h. */
long perf__compare_unshared(const perf__cotenant *ct, const perf__verdict_claim *c,
                            const perf__verdict_cfg *cfg, perf__rng *rng,
                            const perf__compare_rounds *k, perf__verdict_result *r)
{
  size_t clean = 0, *n = k->n;
  double *a = k->a, *b = k->b;
  if (!perf__cotenant_overlaps(ct, k->from, k->now)) return 0;
  for (size_t i = 0; i < *n && k->t0; i++) {
    double canary = k->judged ? k->judged[i] : 0;
    if (canary < PERF__CANARY_CLEAN_LINK &&
        (canary > 0 ? perf__cotenant_overlaps_link(ct, k->t0[i], k->t1[i])
                    : perf__cotenant_overlaps(ct, k->t0[i], k->t1[i])))
      continue;
    a[clean] = a[i];
    b[clean++] = b[i];
  }
  long dropped = (long)(*n - clean);
  *n = clean;
  int err = dropped ? decide_again(c, cfg, rng, a, b, clean, r) : 0;
  return err ? err : dropped;
}

/* See compare.h. */
const char *perf__compare_shared_why(perf_outcome first, size_t n, size_t k, int first_look)
{
  if (first != PERF_OUTCOME_INCONCLUSIVE || n - k < (size_t)(first_look > 0 ? first_look : 0) ||
      2 * k >= n)
    return PERF__COMPARE_WHY_SHARED;
  return NULL;
}

/* Appends what the canary judged of p's rounds to out's causes: "; beside
 * another process (who), the canary left out 40 of 90 rounds (30 with an
 * empty kernel's turnaround above 44 us, 10 before 5 quiet readings in a
 * row over 25 ms; host clock)"; an undecided claim left with no round,
 * or with half its rounds or more left out, names that process as its
 * cause. Never fails (truncates). */
static void canary_text(const pair *p, perf__compare_result *out)
{
  const perf__canary *k = &p->canary;
  if (!k->clean && !k->disturbed) return;
  long all = k->clean + k->disturbed;
  if (out->r.verdict == PERF_OUTCOME_INCONCLUSIVE && (!out->r.rounds || 2 * k->disturbed >= all))
    out->r.why = PERF__COMPARE_WHY_SHARED;
  char who[240], copy[160] = "", link[200] = "";
  perf__neighbour_describe(perf__cotenant_state(), p->from, who, sizeof who);
  for (int w = 0; w < 2; w++) {
    double band = k->dirs & (1 << w) ? perf__canary_link_band_now(w) : 0;
    size_t u = strlen(copy);
    if (band > 0)
      snprintf(copy + u, sizeof copy - u, " or a %u KiB pinned copy's turnaround %s above %.0f us",
               PERF__REFERENCE_LINK_BYTES >> 10, w ? "to the host" : "to the device", band * 1e6);
  }
  size_t n = 0;
  if (k->link_clean)
    perf__units_append(link, sizeof link, &n, "; %ld of the rest judged on the host link too",
                       k->link_clean);
  if (k->preempted)
    perf__units_append(link, sizeof link, &n, "; %ld %s taken again: the host preempted %s",
                       k->preempted, perf__units_noun(k->preempted, "reading", "readings"),
                       perf__units_noun(k->preempted, "it", "them"));
  size_t used = strlen(out->disturbed);
  snprintf(out->disturbed + used, sizeof out->disturbed - used, "; beside another process "
           "(%s), the canary left out %ld of %ld %s (%ld with an empty kernel's turnaround "
           "above %.0f us%s, %ld before %d quiet readings in a row over %.0f ms; host clock%s)%s",
           who[0] ? who : "no longer listed", k->disturbed, all,
           perf__units_noun(all, "round", "rounds"), k->delayed, perf__canary_band() * 1e6, copy,
           k->disturbed - k->delayed, PERF__CANARY_RUN, PERF__CANARY_RUN_S * 1e3, link,
           k->gave_up ? ", then stopped judging: the neighbour did not leave room" : "");
}

/* What p's causes say of a neighbour that made k of its n rounds shared:
 * that sampling stopped (every round shared once the test's wait was
 * spent); that it was still on the GPU as the claim ended
 * (perf__cotenant_still_on), when it is the
 * claim's named cause (named: its why is PERF__COMPARE_WHY_SHARED, not a
 * reason of its own); or nothing. The supervisor runs no second attempt
 * after either (supervisor/attempt.h). Never fails. */
static const char *still_shared(const pair *p, size_t k, size_t n, const perf__cotenant *ct,
                                int named)
{
  if (p->stopped || (k == n && perf__workload_alone_spent()))
    return ", " PERF__CONFIRM_STOPPED_SHARED;
  return named && perf__cotenant_still_on(ct) ? ", " PERF__CONFIRM_STILL_SHARED : "";
}

/* Rounds during which another process used the GPU, as NVML tells after
 * the last of them (a window is reported once it closed), are no evidence:
 * with any, the claim is decided again on the others alone
 * (perf__compare_unshared), so that no PASS or FAIL comes from a shared
 * GPU; an INCONCLUSIVE one names the process. Each workload's shared_n
 * gets the count, with the rounds prune_link dropped at the looks.
 * Returns 0 or perf__compare_unshared's error. */
static int exclude_shared(pair *p, const perf__verdict_claim *c, const perf__verdict_cfg *cfg,
                          perf__rng *rng, perf__compare_result *out)
{
  perf__wstate *sa = p->a->perf__state, *sb = p->b->perf__state;
  sa->shared_n = sb->shared_n = 0;
  sa->shared_from = sb->shared_from = p->from;
  sa->shared_of = sb->shared_of = "round";
  if ((!sa->watched && !sb->watched) || !perf__cotenant_poll(1)) return 0;
  canary_text(p, out);
  const perf__cotenant *ct = perf__cotenant_state();
  perf__verdict_result *r = &out->r;
  perf_outcome first = r->verdict;
  size_t n = p->rounds_a.n, m = n;
  int timed = p->rounds_b.n == n && p->round_from.n == n && p->round_to.n == n;
  perf__compare_rounds rounds = {
      p->rounds_a.t, p->rounds_b.t, timed ? p->round_from.t : NULL, p->round_to.t,
      p->round_clean.n == n && !p->canary.gave_up ? p->round_clean.t : NULL, &m, p->from,
      perf__clock_now()};
  long dropped = perf__compare_unshared(ct, c, cfg, rng, &rounds, r);
  if (dropped < 0 || (!dropped && !p->pruned)) return (int)dropped;
  p->rounds_a.n = p->rounds_b.n = m;
  size_t k = (size_t)(dropped + p->pruned); /* those dropped at the looks too */
  n += (size_t)p->pruned;
  sa->shared_n = sb->shared_n = (long)k;
  char who[240];
  perf__neighbour_describe(ct, p->from, who, sizeof who);
  size_t used = strlen(out->disturbed);
  if (r->verdict != PERF_OUTCOME_INCONCLUSIVE) {
    snprintf(out->disturbed + used, sizeof out->disturbed - used, "; decided on the rounds "
             "during which no other process used the GPU%s, %zu of %zu (%s)",
             p->canary.clean ? " or the canary found clean" : "", n - k, n, who);
    return 0;
  }
  const char *why = perf__compare_shared_why(first, n, k, cfg->first_look);
  if (why) r->why = why;
  snprintf(out->disturbed + used, sizeof out->disturbed - used, "; another process used the "
           "GPU during %zu of %zu %s: %s; retaken for up to %.1f s%s: run on a GPU no other job "
           "shares", k, n, perf__units_noun((long)n, "round", "rounds"), who,
           PERF__COTENANT_MAX_WAIT_MS * 1e-3,
           still_shared(p, k, n, ct, r->why && !strcmp(r->why, PERF__COMPARE_WHY_SHARED)));
  return 0;
}

/* What the noise checks cost this claim (warm-ups, rounds, the last
 * reads), for --verbose: the co-tenant check's NVML reads since reads0/s0
 * (GPU workloads only), the host's load read since host0. Never fails. */
static void report_cost(const perf_workload *a, const perf_workload *b, long reads0, double s0,
                        double host0)
{
  long reads = reads0;
  double s = s0;
  char gpu[96] = "";
  if (a->perf__state->watched || b->perf__state->watched) {
    perf__cotenant_cost(&reads, &s);
    snprintf(gpu, sizeof gpu, "co-tenant %ld NVML %s %.3f ms, ", reads - reads0,
             perf__units_noun(reads - reads0, "read", "reads"), (s - s0) * 1e3);
  }
  perf__context_line(PERF_LINE_VERBOSE, "noise checks: %shost load %.3f ms (host clock)", gpu,
                     (perf__hostnoise_cost() - host0) * 1e3);
}

/* 1 when w's samples will run on the GPU as its declaration says, before
 * its state is made (a state left from an earlier test is not read): it
 * names a stream or a GPU clock. */
static int gpu_side(const perf_workload *w)
{
  return w->stream || (w->clock != PERF_CLOCK_AUTO && perf__clock_by_events(w->clock));
}

/* The canary of a claim of a and b, read once before their warm-ups when
 * NVML, read now, shows another process (canary.h), so that beside a
 * neighbour no warm-up waits for it to leave. Never fails. */
static perf__canary canary_before(const perf_workload *a, const perf_workload *b)
{
  perf__canary k = {0};
  if (!gpu_side(a) && !gpu_side(b)) return k;
  const perf__gpu_info *g = perf__gpu();
  if (g->err || !g->watch) return k;
  perf__cotenant_poll(0);
  perf__canary_round(&k, 1);
  return k;
}

/* Ends the test as ERROR when the two workloads cannot be compared. */
static void check_comparable(const char *head, const perf_workload *a,
                             const perf_workload *b)
{
  perf_clock ca = a->perf__state->clock, cb = b->perf__state->clock;
  if (ca != cb)
    perf__context_end(PERF_OUTCOME_ERROR, 0,
                   "%s: cannot compare '%s' (%s clock) with '%s' (%s clock); "
                   "give both the same .clock",
                   head, a->name, perf__clock_name(ca), b->name,
                   perf__clock_name(cb));
}

/* The rule's settings for a claim at alpha_scale times the default error
 * rate, its budget the run's. Never fails. */
static perf__verdict_cfg cfg_for(double alpha_scale)
{
  perf__verdict_cfg cfg;
  perf__verdict_defaults(&cfg);
  cfg.budget_s = perf__context_opt.budget_s;
  cfg.idled_s = perf__workload_idled_s; /* waiting out a power cap is not sampling */
  cfg.prune = prune_link;
  cfg.alpha *= alpha_scale;
  return cfg;
}

/* Prepares a and b for the rounds (perf__workload_prepare: warm-ups
 * within a quarter of the budget, samples long enough that max_rounds
 * rounds fill it, so that the bootstrap's cost stays bounded), the canary
 * read before them beside a neighbour. Ends the test as preparing does,
 * or as ERROR when they cannot be compared. */
static void warm_up(const char *head, perf_workload *a, perf_workload *b,
                    const perf__verdict_cfg *cfg)
{
  double min_sample = cfg->budget_s / (4.0 * cfg->max_rounds), warm_cap = cfg->budget_s / 4;
  free_samples(&live);
  live.canary = canary_before(a, b); /* in live: a test that ends closes it */
  perf__nvtx_push("%s: warm-up %s", perf__compare_claim_text(head), a->name);
  perf__workload_prepare(a, min_sample, warm_cap);
  perf__nvtx_pop();
  if (b != a) {
    perf__nvtx_push("%s: warm-up %s", perf__compare_claim_text(head), b->name);
    perf__workload_prepare(b, min_sample, warm_cap);
    perf__nvtx_pop();
  }
  check_comparable(head, a, b);
}

/* The pair for the rounds of a and b (live: the warm-up's canary kept),
 * its launch reference open and the canary's first reading taken. Never
 * fails. */
static pair *begin_rounds(perf_workload *a, perf_workload *b, const perf__verdict_cfg *cfg)
{
  pair *p = &live;
  perf__canary canary = p->canary;
  *p = (pair){.a = a, .b = b, .ra = a->perf__state->rt, .rb = b->perf__state->rt,
              .first_look = cfg->first_look, .canary = canary};
  perf__rng_seed(&p->order, perf__context_opt.seed + 1);
  open_launch(p);
  perf__canary_link(&p->canary, a->perf__state->link_down + b->perf__state->link_down > 0,
                    a->perf__state->link_up + b->perf__state->link_up > 0);
  p->canary.idled = !b->perf__state->uses_gpu; /* b warmed up last */
  if (watched(p)) perf__canary_round(&p->canary, 1); /* the first round's before */
  p->from = perf__clock_now();
  return p;
}

/* What the noise checks had cost when the claim began (report_cost). */
typedef struct cost0 {
  long reads;
  double nvml_s, host_s;
} cost0;

/* Ends the test after a failed sampling (p's error: as the GPU's) or a
 * failed statistic (err: FAIL). Does not return. */
static void failed(pair *p, const char *head, int err, const cost0 *k)
{
  report_cost(p->a, p->b, k->reads, k->nvml_s, k->host_s);
  free_samples(p);
  if (p->err) perf__gpu_end(p->err, p->why);
  perf__context_end(PERF_OUTCOME_FAIL, 0, "%s: statistics failed: %s", head,
                    perf__status_strerror(err));
}

/* See compare.h. */
void perf__compare_run(perf_workload *a, perf_workload *b, const perf__compare_ask *ask,
                       perf__compare_result *out)
{
  perf__verdict_cfg cfg = cfg_for(ask->alpha_scale);
  perf__verdict_claim c = ask->claim;
  cost0 k = {.host_s = perf__hostnoise_cost()};
  memset(out, 0, sizeof *out);
  perf__cotenant_cost(&k.reads, &k.nvml_s); /* warm-ups included */
  if (perf__syncdetect_in_check())
    perf__context_end(PERF_OUTCOME_ERROR, 0, "%s: timing inside a sync check (CUPTI is "
                      "attached there); move the claim out of PERF_NO_SYNC_IN", ask->head);
  perf__context_on_release(release);
  perf__throughput_check(ask->head, a);
  perf__throughput_check(ask->head, b);
  warm_up(ask->head, a, b, &cfg);
  perf__rng rng;
  perf__rng_seed(&rng, perf__context_opt.seed);
  pair *p = begin_rounds(a, b, &cfg);
  perf__retake before = perf__measrec_retakes(a, b);
  perf__hostnoise_begin(&out->host_before);
  perf__hostload host = out->host_before;
  perf__nvtx_push("%s: %s vs %s", perf__compare_claim_text(ask->head), a->name, b->name);
  int err = perf__verdict_run(&cfg, &c, abba, perf__context_opt.verbose ? trace : NULL, p, &rng,
                              &out->r);
  perf__nvtx_pop();
  perf__retake d = perf__measrec_disturbances(a, b, &before, out->disturbed, sizeof out->disturbed);
  if (!err) err = exclude_shared(p, &c, &cfg, &rng, out);
  if (err) failed(p, ask->head, err, &k);
  perf__hostnoise_judge(&host, a->perf__state->clock, &d, &out->r, out->disturbed,
                        sizeof out->disturbed);
  report_cost(a, b, k.reads, k.nvml_s, k.host_s);
  median_interval(&p->rounds_a, out->a_ci);
  median_interval(&p->rounds_b, out->b_ci);
  measurement_record(&out->rec, ask->kind, &c, p, out, &d);
  out->launch_s = launch_median(p);
  free_samples(p);
}
