/* context.h — the worker's running test: options, lines, claim tally, end-of-test jump, hooks. */
#ifndef PERF_CONTEXT_H
#define PERF_CONTEXT_H

/* The context is the leaf of the worker: every worker module may call it,
 * and it calls none of them. It holds what a test's code reaches from
 * anywhere below the test body — the options the worker runs with, where
 * lines go, the tally of the running test's claims, and the jump that ends
 * the test early (an ASSERT, a CUDA error, misuse). Modules that keep state
 * per test register end-of-test hooks here instead of being called by name
 * from above: after the body, test.c runs the check hooks (which may turn a
 * PASS into an ERROR), settles the device, then runs the test's deferred
 * cleanups (PERF_DEFER, PERF_ALLOC_*, last first) and the release hooks.
 * Anything that measures — the sampler in bench/fidelity.c too — runs
 * inside perf__context_begin / perf__context_finish. */

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "record/claimrec.h"
#include "util/status.h"

/* Options the worker runs tests with (set from the command line). */
typedef struct perf__context_opts {
  double budget_s; /* sampling budget per claim */
  int verbose;
  uint64_t seed;   /* bootstrap seed */
  int allow_no_sync_check; /* no CUPTI: skip sync checks instead of failing */
  const char *baseline_dir;
  const char *trace_dir;   /* --trace-dir: write each workload's trace there; NULL */
  int update_baselines;    /* record measurements instead of comparing */
  int baseline_check_all;  /* compare every measured workload */
  int strict_improvements;
  int confirm;             /* a claim that fails is confirmed in a second
                              attempt (record/confirm.h): each judges at a
                              share of alpha */
} perf__context_opts;
extern perf__context_opts perf__context_opt;

/* The kinds of line the worker emits are perfgate.h's perf_line_kind. */

/* Where lines go: the worker sends them to the supervisor; the default
 * writes them to stdout. */
