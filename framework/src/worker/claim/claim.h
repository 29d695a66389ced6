/* claim.h — one claim's lifecycle, written once; each claim kind supplies its steps. */
#ifndef PERF_CLAIM_H
#define PERF_CLAIM_H

/* A claim (PERF_EXPECT_FASTER, BANDWIDTH, CROSSOVER, BASELINE, SAME_WORK,
 * TRUE, NEAR, the sync checks) goes through the same steps whatever its
 * kind, and perf__claim_run takes it through them:
 *
 *   1. open: a claim that held in the first attempt is taken from it and
 *      not measured again (record/confirm.h), unless it is fresh;
 *   2. measure: the kind measures and decides, into an outcome and, for an
 *      INCONCLUSIVE or SKIP one, its cause (why);
 *   3. feed: what the measurement gives this machine's baseline file
 *      (recorded with --update-baselines, checked with
 *      --baseline-check=all: worker/claim/bldoor.h);
 *   4. the verdict word: "PASS", or "INCONCLUSIVE (why)";
 *   5. print: the verdict line and what follows it;
 *   6. the record (record/claimrec.h): its message, outcome and kind made
 *      here, the kind's measurements added by its record method; sent and
 *      counted (a kind whose verdict line is rendered from its record,
 *      rendered, sends it before print);
 *   7. explain: after a FAIL, what changed since the baseline;
 *   8. close, and end the test when a fatal claim did not hold (its
 *      reason: the record's message).
 *
 * A SKIP (nothing to decide against) is counted as a skipped check naming
 * why, with no record. A kind is a row of methods (perf__claim_kind); a
 * NULL method is a step the kind does not have. The site, perf__claim,
 * carries what every step needs: where the claim was made, its head, the
 * workloads, and the comparison for the kinds that compare two. A test
 * that ends inside a step (perf__context_end) frees the comparison's
 * record; what a kind allocates in its own state must be handed to its
 * record before any step that can end the test. */

#include <stddef.h>

#include "perfgate.h"
#include "record/claimrec.h"
#include "util/status.h"
#include "worker/claim/compare.h"

typedef struct perf__claim perf__claim;

/* What one kind does at each step. measure is required; the others may be
 * NULL. */
typedef struct perf__claim_kind {
  perf__claimrec_kind rec; /* its record's kind */
  int rendered; /* its verdict line is rendered from its record by whoever
                   reads it (record/verdictline.h): the record goes before
                   print, which then adds only the lines after it */
  /* Measures and decides: returns PASS, FAIL, INCONCLUSIVE (c->why: its
   * cause, or NULL) or SKIP (c->why: why nothing was decided), or sets
   * c->pending (measured, decided later: a CROSSOVER point before the
   * sweep's last). Ends the test on misuse, a CUDA error or no device. */
  perf_outcome (*measure)(perf__claim *c);
  void (*feed)(perf__claim *c);                     /* step 3; never fails itself */
  void (*print)(perf__claim *c, const char *word);  /* step 5; never fails */
  void (*record)(perf__claim *c, perf__claimrec *r); /* step 6; never fails */
  void (*explain)(perf__claim *c);                  /* step 7; never fails */
  /* Taken from a first attempt: says so and returns what the claim
   * returns (NULL: perf__context_claim_kept). */
  int (*kept)(perf__claim *c);
} perf__claim_kind;

/* One claim, as made at file:line. */
struct perf__claim {
  const perf__claim_kind *kind;
  const char *file;
  int line, fatal;
  int fresh;      /* measured even where a first attempt passed it, with
                     no id of its own (an update's BASELINE, SAME_WORK) */
  int once;       /* one id however often the line runs (CROSSOVER) */
  char tag[96];   /* the sweep point's " [n=256]" (CROSSOVER: "") */
  char head[400]; /* "FASTER(a, b, 2) at f.c:9 [n=256]" */
  perf_workload *a, *b;   /* the workloads (b: a's comparison, or NULL) */
  perf__compare_result m; /* the comparison, for kinds that compare */
  void *self;             /* the kind's own state */
  perf__claim *outer;     /* the claim this one runs inside (claim.c) */
  /* Set by measure: */
  const char *why;     /* the cause of an INCONCLUSIVE or SKIP */
  const char *said;    /* the record's message after the head (NULL:
                          ": WORD", then ": detail" when set) */
  const char *detail;  /* the reason the message adds */
  int pending;         /* measured; decided at a later call */
};

/* Takes c (its kind, site and head set) through the steps above. Returns
 * 1 when it held (or was taken from a first attempt where it did, or is
 * pending), 0 otherwise. Ends the test when a fatal claim did not hold,
 * and as the kind's methods do; c->m.rec is freed however it ends. */
int perf__claim_run(perf__claim *c);

/* A ratio claim's feed (FASTER, SIMILAR, a CROSSOVER point): both
 * workloads measured in c->m, with the peaks this machine's file holds
 * added to their records. Fails as perf__bldoor_pair. */
void perf__claim_feed_pair(perf__claim *c);

/* A ratio claim's explanation after a FAIL: what changed in each
 * workload's GPU work. Never fails. */
void perf__claim_explain_pair(perf__claim *c);

/* A kind's record method for a comparison's measurement: a copy of c->m's
 * record into r (c->m's own is freed when the claim closes). Never fails
 * (without memory the record goes without its measurement). */
void perf__claim_record_ratio(perf__claim *c, perf__claimrec *r);

#endif
