/* claimrec.h — one claim's record: the type every report reads, its one JSON writer and reader. */
#ifndef PERF_CLAIMREC_H
#define PERF_CLAIMREC_H

/* A claim record is what a worker says about one claim once it is decided:
 * the verdict line (message), the outcome and, for a ratio claim, every
 * measurement behind it. The worker fills a perf__claimrec and writes it as
 * one JSON object (perf__claimrec_write) to the supervisor; the supervisor,
 * the reports (JSON, JUnit, Markdown, TAP, HTML), the charts, the headroom
 * table and --merge read it back with perf__claimrec_read and never look at
 * the JSON text themselves. The JSON form is the "claims" array of the
 * --json report (its members: this file's types; docs/runner.md); the writer emits members
 * in one fixed order and leaves out what is unset, so writing what was read
 * gives the same text back.
 *
 * Strings are owned by the record (malloc'd; NULL when absent) and freed by
 * perf__claimrec_free, which also frees the arrays. */

#include <stddef.h>

#include "io/json.h"
#include "io/jsontree.h"
#include "baseline/peaks.h"
#include "util/status.h"
#include "baseline/trace.h"

/* The most points a sweep has, so the most a CROSSOVER record holds. */
enum { PERF__CLAIMREC_MAX_POINTS = 64 };

/* The kinds of record, one row each: X(kind, word, ratio, at_least).
 * PLAIN (records read from before these kinds) has a message and an
 * outcome only and no word in the JSON; TRUE and NEAR a word, their
 * message their line; SYNCS (the sync checks) and SAME_WORK their counts;
 * BASELINE its check against its entry (or an update's recording); a
 * ratio kind carries one ratio
 * measurement (the "ratio" member, in the headroom table and the
 * history's ratio rows), which at_least needs to be at least its
 * threshold (else within the band SIMILAR's tolerance makes). BANDWIDTH,
 * FLOPS and LINK_BANDWIDTH (speed-of-light claims) are ratio kinds whose ratio is the
 * workload's share of the peak measured in the same rounds (its "b" is
 * the calibration). A new kind with measurements of its own is a row
 * here, its struct below, and in claimrec.c one row of own[] and its
 * table of X(type, member, key) rows (record/fields.h: its writer,
 * reader, copy and free come from them). */
#define PERF__CLAIMREC_KIND_MAP(X)   \
  X(PLAIN, NULL, 0, 0)               \
  X(FASTER, "FASTER", 1, 1)          \
  X(SIMILAR, "SIMILAR", 1, 0)        \
  X(CROSSOVER, "CROSSOVER", 0, 0)    \
  X(BANDWIDTH, "BANDWIDTH", 1, 1)    \
  X(FLOPS, "FLOPS", 1, 1)            \
  X(LINK_BANDWIDTH, "LINK_BANDWIDTH", 1, 1) \
  X(TRUE, "TRUE", 0, 0)              \
  X(NEAR, "NEAR", 0, 0)              \
  X(SYNCS, "SYNCS", 0, 0)            \
  X(SAME_WORK, "SAME_WORK", 0, 0)    \
  X(BASELINE, "BASELINE", 0, 0)

typedef enum perf__claimrec_kind {
#define PERF__X(kind, word, ratio, at_least) PERF__CLAIMREC_##kind,
  PERF__CLAIMREC_KIND_MAP(PERF__X)
#undef PERF__X
  PERF__CLAIMREC_KIND_COUNT
} perf__claimrec_kind;

