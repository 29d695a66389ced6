/* prepared.h — a prepared workload in words: what its clock waits for, its warm-up, its trace. */
#ifndef PERF_PREPARED_H
#define PERF_PREPARED_H

#include <stddef.h>

#include "perfgate.h"
#include "worker/sample/wstate.h"

/* How the medians of two workloads compared in a claim (or of one: a == b)
 * were timed, for a verdict line: "wall clock, medians", "wall clock, waits
 * for the device: the workloads queue work on streams they did not
 * declare; medians", or the clock and each workload's wait where they
 * differ. Returns buf. Never fails. */
const char *perf__prepared_clock_text(const perf_workload *a, const perf_workload *b,
                                char *buf, size_t len);

/* The lines of a workload just prepared: its cold start and batch, its
 * warm-up and sample target (set by 1000x the clock's floor when the
 * target is within floor_factor of it, else by the budget), the cold
 * clock's flush, batches the blocking kernel held back, and where its GPU
 * work goes. Never fails. */
void perf__prepared_report(const perf_workload *w, double floor_factor);

/* --trace-dir: w's trace as a Chrome trace file, named in a verbose line
 * (in a sweep, each point's replaces the last); a file that cannot be
 * written is said (once per worker) and the run goes on. Never fails. */
void perf__prepared_export_trace(const perf_workload *w);

#endif
