/* jsonreport.h — the one writer of perfgate-report/1, for --json, --merge and embedders. */
/* It writes the run, totals, preflight, fingerprints, the tests with their
 * claim records, and headroom. */
#ifndef PERF_JSONREPORT_H
#define PERF_JSONREPORT_H

#include <stddef.h>
#include <time.h>

#include "io/json.h"
#include "io/jsontree.h"
#include "util/registry.h"
#include "report/result.h"
#include "cli/options.h"

/* The schema every document names in its "schema" member; --merge reads
 * only documents that name it. */
#define PERF__JSONREPORT_SCHEMA "perfgate-report/1"

/* The "run" member, its fields written in this order; each document fills
 * what it has (the C runner, --merge, an embedder). */
typedef struct perf__jsonreport_run {
  int merged;                   /* 1: "merged": true, first (--merge) */
  const char *perfgate;         /* the version that wrote the tests; NULL: null */
  const time_t *started;        /* when the run began; NULL: not written */
  int exit_code;
  int argc;                     /* argv[0..argc), secrets masked; -1: not written */
  const char *const *argv;
  const perf__options_cli *cli; /* the C runner's seed, budget_s, timeout_s, device,
                                   repeat, shuffle; NULL: not written */
  long shard_index, shard_total;
  const char *run_id; /* the run its shards share (NULL or "": none) */
  const char *runs_key;         /* "shards" or "devices": the merged reports' own
                                   "run" members, runs[0..nruns); NULL: none */
  const perf__jsontree_node *const *runs;
  size_t nruns;
  const perf__jsontree_node *extra; /* an object whose members end the run (an
                                       embedder's own); NULL: none */
} perf__jsonreport_run;

/* The "totals" member. */
typedef struct perf__jsonreport_totals {
  double tests, passed, failed, skipped, seconds;
} perf__jsonreport_totals;

/* A document whose preflight and tests are JSON trees already (--merge's
 * reports, an embedder's tests). preflight[0..npreflight) and
 * tests[0..ntests) are arrays (a member that is not one counts as empty)
 * whose items are written one after the other as one list. */
typedef struct perf__jsonreport_trees {
  perf__jsonreport_run run;
  perf__jsonreport_totals totals;
  const perf__jsontree_node *const *preflight;
  size_t npreflight;
  const perf__jsontree_node *const *tests;
  size_t ntests;
  int own_host;                            /* 1: this host's fingerprint, "gpu": null */
  const perf__jsontree_node *fingerprint;  /* else this one as read; NULL: null */
} perf__jsonreport_trees;

/* Appends the report of the results res of a run (cli's) that began at
 * started and exits with code to j. The GPU's fingerprint is measured in
 * a child process (this process never touches CUDA). Never fails (out of
 * memory shows in j->oom). */
void perf__jsonreport_write(perf__json *j, const perf__options_cli *cli,
                            const perf__result_set *res, time_t started, int code);

/* Appends the document d to j, in the shape perf__jsonreport_write gives.
 * Never fails (out of memory shows in j->oom). */
void perf__jsonreport_write_trees(perf__json *j, const perf__jsonreport_trees *d);

/* Checks that test t (one item of a document's "tests") has an outcome
 * perfgate writes. Returns 0, or -1 with "test NAME has no outcome (PASS,
 * ...)" or "... has the unknown outcome 'X' (...)" in err[len]. */
int perf__jsonreport_check_test(const perf__jsontree_node *t, char *err, size_t len);

/* The totals of the test arrays tests[0..n) as the C runner counts them
 * (failed: FAIL, INCONCLUSIVE and ERROR; seconds 0: the caller's).
 * Never fails (a test of an unknown outcome counts only in tests). */
perf__jsonreport_totals perf__jsonreport_count(const perf__jsontree_node *const *tests, size_t n);

/* 1 when the "run" member writes a field named key itself (an embedder's
 * own members may not repeat one), else 0. Never fails. */
int perf__jsonreport_run_key(const char *key);

#endif
