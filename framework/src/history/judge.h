/* judge.h — one GPU's series at one commit: which moved beyond the noise of unchanged code. */
/* Each series against its band: moved for the worse or the better, moved no
 * more than unchanged code has, moved with the whole machine, or not
 * decidable yet. */
#ifndef PERF_JUDGE_H
#define PERF_JUDGE_H

#include <stddef.h>

#include "history/band.h"

/* The rule, per GPU and commit, over its m series with a band of at least
 * PERF__BAND_MIN_COMMITS earlier commits (history/band.h). Series are
 * grouped by kind (a workload's median or a ratio) and clock; a group's
 * bands give its prior.
 *
 * 1. A series moved when its value's one-sided p-value against its band,
 *    in the direction it moved (a SIMILAR ratio: either way, doubled), is
 *    at most PERF__JUDGE_ALPHA / m (Bonferroni: at most one GPU-commit in
 *    1 / PERF__JUDGE_ALPHA calls a series of unchanged code moved, where
 *    the noise between runs is as the bands say), and the move is at
 *    least PERF__JUDGE_MIN_CHANGE (smaller is not worth a bisection).
 * 2. ... and when its move is as unlikely under its group's tails: a
 *    Student t fitted to the left-out deviations of the group's bands
 *    (perf__band_tails_of: what its history shows), with at most
 *    PERF__JUDGE_HOST_NU degrees of freedom, at the same spread, on a
 *    host clock (wall, submit: host/clock.h's host column), which is
 *    timed at the host's pace: a shared host runs in phases no band of a
 *    few commits shows (an H200 host doubled an OpenMP workload in 1 of
 *    14 runs of unchanged code, 7 deviations of its band). Beyond its band
 *    by rule 1 but not by this, it moved no farther than its group's noise
 *    reaches by itself: TAIL, and the GPU not decided.
 * 3. The machine moved when at least PERF__JUDGE_SHIFT_MIN workloads, and
 *    at least half of those decided, moved the same way at a looser
 *    PERF__JUDGE_VOTE_P (each at least PERF__JUDGE_MIN_CHANGE): the
 *    rule --trend applies to a machine's shift. A workload that moved
 *    that way by more than twice the machine's move (the voters' median)
 *    and still moves by rules 1 and 2 with the machine's move taken out
 *    changed as well; the others are the machine's. Ratio claims have no vote
 *    and are never the machine's: measured within one process, they
 *    cancel it.
 * 4. A series with a shorter band is not decided (SHORT). */
#define PERF__JUDGE_ALPHA 0.008
#define PERF__JUDGE_MIN_CHANGE 0.02
#define PERF__JUDGE_VOTE_P 0.01
#define PERF__JUDGE_HOST_NU 4.0
enum { PERF__JUDGE_SHIFT_MIN = 3 };

typedef enum perf__judge_class {
  PERF__JUDGE_SHORT,   /* too few earlier commits since its last change point */
  PERF__JUDGE_WITHIN,  /* within the noise between runs */
  PERF__JUDGE_WORSE,   /* moved for the worse */
  PERF__JUDGE_BETTER,  /* moved for the better */
  PERF__JUDGE_TAIL,    /* beyond its band, within its group's tails (rule 2) */
  PERF__JUDGE_MACHINE  /* moved with the machine */
} perf__judge_class;

/* How a series is worse. */
typedef enum perf__judge_worse {
  PERF__JUDGE_HIGHER,  /* a time: higher is worse */
  PERF__JUDGE_LOWER,   /* a FASTER ratio: lower is worse */
  PERF__JUDGE_FARTHER  /* a SIMILAR ratio: farther from 1 is worse */
} perf__judge_worse;

/* How a series is worse: a workload's median (kind NULL) when higher; a
 * claim's ratio by its kind's word as the claim kinds' table says (record/
 * claimrec.h): a band's ("SIMILAR") when farther from 1, any other (one that
 * must be at least its threshold: "FASTER", "BANDWIDTH"; a word the table
 * does not know) when lower.
 * Never fails. */
perf__judge_worse perf__judge_worse_of(int is_claim, const char *kind);

/* One series at the commit. */
typedef struct perf__judge_item {
  int is_claim;             /* in: 0 a workload's median (it votes), 1 a ratio */
  const char *clock;        /* in: its clock (with is_claim, its group) */
  int host;                 /* in: 1 on a host clock (rule 2) */
  perf__judge_worse worse;  /* in */
  perf__band band;          /* in: its earlier commits */
  double y;                 /* in: its value at the commit (positive) */
  perf__band_fall fall;     /* out, when decided */
  double p;                 /* out: the p-value of its move, as rule 1 reads it */
  double tail_p;            /* out: as rule 2 reads it (at least p) */
  double tail_nu;           /* out: the tails' degrees of freedom (INFINITY: the normal's) */
  perf__judge_class cls;    /* out */
} perf__judge_item;

/* The machine's move at the commit (moved 0: none). */
typedef struct perf__judge_machine {
  int up;                   /* 1: its workloads slower; 0: faster */
  size_t moved, of;         /* workloads that voted, of those decided */
  double size, smallest, largest; /* the voters' moves: median, range */
} perf__judge_machine;

/* Judges it[0..n), one GPU's series at one commit; *m gets the machine's
 * move, *decided the m of rule 1. Returns 0 or PERF__ENOMEM (nothing
 * judged). */
int perf__judge_commit(perf__judge_item *it, size_t n, perf__judge_machine *m, size_t *decided);

/* 1 when a value now is worse than was for a series that is worse as w
 * says. Never fails. */
int perf__judge_is_worse(perf__judge_worse w, double was, double now);

/* 1 when the class counts as a move (WORSE, BETTER, TAIL). */
int perf__judge_moved(perf__judge_class c);

#endif
