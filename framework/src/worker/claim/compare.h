/* compare.h — comparing two workloads: ABBA rounds sampled until the claim's interval decides. */
/* Also the verdict line and the claim record. */
#ifndef PERF_COMPARE_H
#define PERF_COMPARE_H

#include "record/claimrec.h"
#include "host/hostload.h"
#include "perfgate.h"
#include "worker/device/cotenant.h"
#include "worker/sample/retake.h"
#include "worker/claim/verdict.h"

typedef struct perf__compare_result {
  perf__verdict_result r;
  double a_ci[2], b_ci[2]; /* each median's 95 % interval (order statistics
                              over its samples); NaN when unknown */
  char disturbed[1200];    /* "; ..." for the verdict line, or "" */
  perf__claimrec_ratio rec; /* the measurement for the claim's record
                               (owned: the caller hands it to a record) */
  perf__hostload host_before; /* the host's load before the rounds (hostnoise.h) */
  double launch_s; /* perfgate's launch reference read after each round where a
                      baseline wants it (compare.c): the median, seconds per launch;
                      0 not read */
} perf__compare_result;

/* What a comparison is asked to decide: claim (FASTER, SIMILAR or a
 * crossover point's SIDE, with its threshold), at alpha_scale times the
 * default error rate; kind names it in the record ("FASTER",
 * "CROSSOVER_POINT"); head in its lines and errors. */
typedef struct perf__compare_ask {
  perf__verdict_claim claim;
  const char *kind;
  double alpha_scale;
  const char *head;
} perf__compare_ask;

/* Measures a against b (both named) for ask->claim: prepares both,
 * samples ABBA rounds until a look decides it or the budget runs out.
 * Rounds that another process shared the GPU with (cotenant.h) do not
 * decide: the claim is decided again on the other rounds, or is
 * INCONCLUSIVE naming the process; each workload's shared_n gets their
 * count. Ends the test on a CUDA error (FAIL), a missing device (SKIP),
 * misuse (ERROR: different clocks, inside a sync check) or a failed
 * bootstrap (FAIL). The caller owns out->rec. */
void perf__compare_run(perf_workload *a, perf_workload *b, const perf__compare_ask *ask,
                       perf__compare_result *out);

/* A claim's rounds, for perf__compare_unshared: each round's a[i], b[i]
 * (the others' kept in order, their count in *n), when it ran t0[i]..t1[i]
 * (t0 NULL: not known, then every round counts as shared), the canary's
 * word on it judged[i] (NULL: none), and when sampling ran, from..now. */
typedef struct perf__compare_rounds {
  double *a, *b;
  const double *t0, *t1, *judged;
  size_t *n;
  double from, now;
} perf__compare_rounds;

/* The rule for rounds another process shared the GPU with (pure: ct is
 * what NVML told): when foreign use known to ct overlapped [k->from,
 * k->now], drops each round that it overlapped (a round the canary found
 * clean, judged[i] > 0, is dropped only where the host link showed foreign
 * traffic, and one its link probe found clean too, judged[i] >=
 * PERF__CANARY_CLEAN_LINK, never: canary.h), keeping the others in k, and
 * decides claim c again on them alone at r->level into r (medians, ratio,
 * interval, verdict; fewer than cfg->first_look rounds: INCONCLUSIVE, the
 * numbers left as they were). Returns the rounds dropped (0: r and the
 * rounds untouched), or PERF__ENOMEM / the bootstrap's error. */
long perf__compare_unshared(const perf__cotenant *ct, const perf__verdict_claim *c,
                            const perf__verdict_cfg *cfg, perf__rng *rng,
                            const perf__compare_rounds *k, perf__verdict_result *r);

/* The cause an undecided claim names when a co-tenant left it so (its
 * verdict's why). */
#define PERF__COMPARE_WHY_SHARED "another process used the GPU"

/* The cause an INCONCLUSIVE claim names once perf__compare_unshared dropped
 * k of its n rounds as shared: PERF__COMPARE_WHY_SHARED when the
 * claim was decided before they were dropped (first: that verdict), when
 * fewer than first_look clean rounds are left, or when at least half of the
 * rounds were shared (the co-tenant then spread the samples and slowed the
 * rounds that spent the budget); NULL when the claim's own reason stands.
 * Never fails. */
const char *perf__compare_shared_why(perf_outcome first, size_t n, size_t k, int first_look);

/* A claim stops beside a neighbour whose host-link traffic covered every
 * round it took for this long (the link's drops at the looks: pruned of
 * them, none standing), once the test's wait for co-tenants is spent:
 * beside a process that copies without pause (its copies do not delay
 * the empty kernel, so every round was judged clean and then dropped at
 * the look) each claim spent its whole budget, 2 s, and the sweeps of the
 * suite four times their time (issue 50). The canary's link probe now
 * finds such rounds disturbed itself where it is trusted; this stop
 * remains for where it is not (a slower link, a failed probe). */
#define PERF__COMPARE_LINK_STOP_S 1.0

/* 1 when a claim is hopeless on the link (pure): the test's wait is spent
 * (alone_spent), the looks dropped at least first_look rounds (pruned) and
 * none stands (standing 0), over at least PERF__COMPARE_LINK_STOP_S of
 * sampling (elapsed_s). Never fails. */
int perf__compare_link_hopeless(int alone_spent, long pruned, size_t standing, int first_look,
                                double elapsed_s);


/* The claim without its location: "FASTER(a, b, 2)" from "FASTER(a, b, 2)
 * at f.c:9"; a static buffer, valid until the next call. Never fails. */
const char *perf__compare_claim_text(const char *head);

#endif
