/* baselinecheck.h — baseline checks in the worker: this machine's file, comparing or recording measurements. */
#ifndef PERF_BASELINECHECK_H
#define PERF_BASELINECHECK_H

#include "perfgate.h"
#include "worker/verdict.h"

/* A workload measured by a ratio claim: recorded with --update-baselines,
 * compared with --baseline-check=all (when its entry exists; a FAIL is
 * counted as a claim). Ends the test as ERROR when this machine's baseline
 * file is malformed, or its entry was measured with another clock. */
void perf__baselinecheck_measured(perf_workload *w, double median, double mad,
                        long samples);
/* Both workloads of a comparison r decided (once when a == b), as
 * perf__baselinecheck_measured (and failing as it does). */
void perf__baselinecheck_pair(perf_workload *a, perf_workload *b, const perf__verdict_result *r);
/* A ratio claim's measured ratio: recorded with --update-baselines.
 * Never fails (a ratio that is not a finite number > 0 is not recorded). */
void perf__baselinecheck_ratio(perf_workload *any, const char *claim, double ratio);

#endif
