/* test.h — the running test's context in the worker: options, checks, outcome, early exit. */
#ifndef PERF_TEST_H
#define PERF_TEST_H

#include <stdint.h>

#include "perfgate.h"
#include "base/status.h"

/* Options the worker runs tests with (set from the command line). */
typedef struct perf__wopts {
  double budget_s; /* sampling budget per claim */
  int verbose;
  uint64_t seed;   /* bootstrap seed */
  int allow_no_sync_check; /* no CUPTI: skip sync checks instead of failing */
  const char *baseline_dir;
  int update_baselines;    /* record measurements instead of comparing */
  int baseline_check_all;  /* compare every measured workload */
  int strict_improvements;
} perf__wopts;
extern perf__wopts perf__wopt;

/* Kinds of report line the worker emits. */
enum perf__line_kind {
  PERF__DETAIL,  /* a detail line of the running test (verdicts, cold start) */
  PERF__VERBOSE, /* a detail line shown only with --verbose */
  PERF__INFO,    /* about the worker, not a test: timer floors, device */
  PERF__NOTICE,  /* shown once per run whatever the verbosity */
  PERF__RECORD,  /* data for the supervisor: a measurement to record */
  PERF__CLAIM    /* data for the supervisor: one claim's record (JSON) */
};

/* Where lines go: the worker sends them to the supervisor; the default
 * writes them to stdout. */
typedef void perf__line_sink(enum perf__line_kind kind, const char *line);
void perf__set_line_sink(perf__line_sink *sink);
/* Emits one line. Never fails (long lines are truncated at 1 KiB). */
void perf__line(enum perf__line_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Emits text whole (no 1 KiB limit): for PERF__CLAIM records. Never fails. */
void perf__line_raw(enum perf__line_kind kind, const char *text);

/* Generation of workload state in this worker (0 before the first test):
 * it changes with each test and each sweep point, and workload state from
 * an earlier generation is never reused. */
unsigned long perf__test_serial(void);
/* Starts a new generation (a sweep moved to its next point). */
void perf__test_new_point(void);
/* "suite.name" of the running test ("" outside a test). */
const char *perf__test_name(void);
/* Marks the running test's baseline state: 1 no file or entry, 2 a bad
 * file (the supervisor exits 2 for it). */
void perf__test_baseline_state(int state);

typedef struct perf__test_result {
  perf__outcome outcome; /* PASS, FAIL, SKIP or ERROR */
  int nodevice;          /* SKIP because no CUDA device could be used */
  int checks;            /* claims evaluated */
  int failures;          /* claims that did not hold (INCONCLUSIVE counts) */
  int skipped_checks;    /* checks that could not be made (and may be) */
  int baseline_missing;  /* a baseline check found no file or no entry */
  char reason[512];      /* why, for anything but PASS */
} perf__test_result;

/* Runs t's body, catching an early end (ASSERT, SKIP, CUDA error), and
 * releases the workloads it measured. Never fails itself. */
void perf__test_exec(const perf__test *t, perf__test_result *res);

/* Counts one claim and its outcome; a first failure sets the test's reason
 * from fmt. Each claim is also sent as a record for --json: its message,
 * outcome and the fields set by perf__test_claim_data since the last claim. */
void perf__test_claim(perf__outcome o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Extra JSON members (",\"key\": value..." text) for the next claim's
 * record; copied. Never fails (dropped when out of memory). */
void perf__test_claim_data(const char *members);

/* Counts a check that could not be made and is allowed not to be; a test
 * whose every check was skipped is SKIPPED with the first reason. */
void perf__test_skipped_check(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Ends the running test now with outcome o (FAIL, ERROR or SKIP). Outside a
 * test it prints the reason and aborts: it is a misuse of the API. */
void perf__test_end(perf__outcome o, int nodevice, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

#endif
