/* record.h — records one run's report document into the history store, in one transaction. */
#ifndef PERF_RECORD_H
#define PERF_RECORD_H

#include <stddef.h>

#include "io/jsontree.h"
#include "history/provenance.h"
#include "history/store.h"

/* One run to record: its report (a perfgate-report/1 document: a run's
 * --json report, or a merged one), parsed from text (the document as its
 * writer wrote it, kept whole in perfgate_reports), where its code came
 * from, and how it reached the history. */
typedef struct perf__record_in {
  const perf__jsontree_node *report;
  const char *text;
  const perf__provenance *p; /* its commit and branch */
  const char *origin;        /* "run", "merge" */
} perf__record_in;

/* Records in's report as one run: its start, exit code and totals, the GPU
 * (fingerprint "name"; without one, "no GPU: <the host's CPU model>", so
 * that host-only series of different machines stay apart) with its
 * fingerprint and driver, the
 * host, p's commit and branch, origin ("run", "merge"), the perfgate that
 * wrote the report (its run.perfgate; NULL when it does not say), the runner
 * before the run (its "preflight" array as JSON, and the causes that made
 * it unfit, "" when none; both NULL for a report without one), every claim (kind,
 * outcome, verdict line, clock, ratio and interval, sweep point) and every
 * workload measured for a ratio claim (median, its interval, samples,
 * clock), and the document itself. All of it or nothing: one transaction,
 * rolled back on any error (and by the store itself when the process dies
 * half-way). The store must be at the current schema
 * (perf__schema_migrate). Returns 0 with the run's id in *id (may be
 * NULL), or a negative PERF__ code with the reason in err[len] (a claim
 * record that cannot be read: PERF__EPROTO). */
int perf__record_run(perf__store *s, const perf__record_in *in, long long *id, char *err, size_t len);

#endif
