/* confirm.h — confirm before failing: when a failed test runs again, and what it keeps. */
/* The rule for a second attempt, the error budget each attempt spends, and
 * the KEEP message that names the claims a second attempt takes from the
 * first. */
#ifndef PERF_CONFIRM_H
#define PERF_CONFIRM_H

#include <stddef.h>

#include "util/status.h"

/* The rule (docs/deciding.md, "Confirm before failing"; --no-confirm turns it off):
 *  - A test that ends FAIL with a measured claim (FASTER, SIMILAR, a
 *    CROSSOVER, BASELINE: a claim with an id) that ended FAIL or
 *    INCONCLUSIVE is run once more, in a fresh worker. A test failed only
 *    by deterministic checks (TRUE, NEAR, the sync checks) or an ERROR is
 *    not: its second attempt would say the same; nor is one that crashed
 *    or timed out (after a failed claim too): a second hang costs another
 *    timeout.
 *  - In the second attempt a measured claim that passed in the first is
 *    taken from it: not measured (its workloads do not run), not judged.
 *    Every other claim is judged (again, or for the first time when the
 *    first attempt never reached it: an ASSERT ended it); the second
 *    attempt's outcome is final, for each claim and for the test.
 *  - The error budget: every attempt judges its ratio claims at
 *    PERF__CONFIRM_ALPHA_SHARE * alpha. A wrong PASS can come from either
 *    attempt, so it happens with at most (alpha/2)/2 + (alpha/2)/2 = alpha/2,
 *    the rate stated for one attempt at alpha; a wrong FAIL needs the
 *    second attempt to fail wrongly: at most (alpha/2)/2 = alpha/4.
 *  - BASELINE's rule (3 standard errors) has no alpha to split: a FAIL
 *    needs both attempts beyond tolerance and noise. */
#define PERF__CONFIRM_ALPHA_SHARE 0.5

/* A claim beside a co-tenant that never left: every round shared once the
 * test's wait for it was spent, so sampling stopped (worker/claim/
 * compare.c says this in the claim's causes: its record's noise.cause and
 * the verdict line). A test whose every claim that did not pass says it is
 * not run again: a second attempt beside the same neighbour says the same
 * (supervisor/attempt.c). */
#define PERF__CONFIRM_STOPPED_SHARED "then stopped: every round was shared"
/* A claim left undecided by a co-tenant that comes and goes, still seen on
 * the GPU within PERF__COTENANT_QUIET_S of the claim's end: a second
 * attempt would run beside it too, and is not run either (issue 50: beside
 * a neighbour busy 0.5 s of each second, second attempts took a third of
 * the suite's time and decided little). */
#define PERF__CONFIRM_STILL_SHARED "and it was still there as the claim ended"

/* The final outcome of a claim (or a test) judged once (first) and, unless
 * it passed, a second time (second). Never fails. */
perf_outcome perf__confirm_final(perf_outcome first, perf_outcome second);

/* The KEEP message's text, sent before a second attempt's RUN: each id of
 * a claim to take from the first attempt followed by '\n' ("" when none;
 * an id holding '\n' is left out: that claim is judged again). Returns it
 * malloc'd (*len its length), or NULL without memory. */
char *perf__confirm_keep_text(const char *const *ids, size_t n, size_t *len);

/* 1 when list (a KEEP message's text; NULL: empty) holds id. Never
 * fails. */
int perf__confirm_listed(const char *list, const char *id);

#endif