/* One workload of a ratio claim, as measured for it. */
typedef struct perf__claimrec_workload {
  char *name;
  double median_s;              /* median per iteration */
  double median_interval_s[2];  /* its interval; NaN: unknown */
  double median_confidence;     /* of that interval (0.95) */
  double mad_s;
  double cold_start_s;          /* the first call, timed alone */
  long iterations_per_sample;
  double *samples_s;            /* per iteration, one per round */
  size_t nsamples;
  char *waits_for;              /* "nothing", "stream", "device" */
  int gpu_work_checked;         /* the routing pass looked (CUPTI) */
  int undeclared_streams;       /* work went to streams it did not name */
  char *gpu_work;               /* what the pass found, or why it could not */
  int watched;                  /* the members below are set (NVML read) */
  unsigned *sm_clock_mhz;       /* nsamples of them; 0: unknown */
  long throttled_discarded, throttled_kept;
  char *throttle_reasons;
  /* What it declared one iteration moves and computes (all 0: nothing;
   * the JSON's "work", with the rates it gives over the median), and the
   * peaks it is a share of (0: unknown): the GPU's spec DRAM bandwidth
   * and math rate of work.type (baseline/peaks.h; basis: how, or why
   * unknown; for work whose trace is mostly copies between host and
   * device, the host link's instead of DRAM's), and the peaks measured on this machine (calibrate.h; from:
   * where they were measured; link: the host link, by a LINK_BANDWIDTH
   * claim). */
  perf__peaks_work work;
  double spec_dram, spec_math, spec_link;
  char *spec_math_basis;
  char *spec_link_basis; /* a LINK_BANDWIDTH claim's: how spec_link was computed and the
                            ways it counts ("...; both ways"), or why it is unknown */
  double measured_dram, measured_math, measured_link;
  char *measured_from;
  /* What the GPU did in one iteration (baseline/trace.h, without its events;
   * calls 0 and why_not "": no trace was tried, a host workload). */
  perf__trace trace;
} perf__claimrec_workload;

/* Where in a PERF_SWEEP a claim was made. */
typedef struct perf__claimrec_sweep {
  int set;       /* 0: not in a sweep */
  char *param;   /* the sweep variable */
  long value;
  size_t point, points;
} perf__claimrec_sweep;

/* What disturbed a measurement and what was done about it: samples retaken
 * or kept although the host preempted the worker or another process used
 * the GPU, rounds a co-tenant shared (dropped from the decision), whether
 * the early look decided it, and cause: all the verdict line says after
 * the outcome about disturbances (retakes, throttling, shared rounds and,
 * on an INCONCLUSIVE one, the named cause; "" when nothing). Written only
 * when some member is set (the early look alone sets it). */
typedef struct perf__claimrec_noise {
  int set;
  long host_retaken, host_kept;    /* the host preempted the worker */
  long gpu_retaken, gpu_kept;      /* another process used the GPU */
  long shared_rounds;              /* rounds dropped: the GPU was shared */
  int early_look;                  /* decided at the early look */
  char *cause;                     /* the verdict line's "; ..." causes */
} perf__claimrec_noise;

/* A ratio measurement: the whole of a FASTER or SIMILAR claim, and each
 * measured point of a CROSSOVER claim. */
typedef struct perf__claimrec_ratio {
  char *kind;          /* "FASTER", "SIMILAR" or "CROSSOVER_POINT" (a point);
                          NULL: the writer writes the record's kind (a
                          point: "CROSSOVER_POINT") */
  char *clock;         /* the clock both workloads were timed with */
  double threshold;    /* FASTER: the factor; SIMILAR: the tolerance */
  double ratio;        /* median(b) / median(a) */
  double interval[2];
  double confidence;
  int rounds, looks, budget_stretched;
  double seconds;      /* sampling time */
  perf__claimrec_workload a, b;
  perf__claimrec_sweep sweep;
  perf__claimrec_noise noise;
  char *why;           /* an INCONCLUSIVE verdict's cause ("the budget ran
                          out"; NULL: none); the JSON's "why", when set */
  char *timing;        /* how both were timed: the clock, what it waits for,
                          "medians" (record/verdictline.h); "timing" */
} perf__claimrec_ratio;

/* One point of a CROSSOVER claim. */
typedef struct perf__claimrec_point {
  double x;
  char *side;           /* "slower", "undecided", "faster", "tied" */
  int measured;         /* m is set */
  perf__claimrec_ratio m;
} perf__claimrec_point;

/* A sync check's count (SYNCS, NO_SYNC_IN). */
typedef struct perf__claimrec_syncs {
  char *got;           /* the host syncs counted, per iteration: "0", "1, 1, 2" */
  int wanted, at_least, iterations; /* wanted exactly (or at_least) this many */
  double pass_s, cupti_s; /* the pass's wall time; attaching and detaching CUPTI */
  char *cannot;        /* why it could not look (the count then unknown); NULL */
} perf__claimrec_syncs;

/* A SAME_WORK count of one call's GPU work (CUPTI's range profiler). */
typedef struct perf__claimrec_count {
  int recorded;             /* an update recorded it: nothing compared */
  double insts, dram_read;  /* warp instructions, DRAM bytes read */
  double was_insts, was_dram_read, tolerance; /* the baseline's, and the rule's */
  char *was_recorded;       /* when the baseline's count was recorded */
  int passes;               /* the profiler's passes */
  double count_s, setup_s;  /* counting, and setting up and tearing down */
} perf__claimrec_count;