typedef void perf__context_sink(perf_line_kind kind, const char *line);
void perf__context_set_sink(perf__context_sink *sink);
/* Emits one line. Never fails (long lines are truncated at 4 KiB). */
void perf__context_line(perf_line_kind kind, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Emits text whole (no 1 KiB limit): for PERF_LINE_CLAIM records. Never fails. */
void perf__context_line_raw(perf_line_kind kind, const char *text);

/* What became of one test. */
typedef struct perf__context_result {
  perf_outcome outcome; /* PASS, FAIL, SKIP or ERROR */
  int nodevice;          /* SKIP because no CUDA device could be used */
  int checks;            /* claims evaluated */
  int failures;          /* claims that did not hold (INCONCLUSIVE counts) */
  int skipped_checks;    /* checks that could not be made (and may be) */
  int baseline_missing;  /* a baseline check found no file or no entry */
  char reason[512];      /* why, for anything but PASS */
} perf__context_result;

/* Starts a test named name whose result goes to *res (emptied, PASS), and
 * a new generation. Returns the jump buffer perf__context_end jumps to: the
 * caller setjmp()s on it at once. Never fails. */
jmp_buf *perf__context_begin(const char *name, perf__context_result *res);
/* The outcome of a body that returned normally: FAIL after a claim that did
 * not hold, SKIP when every check was skipped, ERROR when nothing was
 * checked, else PASS. Never fails. */
void perf__context_settle(void);
/* After the body: runs the check hooks, in registration order, on the
 * result. Never fails. */
void perf__context_finish_checks(void);
/* Then (test.c settles the device in between): runs the test's deferred
 * cleanups, last registered first, then the release hooks, and leaves the
 * test. Never fails. */
void perf__context_finish(void);
/* 1 while a test runs. */
int perf__context_running(void);
/* "suite.name" of the running test ("" outside a test). */
const char *perf__context_name(void);

/* Generation of workload state in this worker (0 before the first test):
 * it changes with each test and each sweep point, and workload state from
 * an earlier generation is never reused. */
unsigned long perf__context_generation(void);
/* Starts a new generation (a sweep moved to its next point). */
void perf__context_new_generation(void);

/* Marks the running test's baseline state: 1 no file or entry, 2 a bad
 * file (the supervisor exits 2 for it). Keeps the worse. Never fails. */
void perf__context_baseline_state(int state);

/* Counts one claim (r's outcome); a first failure sets the test's reason
 * from r->message. The record goes to the supervisor as a PERF_LINE_CLAIM line
 * (not sent when out of memory). Never fails; outside a test it does
 * nothing. */
void perf__context_claim(const perf__claimrec *r);

/* ---- Confirm before failing (record/confirm.h) ----
 * The claims a second attempt may take from the first (FASTER, SIMILAR,
 * CROSSOVER, BASELINE) open a claim with an id; every record sent until it
 * is closed carries that id (a ratio claim's --baseline-check=all records
 * too). */

/* The ids of the claims the next test's attempt takes from the first, as
 * a KEEP message listed them (copied; NULL: none, a first attempt). Never
 * fails (without memory every claim is judged). */
void perf__context_keep(const char *list);
/* The share of alpha each attempt spends: PERF__CONFIRM_ALPHA_SHARE when
 * claims are confirmed, else 1. Never fails. */
double perf__context_alpha_share(void);
/* Opens the claim made at file:line and sweep point point (its tag, e.g.
 * " [n=64]", or ""): its id is "file:line" and point, then "#k" for the
 * k-th claim with that site and point in the test (k > 1), unless once (a
 * CROSSOVER, one claim over a sweep's points, keeps one id). Returns 1
 * when this attempt takes the claim from the first: the caller measures
 * nothing and returns perf__context_claim_kept(head). Never fails (without
 * memory the id is cut short). */
int perf__context_claim_open(const char *file, int line, const char *point, int once);
/* Sends the open claim's place-holder record (PASS, kept: the supervisor
 * puts the first attempt's records there), counts it, closes the claim
 * and returns 1. Never fails. */
int perf__context_claim_kept(const char *head);
/* Closes the open claim: later records carry no id. Never fails. */
void perf__context_claim_close(void);

/* Counts a check that could not be made and is allowed not to be; a test
 * whose every check was skipped is SKIPPED with the first reason. Never
 * fails. */
void perf__context_skipped_check(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Ends the running test now with outcome o (FAIL, ERROR or SKIP), after
 * the end hooks. Outside a test it prints the reason and aborts: it is a
 * misuse of the API. */
void perf__context_end(perf_outcome o, int nodevice, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

/* A check hook: runs after every test's body, may set res to ERROR with a
 * reason when the test left something unfinished. Must not end the test. */
typedef void perf__context_check_hook(perf__context_result *res);
/* A release hook: frees what a module kept for the test that ended. */
typedef void perf__context_release_hook(void);
/* An end hook: runs in perf__context_end, before its jump, while the
 * frames of the code it ends are still there (a release hook runs after
 * they are gone): frees what those frames own. Must not end the test. */
typedef void perf__context_end_hook(void);
/* Registers a hook for every later test (a module does so at its first
 * use; registering one twice keeps one). Up to 16 of each; aborts beyond
 * (a bug in the framework, not the user's). */
void perf__context_on_check(perf__context_check_hook *hook);
void perf__context_on_release(perf__context_release_hook *hook);
void perf__context_on_end(perf__context_end_hook *hook);

/* Runs fn(arg) when the running test ends, however it ends (cleanups run
 * last registered first); file:line, where it was registered, names it
 * when it fails. Ends the test as FAIL when out of memory (fn is then
 * called at once). */
void perf__context_defer(void (*fn)(void *), void *arg, const char *file, int line);

/* How many cleanups the running test has registered: a mark for
 * perf__context_unwind. Never fails. */
size_t perf__context_cleanup_mark(void);
/* Runs, last first, the cleanups registered since mark (a sweep point
 * ended: what it allocated goes). A cleanup that ends the test (a failed
 * PERF_CUDA) ends it as any failure would. */
void perf__context_unwind(size_t mark);

#endif
