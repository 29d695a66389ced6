/* result.h — what the supervisor learned about one test, the input of every report. */
/* Its outcome, reason, claim records, lines and output. */
#ifndef PERF_RESULT_H
#define PERF_RESULT_H

#include <stddef.h>

#include "record/claimrec.h"
#include "util/registry.h"
#include "util/status.h"

/* A first attempt that a second one confirmed (record/confirm.h). */
typedef struct perf__result_attempt {
  perf_outcome outcome;
  char reason[700];
  double seconds;
  long worker_pid;
  perf__claimrec *claims;  /* its records that are not the test's final ones:
                              those judged again, and any the second attempt
                              did not reach */
  size_t nclaims;
} perf__result_attempt;

/* The line prefixes that show the two attempts of a test in its lines. */
#define PERF__RESULT_FIRST "first attempt: "
#define PERF__RESULT_CONFIRMED "confirmed: "

/* What the supervisor learned about one test. */
typedef struct perf__result {
  char name[256];
  perf_outcome outcome;   /* PASS, FAIL, SKIP or ERROR */
  int nodevice;            /* skipped for want of a CUDA device */
  int broken;              /* CUDA failed to start in the worker: retire it */
  int baseline_state;      /* 1 no baseline file/entry, 2 a bad file */
  double seconds;          /* wall clock, supervisor side */
  long worker_pid;         /* the worker process that ran it */
  char reason[700];
  perf__claimrec *claims;  /* one record per claim (PERF__MSG_CLAIM) */
  size_t nclaims;
  char **lines;            /* detail lines from the worker */
  int *verbose_only;
  size_t nlines;
  perf__result_attempt *first; /* the first attempt when the test ran twice
                                  (outcome, reason, seconds and claims are
                                  then the final ones), else NULL */
  char *output;            /* what the test wrote to stdout/stderr */
  size_t output_len;
  int output_truncated;
} perf__result;

/* A run's results r[0..n) and the tests they are of: r[i] is tests[i % nt]'s
 * (a run that runs its tests more than once holds each round's in turn). */
typedef struct perf__result_set {
  const perf__registry_test **tests;
  size_t nt;
  const perf__result *r;
  size_t n;
} perf__result_set;

/* Takes ownership of text. Returns 0 or PERF__ENOMEM (text freed). */
int perf__result_add_line(perf__result *r, int verbose_only, char *text);
/* Appends captured output, keeping at most 64 KiB. Never fails. */
void perf__result_add_output(perf__result *r, const char *p, size_t n);

/* How much of r's output a report shows: all of it, or when it was cut at
 * the cap, up to its last whole line (all that was kept when it holds no
 * line break); the report then says "[output truncated at 64 KiB]". Never
 * fails. */
size_t perf__result_output_shown(const perf__result *r);

/* The marker a report prints after output that was cut at the cap. */
#define PERF__OUTPUT_CUT "[output truncated at 64 KiB]"
/* Takes over what c owns (c is left empty). Never fails: without memory the
 * record is freed and dropped. */
void perf__result_add_claim(perf__result *r, perf__claimrec *c);
void perf__result_free(perf__result *r);

#endif