/* A BASELINE check of one workload against its entry in this machine's
 * file (worker/claim/bldoor.h), or an update's recording of it. */
typedef struct perf__claimrec_baseline {
  int recorded;         /* an update recorded it: nothing compared */
  double now_s, was_s;  /* the median per iteration (as compared), the entry's */
  char *timing;         /* how it was timed ("events clock, ...") */
  double change, noise; /* now against was (+0.031), the noise it is judged by (+-) */
  double between;       /* the spread between the baseline's runs (< 0: it has none) */
  int runs;             /* the baseline's runs */
  double tolerance;     /* the entry's */
  long samples, was_samples; /* now, and the entry's */
  int beyond;           /* the change is beyond tolerance and noise */
  int sm_mhz;           /* an update's: the SM clock of its samples (0: unknown) */
  char *why;            /* the verdict word's parenthesis ("regression"), or NULL */
  char *notes;          /* what the line adds, each clause "; ..." (or ", ...") */
  char *shared;         /* another process used the GPU: when and who; NULL */
} perf__claimrec_baseline;

typedef struct perf__claimrec {
  char *message;                /* the verdict line */
  perf_outcome outcome;
  /* Confirm before failing (record/confirm.h): the claim's id (FASTER,
   * SIMILAR, CROSSOVER, BASELINE: "file:line", the sweep point, "#k";
   * NULL for the others), the attempt that judged it (1 or 2; 0: the test
   * ran once) and, from a second attempt's worker only, kept: the claim
   * passed in the first attempt and was taken from it, not judged again
   * (the supervisor puts the first attempt's record in its place). */
  char *id;
  int attempt, kept;
  perf__claimrec_kind kind;
  perf__claimrec_ratio ratio;   /* FASTER and SIMILAR */
  /* CROSSOVER */
  char *clock, *param, *a_name, *b_name;
  double tie, range[2], bracket[2], estimate, seconds;
  perf__claimrec_point *points;
  size_t npoints;
  perf__claimrec_syncs syncs;   /* SYNCS */
  perf__claimrec_count count;   /* SAME_WORK */
  perf__claimrec_baseline baseline; /* BASELINE */
} perf__claimrec;

/* A CROSSOVER point's side as its record writes it: side -1 "slower", 0
 * "undecided", 1 "faster", 2 "tied" (perf__verdict_side's values); NULL
 * for another value. Never fails. */
const char *perf__claimrec_side_word(int side);

/* The kind's word ("FASTER"), or NULL for PLAIN. Never fails. */
const char *perf__claimrec_kind_word(perf__claimrec_kind k);
/* 1 for a kind that carries one ratio measurement (the table's ratio
 * column). Never fails. */
int perf__claimrec_is_ratio(perf__claimrec_kind k);
/* 1 when the kind the word names ("FASTER", "BANDWIDTH") needs its ratio
 * to be at least its threshold; 0 for SIMILAR's band, another word or
 * NULL. Never fails. */
int perf__claimrec_at_least(const char *word);

/* Appends r as one JSON object to j. Never fails (j->oom says when memory
 * ran out; the text is then incomplete). */
void perf__claimrec_write(perf__json *j, const perf__claimrec *r);

/* r as JSON text (malloc'd), or NULL without memory. */
char *perf__claimrec_text(const perf__claimrec *r);

/* Fills r from one parsed claim object. Returns 0, PERF__ENOMEM, or
 * PERF__EPROTO with the problem in err[len] (not an object, no message or
 * outcome, an unknown outcome or kind, a member the kind needs missing or
 * of the wrong type, an unknown side of a point, SM clocks not one per
 * sample); r is left empty on failure. Members it does not know are passed
 * over. */
int perf__claimrec_read(const perf__jsontree_node *n, perf__claimrec *r, char *err,
                        size_t len);

/* Parses text (one JSON object) into r, as perf__claimrec_read. */
int perf__claimrec_parse(const char *text, perf__claimrec *r, char *err, size_t len);

/* Copies src into dst (deep). Returns 0 or PERF__ENOMEM (dst empty). */
int perf__claimrec_copy(perf__claimrec *dst, const perf__claimrec *src);

/* Frees what r owns and empties it. Never fails. */
void perf__claimrec_free(perf__claimrec *r);

#endif
